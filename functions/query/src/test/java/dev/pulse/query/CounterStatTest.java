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
package dev.pulse.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.aggregate.Summary;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The statistics rate, increase, irate and resets read: over a cumulative counter from its stored counter, over
 * anything else as before (the increase of delta data is its sum), the same from a fresh merge and from a cached bucket.
 */
class CounterStatTest {

    private static final long MINUTE = 60_000L;
    private static final long T0 = 1_795_262_400_000L;

    /** A counter sampled at second 30 of each minute: 100, 110, 125, a restart at 3, then 9, 20. */
    private static SortedMap<Long, Summary> counterMinutes(boolean withSketch) {
        double[] totals = {100, 110, 125, 3, 9, 20};
        SortedMap<Long, Summary> out = new TreeMap<>();
        for (int m = 0; m < totals.length; m++) {
            Summary s = withSketch ? new Summary() : Summary.withoutSketch();
            s.add(totals[m]);
            s.addCounterSample(T0 + m * MINUTE + 30_000, 0, totals[m]);
            out.put(T0 + m * MINUTE, s);
        }
        return out;
    }

    @ParameterizedTest(name = "with sketch {0}")
    @ValueSource(booleans = {true, false})
    void value_whenCumulativeCounter_answersTheResetCorrectedIncreaseFromMergedAndCachedBuckets(boolean withSketch) {
        List<Stat> stats = List.of(Stat.INCREASE, Stat.RESETS, Stat.parse("sum"));
        PeriodBucket[] buckets =
                PeriodBucket.group(counterMinutes(withSketch), 3 * MINUTE, 0, Long.MAX_VALUE, withSketch, stats);

        assertThat(buckets).hasSize(2);
        assertThat(buckets[0].value(Stat.INCREASE)).isEqualTo(25); // 100 -> 125
        assertThat(buckets[1].value(Stat.INCREASE)).isEqualTo(17); // 3 -> 20; the restart lies between the buckets
        assertThat(buckets[0].value(Stat.parse("sum"))).isEqualTo(335); // the samples themselves, as before
        assertThat(buckets[0].value(Stat.COUNTER_LAST)).isEqualTo(125);
        assertThat(buckets[1].value(Stat.COUNTER_FIRST_TIME)).isEqualTo(T0 + 3 * MINUTE + 30_000);
        PeriodBucket joined = buckets[0].join(buckets[1]);
        assertThat(joined.value(Stat.INCREASE)).isEqualTo(25 + 3 + 17);
        assertThat(joined.value(Stat.RESETS)).isEqualTo(1);
        assertThat(Stat.INCREASE.of(joined.summary)).isEqualTo(45);
    }

    @ParameterizedTest(name = "with sketch {0}")
    @ValueSource(booleans = {true, false})
    void value_whenDeltaData_increaseIsTheSumAndCounterStatsAreAbsent(boolean withSketch) {
        SortedMap<Long, Summary> minutes = new TreeMap<>();
        for (int m = 0; m < 3; m++) {
            Summary s = withSketch ? new Summary() : Summary.withoutSketch();
            s.add(m + 1);
            minutes.put(T0 + m * MINUTE, s);
        }
        PeriodBucket b = PeriodBucket.group(minutes, 3 * MINUTE, 0, Long.MAX_VALUE, withSketch, List.of())[0];

        assertThat(b.value(Stat.INCREASE)).isEqualTo(6);
        assertThat(b.value(Stat.RESETS)).isNaN();
        assertThat(Stat.RESETS.of(b.summary)).isNull();
        assertThat(Stat.INCREASE.of(b.summary)).isEqualTo(6);
    }

    /** As Prometheus, an increase needs two samples: a bucket whose samples are all at one instant answers none. */
    @ParameterizedTest(name = "with sketch {0}")
    @ValueSource(booleans = {true, false})
    void value_whenCounterBucketHoldsOneSample_increaseIsAbsent(boolean withSketch) {
        SortedMap<Long, Summary> minutes = counterMinutes(withSketch);
        PeriodBucket[] buckets = PeriodBucket.group(minutes, MINUTE, 0, Long.MAX_VALUE, withSketch, List.of());

        assertThat(buckets[0].value(Stat.INCREASE)).isNaN();
        assertThat(Stat.INCREASE.of(buckets[0].summary)).isNull();
        assertThat(buckets[0].value(Stat.RESETS)).isZero();
    }
}
