/*
 * Copyright 2026 The Pulse authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package dev.pulse.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class CounterTest {

    private static final long T0 = 1_795_262_400_000L;
    private static final long START = 1_795_000_000_000_000_000L;

    /** A sample: time offset in seconds, OTLP start time (0: none), value. */
    private record S(long seconds, long start, double value) {
        Counter counter() {
            return Counter.sample(T0 + seconds * 1000, start, value);
        }
    }

    private static S s(long seconds, double value) {
        return new S(seconds, 0, value);
    }

    private static S s(long seconds, long start, double value) {
        return new S(seconds, start, value);
    }

    private static Counter fold(List<S> samples) {
        return Counter.fold(samples.stream().map(S::counter).toList());
    }

    /** Reset-corrected increase as Prometheus computes it over samples in time order, plus OTLP start-time resets. */
    static Arguments placement(String name, List<S> samples, double increase, long resets) {
        return Arguments.of(name, samples, increase, resets);
    }

    static Stream<Arguments> placements() {
        return Stream.of(
                placement("no reset", List.of(s(0, 10), s(60, 15), s(120, 22)), 12, 0),
                placement("reset in the middle", List.of(s(0, 10), s(60, 15), s(120, 3), s(180, 7)), 5 + 3 + 4, 1),
                placement("reset at the last sample", List.of(s(0, 10), s(60, 15), s(120, 2)), 5 + 2, 1),
                placement("reset right after the first sample", List.of(s(0, 10), s(60, 0), s(120, 4)), 0 + 4, 1),
                placement("two resets in a row", List.of(s(0, 10), s(60, 5), s(120, 1), s(180, 2)), 5 + 1 + 1, 2),
                placement("constant", List.of(s(0, 7), s(60, 7), s(120, 7)), 0, 0),
                placement(
                        "start time newer, value higher",
                        List.of(s(0, START, 10), s(60, START, 12), s(120, START + 5, 20)),
                        2 + 20,
                        1),
                placement("start time newer, value lower", List.of(s(0, START, 10), s(60, START + 5, 4)), 4, 1),
                placement("start time unchanged", List.of(s(0, START, 10), s(60, START, 12)), 2, 0),
                placement("start time older does not reset", List.of(s(0, START, 10), s(60, START - 5, 12)), 2, 0),
                placement("start time sent after none", List.of(s(0, 10), s(60, START, 12)), 2, 0),
                placement("ties: the same time, ordered by value", List.of(s(0, 10), s(60, 14), s(60, 12)), 4, 0),
                placement("negative values", List.of(s(0, -5), s(60, -2), s(120, -9)), 3 + -9, 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("placements")
    void fold_whenSamplesInTimeOrder_givesTheResetCorrectedIncrease(
            String name, List<S> samples, double increase, long resets) {
        Counter c = fold(samples);

        assertThat(c.increase()).isEqualTo(increase);
        assertThat(c.resets()).isEqualTo(resets);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("placements")
    void fold_whenRunsSplitAnywhereAndShuffled_givesTheSameCounter(
            String name, List<S> samples, double increase, long resets) {
        List<S> sorted = new ArrayList<>(samples);
        sorted.sort((a, b) -> Counter.ORDER.compare(a.counter(), b.counter()));
        Counter whole = fold(samples);
        SplittableRandom r = new SplittableRandom(name.hashCode());
        for (int cut = 1; cut < sorted.size(); cut++) {
            for (int cut2 = cut; cut2 <= sorted.size(); cut2++) {
                // Three runs [0, cut), [cut, cut2), [cut2, n): partials of one series, merged in any order.
                List<Counter> runs = new ArrayList<>();
                runs.add(fold(sorted.subList(0, cut)));
                if (cut2 > cut) {
                    runs.add(fold(sorted.subList(cut, cut2)));
                }
                if (cut2 < sorted.size()) {
                    runs.add(fold(sorted.subList(cut2, sorted.size())));
                }
                Collections.shuffle(runs, new java.util.Random(r.nextLong()));

                assertThat(Counter.fold(runs)).as("runs %s", runs).isEqualTo(whole);
            }
        }
    }

    @Test
    void then_whenNextStartsBelowTheLast_countsItsFirstValueAsIncrease() {
        Counter a = fold(List.of(s(0, 100), s(30, 140)));
        Counter b = fold(List.of(s(60, 5), s(90, 25)));

        Counter joined = a.then(b);

        assertThat(joined.increase()).isEqualTo(40 + 5 + 20);
        assertThat(joined.resets()).isEqualTo(1);
        assertThat(joined.firstValue()).isEqualTo(100);
        assertThat(joined.lastValue()).isEqualTo(25);
        assertThat(joined.lastTime() - joined.firstTime()).isEqualTo(90_000);
    }

    @Test
    void sample_whenOne_hasNoIncreaseAndNoReset() {
        Counter c = Counter.sample(T0, START, 42);

        assertThat(c.increase()).isZero();
        assertThat(c.resets()).isZero();
        assertThat(c.isSingleSample()).isTrue();
        assertThat(c.firstValue()).isEqualTo(c.lastValue()).isEqualTo(42);
    }

    /**
     * Ingest refuses a value that is not finite before it reaches a partial (DatapointValidator: poison naming the
     * value); should one reach a summary, the counter leaves it out rather than turn every later increase NaN.
     */
    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void addCounterSample_whenNotFinite_isLeftOutOfTheCounterButCountsInTheSummary(double bad) {
        Summary s = Summary.withoutSketch();
        for (double v : new double[] {10, bad, 15}) {
            s.add(v);
            s.addCounterSample(T0 + (long) s.count() * 1000, 0, v);
        }

        assertThat(s.count()).isEqualTo(3);
        assertThat(s.counter().increase()).isEqualTo(5);
        assertThat(s.counter().resets()).isZero();
    }

    @Test
    void addCounterSample_whenOnlyNotFinite_leavesNoCounter() {
        Summary s = Summary.withoutSketch();
        s.add(Double.NaN);
        s.addCounterSample(T0, 0, Double.NaN);

        assertThat(s.counter()).isNull();
    }

    /** Increases of values far apart in magnitude: the exact sum keeps every unit, in every grouping. */
    @Test
    void fold_whenValuesOfVeryDifferentMagnitudes_isExact() {
        List<S> samples = List.of(s(0, 1e16), s(60, 1e16 + 2), s(120, 1), s(180, 1e16 + 4), s(240, 3));
        // +2, reset to 1 (+1), +(1e16 + 4 - 1), reset to 3 (+3)
        Counter c = fold(samples);

        assertThat(c.increase()).isEqualTo(new java.math.BigDecimal("10000000000000009").doubleValue());
        assertThat(c.resets()).isEqualTo(2);
    }

    @Test
    void merge_whenSummariesMergedInAnyOrder_giveTheSameCounter() {
        List<Summary> minutes = new ArrayList<>();
        double total = 0;
        SplittableRandom r = new SplittableRandom(3);
        for (int m = 0; m < 30; m++) {
            Summary s = new Summary();
            for (int k = 0; k < 4; k++) {
                total = r.nextInt(20) == 0 ? r.nextInt(5) : total + r.nextInt(100) * 0.1;
                s.add(total);
                s.addCounterSample(T0 + m * 60_000L + k * 15_000L, 0, total);
            }
            minutes.add(s);
        }
        Summary inOrder = Summary.withoutSketch();
        minutes.forEach(inOrder::merge);
        List<Summary> shuffled = new ArrayList<>(minutes);
        Collections.shuffle(shuffled, new java.util.Random(11));
        Summary hourA = Summary.withoutSketch();
        Summary hourB = Summary.withoutSketch();
        for (int i = 0; i < shuffled.size(); i++) {
            (i % 2 == 0 ? hourA : hourB).merge(shuffled.get(i));
        }
        Summary grouped = Summary.withoutSketch();
        grouped.merge(hourB);
        grouped.merge(hourA);

        assertThat(grouped.counter()).isEqualTo(inOrder.counter());
    }
}
