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

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.compact.CompactMetric;
import dev.pulse.compact.CompactResult;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.ApiRequests;
import dev.pulse.testing.ControlledPuts;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.RawData;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.StoredPartials;
import dev.pulse.testing.TestContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Kinesis records -> ingest -> compactor -> query API, with every statistic checked against a direct
 * computation from the raw datapoints, at minute, hourly and daily levels and across their boundaries; and the
 * same exactness when the builder has not run, stopped halfway, or late data marked built periods again: the
 * query then answers from the level below instead of from a rollup that may be short.
 */
@ExtendWith(Emulators.class)
class QueryIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-11-21T12:20:00Z");
    private static final String[] ROUTES = {"GET /cart", "POST /pay", "GET /items/{id}"};

    private final RawData raw = new RawData();
    private long sequence;

    @Test
    void query_whenDataSpansDays_everyStatEqualsDirectComputationAtEveryLevel() {
        try (Pipeline p = new Pipeline("pulse-query", NOW, Duration.ofDays(14))) {
            Random random = new Random(21);
            p.ingest(generate(random, 2500, NOW.minus(Duration.ofDays(3)).toEpochMilli(), NOW.toEpochMilli()));
            p.compactAll();
            // Late data for hours and days that were already built.
            p.ingest(generate(random, 500, NOW.minus(Duration.ofDays(3)).toEpochMilli(), NOW.toEpochMilli()));
            p.compactAll();
            // Fresh data in the open hour, not built yet: queries must still see it (from the partials).
            p.ingest(generate(random, 200, NOW.minus(Duration.ofMinutes(20)).toEpochMilli(), NOW.toEpochMilli()));
            RecordingMetrics metrics = new RecordingMetrics();
            QueryHandler handler = p.queryHandler(metrics);

            raw.assertQueryMatches(handler, "2026-11-18T00:00:00Z", "2026-11-21T00:00:00Z", "P1D"); // daily only
            assertThat(metrics.last("ItemsRead"))
                    .as("3 days of 3 series: their daily rollups")
                    .isEqualTo(9);
            raw.assertQueryMatches(
                    handler, "2026-11-21T10:20:00Z", "2026-11-21T12:20:00Z", "PT5M"); // hourly + open hour
            raw.assertQueryMatches(
                    handler, "2026-11-18T00:00:00Z", "2026-11-21T12:20:00Z", "PT1H"); // daily + hourly + open
            raw.assertQueryMatches(handler, "2026-11-19T22:13:00Z", "2026-11-20T03:00:00Z", "PT7M"); // across midnight
            raw.assertQueryMatches(handler, "2026-11-21T12:00:00Z", "2026-11-21T12:20:00Z", "60"); // partials only
            raw.assertQueryMatches(
                    handler, "2026-11-20T00:00:00Z", "2026-11-20T10:30:00Z", "PT1H"); // closed day, cut hour
            assertThat(metrics.documents())
                    .allSatisfy(d -> assertThat(d.get("RollupFallbacks")).isZero());
        }
    }

    @Test
    void query_whenRepeatedOnWarmContainer_answersAsColdFromCachedPeriodBuckets() {
        try (Pipeline p = new Pipeline("pulse-query-warm", NOW, Duration.ofDays(14))) {
            Random random = new Random(34);
            p.ingest(generate(random, 3000, NOW.minus(Duration.ofDays(3)).toEpochMilli(), NOW.toEpochMilli()));
            p.compactAll();
            p.ingest(generate(random, 100, NOW.minus(Duration.ofMinutes(20)).toEpochMilli(), NOW.toEpochMilli()));
            RecordingMetrics metrics = new RecordingMetrics();
            QueryHandler warm = p.queryHandler(metrics);
            // Buckets within hours, across hours and midnight, a grid not on the hour, ends cutting a closed hour,
            // daily rollups, single minutes, and the open hour.
            String[][] shapes = {
                {"2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z", "PT5M"},
                {"2026-11-20T05:17:00Z", "2026-11-20T09:43:00Z", "PT5M"},
                {"2026-11-19T22:13:00Z", "2026-11-20T03:00:00Z", "PT7M"},
                {"2026-11-18T03:00:00Z", "2026-11-20T15:00:00Z", "PT90M"},
                {"2026-11-18T00:00:00Z", "2026-11-21T00:00:00Z", "PT1H"},
                {"2026-11-18T00:00:00Z", "2026-11-21T00:00:00Z", "P1D"},
                {"2026-11-20T23:13:00Z", "2026-11-21T00:47:00Z", "60"},
                {"2026-11-21T10:20:00Z", "2026-11-21T12:20:00Z", "PT5M"},
                {"2026-11-10T00:00:00Z", "2026-11-10T06:00:00Z", "PT5M"}, // hours without data: no items
            };
            for (String[] q : shapes) {
                boolean coldContainer = q == shapes[0]; // later shapes find the stored rollups cached by earlier ones
                JsonNode first = raw.assertQueryMatches(warm, q[0], q[1], q[2]);
                long firstReads = metrics.last("ItemsRead");
                JsonNode repeat = raw.assertQueryMatches(warm, q[0], q[1], q[2]);
                JsonNode cold = RawData.post(p.queryHandler(new RecordingMetrics()), raw.query(q[0], q[1], q[2]));

                assertThat(repeat)
                        .as("warm repeat of %s", List.of(q))
                        .isEqualTo(first)
                        .isEqualTo(cold);
                boolean closedOnly = Instant.parse(q[1]).isBefore(NOW.minus(Duration.ofHours(1)));
                if (closedOnly) {
                    if (coldContainer) {
                        assertThat(firstReads)
                                .as("a cold query reads its rollups")
                                .isEqualTo(3 * 24);
                    }
                    assertThat(metrics.last("ItemsRead"))
                            .as("a warm repeat of closed periods reads nothing")
                            .isZero();
                }
                assertThat(metrics.last("CacheHits"))
                        .as("every rollup of the repeat from the cache")
                        .isPositive();
            }
            // A percentile the cached buckets have not answered yet: computed from their merged sketches.
            String other = raw.query("2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z", "PT5M")
                    .replaceFirst("\"stats\":\\[[^\\]]*\\]", "\"stats\":[\"p75\",\"count\"]");
            assertThat(other).contains("p75");
            assertThat(RawData.post(warm, other))
                    .isEqualTo(RawData.post(p.queryHandler(new RecordingMetrics()), other));
            assertThat(metrics.last("ItemsRead")).isZero();
        }
    }

    @Test
    void query_when30DaysAtOneHourPeriod_readsDailyRollupsNotMinutePartials() {
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
            long partials = StoredPartials.partialItemCount(p.reader(), p.table);
            RecordingMetrics metrics = new RecordingMetrics();
            QueryHandler handler = p.queryHandler(metrics);
            String request = raw.query("2026-10-22T00:00:00Z", "2026-11-21T12:20:00Z", "PT1H");

            JsonNode result = RawData.post(handler, request);

            long reads = metrics.last("ItemsRead");
            // Per series: 30 closed days (daily items) + 12 closed hours of today (hourly) + the open hour's partials.
            assertThat(reads).isLessThanOrEqualTo(ROUTES.length * (30 + 12 + 1));
            assertThat(reads * 20).isLessThan(partials);
            assertThat(metrics.last("RollupFallbacks")).isZero();
            assertThat(result.get("series")).hasSize(ROUTES.length);
            long counted = 0;
            for (JsonNode series : result.get("series")) {
                for (JsonNode c : series.get("values").get("count")) {
                    counted += c.asLong();
                }
            }
            assertThat(counted).isEqualTo(records.size());

            // The same query warm: closed items come from the container's cache.
            RawData.post(handler, request);
            assertThat(metrics.last("CacheHits")).isEqualTo(ROUTES.length * (30L + 12));
            assertThat(metrics.last("ItemsRead")).isLessThanOrEqualTo(ROUTES.length);
        }
    }

    @Test
    void query_whenBuilderNeverRan_closedHoursAndDaysAreExactFromThePartials() {
        try (Pipeline p = new Pipeline("pulse-query-nobuild", NOW, Duration.ofDays(14))) {
            p.ingest(
                    generate(new Random(31), 1500, NOW.minus(Duration.ofDays(3)).toEpochMilli(), NOW.toEpochMilli()));
            p.clock().advance(Duration.ofHours(2)); // every hour of the data long closed, and still no build
            RecordingMetrics metrics = new RecordingMetrics();

            assertClosedRangesMatch(p.queryHandler(metrics));

            // Every closed day and hour was answered from below: marked, never built.
            assertThat(metrics.documents())
                    .allSatisfy(d -> assertThat(d.get("RollupFallbacks")).isPositive());
        }
    }

    @Test
    void query_whenBuildRunDiedHalfway_closedHoursAndDaysAreExactFromRollupsAndPartials() {
        try (Pipeline p = new Pipeline("pulse-query-halfway", NOW, Duration.ofDays(14))) {
            p.ingest(
                    generate(new Random(32), 1500, NOW.minus(Duration.ofDays(3)).toEpochMilli(), NOW.toEpochMilli()));
            p.clock().advance(p.config.markSettle().plusMinutes(1));
            // The run dies after 40 rollup writes (the process crashed, or its work was discarded): the rest stays
            // marked.
            ControlledPuts dying = new ControlledPuts(Emulators.dynamoAsync());
            dying.failAfter(40);
            CompactResult r =
                    p.builder(dying).build(Deadline.inMillis(60_000), new InvocationMetrics<>(CompactMetric.class));
            assertThat(r.stopped()).isTrue();
            assertThat(r.hoursBuilt()).isEqualTo(40);
            assertThat(r.daysBuilt()).isZero();
            RecordingMetrics metrics = new RecordingMetrics();

            assertClosedRangesMatch(p.queryHandler(metrics));

            assertThat(metrics.documents())
                    .allSatisfy(d -> assertThat(d.get("RollupFallbacks")).isPositive());
        }
    }

    @Test
    void query_whenLateDataMarksBuiltPeriodsAndBuilderDoesNotRun_servesTheLateDataNotTheStaleRollups() {
        try (Pipeline p = new Pipeline("pulse-query-late", NOW, Duration.ofDays(14))) {
            Random random = new Random(33);
            long from = NOW.minus(Duration.ofDays(3)).toEpochMilli();
            p.ingest(generate(random, 1200, from, NOW.toEpochMilli()));
            p.compactAll();
            RecordingMetrics warmMetrics = new RecordingMetrics();
            QueryHandler warm = p.queryHandler(warmMetrics);
            assertClosedRangesMatch(warm); // served by the built rollups, which it caches
            assertThat(warmMetrics.documents())
                    .allSatisfy(d -> assertThat(d.get("RollupFallbacks")).isZero());

            // Late data into built hours and days of every series; the builder is stopped from here on.
            p.clock().advance(Duration.ofMinutes(1));
            p.ingest(generate(random, 300, from, NOW.minus(Duration.ofHours(1)).toEpochMilli()));
            RecordingMetrics metrics = new RecordingMetrics();

            assertClosedRangesMatch(p.queryHandler(metrics));
            assertThat(metrics.documents())
                    .allSatisfy(d -> assertThat(d.get("RollupFallbacks")).isPositive());

            // A warm container keeps its cached rollups for the cache's 5 minutes at most, then reads again.
            p.clock().advance(Duration.ofMinutes(5));
            assertClosedRangesMatch(warm);

            // Once the builder runs again, the rebuilt rollups are complete and give the same answers.
            p.compactAll();
            RecordingMetrics rebuilt = new RecordingMetrics();
            assertClosedRangesMatch(p.queryHandler(rebuilt));
            assertThat(rebuilt.documents())
                    .allSatisfy(d -> assertThat(d.get("RollupFallbacks")).isZero());
        }
    }

    @Test
    void getSeries_whenByNameAndByPrefix_listsTheCatalogInPages() throws Exception {
        try (Pipeline p = new Pipeline("pulse-catalog", NOW, Duration.ofDays(14))) {
            List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
            for (String route : ROUTES) {
                records.add(record(route, NOW.toEpochMilli() - 60_000, 1));
            }
            records.add(KinesisRecords.record(
                    "shardId-000000000000",
                    sequence++,
                    "x",
                    ("{\"name\":\"checkout.orders\",\"ts\":" + (NOW.toEpochMilli() - 1000) + ",\"value\":1}")
                            .getBytes(StandardCharsets.UTF_8),
                    NOW.toEpochMilli()));
            p.ingest(records);
            QueryHandler handler = p.queryHandler();

            JsonNode first = get(handler, Map.of("name", "api.latency", "limit", "2"));
            assertThat(first.get("series")).hasSize(2);
            JsonNode second = get(
                    handler,
                    Map.of(
                            "name",
                            "api.latency",
                            "limit",
                            "2",
                            "nextToken",
                            first.get("nextToken").asText()));
            List<String> keys = new ArrayList<>();
            first.get("series").forEach(s -> keys.add(s.get("key").asText()));
            second.get("series").forEach(s -> keys.add(s.get("key").asText()));
            assertThat(keys).containsExactlyInAnyOrderElementsOf(raw.keys());
            assertThat(first.get("series").get(0).get("dims").has("route")).isTrue();

            JsonNode names = get(handler, Map.of("prefix", "api."));
            assertThat(names.get("names")).extracting(JsonNode::asText).containsExactly("api.latency");
            JsonNode all = get(handler, Map.of("prefix", ""));
            assertThat(all.get("names")).extracting(JsonNode::asText).containsExactly("api.latency", "checkout.orders");
        }
    }

    /** Closed days at P1D, closed days and hours at PT1H, minutes of closed hours across midnight. */
    private void assertClosedRangesMatch(QueryHandler handler) {
        raw.assertQueryMatches(handler, "2026-11-18T00:00:00Z", "2026-11-21T00:00:00Z", "P1D");
        raw.assertQueryMatches(handler, "2026-11-18T00:00:00Z", "2026-11-21T12:00:00Z", "PT1H");
        raw.assertQueryMatches(handler, "2026-11-19T21:00:00Z", "2026-11-20T03:00:00Z", "PT5M");
        raw.assertQueryMatches(handler, "2026-11-20T23:13:00Z", "2026-11-21T00:47:00Z", "60");
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
        String json = String.format(
                Locale.ROOT,
                "{\"name\":\"api.latency\",\"dims\":{\"route\":\"%s\"},\"ts\":%d,\"value\":%s}",
                route,
                ts,
                Double.toString(value));
        raw.add("api.latency", Map.of("route", route), ts, value);
        return KinesisRecords.record(
                "shardId-000000000000", sequence++, route, json.getBytes(StandardCharsets.UTF_8), NOW.toEpochMilli());
    }

    private static JsonNode get(QueryHandler handler, Map<String, String> params) throws Exception {
        APIGatewayV2HTTPResponse resp = handler.handleRequest(
                ApiRequests.request("GET", "/series", params), new TestContext("s", 30_000, 1024));
        assertThat(resp.getStatusCode()).as(resp.getBody()).isEqualTo(200);
        return JSON.readTree(resp.getBody());
    }
}
