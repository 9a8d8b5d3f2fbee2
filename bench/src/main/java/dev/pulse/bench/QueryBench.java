package dev.pulse.bench;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.aggregate.Summary;
import dev.pulse.bench.internal.JfrProfile;
import dev.pulse.bench.internal.StdoutCapture;
import dev.pulse.query.QueryHandler;
import dev.pulse.store.KeyScheme;
import dev.pulse.store.RollupItems;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.lambda.powertools.metrics.MetricsBuilder;

/**
 * query: a dashboard's question (100 series, a day, PT5M, count/avg/max/p99) through the real QueryHandler
 * against DynamoDB Local, versus the N+1 way (one sequential read per series per bucket); then the same query
 * on a warm container, where closed rollups come from its cache.
 */
final class QueryBench implements Benchmark {

    static final double TARGET_RATIO = 10;
    static final double TARGET_WARM_P99_MS = 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "query";
    }

    @Override
    public String howToRead() {
        return """
                A compacted day of 100 series (hourly items of 60 minute summaries with sketches, as CompactFunction \
                writes them; 6 datapoints a minute) in DynamoDB Local. The query asks for all 100 over the day at PT5M \
                with count, avg, max and p99 (28,800 buckets), through `QueryHandler.handleRequest` with a new \
                container each time (cold cache) and following `nextToken` until the last page, as a client does. \
                The baseline answers the same question the N+1 way: for each series and each 5-minute bucket, one \
                sequential `GetItem` (blocking client) of the hourly item holding the bucket, then merges the bucket's \
                five minutes. Both answers are checked against the known counts and sums of every bucket. The ratio \
                is baseline time / product time (target >= 10x). Then the warm figure: the same query again and again \
                on one warm handler, per invocation (page) latency percentiles; target p99 <= 20 ms.""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        QueryDataset data = QueryDataset.create(env, env.scale(100, 20));
        List<String> stats = QueryDataset.dashboardStats();
        DynamoDbAsyncClient client = env.dynamoAsync(data.config().writeConcurrency() * 4, true);
        DynamoDbClient blocking = env.dynamoSync();
        List<String> details = new ArrayList<>();
        Map<String, Double> values = new LinkedHashMap<>();
        try (StdoutCapture out = StdoutCapture.install()) {
            // Warm-up of the JIT on a separate handler, then cold-container queries.
            for (int i = 0; i < env.scale(3, 1); i++) {
                fullQuery(data.handler(client, metrics()), data, stats, true);
            }
            int coldRuns = env.scale(5, 2);
            double[] cold = new double[coldRuns];
            int pages = 0;
            for (int i = 0; i < coldRuns; i++) {
                QueryHandler fresh = data.handler(client, metrics());
                long t0 = System.nanoTime();
                pages = fullQuery(fresh, data, stats, true);
                cold[i] = (System.nanoTime() - t0) / 1e6;
            }
            Samples coldMs = Samples.of(cold);

            // The baseline is sequential (about 10 ms a read here): ten series give its rate within a minute, and
            // every bucket of those is read and checked.
            int baselineSeries = env.scale(10, 5);
            long b0 = System.nanoTime();
            long reads = nPlusOne(blocking, data, baselineSeries);
            double baselineMs = (System.nanoTime() - b0) / 1e6;
            double baselineFullMs = baselineMs * data.series().size() / baselineSeries;

            // Warm: one container answering the same query repeatedly.
            QueryHandler warm = data.handler(client, metrics());
            for (int i = 0; i < env.scale(30, 3); i++) {
                fullQuery(warm, data, stats, i == 0);
            }
            List<Double> perPage = new ArrayList<>();
            // 200 queries, or 60 s if they are slow (a cache that cannot hold the day reads DynamoDB every time).
            List<Double> warmFull = new ArrayList<>();
            long warmEnd = System.nanoTime() + env.scale(60, 5) * 1_000_000_000L;
            while (warmFull.size() < env.scale(200, 10) && System.nanoTime() < warmEnd) {
                long t0 = System.nanoTime();
                fullQuery(warm, data, stats, false, perPage);
                warmFull.add((System.nanoTime() - t0) / 1e6);
            }
            Samples pageMs = Samples.of(perPage.stream().mapToDouble(Double::doubleValue).toArray());
            Samples warmMs = Samples.of(warmFull.stream().mapToDouble(Double::doubleValue).toArray());
            if (out.emfDocuments() == 0) {
                throw new IllegalStateException("the query handler wrote no EMF document");
            }

            double ratio = baselineFullMs / coldMs.median();
            boolean met = ratio >= TARGET_RATIO && pageMs.percentile(99) <= TARGET_WARM_P99_MS;
            details.add("cold container, whole query (" + pages + " pages): " + coldMs.spread("%.0f") + " runs, ms");
            details.add("N+1 baseline: " + reads + " sequential GetItem for " + baselineSeries + " series in "
                    + Format.millis(baselineMs) + (baselineSeries < data.series().size()
                    ? ", scaled to " + data.series().size() + " series: " + Format.millis(baselineFullMs) : ""));
            details.add("warm container, per invocation (page): p50 " + Format.millis(pageMs.median()) + ", p90 "
                    + Format.millis(pageMs.percentile(90)) + ", p99 " + Format.millis(pageMs.percentile(99)) + ", max "
                    + Format.millis(pageMs.max()) + " over " + pageMs.size());
            details.add("warm container, whole query: p50 " + Format.millis(warmMs.median()) + ", p99 "
                    + Format.millis(warmMs.percentile(99)));
            details.add("dataset: " + data.series().size() + " series, " + data.itemsWritten() + " rollup items; a full hourly"
                    + " item " + Format.count(data.hourlyItemBytes()) + " bytes, a daily item " + Format.count(data.dailyItemBytes()));
            if (!met) {
                QueryHandler profiled = data.handler(client, metrics());
                fullQuery(profiled, data, stats, false);
                details.addAll(JfrProfile.profile("warm query, " + env.scale(100, 5) + " times", () -> {
                    for (int i = 0; i < env.scale(100, 5); i++) {
                        fullQuery(profiled, data, stats, false);
                    }
                }, null));
            }
            values.put("coldQueryMillis", coldMs.median());
            values.put("baselineQueryMillis", baselineFullMs);
            values.put("pagesPerQuery", (double) pages);
            values.put("warmPageP50Millis", pageMs.median());
            values.put("warmPageP99Millis", pageMs.percentile(99));
            values.put("warmQueryP99Millis", warmMs.percentile(99));
            values.put("hourlyItemBytes", data.hourlyItemBytes());
            values.put("dailyItemBytes", data.dailyItemBytes());
            return new Result(name(),
                    Format.millis(coldMs.median()) + " for " + data.series().size() + " series x 24 h at PT5M, cold; warm p99 "
                            + Format.millis(pageMs.percentile(99)) + " per invocation",
                    "N+1 " + Format.millis(baselineFullMs), Format.times(ratio),
                    ">= 10x and warm p99 <= 20 ms", met, details, values);
        }
    }

    private static software.amazon.lambda.powertools.metrics.Metrics metrics() {
        return MetricsBuilder.builder().withNamespace("PulseBench").withService("query").build();
    }

    static int fullQuery(QueryHandler handler, QueryDataset data, List<String> stats, boolean check) throws Exception {
        return fullQuery(handler, data, stats, check, null);
    }

    /** The whole query, page after page; checked against the dataset when {@code check}. The pages it took. */
    static int fullQuery(QueryHandler handler, QueryDataset data, List<String> stats, boolean check,
            List<Double> pageMillis) throws Exception {
        String token = null;
        int pages = 0;
        Map<String, QueryDataset.Series> expected = data.byKey();
        int seen = 0;
        do {
            long t0 = System.nanoTime();
            APIGatewayV2HTTPResponse r = handler.handleRequest(data.event(stats, token),
                    new BenchContext("query", "q" + pages, 29_000, 1024));
            if (pageMillis != null) {
                pageMillis.add((System.nanoTime() - t0) / 1e6);
            }
            pages++;
            if (r.getStatusCode() != 200) {
                throw new IllegalStateException("query answered " + r.getStatusCode() + ": " + r.getBody());
            }
            JsonNode body = JSON.readTree(r.getBody());
            if (!body.path("unprocessed").isEmpty()) {
                throw new IllegalStateException("series left unprocessed: " + body.path("unprocessed"));
            }
            if (check) {
                for (JsonNode s : body.path("series")) {
                    check(expected.get(s.path("key").asText()), s.path("values"));
                    seen++;
                }
            }
            token = body.path("nextToken").isNull() ? null : body.path("nextToken").asText();
        } while (token != null);
        if (check && seen != expected.size()) {
            throw new IllegalStateException("the query answered " + seen + " of " + expected.size() + " series");
        }
        return pages;
    }

    private static void check(QueryDataset.Series want, JsonNode values) {
        if (want == null) {
            throw new IllegalStateException("the query answered a series it was not asked for");
        }
        for (int b = 0; b < QueryDataset.BUCKETS; b++) {
            long count = values.path("count").get(b).asLong();
            double avg = values.path("avg").get(b).asDouble();
            if (count != want.counts()[b] || Math.abs(avg - want.sums()[b] / count) > 1e-9 * Math.abs(avg)
                    || values.path("max").get(b).asDouble() != want.maxima()[b]) {
                throw new IllegalStateException("wrong answer for " + want.key() + " bucket " + b + ": count " + count
                        + " avg " + avg + ", expected " + want.counts()[b] + " / " + want.sums()[b] / want.counts()[b]);
            }
        }
    }

    /**
     * The N+1 baseline for the first {@code seriesCount} series: one GetItem per series per bucket, its five
     * minutes merged; checked like the product's answer. The reads made.
     */
    static long nPlusOne(DynamoDbClient client, QueryDataset data, int seriesCount) {
        long reads = 0;
        for (QueryDataset.Series s : data.series().subList(0, seriesCount)) {
            for (int b = 0; b < QueryDataset.BUCKETS; b++) {
                long bucketStart = QueryDataset.DAY_START + b * QueryDataset.BUCKET;
                long hourStart = Math.floorDiv(bucketStart, QueryDataset.HOUR) * QueryDataset.HOUR;
                Map<String, AttributeValue> item = client.getItem(g -> g.tableName(data.table()).key(Map.of(
                        KeyScheme.PK, AttributeValue.fromS(KeyScheme.hourlyPk(s.key(), hourStart)),
                        KeyScheme.SK, AttributeValue.fromS(KeyScheme.hour(hourStart))))).item();
                reads++;
                SortedMap<Integer, Summary> minutes = RollupItems.buckets(item, RollupItems.MINUTES, true);
                Summary bucket = new Summary();
                int firstMinute = (int) ((bucketStart - hourStart) / 60_000L);
                for (int m = firstMinute; m < firstMinute + 5; m++) {
                    bucket.merge(minutes.get(m));
                }
                double p99 = bucket.quantile(0.99);
                if (bucket.count() != s.counts()[b] || bucket.max() != s.maxima()[b] || !(p99 > 0)) {
                    throw new IllegalStateException("baseline: wrong answer for " + s.key() + " bucket " + b);
                }
            }
        }
        return reads;
    }
}
