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

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.compact.CompactFunction;
import dev.pulse.compact.CompactResult;
import dev.pulse.testing.ApiRequests;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.ExpectedResults;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.OpenApiContract;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.TestContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real responses of the query handler, for good and bad requests, validated against api/openapi.yaml; every
 * 400 names its code and field; the fixtures in events/ run through the handlers they are for.
 */
@ExtendWith(Emulators.class)
class QueryContractIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-11-21T12:20:00Z");
    private static final OpenApiContract CONTRACT = OpenApiContract.load();
    private static Pipeline pipeline;
    private static QueryHandler handler;

    @BeforeAll
    static void stack() {
        pipeline = new Pipeline("pulse-contract", NOW, Duration.ofDays(14));
        List<com.amazonaws.services.lambda.runtime.events.KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            String json = "{\"name\":\"checkout.latency\",\"dims\":{\"service\":\"checkout\",\"op\":\"Pay\"},\"ts\":"
                    + (NOW.toEpochMilli() - i * 60_000L) + ",\"value\":" + (1 + i % 17) + "}";
            records.add(KinesisRecords.record(
                    "shardId-000000000000", i, "k", json.getBytes(StandardCharsets.UTF_8), NOW.toEpochMilli()));
        }
        pipeline.ingest(records);
        pipeline.compactAll();
        handler = pipeline.queryHandler();
    }

    @AfterAll
    static void close() {
        pipeline.close();
    }

    static Stream<Arguments> badRequests() {
        String ok = "{\"series\":[{\"name\":\"checkout.latency\"}],\"start\":\"2026-11-21T10:00:00Z\","
                + "\"end\":\"2026-11-21T12:00:00Z\",\"period\":\"PT5M\",\"stats\":[\"avg\"]}";
        return Stream.of(
                Arguments.of("{", "MalformedJson", null),
                Arguments.of(ok.replace("\"avg\"", "\"median\""), "InvalidField", "stats[0]"),
                Arguments.of(ok.replace("\"PT5M\"", "90"), "InvalidField", "period"),
                Arguments.of(ok.replace("2026-11-21T12:00:00Z", "2026-11-21T09:00:00Z"), "InvalidField", "end"),
                Arguments.of(ok.replace("2026-11-21T10:00:00Z", "2024-01-01T00:00:00Z"), "LimitExceeded", "end"),
                Arguments.of(
                        ok.replace("\"PT5M\"", "60").replace("2026-11-21T10:00:00Z", "2026-11-01T00:00:00Z"),
                        "LimitExceeded",
                        "period"),
                Arguments.of(
                        ok.replace(
                                "[{\"name\":\"checkout.latency\"}]",
                                "[" + "{\"name\":\"a\"},".repeat(100) + "{\"name\":\"a\"}]"),
                        "LimitExceeded",
                        "series"),
                Arguments.of(
                        ok.replace("{\"name\":\"checkout.latency\"}", "{\"name\":\"a\",\"dims\":{\"k\":\"\"}}"),
                        "InvalidField",
                        "series[0].dims"));
    }

    @ParameterizedTest
    @MethodSource("badRequests")
    void post_whenBadRequest_returns400NamingCodeAndFieldPerContract(String body, String code, String field)
            throws Exception {
        APIGatewayV2HTTPResponse resp =
                handler.handleRequest(ApiRequests.post(body), new TestContext("bad", 30_000, 1024));

        assertThat(resp.getStatusCode()).isEqualTo(400);
        JsonNode json = JSON.readTree(resp.getBody());
        assertThat(json.at("/error/code").asText()).isEqualTo(code);
        assertThat(
                        json.at("/error/field").isNull()
                                ? null
                                : json.at("/error/field").asText())
                .isEqualTo(field);
        assertThat(CONTRACT.violations(json, "Error")).isEmpty();
    }

    @Test
    void post_whenQueryFixture_returns200ConformingToContract() throws Exception {
        APIGatewayV2HTTPEvent event = EventLoader.loadApiGatewayHttpEvent(
                ExpectedResults.event("query-post.json").toString());

        APIGatewayV2HTTPResponse resp = handler.handleRequest(event, new TestContext("fixture", 30_000, 1024));

        assertThat(resp.getStatusCode()).as(resp.getBody()).isEqualTo(200);
        JsonNode json = JSON.readTree(resp.getBody());
        assertThat(CONTRACT.violations(json, "QueryResponse")).isEmpty();
        assertThat(json.get("timestamps")).hasSize(12);
        JsonNode served = json.get("series").get(0);
        assertThat(served.get("key").asText()).isEqualTo("checkout.latency{op=Pay,service=checkout}");
        // 11:00-12:00 holds 60 of the generated points, one a minute, five a bucket.
        served.get("values").get("count").forEach(v -> assertThat(v.asDouble()).isEqualTo(5));
        assertThat(json.get("series").get(1).get("values").get("count"))
                .allSatisfy(v -> assertThat(v.isNull()).isTrue());
        assertThat(CONTRACT.violations(JSON.readTree(event.getBody()), "NativeQuery"))
                .isEmpty();
    }

    @Test
    void get_whenSeriesFixture_returnsCatalogPageConformingToContract() throws Exception {
        APIGatewayV2HTTPEvent event = EventLoader.loadApiGatewayHttpEvent(
                ExpectedResults.event("query-get-series.json").toString());

        APIGatewayV2HTTPResponse resp = handler.handleRequest(event, new TestContext("fixture", 30_000, 1024));

        assertThat(resp.getStatusCode()).as(resp.getBody()).isEqualTo(200);
        JsonNode json = JSON.readTree(resp.getBody());
        assertThat(CONTRACT.violations(json, "SeriesPage", "NamesPage")).isEmpty();
        assertThat(json.get("series"))
                .extracting(n -> n.get("key").asText())
                .containsExactly("checkout.latency{op=Pay,service=checkout}");
    }

    @Test
    void routes_whenUnknownPathWrongMethodOrBadCatalogParams_returnErrorsPerContract() throws Exception {
        List<APIGatewayV2HTTPResponse> responses = List.of(
                handler.handleRequest(ApiRequests.request("GET", "/nope", null), new TestContext("r", 30_000, 1024)),
                handler.handleRequest(ApiRequests.request("GET", "/query", null), new TestContext("r", 30_000, 1024)),
                handler.handleRequest(
                        ApiRequests.request("GET", "/series", Map.of()), new TestContext("r", 30_000, 1024)),
                handler.handleRequest(
                        ApiRequests.request("GET", "/series", Map.of("name", "a", "prefix", "b")),
                        new TestContext("r", 30_000, 1024)),
                handler.handleRequest(
                        ApiRequests.request("GET", "/series", Map.of("name", "a", "limit", "0")),
                        new TestContext("r", 30_000, 1024)),
                handler.handleRequest(
                        ApiRequests.request("GET", "/series", Map.of("prefix", "api", "nextToken", "")),
                        new TestContext("r", 30_000, 1024)),
                handler.handleRequest(
                        ApiRequests.request("GET", "/series", Map.of("prefix", "api", "nextToken", "Y2hlY2tvdXQ")),
                        new TestContext("r", 30_000, 1024)));

        assertThat(responses)
                .extracting(APIGatewayV2HTTPResponse::getStatusCode)
                .containsExactly(404, 405, 400, 400, 400, 400, 400);
        for (APIGatewayV2HTTPResponse r : responses) {
            assertThat(CONTRACT.violations(JSON.readTree(r.getBody()), "Error"))
                    .as(r.getBody())
                    .isEmpty();
        }
        assertThat(JSON.readTree(responses.get(4).getBody()).at("/error/field").asText())
                .isEqualTo("limit");
    }

    @Test
    void contract_whenExamplesInSpec_conformToTheirSchemas() {
        JsonNode spec = CONTRACT.spec();
        assertThat(CONTRACT.violations(
                        spec.at("/paths/~1query/post/requestBody/content/application~1json/example"), "NativeQuery"))
                .isEmpty();
        assertThat(CONTRACT.violations(
                        spec.at("/paths/~1query/post/responses/200/content/application~1json/example"),
                        "QueryResponse"))
                .isEmpty();
        assertThat(CONTRACT.violations(
                        spec.at("/paths/~1series/get/responses/200/content/application~1json/example"),
                        "SeriesPage",
                        "NamesPage"))
                .isEmpty();
        // And the validator is not vacuous: a response missing its axis is rejected.
        assertThat(CONTRACT.violations(JSON.createObjectNode().put("start", 1), "QueryResponse"))
                .isNotEmpty();
    }

    @Test
    void compactFixture_whenScheduledEventHandled_runsTheBuilderWithoutFailure() {
        ScheduledEvent event = EventLoader.loadScheduledEvent(
                ExpectedResults.event("compact-scheduled.json").toString());
        RecordingMetrics metrics = new RecordingMetrics();

        CompactResult r = CompactFunction.handler(pipeline.config, Emulators.dynamoAsync(), pipeline.clock(), metrics)
                .handleRequest(event, new TestContext("compact-fixture", 60_000, 1024));

        // The stack's closed hours were built when it was set up: the scheduled run finds nothing left.
        assertThat(r.stopped()).as(r.stopReason()).isFalse();
        assertThat(r.periodsQueued()).isZero();
        assertThat(metrics.last("HoursBuilt")).isZero();
        assertThat(metrics.last("RunsStopped")).isZero();
    }
}
