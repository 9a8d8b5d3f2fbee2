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
package dev.pulse.bench;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.aggregate.Summary;
import dev.pulse.config.PulseConfig;
import dev.pulse.model.SeriesKey;
import dev.pulse.query.QueryFunction;
import dev.pulse.query.QueryHandler;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.write.DynamoDbStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * A compacted day of {@code series} series in a fresh table: the hourly items (60 minute summaries with
 * sketches) and daily items (24 hour summaries) that CompactFunction writes, encoded by the same
 * {@link RollupItems}, six datapoints a minute. The query of the benchmarks asks for the whole day at PT5M, two
 * days later (every hour closed and compacted), and can be checked against the expected bucket counts and sums.
 */
public final class QueryDataset {

    static final long DAY_START = Instant.parse("2026-11-20T00:00:00Z").toEpochMilli();
    static final long HOUR = 3_600_000L;
    static final long BUCKET = 300_000L;
    static final int BUCKETS = 288;
    static final int VALUES_PER_MINUTE = 6;
    /**
     * The series as an OTLP delta histogram of unit ms with these explicit bounds would be catalogued: the PromQL
     * dashboard reads them as {@code api_latency_milliseconds_bucket}, {@code _count}, {@code _sum}.
     */
    static final dev.pulse.model.MetricKind OTLP_KIND = dev.pulse.model.MetricKind.histogram(
            dev.pulse.model.MetricKind.Temporality.DELTA, "ms", List.of(10.0, 100.0, 1000.0, 5000.0));

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The query function never writes to its dead-letter queue; its configuration still names one. */
    static final String UNUSED_QUEUE = "http://127.0.0.1:9/123456789012/unused";

    /** One series of the dataset with what every PT5M bucket must answer. */
    record Series(String name, Map<String, String> dims, String key, long[] counts, double[] sums, double[] maxima) {}

    private final PulseConfig config;
    private final String table;
    private final List<Series> series;
    private final int itemsWritten;
    private final double hourlyItemBytes;
    private final double dailyItemBytes;

    private QueryDataset(
            PulseConfig config,
            String table,
            List<Series> series,
            int itemsWritten,
            double hourlyItemBytes,
            double dailyItemBytes) {
        this.config = config;
        this.table = table;
        this.series = series;
        this.itemsWritten = itemsWritten;
        this.hourlyItemBytes = hourlyItemBytes;
        this.dailyItemBytes = dailyItemBytes;
    }

