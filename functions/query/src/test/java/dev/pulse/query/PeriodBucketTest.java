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
import dev.pulse.store.codec.SummaryCodec;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PeriodBucketTest {

    private static final long MINUTE = 60_000L;
    private static final List<Stat> STATS = List.of(Stat.parse("count"), Stat.parse("p99"), Stat.parse("p50"));

    /** An hour of minute summaries as read from storage (sketches still encoded), minute m holding m+1 values. */
    private static SortedMap<Long, Summary> hour(long start) {
        SortedMap<Long, Summary> out = new TreeMap<>();
        for (int m = 0; m < 60; m++) {
            Summary s = new Summary();
            for (int v = 0; v <= m; v++) {
                s.add(1 + v * 7.5 + m);
            }
            out.put(start + m * MINUTE, SummaryCodec.decode(SummaryCodec.encode(s), true));
        }
        return out;
    }

    /** The same bucket merged directly from the minutes, the way a bucket spanning rollups is. */
    private static Summary direct(SortedMap<Long, Summary> minutes, long from, long to) {
        Summary s = new Summary();
        minutes.subMap(from, to).values().forEach(s::merge);
        return s;
    }

    @ParameterizedTest
    @CsvSource({
        "5, 0, 12", // PT5M on the hour
        "5, 2, 13", // PT5M on a grid two minutes past: a short first and last bucket
        "7, 3, 10", // PT7M: buckets that cross the hour end partly
        "1, 0, 60", // PT1M: one minute a bucket
        "60, 0, 1",
        "90, 30, 2", // longer than the rollup
    })
    void group_whenPeriodAndPhaseVary_everyBucketEqualsTheDirectMerge(
            long periodMinutes, long phaseMinutes, int buckets) {
        SortedMap<Long, Summary> minutes = hour(0);
        long period = periodMinutes * MINUTE;

        PeriodBucket[] grouped =
                PeriodBucket.group(minutes, period, phaseMinutes * MINUTE, Long.MAX_VALUE, true, STATS);

        assertThat(grouped).hasSize(buckets);
        long covered = 0;
        for (PeriodBucket b : grouped) {
            assertThat(Math.floorMod(b.start - phaseMinutes * MINUTE, period)).isZero();
            Summary want = direct(minutes, b.start, b.start + period);
            covered += want.count();
            for (Stat st : List.of(
                    Stat.parse("count"),
                    Stat.parse("sum"),
                    Stat.parse("min"),
                    Stat.parse("max"),
                    Stat.parse("p99"),
                    Stat.parse("p50"),
                    Stat.parse("p75"))) {
                assertThat(b.value(st))
                        .as("%s of the bucket at %d", st.label(), b.start)
                        .isEqualTo((double) st.of(want));
            }
        }
        assertThat(covered).isEqualTo(60 * 61 / 2);
    }

    @Test
    void group_whenEndCutsTheRollup_leavesOutEntriesAtOrAfterIt() {
        SortedMap<Long, Summary> minutes = hour(0);

        PeriodBucket[] grouped = PeriodBucket.group(minutes, 5 * MINUTE, 0, 23 * MINUTE, false, List.of());

        assertThat(grouped).hasSize(5);
        assertThat(grouped[4].start).isEqualTo(20 * MINUTE);
        assertThat(grouped[4].summary.count()).isEqualTo(21 + 22 + 23);
        assertThat(grouped[4].summary.hasSketch()).isFalse();
    }

    @Test
    void group_whenEntriesEmpty_makesNoBucket() {
        SortedMap<Long, Summary> minutes = new TreeMap<>();
        minutes.put(0L, new Summary());
        minutes.put(10 * MINUTE, Summary.withoutSketch());

        assertThat(PeriodBucket.group(minutes, 5 * MINUTE, 0, Long.MAX_VALUE, true, STATS))
                .isEmpty();
    }

    @Test
    void group_whenSketched_keepsTheMergedSketchEncoded() {
        PeriodBucket[] grouped = PeriodBucket.group(hour(0), 5 * MINUTE, 0, Long.MAX_VALUE, true, STATS);

        assertThat(grouped)
                .allSatisfy(b -> assertThat(b.summary.encodedSketch()).isNotNull());
        assertThat(grouped[0].weight()).isLessThan(RollupCache.SKETCH_WEIGHT);
    }

    @Test
    void join_whenTheSamePartnerAgain_returnsTheRememberedMergeEqualToTheDirectOne() {
        // PT5M on a grid three minutes past the hour: the bucket at 0:58 takes 0:58-0:59 and 1:00-1:02.
        SortedMap<Long, Summary> first = hour(0);
        SortedMap<Long, Summary> second = hour(60 * MINUTE);
        PeriodBucket[] a = PeriodBucket.group(first, 5 * MINUTE, 3 * MINUTE, Long.MAX_VALUE, true, STATS);
        PeriodBucket[] b = PeriodBucket.group(second, 5 * MINUTE, 3 * MINUTE, Long.MAX_VALUE, true, STATS);
        PeriodBucket tail = a[a.length - 1];
        PeriodBucket head = b[0];
        assertThat(tail.start).isEqualTo(head.start).isEqualTo(58 * MINUTE);

        PeriodBucket joined = tail.join(head);

        SortedMap<Long, Summary> both = new TreeMap<>(first);
        both.putAll(second);
        Summary want = direct(both, 58 * MINUTE, 63 * MINUTE);
        for (Stat st : STATS) {
            assertThat(joined.value(st)).as(st.label()).isEqualTo((double) st.of(want));
        }
        assertThat(tail.join(head)).isSameAs(joined);
        PeriodBucket other =
                PeriodBucket.group(hour(60 * MINUTE), 5 * MINUTE, 3 * MINUTE, Long.MAX_VALUE, true, STATS)[0];
        assertThat(tail.join(other))
                .as("another partner (the next rollup read again)")
                .isNotSameAs(joined);
    }

    @Test
    void text_whenEverNewLabelsAreAsked_remembersAtMostTheBoundAndStillAnswersEveryOne() throws Exception {
        PeriodBucket b = PeriodBucket.group(hour(0), 5 * MINUTE, 0, Long.MAX_VALUE, true, List.of())[0];
        long weight = b.weight();
        java.lang.reflect.Field texts = PeriodBucket.class.getDeclaredField("texts");
        java.lang.reflect.Field percentiles = PeriodBucket.class.getDeclaredField("percentiles");
        texts.setAccessible(true);
        percentiles.setAccessible(true);

        for (int i = 1; i <= 500; i++) {
            Stat st = Stat.parse("p" + (i / 10) + "." + (i % 10));
            assertThat(b.text(st)).isEqualTo(Double.toString(b.summary.quantile(st.q())));
        }

        assertThat(((String[]) texts.get(b)).length / 2).isEqualTo(PeriodBucket.MAX_REMEMBERED);
        assertThat(((double[]) percentiles.get(b)).length / 2).isEqualTo(PeriodBucket.MAX_REMEMBERED);
        assertThat(b.weight()).as("weighed for the bound from the start").isEqualTo(weight);
    }

    @Test
    void join_whenTheResultIsJoinedAgain_doesNotRememberDeeper() {
        PeriodBucket[] a = PeriodBucket.group(hour(0), 90 * MINUTE, 0, Long.MAX_VALUE, true, STATS);
        PeriodBucket[] b = PeriodBucket.group(hour(60 * MINUTE), 90 * MINUTE, 0, Long.MAX_VALUE, true, STATS);
        PeriodBucket ab = a[0].join(b[0]);
        PeriodBucket c = PeriodBucket.group(hour(0), 90 * MINUTE, 0, Long.MAX_VALUE, true, STATS)[0];

        assertThat(ab.join(c)).isNotSameAs(ab.join(c));
        assertThat(ab.join(c).summary.count()).isEqualTo(ab.summary.count() + c.summary.count());
    }

    @Test
    void join_whenOnlyOneSideCarriesSketches_mergesTheExactStatisticsWithoutASketch() {
        // A sketch-less reader is served sketched buckets where the cache holds them: a bucket spanning two rollups
        // may pair one of each.
        SortedMap<Long, Summary> second = new TreeMap<>();
        hour(3_600_000L).forEach((t, s) -> second.put(t, SummaryCodec.decode(SummaryCodec.encode(s), false)));
        PeriodBucket sketched = PeriodBucket.group(hour(0), 5 * MINUTE, 2 * MINUTE, Long.MAX_VALUE, true, STATS)[12];
        PeriodBucket plain = PeriodBucket.group(second, 5 * MINUTE, 2 * MINUTE, Long.MAX_VALUE, false, List.of())[0];

        PeriodBucket joined = sketched.join(plain);

        Summary want = direct(hour(0), 57 * MINUTE, 60 * MINUTE); // the bucket [57, 62) of the 5-minute grid through 2
        want.merge(direct(hour(3_600_000L), 3_600_000L, 3_600_000L + 2 * MINUTE));
        assertThat(joined.hasSketch()).isFalse();
        assertThat(joined.value(Stat.parse("count"))).isEqualTo(want.count());
        assertThat(joined.value(Stat.parse("sum"))).isEqualTo(want.sum());
        assertThat(joined.value(Stat.parse("max"))).isEqualTo(want.max());
        assertThat(plain.join(sketched).value(Stat.parse("min"))).isEqualTo(want.min());
    }
}
