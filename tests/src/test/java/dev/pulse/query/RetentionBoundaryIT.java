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
import dev.pulse.testing.ApiRequests;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.RawData;
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
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Queries over ranges whose levels have expired, at the template's retention (partials 17 days, hourly rollups 35,
 * daily 3,650), through the real handler on DynamoDB Local. DynamoDB Local never expires items, so each test deletes
 * what DynamoDB's TTL would have deleted by then ({@link #expire}): every item whose {@code ttl} has passed. A range
 * is answered from a level that still holds it, or refused with a 400 naming the field and the retention: never
 * answered empty because the level it would have read is gone.
 */
@ExtendWith(Emulators.class)
class RetentionBoundaryIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant DAY = Instant.parse("2026-10-01T00:00:00Z");
    private static final String[] ROUTES = {"GET /cart", "POST /pay"};

    private long sequence;

    /** Ingests {@code n} datapoints spread over [from, to) into {@code raw} and the pipeline, arriving now. */
    private void ingest(Pipeline p, RawData raw, Random random, int n, Instant from, Instant to) {
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        long span = to.toEpochMilli() - from.toEpochMilli();
        for (int i = 0; i < n; i++) {
            String route = ROUTES[random.nextInt(ROUTES.length)];
            long ts = from.toEpochMilli() + (long) (random.nextDouble() * span);
            double value = Math.pow(10, random.nextDouble() * 6 - 2);
            raw.add("api.latency", Map.of("route", route), ts, value);
            String json = String.format(
                    Locale.ROOT,
                    "{\"name\":\"api.latency\",\"dims\":{\"route\":\"%s\"},\"ts\":%d," + "\"value\":%s}",
                    route,
                    ts,
                    Double.toString(value));
            records.add(KinesisRecords.record(
                    "shardId-000000000000",
                    sequence++,
                    route,
                    json.getBytes(StandardCharsets.UTF_8),
                    p.clock().millis()));
        }
        p.ingest(records);
    }

    /** Moves the clock to {@code now} and deletes every item whose TTL has passed, as DynamoDB's TTL would have. */
    private static int expire(Pipeline p, Instant now) {
        p.clock().set(now);
        long seconds = now.getEpochSecond();
        int deleted = 0;
        for (Map<String, AttributeValue> item : p.reader()
                .scanPaginator(b -> b.tableName(p.table).consistentRead(true))
                .items()) {
            AttributeValue ttl = item.get("ttl");
            if (ttl != null && Long.parseLong(ttl.n()) <= seconds) {
                p.reader()
                        .deleteItem(b -> b.tableName(p.table).key(Map.of("pk", item.get("pk"), "sk", item.get("sk"))));
                deleted++;
            }
        }
        return deleted;
    }

    private static APIGatewayV2HTTPResponse post(QueryHandler handler, String body) {
        return handler.handleRequest(ApiRequests.post(body), new TestContext("q", 30_000, 1024));
    }

    private static JsonNode refused(QueryHandler handler, RawData raw, String start, String end, String period)
            throws Exception {
        APIGatewayV2HTTPResponse r = post(handler, raw.query(start, end, period));
        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(400);
        return JSON.readTree(r.getBody()).get("error");
    }

    private static Instant hourlyExpiry(Pipeline p, Instant hour) {
        return hour.plus(Duration.ofHours(1)).plus(p.config.hourlyTtl());
    }

    @Test
    void query_whenHourlyRollupsExpired_answersWholeHoursFromTheDailyRollupAndRefusesCutHours() throws Exception {
        try (Pipeline p = new Pipeline(
                "pulse-retention-hourly", DAY.plus(Duration.ofHours(24).plusMinutes(10)), Map.of())) {
            RawData raw = new RawData();
            ingest(p, raw, new Random(24), 800, DAY, DAY.plus(Duration.ofDays(1)));
            p.compactAll();
            QueryHandler handler = p.queryHandler();

            // The first eleven hours' minute detail has expired, the rest of the day's is kept.
            assertThat(expire(p, hourlyExpiry(p, DAY.plus(Duration.ofHours(10))).plusSeconds(60)))
                    .isPositive();
            raw.assertQueryMatches(handler, "2026-10-01T12:00:00Z", "2026-10-01T23:30:00Z", "PT1H"); // hourly items
            raw.assertQueryMatches(handler, "2026-10-01T11:00:00Z", "2026-10-01T12:00:00Z", "PT5M");
            JsonNode cut = refused(handler, raw, "2026-10-01T00:00:00Z", "2026-10-01T23:30:00Z", "PT1H");
            assertThat(cut.get("field").asText()).isEqualTo("end");
            assertThat(cut.get("message").asText()).contains("35 days (HOURLY_TTL_DAYS)");
            raw.assertQueryMatches(handler, "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", "PT1H"); // daily item

            // Every hour of the day has expired: whole hours come from the daily item, anything finer is refused.
            assertThat(expire(p, hourlyExpiry(p, DAY.plus(Duration.ofHours(23))).plusSeconds(60)))
                    .isPositive();
            raw.assertQueryMatches(handler, "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", "PT1H");
            raw.assertQueryMatches(handler, "2026-10-01T06:00:00Z", "2026-10-02T00:00:00Z", "PT3H");
            raw.assertQueryMatches(handler, "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", "P1D");
            raw.assertQueryMatches(handler, "2026-10-01T05:00:00Z", "2026-10-01T17:00:00Z", "PT2H");
            assertThat(refused(handler, raw, "2026-10-01T00:00:00Z", "2026-10-01T23:30:00Z", "PT1H")
                            .get("field")
                            .asText())
                    .isEqualTo("end");
            assertThat(refused(handler, raw, "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", "PT5M")
                            .get("field")
                            .asText())
                    .isEqualTo("period");
            assertThat(refused(handler, raw, "2026-10-01T00:30:00Z", "2026-10-02T00:00:00Z", "PT1H")
                            .get("field")
                            .asText())
                    .isEqualTo("start");

            // The Prometheus API: windows of whole hours on the hour are answered, minute windows refused.
            JsonNode hour = prometheus(handler, 200, "sum_over_time(api.latency[1h])", "2026-10-01T06:00:00Z");
            double want = 0;
            for (String key : raw.keys()) {
                want += raw
                        .values(
                                key,
                                Instant.parse("2026-10-01T05:00:00Z").toEpochMilli(),
                                Instant.parse("2026-10-01T06:00:00Z").toEpochMilli())
                        .stream()
                        .mapToDouble(Double::doubleValue)
                        .sum();
            }
            double got = 0;
            for (JsonNode series : hour.at("/data/result")) {
                got += series.at("/value/1").asDouble();
            }
            assertThat(want).isPositive();
            assertThat(got).isCloseTo(want, org.assertj.core.api.Assertions.withinPercentage(1e-9));
            JsonNode minutes = prometheus(handler, 400, "sum_over_time(api.latency[5m])", "2026-10-01T06:00:00Z");
            assertThat(minutes.get("error").asText())
                    .startsWith("invalid parameter \"time\"")
                    .contains("HOURLY_TTL_DAYS");
            // rate and increase need only the window's sum: a whole hour on the hour is answered from the hourly item;
            // irate reads each minute, which no longer exists.
            JsonNode rate = prometheus(handler, 200, "sum(rate(api.latency[1h]))", "2026-10-01T06:00:00Z");
            assertThat(rate.at("/data/result/0/value/1").asDouble())
                    .isCloseTo(want / 3600, org.assertj.core.api.Assertions.withinPercentage(1e-9));
            JsonNode irate = prometheus(handler, 400, "irate(api.latency[1h])", "2026-10-01T06:00:00Z");
            assertThat(irate.get("error").asText())
                    .startsWith("invalid parameter \"time\"")
                    .contains("read each minute")
                    .contains("HOURLY_TTL_DAYS");
        }
    }

    private static JsonNode prometheus(QueryHandler handler, int status, String query, String time) throws Exception {
        APIGatewayV2HTTPResponse r = handler.handleRequest(
                ApiRequests.prometheus(
                        "GET", "/prometheus/api/v1/query", List.of(Map.entry("query", query), Map.entry("time", time))),
                new TestContext("p", 30_000, 1024));
        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(status);
        return JSON.readTree(r.getBody());
    }

    @Test
    void query_whenMarkedHourOutlivesItsPartials_answersTheRollupAsBuiltAtHourAndDay() throws Exception {
        try (Pipeline p = new Pipeline(
                "pulse-retention-marked", DAY.plus(Duration.ofHours(24).plusMinutes(10)), Map.of())) {
            RawData built = new RawData();
            Random random = new Random(6);
            ingest(p, built, random, 600, DAY, DAY.plus(Duration.ofDays(1)));
            p.compactAll();
            // Late data marks 05:00 and the day again; the builder then stops for longer than the partials live.
            ingest(p, new RawData(), random, 20, DAY.plus(Duration.ofHours(5)), DAY.plus(Duration.ofHours(6)));
            QueryHandler handler = p.queryHandler();

            Instant partialsGone = DAY.plus(Duration.ofHours(5).plusMinutes(1))
                    .plus(p.config.partialTtl())
                    .plusSeconds(60);
            assertThat(expire(p, partialsGone)).isPositive();
            // Minute detail of the marked hour: its partials would have answered it empty, the rollup holds it.
            built.assertQueryMatches(handler, "2026-10-01T05:00:00Z", "2026-10-01T06:00:00Z", "PT5M");
            built.assertQueryMatches(handler, "2026-10-01T04:10:00Z", "2026-10-01T07:20:00Z", "PT10M");
            // The marked day through its hourly items, the marked hour among them from its rollup.
            built.assertQueryMatches(handler, "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", "PT1H");
            built.assertQueryMatches(handler, "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", "P1D");

            // Then the hourly rollups expire too: the marked day comes from its own item as built.
            assertThat(expire(p, hourlyExpiry(p, DAY.plus(Duration.ofHours(23))).plusSeconds(60)))
                    .isPositive();
            built.assertQueryMatches(handler, "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", "PT1H");
            built.assertQueryMatches(handler, "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", "P1D");
        }
    }

    @Test
    void query_whenDailyRollupsExpired_refusesTheStartNamingTheRetention() throws Exception {
        try (Pipeline p = new Pipeline(
                "pulse-retention-daily", DAY.plus(Duration.ofHours(24).plusMinutes(10)), Map.of())) {
            RawData raw = new RawData();
            ingest(p, raw, new Random(9), 50, DAY, DAY.plus(Duration.ofDays(1)));
            p.compactAll();
            QueryHandler handler = p.queryHandler();
            Instant dailyGone =
                    DAY.plus(Duration.ofDays(1)).plus(p.config.dailyTtl()).plusSeconds(60);

            assertThat(expire(p, dailyGone)).isPositive();

            JsonNode error = refused(handler, raw, "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", "P1D");
            assertThat(error.get("field").asText()).isEqualTo("start");
            assertThat(error.get("message").asText()).contains("3650 days (DAILY_TTL_DAYS)");
            // The day after is still within the retention: answered (it holds nothing).
            APIGatewayV2HTTPResponse next =
                    post(handler, raw.query("2026-10-02T00:00:00Z", "2026-10-03T00:00:00Z", "P1D"));
            assertThat(next.getStatusCode()).as(next.getBody()).isEqualTo(200);
        }
    }
}
