package dev.pulse.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.aggregate.Summary;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

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
        cache.get("a", 1); // a is now more recent than b
        cache.put("c", buckets(30, false), 0);
        cache.put("d", buckets(30, false), 0);

        assertThat(cache.get("b", 2)).isNull();
        assertThat(cache.get("a", 2)).isNotNull();
        assertThat(cache.weight()).isLessThanOrEqualTo(100);
    }

    @Test
    void put_whenSummariesCarrySketches_weighsThemHeavier() {
        RollupCache cache = new RollupCache(850, 60_000);
        cache.put("plain", buckets(60, false), 0);
        cache.put("sketched", buckets(40, true), 0);

        assertThat(cache.get("plain", 1)).isNull(); // 61 + 801 > 850: the older one went
        assertThat(cache.get("sketched", 1)).hasSize(40);
        assertThat(cache.weight()).isEqualTo(1 + 40L * RollupCache.SKETCH_WEIGHT);
    }

    @Test
    void get_whenEntryExpired_returnsNullAndFreesItsWeight() {
        RollupCache cache = new RollupCache(1000, 60_000);
        cache.put("a", buckets(10, false), 0);

        assertThat(cache.get("a", 59_999)).isNotNull();
        assertThat(cache.get("a", 60_000)).isNull();
        assertThat(cache.weight()).isZero();
    }

    @Test
    void periodBuckets_whenSharingTheWeightLimitWithEntries_evictTheLeastRecentlyUsedOfEither() {
        PeriodBucket[] grouped = PeriodBucket.group(buckets(60, false), 5, 0, Long.MAX_VALUE, false, java.util.List.of());
        long each = grouped[0].weight();
        long shapeWeight = 1 + 12 * each + 2 * (each + each); // the buckets, and the joins the edge ones may keep
        RollupCache cache = new RollupCache(shapeWeight + 60, 60_000);
        String shape = RollupCache.shapeKey("a", 5, 0, Long.MAX_VALUE);
        cache.putPeriodBuckets(shape, grouped, 60_000);

        assertThat(grouped).hasSize(12);
        assertThat(each).as("a bucket is weighed with what it may remember").isGreaterThan(1);
        assertThat(cache.weight()).isEqualTo(shapeWeight);
        assertThat(cache.periodBuckets(shape, 1)).isSameAs(grouped);
        assertThat(cache.get(shape, 1)).as("a shape is not a rollup's entries").isNull();

        cache.put("b", buckets(60, false), 0); // 61 more: over the limit, and the shape was used least recently

        assertThat(cache.periodBuckets(shape, 1)).isNull();
        assertThat(cache.get("b", 1)).hasSize(60);
        assertThat(cache.weight()).isEqualTo(61);
    }

    @Test
    void putPeriodBuckets_whenGivenTheEntriesExpiry_expiresWithThem() {
        RollupCache cache = new RollupCache(10_000, 300_000);
        long entriesExpire = cache.put("a", buckets(60, false), 0);
        PeriodBucket[] grouped = PeriodBucket.group(cache.get("a", 299_000), 5, 0, Long.MAX_VALUE, false, java.util.List.of());
        cache.putPeriodBuckets(RollupCache.shapeKey("a", 5, 0, Long.MAX_VALUE), grouped, cache.expiresAt("a"));

        assertThat(entriesExpire).isEqualTo(300_000);
        assertThat(cache.periodBuckets(RollupCache.shapeKey("a", 5, 0, Long.MAX_VALUE), 299_999)).isNotNull();
        assertThat(cache.periodBuckets(RollupCache.shapeKey("a", 5, 0, Long.MAX_VALUE), 300_000))
                .as("grouped at 299 s, it still expires with the entries read at 0").isNull();
    }
}
