package dev.pulse.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.model.SeriesKey;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.StoredPartials;
import dev.pulse.testing.TestContext;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.lambda.powertools.metrics.MetricsBuilder;

/**
 * Kinesis records -> ingest -> table stream -> compaction -> query API, with every statistic checked against a
 * direct computation from the raw datapoints, at minute, hourly and daily levels and across their boundaries.
 */
@ExtendWith(Emulators.class)
class QueryIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-11-21T12:20:00Z");
    private static final String[] ROUTES = {"GET /cart", "POST /pay", "GET /items/{id}"};
    private static final String[] STATS = {"count", "sum", "avg", "min", "max", "p50", "p90", "p99"};

    /** series key -> raw (ts, value) pairs. */
    private final Map<String, List<double[]>> raw = new TreeMap<>();
    private long sequence;

    @Test
    void query_whenDataSpansDays_everyStatEqualsDirectComputationAtEveryLevel() throws Exception {
        try (Pipeline p = new Pipeline("pulse-query", NOW, Duration.ofDays(14))) {
            Random random = new Random(21);
            p.ingest(generate(random, 2500, NOW.minus(Duration.ofDays(3)).toEpochMilli(), NOW.toEpochMilli()));
            p.compactAll();
            // Late data for hours and days that were already compacted.
            p.ingest(generate(random, 500, NOW.minus(Duration.ofDays(3)).toEpochMilli(), NOW.toEpochMilli()));
            p.compactAll();
            // Fresh data in the open hour, not compacted yet: queries must still see it (from the partials).
            p.ingest(generate(random, 200, NOW.minus(Duration.ofMinutes(20)).toEpochMilli(), NOW.toEpochMilli()));
            QueryHandler handler = handler(p);

            assertQueryMatches(handler, "2026-11-21T10:20:00Z", "2026-11-21T12:20:00Z", "PT5M"); // hourly + open hour
            assertQueryMatches(handler, "2026-11-18T00:00:00Z", "2026-11-21T12:20:00Z", "PT1H"); // daily + hourly + open
            assertQueryMatches(handler, "2026-11-18T00:00:00Z", "2026-11-21T00:00:00Z", "P1D");  // daily only
            assertQueryMatches(handler, "2026-11-19T22:13:00Z", "2026-11-20T03:00:00Z", "PT7M"); // across midnight
            assertQueryMatches(handler, "2026-11-21T12:00:00Z", "2026-11-21T12:20:00Z", "60");   // partials only
            assertQueryMatches(handler, "2026-11-20T00:00:00Z", "2026-11-20T10:30:00Z", "PT1H"); // closed day, cut hour
        }
    }

    @Test
    void query_when30DaysAtOneHourPeriod_readsDailyRollupsNotMinutePartials() throws Exception {
        try (Pipeline p = new Pipeline("pulse-query30", NOW, Duration.ofDays(40))) {
            List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
            long from = NOW.minus(Duration.ofDays(30)).toEpochMilli();
            for (long t = from; t < NOW.toEpochMilli(); t += 20 * 60_000L) { // 3 points per hour per series
                for (String route : ROUTES) {
                    records.add(record(route, t, 1 + (t / 60_000L) % 97));
                }
            }
            p.ingest(records);
            p.compactAll();
            long partials = StoredPartials.partialItemCount(Emulators.dynamo().client(), p.table);
            QueryService service = service(p);
            InvocationMetrics<QueryMetric> metrics = new InvocationMetrics<>(QueryMetric.class);

            QueryRequest request = QueryParser.parse(query("2026-10-22T00:00:00Z", "2026-11-21T12:20:00Z", "PT1H"));
            QueryResult result = service.query(request, Deadline.inMillis(20_000), metrics);

            long reads = metrics.count(QueryMetric.ITEMS_READ);
            // Per series: 30 closed days (daily items) + 12 closed hours of today (hourly) + the open hour's partials.
            assertThat(reads).isLessThanOrEqualTo(ROUTES.length * (30 + 12 + 1));
            assertThat(reads * 20).isLessThan(partials);
            assertThat(result.series()).hasSize(ROUTES.length);
            double counted = result.series().stream().flatMap(s -> s.values().get("count").stream())
                    .filter(v -> v != null).mapToDouble(Double::doubleValue).sum();
            assertThat((long) counted).isEqualTo(records.size());

            // The same query warm: closed items come from the container's cache.
            InvocationMetrics<QueryMetric> warm = new InvocationMetrics<>(QueryMetric.class);
            service.query(request, Deadline.inMillis(20_000), warm);
            assertThat(warm.count(QueryMetric.CACHE_HITS)).isEqualTo(ROUTES.length * (30L + 12));
            assertThat(warm.count(QueryMetric.ITEMS_READ)).isLessThanOrEqualTo(ROUTES.length);
        }
    }

    @Test
    void getSeries_whenByNameAndByPrefix_listsTheCatalogInPages() throws Exception {
        try (Pipeline p = new Pipeline("pulse-catalog", NOW, Duration.ofDays(14))) {
            List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
            for (String route : ROUTES) {
                records.add(record(route, NOW.toEpochMilli() - 60_000, 1));
            }
            records.add(KinesisRecords.record("shardId-000000000000", sequence++, "x",
                    ("{\"name\":\"checkout.orders\",\"ts\":" + (NOW.toEpochMilli() - 1000) + ",\"value\":1}")
                            .getBytes(StandardCharsets.UTF_8), NOW.toEpochMilli()));
            p.ingest(records);
            QueryHandler handler = handler(p);

            JsonNode first = get(handler, Map.of("name", "api.latency", "limit", "2"));
            assertThat(first.get("series")).hasSize(2);
            JsonNode second = get(handler, Map.of("name", "api.latency", "limit", "2", "nextToken",
                    first.get("nextToken").asText()));
            List<String> keys = new ArrayList<>();
            first.get("series").forEach(s -> keys.add(s.get("key").asText()));
            second.get("series").forEach(s -> keys.add(s.get("key").asText()));
            assertThat(keys).containsExactlyInAnyOrderElementsOf(raw.keySet());
            assertThat(first.get("series").get(0).get("dims").has("route")).isTrue();

            JsonNode names = get(handler, Map.of("prefix", "api."));
            assertThat(names.get("names")).extracting(JsonNode::asText).containsExactly("api.latency");
            JsonNode all = get(handler, Map.of("prefix", ""));
            assertThat(all.get("names")).extracting(JsonNode::asText).containsExactly("api.latency", "checkout.orders");
        }
    }

    private void assertQueryMatches(QueryHandler handler, String start, String end, String period) throws Exception {
        APIGatewayV2HTTPResponse resp = handler.handleRequest(post(query(start, end, period)),
                new TestContext("q", 30_000, 1024));
        assertThat(resp.getStatusCode()).as(resp.getBody()).isEqualTo(200);
        JsonNode body = JSON.readTree(resp.getBody());
        assertThat(body.get("unprocessed")).isEmpty();
        long from = Instant.parse(start).toEpochMilli();
        long to = Instant.parse(end).toEpochMilli();
        long step = period.startsWith("P") ? Duration.parse(period).toMillis() : Long.parseLong(period) * 1000;
        JsonNode ts = body.get("timestamps");
        assertThat(ts.size()).isEqualTo((int) ((to - from + step - 1) / step));
        for (JsonNode s : body.get("series")) {
            String key = s.get("key").asText();
            for (int i = 0; i < ts.size(); i++) {
                long b0 = from + i * step;
                long b1 = Math.min(to, b0 + step);
                List<Double> values = new ArrayList<>();
                for (double[] tv : raw.getOrDefault(key, List.of())) {
                    if (tv[0] >= b0 && tv[0] < b1) {
                        values.add(tv[1]);
                    }
                }
                String at = key + " " + period + " bucket " + Instant.ofEpochMilli(b0);
                assertBucket(at, s.get("values"), i, values);
            }
        }
        assertThat(body.get("series")).hasSize(ROUTES.length);
    }

    private static void assertBucket(String at, JsonNode values, int i, List<Double> raw) {
        if (raw.isEmpty()) {
            for (String stat : STATS) {
                assertThat(values.get(stat).get(i).isNull()).as(at + " " + stat + " of an empty bucket").isTrue();
            }
            return;
        }
        StoredPartials.Summary want = StoredPartials.Summary.of(raw);
        assertThat(values.get("count").get(i).asLong()).as(at + " count").isEqualTo(want.count());
        assertThat(values.get("sum").get(i).asDouble()).as(at + " sum").isEqualTo(want.sum());
        assertThat(values.get("min").get(i).asDouble()).as(at + " min").isEqualTo(want.min());
        assertThat(values.get("max").get(i).asDouble()).as(at + " max").isEqualTo(want.max());
        double avg = new BigDecimal(want.sum()).doubleValue() / want.count();
        assertThat(values.get("avg").get(i).asDouble()).as(at + " avg")
                .isCloseTo(avg, org.assertj.core.api.Assertions.within(Math.abs(avg) * 1e-9));
        List<Double> sorted = new ArrayList<>(raw);
        Collections.sort(sorted);
        for (String p : new String[] {"p50", "p90", "p99"}) {
            double q = Double.parseDouble(p.substring(1)) / 100;
            double exact = sorted.get((int) Math.floor(q * (sorted.size() - 1)));
            assertThat(values.get(p).get(i).asDouble()).as(at + " " + p).isCloseTo(exact, withinPercentage(1.0001));
        }
    }

    private List<KinesisEvent.KinesisEventRecord> generate(Random random, int n, long from, long to) {
        List<KinesisEvent.KinesisEventRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String route = ROUTES[random.nextInt(ROUTES.length)];
            long ts = from + (long) (random.nextDouble() * (to - from));
            out.add(record(route, ts, Math.pow(10, random.nextDouble() * 9 - 3)));
        }
        return out;
    }

    private KinesisEvent.KinesisEventRecord record(String route, long ts, double value) {
        String json = String.format(Locale.ROOT, "{\"name\":\"api.latency\",\"dims\":{\"route\":\"%s\"},\"ts\":%d,\"value\":%s}",
                route, ts, Double.toString(value));
        raw.computeIfAbsent(SeriesKey.of("api.latency", Map.of("route", route)), k -> new ArrayList<>())
                .add(new double[] {ts, value});
        return KinesisRecords.record("shardId-000000000000", sequence++, route, json.getBytes(StandardCharsets.UTF_8),
                NOW.toEpochMilli());
    }

    private static String query(String start, String end, String period) {
        StringBuilder series = new StringBuilder("[");
        for (int i = 0; i < ROUTES.length; i++) {
            series.append(i == 0 ? "" : ",").append("{\"name\":\"api.latency\",\"dims\":{\"route\":\"")
                    .append(ROUTES[i]).append("\"}}");
        }
        String p = period.startsWith("P") ? "\"" + period + "\"" : period;
        return "{\"series\":" + series + "],\"start\":\"" + start + "\",\"end\":\"" + end + "\",\"period\":" + p
                + ",\"stats\":[\"" + String.join("\",\"", STATS) + "\"]}";
    }

    private static QueryService service(Pipeline p) {
        return new QueryService(Emulators.dynamo().asyncClient(), p.table, 16, 5 * 60_000L,
                new RollupCache(1_000_000, 5 * 60_000L), p.clock());
    }

    private static QueryHandler handler(Pipeline p) {
        return new QueryHandler(service(p), new CatalogService(Emulators.dynamo().asyncClient(), p.table),
                MetricsBuilder.builder().withNamespace("PulseTest").withService("query").build(), 3_000);
    }

    static APIGatewayV2HTTPEvent post(String body) {
        return APIGatewayV2HTTPEvent.builder().withRawPath("/query").withBody(body).withIsBase64Encoded(false)
                .withRequestContext(APIGatewayV2HTTPEvent.RequestContext.builder()
                        .withHttp(APIGatewayV2HTTPEvent.RequestContext.Http.builder().withMethod("POST").withPath("/query").build())
                        .build())
                .build();
    }

    private static JsonNode get(QueryHandler handler, Map<String, String> params) throws Exception {
        APIGatewayV2HTTPEvent event = APIGatewayV2HTTPEvent.builder().withRawPath("/series").withQueryStringParameters(params)
                .withRequestContext(APIGatewayV2HTTPEvent.RequestContext.builder()
                        .withHttp(APIGatewayV2HTTPEvent.RequestContext.Http.builder().withMethod("GET").withPath("/series").build())
                        .build())
                .build();
        APIGatewayV2HTTPResponse resp = handler.handleRequest(event, new TestContext("s", 30_000, 1024));
        assertThat(resp.getStatusCode()).as(resp.getBody()).isEqualTo(200);
        return JSON.readTree(resp.getBody());
    }
}
