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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Time budget and pagination of {@link QueryService} with stub clients (an empty table, or one that never
 * answers); the answers themselves are checked against DynamoDB Local in QueryIT.
 */
class QueryServiceTest {

    private static final Instant NOW = Instant.parse("2026-11-21T12:20:00Z");

    private static DynamoDbAsyncClient client(Function<Object, CompletableFuture<?>> answer) {
        return new DynamoDbAsyncClient() {
            @Override
            @SuppressWarnings("unchecked")
            public CompletableFuture<GetItemResponse> getItem(GetItemRequest r) {
                return (CompletableFuture<GetItemResponse>)
                        answer.apply(GetItemResponse.builder().build());
            }

            @Override
            @SuppressWarnings("unchecked")
            public CompletableFuture<QueryResponse> query(
                    software.amazon.awssdk.services.dynamodb.model.QueryRequest r) {
                return (CompletableFuture<QueryResponse>)
                        answer.apply(QueryResponse.builder().build());
            }

            @Override
            @SuppressWarnings("unchecked")
            public CompletableFuture<BatchGetItemResponse> batchGetItem(BatchGetItemRequest r) {
                return (CompletableFuture<BatchGetItemResponse>)
                        answer.apply(BatchGetItemResponse.builder().build());
            }

            @Override
            public String serviceName() {
                return "dynamodb";
            }

            @Override
            public void close() {}
        };
    }

