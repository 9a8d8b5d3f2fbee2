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

import static dev.pulse.query.WarmPathFuzzTest.HOUR;
import static dev.pulse.query.WarmPathFuzzTest.MINUTE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.aggregate.Summary;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.codec.SummaryAttributes;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.CompactMarks;
import dev.pulse.testing.MutableClock;
import java.lang.reflect.Field;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The warm path's two bounds: late data shows within the cache's TTL whichever way a query's shape was built, and the
 * values a period bucket remembers (texts, percentiles) stay bounded and weighed however many distinct stat labels
 * clients ask for.
 */
class WarmPathBoundsTest {

    static final SeriesSpec S = new SeriesSpec("m", Map.of("i", "0"));
    static final long H = WarmPathFuzzTest.D0; // a closed hour
    static final long NOW = WarmPathFuzzTest.NOW;

    static Summary of(double... values) {
        Summary s = new Summary();
        for (double v : values) {
            s.add(v);
        }
        return s;
    }

    static Map<String, AttributeValue> partial(long minute, Summary s) {
        Map<String, AttributeValue> p = new HashMap<>();
        p.put(KeyScheme.PK, AttributeValue.fromS(KeyScheme.partialPk(S.key(), minute)));
        p.put(KeyScheme.SK, AttributeValue.fromS(KeyScheme.partialSk(minute, "shard-0", "1", 0)));
        SummaryAttributes.put(p, s);
        return p;
    }

    static double count(QueryService service, long periodSeconds) throws Exception {
        NativeQuery r = QueryParser.parse(
                WarmPathFuzzTest.body(List.of(S), H, H + HOUR, periodSeconds, List.of("count"), null));
        NativeResult result = service.query(r, Deadline.inMillis(10_000), new InvocationMetrics<>(QueryMetric.class));
        return result.series().get(0).values().get("count")[0];
    }

    /**
     * Late data that marks a cached period must show within the cache's 5-minute TTL (docs/design.md). A shape
     * grouped from cached entries must expire with the entries it was grouped from, not a TTL of its own from the
     * time it was grouped: otherwise late data would stay invisible for up to twice the TTL.
     */
    @Test
    void query_whenLateDataMarksAPeriodAndAShapeIsGroupedFromCachedEntries_showsItWithinTheTtl() throws Exception {
        WarmPathFuzzTest.Table table = new WarmPathFuzzTest.Table(0);
        SortedMap<Integer, Summary> minutes = new TreeMap<>(Map.of(0, of(1.0)));
        table.put(RollupItems.hourly(S.key(), H, minutes, 86_400));
        MutableClock clock = new MutableClock(Instant.ofEpochMilli(NOW));
        QueryService service = new QueryService(
                table,
                "t",
                8,
                300_000L,
                new RollupCache(RollupCache.DEFAULT_MAX_WEIGHT, RollupCache.DEFAULT_TTL_MILLIS),
                clock);
        assertThat(count(service, 300)).isEqualTo(1.0); // t0: entries and the PT5M shape cached

        // t0 + 1 s: a late datapoint for minute 0 arrives: ingest marks the hour and writes its partial.
        clock.setMillis(NOW + 1_000);
        Map<String, AttributeValue> marked = RollupItems.hourly(S.key(), H, minutes, 86_400);
        marked.put(CompactMarks.MARKED, AttributeValue.fromN("1"));
        table.put(marked);
        table.put(partial(H, of(1.0)));
        table.put(partial(H + 2 * MINUTE, of(2.0)));

        // t0 + 4:59: another period (PT10M) is asked for the first time: grouped from the cached entries.
        clock.setMillis(NOW + 299_000);
        assertThat(count(service, 600))
                .as("still within the TTL: stale is allowed")
                .isEqualTo(1.0);

        // t0 + 8:00, 7:59 after the late data: more than the TTL of 5 minutes.
        clock.setMillis(NOW + 480_000);
        assertThat(count(service, 300)).as("PT5M after the TTL").isEqualTo(2.0);
        assertThat(count(service, 600))
                .as("PT10M, 7:59 after the late data (TTL 5:00)")
                .isEqualTo(2.0);
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
    }

    private static Object field(Object o, String name) throws Exception {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    /**
     * The remembered texts and percentiles must not grow with every distinct stat label a client asks (p5, p05,
     * p5.0, p05.00 ... are all distinct labels; 100,000 distinct quantiles): a warm container would otherwise grow
     * without bound on one client's requests. The cache's weight covers what a bucket may remember from the start,
     * so its eviction stays accurate.
     */
    @Test
    void query_whenClientsAskThousandsOfDistinctStatLabels_remembersAtMostTheBoundAndWeighsIt() throws Exception {
        WarmPathFuzzTest.Table table = new WarmPathFuzzTest.Table(0);
        SortedMap<Integer, Summary> minutes = new TreeMap<>();
        for (int m = 0; m < 60; m++) {
            minutes.put(m, of(m, m + 0.5, m + 0.25));
        }
        table.put(RollupItems.hourly(S.key(), H, minutes, 86_400));
        RollupCache cache = new RollupCache(RollupCache.DEFAULT_MAX_WEIGHT, RollupCache.DEFAULT_TTL_MILLIS);
        QueryService service = new QueryService(
                table,
                "t",
                8,
                300_000L,
                cache,
                java.time.Clock.fixed(java.time.Instant.ofEpochMilli(NOW), java.time.ZoneOffset.UTC));
        String first = WarmPathFuzzTest.body(List.of(S), H, H + HOUR, 60, List.of("p50"), null);
        service.query(QueryParser.parse(first), Deadline.inMillis(10_000), new InvocationMetrics<>(QueryMetric.class));
        long weight = cache.weight();
        long heapBefore = usedHeap();

        // 300 requests of 10 new labels each, one client, well within one TTL.
        int labels = 0;
        long started = System.nanoTime();
        for (int r = 0; r < 300; r++) {
            List<String> stats = new ArrayList<>();
            for (int i = 0; i < 10; i++, labels++) {
                stats.add(String.format("p%d.%03d", 1 + labels / 1000, labels % 1000));
            }
            NativeQuery q = QueryParser.parse(WarmPathFuzzTest.body(List.of(S), H, H + HOUR, 60, stats, null));
            QueryHandler.toJson(
                    service.query(q, Deadline.inMillis(10_000), new InvocationMetrics<>(QueryMetric.class)), q);
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        long grown = usedHeap() - heapBefore;
        String shape = RollupCache.shapeKey(
                KeyScheme.hourlyPk(S.key(), H) + "|" + KeyScheme.hour(H), 60_000, 0, Long.MAX_VALUE);
        PeriodBucket[] buckets = cache.periodBuckets(shape, true, NOW);
        int texts = ((String[]) field(buckets[0], "texts")).length / 2;
        int percentiles = ((double[]) field(buckets[0], "percentiles")).length / 2;
        assertThat(texts)
                .as("texts remembered by one bucket after %d distinct labels", labels)
                .isEqualTo(PeriodBucket.MAX_REMEMBERED);
        assertThat(percentiles).isEqualTo(PeriodBucket.MAX_REMEMBERED);
        assertThat(cache.weight())
                .as("weighed for what a bucket may remember from the start")
                .isEqualTo(weight);
        assertThat(grown)
                .as("heap grown by %d labels over %d ms", labels, millis)
                .isLessThan(buckets.length * 2L * 1024 * PeriodBucket.MAX_REMEMBERED);
    }
}
