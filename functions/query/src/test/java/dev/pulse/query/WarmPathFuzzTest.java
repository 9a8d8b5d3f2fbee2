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
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.codec.SummaryAttributes;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.CompactMarks;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Random query shapes against an in-memory table built from raw datapoints (hourly and daily rollups, some marked
 * with their partials, some hours without any item), answered by a cold service (fresh cache) and by one warm service
 * shared by every query: the JSON must be identical and equal the raw data, since the warm path's remembered values
 * are an optimisation that must never change an answer.
 */
class WarmPathFuzzTest {

    static final long MINUTE = 60_000L;
    static final long HOUR = 3_600_000L;
    static final long DAY = 86_400_000L;
    static final long D0 = Instant.parse("2026-11-17T00:00:00Z").toEpochMilli();
    static final int DAYS = 3;

    /** Items by pk, then sk; answers on another thread like the SDK, sometimes leaving keys unprocessed. */
    static final class Table implements DynamoDbAsyncClient {
        final Map<String, TreeMap<String, Map<String, AttributeValue>>> items = new ConcurrentHashMap<>();
        final Executor pool = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        });
        final Random unprocessed;
        volatile int batchGets;

        Table(long seed) {
            this.unprocessed = new Random(seed);
        }

        void put(Map<String, AttributeValue> item) {
            items.computeIfAbsent(item.get(KeyScheme.PK).s(), k -> new TreeMap<>())
                    .put(item.get(KeyScheme.SK).s(), item);
        }

        @Override
        public CompletableFuture<BatchGetItemResponse> batchGetItem(BatchGetItemRequest r) {
            batchGets++;
            return CompletableFuture.supplyAsync(
                    () -> {
                        List<Map<String, AttributeValue>> found = new ArrayList<>();
                        List<Map<String, AttributeValue>> later = new ArrayList<>();
                        r.requestItems().forEach((table, ks) -> {
                            for (Map<String, AttributeValue> k : ks.keys()) {
                                boolean skip;
                                synchronized (unprocessed) {
                                    skip = unprocessed.nextInt(8) == 0;
                                }
                                if (skip) {
                                    later.add(k);
                                    continue;
                                }
                                var part = items.get(k.get(KeyScheme.PK).s());
                                var item = part == null
                                        ? null
                                        : part.get(k.get(KeyScheme.SK).s());
                                if (item != null) {
                                    found.add(item);
                                }
                            }
                        });
                        var b = BatchGetItemResponse.builder().responses(Map.of("t", found));
                        if (!later.isEmpty()) {
                            b.unprocessedKeys(Map.of(
                                    "t", KeysAndAttributes.builder().keys(later).build()));
                        }
                        return b.build();
                    },
                    pool);
        }

        @Override
        public CompletableFuture<QueryResponse> query(software.amazon.awssdk.services.dynamodb.model.QueryRequest r) {
            String pk = r.expressionAttributeValues().get(":pk").s();
            return CompletableFuture.supplyAsync(
                    () -> {
                        var part = items.get(pk);
                        return QueryResponse.builder()
                                .items(part == null ? List.of() : new ArrayList<>(part.values()))
                                .build();
                    },
                    pool);
        }

        @Override
        public String serviceName() {
            return "dynamodb";
        }

        @Override
        public void close() {}
    }

    /** Raw datapoints: series key -> minute start -> values. */
    final Map<String, TreeMap<Long, List<Double>>> raw = new HashMap<>();

    final List<SeriesSpec> series = List.of(
            new SeriesSpec("m", Map.of("i", "0")),
            new SeriesSpec("m", Map.of("i", "1")),
            new SeriesSpec("m", Map.of("i", "2")));

    Table build(long seed) {
        Random rnd = new Random(seed);
        Table t = new Table(seed);
        for (SeriesSpec s : series) {
            TreeMap<Long, List<Double>> points = new TreeMap<>();
            raw.put(s.key(), points);
            for (int d = 0; d < DAYS; d++) {
                long day = D0 + d * DAY;
                SortedMap<Integer, Summary> hours = new TreeMap<>();
                boolean dayMarked = rnd.nextInt(4) == 0;
                for (int h = 0; h < 24; h++) {
                    long hour = day + h * HOUR;
                    if (rnd.nextInt(6) == 0) {
                        continue; // no data, no item
                    }
                    SortedMap<Integer, Summary> minutes = new TreeMap<>();
                    Summary hourTotal = new Summary();
                    boolean marked = rnd.nextInt(6) == 0;
                    for (int m = 0; m < 60; m++) {
                        if (rnd.nextInt(3) == 0) {
                            continue;
                        }
                        long minute = hour + m * MINUTE;
                        Summary ms = new Summary();
                        List<Double> vs = new ArrayList<>();
                        int n = 1 + rnd.nextInt(5);
                        for (int i = 0; i < n; i++) {
                            double v = rnd.nextInt(10) == 0 ? rnd.nextDouble() * 1e6 : 0.001 + rnd.nextDouble() * 100;
                            if (rnd.nextInt(20) == 0) {
                                v = -v;
                            }
                            vs.add(v);
                            ms.add(v);
                        }
                        points.put(minute, vs);
                        minutes.put(m, ms);
                        hourTotal.merge(ms);
                        if (marked) {
                            Map<String, AttributeValue> p = new HashMap<>();
                            p.put(KeyScheme.PK, AttributeValue.fromS(KeyScheme.partialPk(s.key(), minute)));
                            p.put(KeyScheme.SK, AttributeValue.fromS(KeyScheme.partialSk(minute, "shard-0", "1", 0)));
                            SummaryAttributes.put(p, ms);
                            t.put(p);
                        }
                    }
                    if (minutes.isEmpty()) {
                        continue;
                    }
                    hours.put(h, hourTotal);
                    SortedMap<Integer, Summary> stored = minutes;
                    Map<String, AttributeValue> item;
                    if (marked) {
                        // A stale build (its last minute missing) that is marked since: must not be served.
                        stored = new TreeMap<>(minutes);
                        stored.remove(stored.lastKey());
                        item = RollupItems.hourly(s.key(), hour, stored, 86_400);
                        item.put(CompactMarks.MARKED, AttributeValue.fromN("1"));
                    } else {
                        item = RollupItems.hourly(s.key(), hour, stored, 86_400);
                    }
                    t.put(item);
                }
                if (hours.isEmpty()) {
                    continue;
                }
                Map<String, AttributeValue> daily;
                if (dayMarked) {
                    SortedMap<Integer, Summary> stale = new TreeMap<>(hours);
                    stale.remove(stale.firstKey());
                    daily = RollupItems.daily(s.key(), day, stale, 86_400);
                    daily.put(CompactMarks.MARKED, AttributeValue.fromN("1"));
                } else {
                    daily = RollupItems.daily(s.key(), day, hours, 86_400);
                }
                t.put(daily);
            }
        }
        return t;
    }

    static final long NOW = D0 + DAYS * DAY + 2 * HOUR;

    static QueryService service(DynamoDbAsyncClient client, RollupCache cache, Clock clock) {
        return new QueryService(client, "t", 8, 300_000L, cache, clock);
    }

    static String body(
            List<SeriesSpec> series, long start, long end, long periodSeconds, List<String> stats, String token) {
        StringBuilder sb = new StringBuilder("{\"series\":[");
        for (int i = 0; i < series.size(); i++) {
            SeriesSpec s = series.get(i);
            sb.append(i == 0 ? "" : ",")
                    .append("{\"name\":\"")
                    .append(s.name())
                    .append("\",\"dims\":{\"i\":\"")
                    .append(s.dims().get("i"))
                    .append("\"}}");
        }
        sb.append("],\"start\":")
                .append(start)
                .append(",\"end\":")
                .append(end)
                .append(",\"period\":")
                .append(periodSeconds)
                .append(",\"stats\":[");
        for (int i = 0; i < stats.size(); i++) {
            sb.append(i == 0 ? "" : ",").append('"').append(stats.get(i)).append('"');
        }
        sb.append(']');
        if (token != null) {
            sb.append(",\"nextToken\":\"").append(token).append('"');
        }
        return sb.append('}').toString();
    }

    static String answer(QueryService service, String body) throws Exception {
        NativeQuery r = QueryParser.parse(body);
        NativeResult result = service.query(r, Deadline.inMillis(20_000), new InvocationMetrics<>(QueryMetric.class));
        assertThat(result.unprocessed()).as("unprocessed for %s", body).isEmpty();
        return QueryHandler.toJson(result, r);
    }

    static final long[] PERIODS = {
        60, 120, 300, 420, 660, 900, 3600, 5400, 7200, 10_800, 25_200, 86_400, 129_600, 172_800
    };
    static final String[] STATS = {
        "count", "sum", "avg", "min", "max", "p50", "p99", "p99.0", "p0.1", "p100", "p90", "p99.9", "p1", "p25.5"
    };

    @Test
    void query_whenRandomShapesRepeatOnAWarmService_answersAsAColdServiceAndTheRawData() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            raw.clear();
            Table table = build(seed);
            Random rnd = new Random(seed * 31);
            Clock clock = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
            QueryService warm =
                    service(table, new RollupCache(RollupCache.DEFAULT_MAX_WEIGHT, Long.MAX_VALUE / 4), clock);
            List<String> bodies = new ArrayList<>();
            for (int q = 0; q < 120; q++) {
                String body;
                if (!bodies.isEmpty() && rnd.nextInt(3) == 0) {
                    body = bodies.get(rnd.nextInt(bodies.size()));
                } else {
                    long period = PERIODS[rnd.nextInt(PERIODS.length)];
                    long start;
                    long end;
                    if (rnd.nextBoolean()) {
                        start = D0 + rnd.nextInt(DAYS * 24) * HOUR; // hour-aligned: the daily level can be used
                    } else {
                        start = D0 + rnd.nextInt(DAYS * 24 * 60) * MINUTE;
                    }
                    long maxEnd = D0 + DAYS * DAY;
                    end = rnd.nextBoolean()
                            ? Math.min(maxEnd, start + (1 + rnd.nextInt(60)) * period * 1000)
                            : start + MINUTE + (long) (rnd.nextDouble() * (maxEnd - start - MINUTE)) / MINUTE * MINUTE;
                    if (rnd.nextInt(4) == 0) {
                        end = (end + HOUR - 1) / HOUR * HOUR;
                    }
                    if ((end - start) / (period * 1000) > 1400) {
                        continue;
                    }
                    List<String> stats = new ArrayList<>();
                    int k = 1 + rnd.nextInt(4);
                    for (int i = 0; i < k; i++) {
                        stats.add(STATS[rnd.nextInt(STATS.length)]);
                    }
                    List<SeriesSpec> ss = new ArrayList<>(series);
                    java.util.Collections.shuffle(ss, rnd);
                    body = body(ss.subList(0, 1 + rnd.nextInt(ss.size())), start, end, period, stats, null);
                }
                bodies.add(body);
                QueryService cold =
                        service(table, new RollupCache(RollupCache.DEFAULT_MAX_WEIGHT, Long.MAX_VALUE / 4), clock);
                String coldJson = answer(cold, body);
                String warmJson = answer(warm, body);
                assertThat(warmJson)
                        .as("seed %d query %d: warm vs cold for %s", seed, q, body)
                        .isEqualTo(coldJson);
                checkRaw(body, coldJson);
            }
        }
    }

    static long rank(double q, long n) {
        return Math.max(
                1,
                new BigDecimal(q)
                        .multiply(BigDecimal.valueOf(n))
                        .setScale(6, java.math.RoundingMode.HALF_EVEN)
                        .setScale(0, java.math.RoundingMode.CEILING)
                        .longValueExact());
    }

    /** Every stat of every bucket against a direct computation over the raw datapoints. */
    void checkRaw(String body, String json) throws Exception {
        NativeQuery r = QueryParser.parse(body);
        var root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
        for (var s : root.get("series")) {
            TreeMap<Long, List<Double>> points = raw.get(s.get("key").asText());
            for (Stat st : r.stats()) {
                var arr = s.get("values").get(st.label());
                for (int i = 0; i < r.buckets(); i++) {
                    long from = r.start() + i * r.periodMillis();
                    long to = Math.min(r.end(), from + r.periodMillis());
                    List<Double> vs = new ArrayList<>();
                    points.subMap(from, to).values().forEach(vs::addAll);
                    var got = arr.get(i);
                    String where = body + " bucket " + i + " " + st.label();
                    if (vs.isEmpty()) {
                        assertThat(got.isNull()).as(where).isTrue();
                        continue;
                    }
                    double[] sorted = vs.stream()
                            .mapToDouble(Double::doubleValue)
                            .sorted()
                            .toArray();
                    BigDecimal exact = BigDecimal.ZERO;
                    for (double v : sorted) {
                        exact = exact.add(new BigDecimal(v));
                    }
                    double sum = exact.doubleValue();
                    double want = switch (st.kind()) {
                        case COUNT -> sorted.length;
                        case SUM -> sum;
                        case AVG -> sum / sorted.length;
                        case MIN -> sorted[0];
                        case MAX -> sorted[sorted.length - 1];
                        case PERCENTILE -> sorted[(int) rank(st.q(), sorted.length) - 1];
                        case RANK -> throw new IllegalStateException("POST /query never parses a rank");
                        default -> throw new IllegalStateException("POST /query never parses " + st.label());
                    };
                    double g = got.asDouble();
                    if (st.kind() == Stat.Kind.PERCENTILE) {
                        assertThat(Math.abs(g - want)).as(where).isLessThanOrEqualTo(Math.abs(want) * 0.0101 + 1e-12);
                    } else if (st.kind() == Stat.Kind.AVG) {
                        assertThat(Math.abs(g - want)).as(where).isLessThanOrEqualTo(Math.abs(want) * 1e-9);
                    } else {
                        assertThat(g).as(where).isEqualTo(want);
                    }
                }
            }
        }
    }
}