    /** Writes the day into a fresh table of {@code env}'s DynamoDB Local. */
    public static QueryDataset create(BenchEnv env, int seriesCount) throws Exception {
        String table = env.newTable("query");
        DynamoDbStore store = new DynamoDbStore(env.dynamoAsync(8, false), table, 8, new Backoff(10, 500));
        SplittableRandom rnd = new SplittableRandom(42);
        List<Series> all = new ArrayList<>();
        int items = 0;
        long hourlyBytes = 0;
        long dailyBytes = 0;
        for (int s = 0; s < seriesCount; s++) {
            Map<String, String> dims = dims(s);
            String key = SeriesKey.of("api.latency", dims);
            Series ser =
                    new Series("api.latency", dims, key, new long[BUCKETS], new double[BUCKETS], new double[BUCKETS]);
            java.util.Arrays.fill(ser.maxima(), Double.NEGATIVE_INFINITY);
            List<Map<String, AttributeValue>> batch = new ArrayList<>(25);
            SortedMap<Integer, Summary> hours = new TreeMap<>();
            for (int h = 0; h < 24; h++) {
                long hourStart = DAY_START + h * HOUR;
                SortedMap<Integer, Summary> minutes = new TreeMap<>();
                Summary hour = new Summary();
                for (int m = 0; m < 60; m++) {
                    Summary minute = new Summary();
                    int bucket = (h * 60 + m) / 5;
                    for (int v = 0; v < VALUES_PER_MINUTE; v++) {
                        double value = Math.pow(10, rnd.nextDouble() * 4);
                        minute.add(value);
                        ser.counts()[bucket]++;
                        ser.sums()[bucket] += value;
                        ser.maxima()[bucket] = Math.max(ser.maxima()[bucket], value);
                    }
                    minutes.put(m, minute);
                    hour.merge(minute);
                }
                hours.put(h, hour);
                batch.add(built(RollupItems.hourly(key, hourStart, minutes, 400L * 86_400)));
                hourlyBytes += itemBytes(batch.get(batch.size() - 1));
            }
            batch.add(built(RollupItems.daily(key, DAY_START, hours, 3650L * 86_400)));
            dailyBytes += itemBytes(batch.get(batch.size() - 1));
            items += batch.size();
            // The catalog entry, as ingest writes it for an OTLP delta histogram: the PromQL dashboard's selectors
            // find the series (and their OpenTelemetry names) through it.
            batch.add(new java.util.HashMap<>(
                    dev.pulse.store.codec.PartialItems.catalog(key, "api.latency", dims, OTLP_KIND)));
            store.writeAll(batch, Deadline.inMillis(60_000)).join();
            all.add(ser);
        }
        store.writeAll(
                        List.of(new java.util.HashMap<>(
                                dev.pulse.store.codec.PartialItems.name("api.latency", OTLP_KIND))),
                        Deadline.inMillis(60_000))
                .join();
        // And after the entries, as ingest puts it: the catalog's version, under which query containers cache listings.
        store.writeAll(
                        List.of(new java.util.HashMap<>(dev.pulse.store.codec.PartialItems.catalogVersion("dataset"))),
                        Deadline.inMillis(60_000))
                .join();
        PulseConfig config = FunctionSettings.load(env.root(), "QueryFunction").config(table, UNUSED_QUEUE);
        return new QueryDataset(
                config,
                table,
                List.copyOf(all),
                items,
                hourlyBytes / (24.0 * seriesCount),
                (double) dailyBytes / seriesCount);
    }

    /**
     * Writes what a child JVM needs to query this dataset and check the answers (the table, every series' expected
     * buckets) to {@code file}; {@link #load} reads it back.
     */
    void save(Path file) throws IOException {
        ObjectNode root = JSON.createObjectNode()
                .put("table", table)
                .put("itemsWritten", itemsWritten)
                .put("hourlyItemBytes", hourlyItemBytes)
                .put("dailyItemBytes", dailyItemBytes);
        root.set("series", JSON.valueToTree(series));
        Files.createDirectories(file.toAbsolutePath().getParent());
        JSON.writeValue(file.toFile(), root);
    }

    /** The dataset {@link #save} wrote, with QueryFunction's configuration from {@code repository}'s template. */
    static QueryDataset load(Path file, Path repository) throws IOException {
        JsonNode root = JSON.readTree(file.toFile());
        String table = root.path("table").asText();
        List<Series> series = JSON.convertValue(root.path("series"), new TypeReference<List<Series>>() {});
        PulseConfig config = FunctionSettings.load(repository, "QueryFunction").config(table, UNUSED_QUEUE);
        return new QueryDataset(
                config,
                table,
                List.copyOf(series),
                root.path("itemsWritten").asInt(),
                root.path("hourlyItemBytes").asDouble(),
                root.path("dailyItemBytes").asDouble());
    }

    /** Average size of a full hourly item (60 minute summaries), as DynamoDB counts it for capacity units. */
    public double hourlyItemBytes() {
        return hourlyItemBytes;
    }

    /** Average size of a full daily item (24 hour summaries). */
    public double dailyItemBytes() {
        return dailyItemBytes;
    }

