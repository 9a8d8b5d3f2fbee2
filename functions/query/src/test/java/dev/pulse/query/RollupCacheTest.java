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
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RollupCacheTest {

    private static SortedMap<Long, Summary> buckets(int n, boolean sketch) {
        SortedMap<Long, Summary> m = new TreeMap<>();
        for (long i = 0; i < n; i++) {
            Summary s = sketch ? new Summary() : Summary.withoutSketch();
            s.add(i);
            m.put(i, s);
        }
        return m;
    }

    @Test
    void put_whenWeightExceedsLimit_evictsLeastRecentlyUsedFirst() {
        RollupCache cache = new RollupCache(100, 60_000);
        cache.put("a", buckets(30, false), 0);
        cache.put("b", buckets(30, false), 0);
        cache.get("a", false, 1); // a is now more recent than b
        cache.put("c", buckets(30, false), 0);
        cache.put("d", buckets(30, false), 0);

        assertThat(cache.get("b", false, 2)).isNull();
        assertThat(cache.get("a", false, 2)).isNotNull();
        assertThat(cache.weight()).isLessThanOrEqualTo(100);
    }

    @Test
    void put_whenSummariesCarrySketches_weighsThemHeavier() {
        RollupCache cache = new RollupCache(850, 60_000);
        cache.put("plain", buckets(60, false), 0);
        cache.put("sketched", buckets(40, true), 0);

        assertThat(cache.get("plain", false, 1)).isNull(); // 61 + 801 > 850: the older one went
        assertThat(cache.get("sketched", false, 1)).hasSize(40);
        assertThat(cache.weight()).isEqualTo(1 + 40L * RollupCache.SKETCH_WEIGHT);
    }

    @Test
    void get_whenEntryExpired_returnsNullAndFreesItsWeight() {
        RollupCache cache = new RollupCache(1000, 60_000);
        cache.put("a", buckets(10, false), 0);

        assertThat(cache.get("a", false, 59_999)).isNotNull();
        assertThat(cache.get("a", false, 60_000)).isNull();
        assertThat(cache.weight()).isZero();
    }

    @Test
    void periodBuckets_whenSharingTheWeightLimitWithEntries_evictTheLeastRecentlyUsedOfEither() {
        PeriodBucket[] grouped =
                PeriodBucket.group(buckets(60, false), 5, 0, Long.MAX_VALUE, false, java.util.List.of());
        long each = grouped[0].weight();
        long shapeWeight = 1 + 12 * each + 2 * (each + each); // the buckets, and the joins the edge ones may keep
        RollupCache cache = new RollupCache(shapeWeight + 60, 60_000);
        String shape = RollupCache.shapeKey("a", 5, 0, Long.MAX_VALUE);
        cache.putPeriodBuckets(shape, grouped, 60_000, 0);

        assertThat(grouped).hasSize(12);
        assertThat(each).as("a bucket is weighed with what it may remember").isGreaterThan(1);
        assertThat(cache.weight()).isEqualTo(shapeWeight);
        assertThat(cache.periodBuckets(shape, false, 1)).isSameAs(grouped);
        assertThat(cache.get(shape, false, 1))
                .as("a shape is not a rollup's entries")
                .isNull();

        cache.put("b", buckets(60, false), 0); // 61 more: over the limit, and the shape was used least recently

        assertThat(cache.periodBuckets(shape, false, 1)).isNull();
        assertThat(cache.get("b", false, 1)).hasSize(60);
        assertThat(cache.weight()).isEqualTo(61);
    }

    @Test
    void putPeriodBuckets_whenGivenTheEntriesExpiry_expiresWithThem() {
        RollupCache cache = new RollupCache(10_000, 300_000);
        long entriesExpire = cache.put("a", buckets(60, false), 0);
        PeriodBucket[] grouped =
                PeriodBucket.group(cache.get("a", false, 299_000), 5, 0, Long.MAX_VALUE, false, java.util.List.of());
        cache.putPeriodBuckets(RollupCache.shapeKey("a", 5, 0, Long.MAX_VALUE), grouped, cache.expiresAt("a"), 299_000);

        assertThat(entriesExpire).isEqualTo(300_000);
        assertThat(cache.periodBuckets(RollupCache.shapeKey("a", 5, 0, Long.MAX_VALUE), false, 299_999))
                .isNotNull();
        assertThat(cache.periodBuckets(RollupCache.shapeKey("a", 5, 0, Long.MAX_VALUE), false, 300_000))
                .as("grouped at 299 s, it still expires with the entries read at 0")
                .isNull();
    }

    @Test
    void put_whenSketchLessEntriesFollowSketchedOnes_keepsTheSketchedEntriesForEveryReader() {
        RollupCache cache = new RollupCache(10_000, 60_000);
        SortedMap<Long, Summary> sketched = buckets(10, true);
        cache.put("a", sketched, 0);
        long weight = cache.weight();

        cache.put("a", buckets(10, false), 1);

        assertThat(cache.get("a", true, 2))
                .as("the percentile reader still finds the sketches")
                .isSameAs(sketched);
        assertThat(cache.get("a", false, 2))
                .as("and the count reader is served from them")
                .isSameAs(sketched);
        assertThat(cache.weight()).as("one copy of the rollup, not two").isEqualTo(weight);
    }

    @Test
    void put_whenSketchedEntriesFollowSketchLessOnes_replacesThemWithoutHoldingBoth() {
        RollupCache cache = new RollupCache(10_000, 60_000);
        cache.put("a", buckets(10, false), 0);

        assertThat(cache.get("a", true, 1))
                .as("sketch-less entries cannot answer a percentile")
                .isNull();
        assertThat(cache.get("a", false, 1)).hasSize(10);

        SortedMap<Long, Summary> sketched = buckets(10, true);
        cache.put("a", sketched, 1);

        assertThat(cache.get("a", true, 2)).isSameAs(sketched);
        assertThat(cache.get("a", false, 2)).isSameAs(sketched);
        assertThat(cache.weight()).isEqualTo(1 + 10L * RollupCache.SKETCH_WEIGHT);
    }

    @Test
    void put_whenTheSketchedCopyExpired_takesTheSketchLessOne() {
        RollupCache cache = new RollupCache(10_000, 60_000);
        cache.put("a", buckets(10, true), 0);
        SortedMap<Long, Summary> plain = buckets(10, false);

        cache.put("a", plain, 60_000);

        assertThat(cache.get("a", false, 60_001)).isSameAs(plain);
        assertThat(cache.get("a", true, 60_001)).isNull();
        assertThat(cache.weight()).isEqualTo(11);
    }

    @Test
    void periodBuckets_whenSketchLessShapeFollowsSketchedOne_keepTheSketchedShapeForEveryReader() {
        RollupCache cache = new RollupCache(10_000, 60_000);
        String shape = RollupCache.shapeKey("a", 5, 0, Long.MAX_VALUE);
        PeriodBucket[] sketched =
                PeriodBucket.group(buckets(60, true), 5, 0, Long.MAX_VALUE, true, java.util.List.of(Stat.parse("p99")));
        cache.putPeriodBuckets(shape, sketched, 60_000, 0);
        PeriodBucket[] plain = PeriodBucket.group(buckets(60, false), 5, 0, Long.MAX_VALUE, false, java.util.List.of());

        cache.putPeriodBuckets(shape, plain, 60_000, 1);

        assertThat(cache.periodBuckets(shape, true, 2)).isSameAs(sketched);
        assertThat(cache.periodBuckets(shape, false, 2)).isSameAs(sketched);

        String other = RollupCache.shapeKey("b", 5, 0, Long.MAX_VALUE);
        cache.putPeriodBuckets(other, plain, 60_000, 2);
        assertThat(cache.periodBuckets(other, true, 3))
                .as("sketch-less buckets cannot answer a percentile")
                .isNull();
        assertThat(cache.periodBuckets(other, false, 3)).isSameAs(plain);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void put_whenManyRollupsReadWithAndWithoutSketches_staysWithinItsWeight(boolean sketchFirst) {
        RollupCache cache = new RollupCache(2_000, 60_000);
        for (int i = 0; i < 200; i++) {
            boolean sketch = (i % 2 == 0) == sketchFirst;
            cache.put("r" + i % 50, buckets(10 + i % 7, sketch), i);
            cache.put("r" + (i + 1) % 50, buckets(10, !sketch), i);

            assertThat(cache.weight()).isLessThanOrEqualTo(2_000);
        }
        assertThat(cache.weight()).isPositive();
    }
}