    private static QueryService service(DynamoDbAsyncClient client) {
        return new QueryService(
                client, "t", 8, 300_000L, new RollupCache(100, 300_000L), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private static String series(int n) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",")
                    .append("{\"name\":\"m\",\"dims\":{\"i\":\"")
                    .append(i)
                    .append("\"}}");
        }
        return sb.append(']').toString();
    }

    @Test
    void query_whenTableNeverAnswers_reportsEverySeriesUnprocessedWithinBudget() throws Exception {
        NativeQuery r = QueryParser.parse("{\"series\":" + series(3) + ",\"start\":\"2026-11-21T10:00:00Z\","
                + "\"end\":\"2026-11-21T12:00:00Z\",\"period\":\"PT5M\",\"stats\":[\"avg\"]}");
        InvocationMetrics<QueryMetric> metrics = new InvocationMetrics<>(QueryMetric.class);
        long started = System.nanoTime();

        NativeResult result =
                service(client(empty -> new CompletableFuture<>())).query(r, Deadline.inMillis(300), metrics);

        assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(5_000);
        assertThat(result.series()).isEmpty();
        assertThat(result.unprocessed())
                .hasSize(3)
                .allSatisfy(u -> assertThat(u.reason()).isEqualTo("TimeBudgetExceeded"));
        assertThat(result.timestamps()).hasSize(24);
        assertThat(metrics.count(QueryMetric.UNPROCESSED)).isEqualTo(3);
    }

    @Test
    void query_whenPointsExceedLimit_servesFirstSeriesAndTokenForTheRest() throws Exception {
        String body = "{\"series\":" + series(100) + ",\"start\":\"2026-11-19T00:00:00Z\","
                + "\"end\":\"2026-11-21T00:00:00Z\",\"period\":60,\"stats\":[\"count\"]}";
        QueryService service = service(client(CompletableFuture::completedFuture));
        NativeQuery first = QueryParser.parse(body);

        NativeResult page1 =
                service.query(first, Deadline.inMillis(10_000), new InvocationMetrics<>(QueryMetric.class));

        int perPage = QueryLimits.MAX_POINTS / 2880; // 2 days of minutes, one stat
        assertThat(page1.series()).hasSize(perPage);
        assertThat(page1.nextToken()).isNotNull();
        assertThat(page1.series().get(0).values().get("count")).hasSize(2880);
        assertThat(java.util.Arrays.stream(page1.series().get(0).values().get("count"))
                        .allMatch(Double::isNaN))
                .as("every bucket of an empty table is empty")
                .isTrue();

        NativeQuery second = QueryParser.parse(
                body.substring(0, body.length() - 1) + ",\"nextToken\":\"" + page1.nextToken() + "\"}");
        NativeResult page2 =
                service.query(second, Deadline.inMillis(10_000), new InvocationMetrics<>(QueryMetric.class));

        assertThat(page2.series()).hasSize(100 - perPage);
        assertThat(page2.nextToken()).isNull();
        assertThat(page2.series().get(0).series().dims()).containsEntry("i", Integer.toString(perPage));
    }

    @Test
    void plan_whenLongHourAlignedRange_usesDailyItemsForClosedDaysAndPartialsOnlyForTheOpenHour() throws Exception {
        NativeQuery r = QueryParser.parse("{\"series\":" + series(1) + ",\"start\":\"2026-10-22T00:00:00Z\","
                + "\"end\":\"2026-11-21T12:20:00Z\",\"period\":\"PT1H\",\"stats\":[\"avg\"]}");

        var plan = service(client(CompletableFuture::completedFuture)).plan(r, NOW.toEpochMilli());

        assertThat(plan).filteredOn(u -> u.level() == QueryService.Level.DAILY).hasSize(30);
        assertThat(plan).filteredOn(u -> u.level() == QueryService.Level.HOURLY).hasSize(12);
        assertThat(plan)
                .filteredOn(u -> u.level() == QueryService.Level.PARTIALS)
                .hasSize(1);
    }

    @Test
    void plan_whenRangeEndsFarInTheFuture_readsNothingPastTheIngestWindow() throws Exception {
        NativeQuery r = QueryParser.parse("{\"series\":" + series(1) + ",\"start\":\"2026-11-21T12:00:00Z\","
                + "\"end\":\"2026-12-21T12:00:00Z\",\"period\":\"PT1H\",\"stats\":[\"avg\"]}");

        var plan = service(client(CompletableFuture::completedFuture)).plan(r, NOW.toEpochMilli());

        // 12:00 (open) up to now + 2 h = 14:20: the hours starting 12:00, 13:00 and 14:00.
        assertThat(plan)
                .extracting(QueryService.Unit::start)
                .containsExactly(
                        Instant.parse("2026-11-21T12:00:00Z").toEpochMilli(),
                        Instant.parse("2026-11-21T13:00:00Z").toEpochMilli(),
                        Instant.parse("2026-11-21T14:00:00Z").toEpochMilli());
    }

    @Test
    void plan_whenIngestAcceptsADayAhead_readsUpToADayAhead() throws Exception {
        // ACCEPT_FUTURE_SECONDS may be up to 7 days: data stored that far ahead must be read, not cut at 2 h.
        NativeQuery r = QueryParser.parse("{\"series\":" + series(1) + ",\"start\":\"2026-11-21T12:00:00Z\","
                + "\"end\":\"2026-11-23T12:00:00Z\",\"period\":\"PT1H\",\"stats\":[\"avg\"]}");
        QueryService oneDayAhead = new QueryService(
                client(CompletableFuture::completedFuture),
                "t",
                8,
                300_000L,
                new RollupCache(100, 300_000L),
                Clock.fixed(NOW, ZoneOffset.UTC),
                new QueryService.Retention(17L * 86_400_000, 35L * 86_400_000, 3650L * 86_400_000),
                86_400_000L);

        var plan = oneDayAhead.plan(r, NOW.toEpochMilli());

        // 12:00 up to now + 24 h = 2026-11-22T12:20: 25 hours.
        assertThat(plan)
                .extracting(QueryService.Unit::start)
                .hasSize(25)
                .endsWith(Instant.parse("2026-11-22T12:00:00Z").toEpochMilli());
    }

    @Test
    void plan_whenClosedDayButRangeEndsMidHour_readsThatDayHourByHour() throws Exception {
        NativeQuery r = QueryParser.parse("{\"series\":" + series(1) + ",\"start\":\"2026-11-20T00:00:00Z\","
                + "\"end\":\"2026-11-20T10:30:00Z\",\"period\":\"PT1H\",\"stats\":[\"avg\"]}");

        var plan = service(client(CompletableFuture::completedFuture)).plan(r, NOW.toEpochMilli());

        assertThat(plan).hasSize(11).allSatisfy(u -> assertThat(u.level()).isEqualTo(QueryService.Level.HOURLY));
    }

    @Test
    void query_whenPercentileOverManyBuckets_pagesBySketchBudget() throws Exception {
        NativeQuery r = QueryParser.parse("{\"series\":" + series(100) + ",\"start\":\"2026-11-14T00:00:00Z\","
                + "\"end\":\"2026-11-21T00:00:00Z\",\"period\":\"PT5M\",\"stats\":[\"p99\"]}");

        NativeResult page = service(client(CompletableFuture::completedFuture))
                .query(r, Deadline.inMillis(10_000), new InvocationMetrics<>(QueryMetric.class));

        assertThat(page.series()).hasSize(QueryLimits.MAX_SKETCH_BUCKETS / 2016);
        assertThat(page.nextToken()).isNotNull();
    }

    private static final long DAY_MS = 86_400_000L;
    private static final QueryService.Retention TEMPLATE_RETENTION =
            new QueryService.Retention(17 * DAY_MS, 35 * DAY_MS, 3650 * DAY_MS);

    /**
     * start, end, period; the instant the level the request needs expires (its item's TTL); the field refused from
     * that instant on. One millisecond before, every item the request needs is still stored, so it is answered.
     */
    @ParameterizedTest(name = "{0} to {1} at {2}: {4} from {3}")
    @CsvSource({
        // Minute detail of the start's hour: 00:00's hourly item expires at 01:00 + 35 days.
        "2026-10-01T00:30:00Z, 2026-10-02T00:00:00Z, PT1H, 2026-11-05T01:00:00Z, start",
        "2026-10-01T00:00:00Z, 2026-10-01T06:00:00Z, PT5M, 2026-11-05T01:00:00Z, period",
        "2026-10-01T05:10:00Z, 2026-10-01T06:00:00Z, PT1H, 2026-11-05T06:00:00Z, start",
        // Whole hours, but the end cuts 23:00: the day is read hour by hour from its first hour in the range.
        "2026-10-01T00:00:00Z, 2026-10-01T23:30:00Z, PT1H, 2026-11-05T01:00:00Z, end",
        "2026-10-01T12:00:00Z, 2026-10-01T23:30:00Z, PT2H, 2026-11-05T13:00:00Z, end",
        "2026-09-30T12:00:00Z, 2026-10-01T23:30:00Z, PT1H, 2026-11-05T01:00:00Z, end",
        // Daily items: the start's day expires at its end + 3650 days.
        "2026-10-01T00:00:00Z, 2026-10-03T00:00:00Z, P1D, 2036-09-29T00:00:00Z, start",
    })
    void checkResolution_atTheNeededLevelsTtl_answersUntilItThenRefusesNamingTheField(
            String start, String end, String period, String expires, String field) throws Exception {
        NativeQuery r = QueryParser.parse("{\"series\":" + series(1) + ",\"start\":\"" + start + "\",\"end\":\"" + end
                + "\",\"period\":\"" + period + "\",\"stats\":[\"avg\"]}");
        QueryService service = new QueryService(
                client(CompletableFuture::completedFuture),
                "t",
                8,
                300_000L,
                new RollupCache(100, 300_000L),
                Clock.fixed(NOW, ZoneOffset.UTC),
                TEMPLATE_RETENTION,
                7_200_000L);
        long at = Instant.parse(expires).toEpochMilli();

        service.checkResolution(r, at - 1);
        assertThatThrownBy(() -> service.checkResolution(r, at))
                .isInstanceOfSatisfying(
                        BadRequestException.class, e -> assertThat(e.field()).isEqualTo(field))
                .hasMessageContaining(
                        field.equals("start") && period.equals("P1D")
                                ? "3650 days (DAILY_TTL_DAYS)"
                                : "35 days (HOURLY_TTL_DAYS)");
    }

    @ParameterizedTest(name = "{0} to {1} at {2}")
    @CsvSource({
        "2026-10-01T00:00:00Z, 2026-10-02T00:00:00Z, PT1H", "2026-10-01T05:00:00Z, 2026-10-01T17:00:00Z, PT2H",
        "2026-10-01T00:00:00Z, 2026-10-02T00:00:00Z, P1D", "2026-09-01T00:00:00Z, 2026-10-01T00:00:00Z, PT6H",
    })
    void plan_whenWholeHoursPastTheHourlyRetention_readsOnlyDailyItems(String start, String end, String period)
            throws Exception {
        NativeQuery r = QueryParser.parse("{\"series\":" + series(1) + ",\"start\":\"" + start + "\",\"end\":\"" + end
                + "\",\"period\":\"" + period + "\",\"stats\":[\"avg\"]}");
        QueryService service = new QueryService(
                client(CompletableFuture::completedFuture),
                "t",
                8,
                300_000L,
                new RollupCache(100, 300_000L),
                Clock.fixed(NOW, ZoneOffset.UTC),
                TEMPLATE_RETENTION,
                7_200_000L);

        service.checkResolution(r, NOW.toEpochMilli());

        assertThat(service.plan(r, NOW.toEpochMilli()))
                .isNotEmpty()
                .allSatisfy(u -> assertThat(u.level()).isEqualTo(QueryService.Level.DAILY));
    }
}