    /**
     * An item's size by DynamoDB's rules: attribute names plus values; strings and binaries their length,
     * numbers about one byte per two digits plus one, maps 3 bytes plus one per element.
     */
    static long itemBytes(Map<String, AttributeValue> item) {
        long n = 0;
        for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
            n += e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8).length + valueBytes(e.getValue());
        }
        return n;
    }

    private static long valueBytes(AttributeValue v) {
        if (v.s() != null) {
            return v.s().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        }
        if (v.n() != null) {
            return (v.n().replaceAll("[^0-9]", "").length() + 1L) / 2 + 1;
        }
        if (v.b() != null) {
            return v.b().asByteArrayUnsafe().length;
        }
        if (v.hasM()) {
            return 3 + itemBytes(v.m()) + v.m().size();
        }
        return 1;
    }

    public String table() {
        return table;
    }

    /** QueryFunction's configuration at the template's defaults, on this dataset's table. */
    public PulseConfig config() {
        return config;
    }

    List<Series> series() {
        return series;
    }

    public int itemsWritten() {
        return itemsWritten;
    }

    /** Two days after the data: every hour and the day are closed. */
    public static Clock clock() {
        return Clock.fixed(Instant.ofEpochMilli(DAY_START + 2 * 86_400_000L), ZoneOffset.UTC);
    }

    /** A QueryHandler over the table, wired as in production, with {@link #clock()}. */
    public QueryHandler handler(DynamoDbAsyncClient client, Metrics metrics) {
        return handler(client, metrics, clock());
    }

    /** As {@link #handler(DynamoDbAsyncClient, Metrics)} on {@code clock} (one the benchmark moves on). */
    public QueryHandler handler(DynamoDbAsyncClient client, Metrics metrics, Clock clock) {
        return QueryFunction.handler(config, client, clock, metrics);
    }

    /** The dimensions of series number {@code s}: 10 services x routes, so the query names 100 distinct series. */
    static Map<String, String> dims(int s) {
        return new TreeMap<>(Map.of("service", "svc-" + (s % 10), "route", "route-" + (s / 10)));
    }

    /** The POST /query event for every series over the day at PT5M with {@code stats}, from {@code nextToken}. */
    public APIGatewayV2HTTPEvent event(List<String> stats, String nextToken) {
        return event(series.size(), stats, nextToken, 0);
    }

    /** The query of the day moved by {@code shiftMillis}: "the last 24 hours" asked at a minute past midnight. */
    public APIGatewayV2HTTPEvent event(List<String> stats, String nextToken, long shiftMillis) {
        return event(series.size(), stats, nextToken, shiftMillis);
    }

    /** The same event for a dataset of {@code seriesCount} series, without the dataset (a forked probe builds it). */
    static APIGatewayV2HTTPEvent event(int seriesCount, List<String> stats, String nextToken) {
        return event(seriesCount, stats, nextToken, 0);
    }

    private static APIGatewayV2HTTPEvent event(
            int seriesCount, List<String> stats, String nextToken, long shiftMillis) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode list = body.putArray("series");
        for (int s = 0; s < seriesCount; s++) {
            ObjectNode n = list.addObject().put("name", "api.latency");
            ObjectNode d = n.putObject("dims");
            dims(s).forEach(d::put);
        }
        body.put("start", Instant.ofEpochMilli(DAY_START + shiftMillis).toString());
        body.put(
                "end",
                Instant.ofEpochMilli(DAY_START + shiftMillis + 86_400_000L).toString());
        body.put("period", "PT5M");
        stats.forEach(body.putArray("stats")::add);
        if (nextToken != null) {
            body.put("nextToken", nextToken);
        }
        return APIGatewayV2HTTPEvent.builder()
                .withVersion("2.0")
                .withRouteKey("POST /query")
                .withRawPath("/query")
                .withHeaders(Map.of("content-type", "application/json"))
                .withRequestContext(APIGatewayV2HTTPEvent.RequestContext.builder()
                        .withHttp(APIGatewayV2HTTPEvent.RequestContext.Http.builder()
                                .withMethod("POST")
                                .withPath("/query")
                                .build())
                        .withRequestId("bench")
                        .withRouteKey("POST /query")
                        .withStage("$default")
                        .build())
                .withBody(body.toString())
                .withIsBase64Encoded(false)
                .build();
    }

    /** The default stats of the benchmarks' query: what a latency dashboard asks for. */
    static List<String> dashboardStats() {
        return List.of("count", "avg", "max", "p99");
    }

    /** Expected answers by series key, for checking a response. */
    Map<String, Series> byKey() {
        Map<String, Series> out = new LinkedHashMap<>();
        series.forEach(s -> out.put(s.key(), s));
        return out;
    }

    /** As the compactor writes it: with a compaction version, so the query serves it (RollupItems#complete). */
    private static java.util.Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> built(
            java.util.Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> item) {
        item.put(RollupItems.VERSION, software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromN("1"));
        return item;
    }
}
