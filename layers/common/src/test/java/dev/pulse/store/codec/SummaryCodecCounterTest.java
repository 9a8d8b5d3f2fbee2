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
package dev.pulse.store.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.aggregate.Counter;
import dev.pulse.aggregate.Summary;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A cumulative counter's fields in the stored summary: kept exactly, optional, and free for every other series. */
class SummaryCodecCounterTest {

    private static final long T0 = 1_795_262_400_000L;
    private static final long START = 1_795_000_000_123_456_789L;

    /** A summary of counter samples {time offset ms, start ns, value}. */
    private static Summary counter(long[][] timesAndStarts, double[] values) {
        Summary s = new Summary();
        for (int i = 0; i < values.length; i++) {
            s.add(values[i]);
            s.addCounterSample(T0 + timesAndStarts[i][0], timesAndStarts[i][1], values[i]);
        }
        return s;
    }

    private static Summary gauge(double... values) {
        Summary s = new Summary();
        for (double v : values) {
            s.add(v);
        }
        return s;
    }

    static Stream<Arguments> counters() {
        return Stream.of(
                Arguments.of("one sample", counter(new long[][] {{5_000, 0}}, new double[] {42})),
                Arguments.of("one sample with a start time", counter(new long[][] {{5_000, START}}, new double[] {42})),
                Arguments.of(
                        "several, no start time",
                        counter(new long[][] {{1_000, 0}, {31_000, 0}, {59_999, 0}}, new double[] {10, 17.5, 20})),
                Arguments.of("a reset by value", counter(new long[][] {{1_000, 0}, {31_000, 0}}, new double[] {10, 2})),
                Arguments.of(
                        "a reset by start time",
                        counter(new long[][] {{1_000, START}, {31_000, START + 1}}, new double[] {10, 20})),
                Arguments.of("ties at one time", counter(new long[][] {{0, 0}, {0, 0}}, new double[] {3, 1})),
                Arguments.of(
                        "an exact increase of three partials",
                        counter(new long[][] {{0, 0}, {1, 0}, {2, 0}}, new double[] {1e16, 1e16 + 2, 1})));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("counters")
    void decode_whenCounterEncoded_givesTheSameCounterAndSummary(String name, Summary want) {
        byte[] bytes = SummaryCodec.encode(want);

        for (boolean withSketch : new boolean[] {true, false}) {
            Summary got = SummaryCodec.decode(bytes, withSketch);
            assertThat(got.counter()).isEqualTo(want.counter());
            assertThat(got.counter().increase()).isEqualTo(want.counter().increase());
            assertThat(got.count()).isEqualTo(want.count());
            assertThat(got.sum()).isEqualTo(want.sum());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("counters")
    void decodeBuckets_whenSomeBucketsHoldCounters_givesEachBackAndNoneWhereThereWasNone(String name, Summary want) {
        SortedMap<Integer, Summary> buckets = new TreeMap<>();
        buckets.put(0, gauge(1, 2));
        buckets.put(7, want);
        buckets.put(59, gauge(3));

        SortedMap<Integer, Summary> got = SummaryCodec.decodeBuckets(SummaryCodec.encodeBuckets(buckets), false);

        assertThat(got.keySet()).containsExactly(0, 7, 59);
        assertThat(got.get(0).counter()).isNull();
        assertThat(got.get(59).counter()).isNull();
        assertThat(got.get(7).counter()).isEqualTo(want.counter());
    }

    /** Gauges and deltas pay nothing: the bytes are those the encoding wrote before counters existed. */
    @Test
    void encode_whenNoCounter_writesNoByteMore() {
        Summary g = gauge(1, 2, 3);
        Summary c = gauge(1, 2, 3);
        c.addCounterSample(T0, 0, 1);
        byte[] plain = SummaryCodec.encode(g);

        assertThat(SummaryCodec.encode(c)).startsWith(plain).hasSizeGreaterThan(plain.length);
        SortedMap<Integer, Summary> buckets = new TreeMap<>(java.util.Map.of(0, g, 1, gauge(5)));
        byte[] v1 = SummaryCodec.encodeBuckets(buckets);
        assertThat(v1[0]).isEqualTo((byte) 1);
        // Version 1 as written before: index, summary, index, summary.
        byte[] a = SummaryCodec.encode(g);
        byte[] b = SummaryCodec.encode(gauge(5));
        assertThat(v1).hasSize(1 + 1 + a.length + 1 + b.length);
    }

    /** What a one-sample-a-minute counter's partial pays: its time (the value is the summary's own). */
    @Test
    void encode_whenOneSampleWithoutStart_addsAtMostEightBytes() {
        Summary c = counter(new long[][] {{30_000, 0}}, new double[] {1234.5});

        int extra = SummaryCodec.encode(c).length - SummaryCodec.encode(gauge(1234.5)).length;

        assertThat(extra).isBetween(1, 8); // flags, the time as a varint
    }

    @Test
    void decode_whenWrittenBeforeCounters_hasNoCounter() {
        byte[] legacy = SummaryCodec.encode(gauge(4, 5));

        assertThat(SummaryCodec.decode(legacy, true).counter()).isNull();
        assertThat(SummaryCodec.decodeBuckets(
                                SummaryCodec.encodeBuckets(new TreeMap<>(java.util.Map.of(3, gauge(4)))), true)
                        .get(3)
                        .counter())
                .isNull();
    }

    @Test
    void decode_whenMergedAfterDecoding_joinsRunsAsBeforeEncoding() {
        Summary a = counter(new long[][] {{0, 0}, {10_000, 0}}, new double[] {5, 9});
        Summary b = counter(new long[][] {{60_000, 0}, {70_000, 0}}, new double[] {1, 4});
        Summary want = Summary.withoutSketch();
        want.merge(a);
        want.merge(b);

        Summary got = Summary.withoutSketch();
        got.merge(SummaryCodec.decode(SummaryCodec.encode(b), false));
        got.merge(SummaryCodec.decode(SummaryCodec.encode(a), false));

        Counter c = got.counter();
        assertThat(c).isEqualTo(want.counter());
        assertThat(c.increase()).isEqualTo(4 + 1 + 3);
        assertThat(c.resets()).isEqualTo(1);
        assertThat(List.of(c.firstValue(), c.lastValue())).containsExactly(5.0, 4.0);
    }

    /**
     * An hour of counter minutes, each written against the one before (time from its last time, a start time equal to
     * its last start left out): every minute decodes as it was, through a restart, a gap and a start time going back.
     */
    @Test
    void decodeBuckets_whenEveryMinuteHoldsACounter_givesEachMinutesCounterBack() {
        SortedMap<Integer, Summary> minutes = new TreeMap<>();
        long start = START;
        double total = 5_000;
        for (int m = 0; m < 60; m++) {
            if (m == 17 || m == 40) {
                continue; // minutes without data
            }
            if (m == 23) {
                start += 7_000_000_000L; // the writer restarted
                total = 2;
            }
            long s = m == 50 ? START - 1 : start; // a start time older than the one before: kept as sent
            int samples = 1 + m % 3;
            long[][] ts = new long[samples][];
            double[] values = new double[samples];
            for (int k = 0; k < samples; k++) {
                ts[k] = new long[] {m * 60_000L + k * 20_000L + 5_000, s};
                total += m % 5;
                values[k] = total;
            }
            minutes.put(m, counter(ts, values));
        }
        minutes.put(17, gauge(1));

        SortedMap<Integer, Summary> got = SummaryCodec.decodeBuckets(SummaryCodec.encodeBuckets(minutes), false);

        assertThat(got.keySet()).isEqualTo(minutes.keySet());
        minutes.forEach(
                (m, want) -> assertThat(got.get(m).counter()).as("minute %d", m).isEqualTo(want.counter()));
        Summary all = Summary.withoutSketch();
        got.values().forEach(all::merge);
        Summary wantAll = Summary.withoutSketch();
        minutes.values().forEach(wantAll::merge);
        assertThat(all.counter()).isEqualTo(wantAll.counter());
        // The restart at minute 23, and minute 51's start time, newer than minute 50's older one.
        assertThat(all.counter().resets()).isEqualTo(2);
    }
}
