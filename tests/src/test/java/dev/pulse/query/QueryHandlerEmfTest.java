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
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.testing.ApiRequests;
import dev.pulse.testing.EmfOutput;
import dev.pulse.testing.RefusingDynamoDb;
import dev.pulse.testing.TestContext;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * QueryFunction's EMF output through Powertools, from the real handler: one document per invocation whatever the
 * answer (the table refuses every call), the query function's metric names and units, the {@code Service} dimension,
 * {@code ColdStart} 1 in the first document only.
 */
class QueryHandlerEmfTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-21T12:20:00Z"), ZoneOffset.UTC);
    private static final String VALID_QUERY = "{\"series\":[{\"name\":\"m\"}],\"start\":\"2026-11-21T10:00:00Z\","
            + "\"end\":\"2026-11-21T12:00:00Z\",\"period\":\"PT5M\",\"stats\":[\"avg\"]}";

    private static QueryHandler handler() {
        DynamoDbAsyncClient refusing = new RefusingDynamoDb();
        QueryService queries = new QueryService(refusing, "t", 8, 300_000L, new RollupCache(100, 300_000L), CLOCK);
        return QueryFunction.handler(
                queries, new CatalogService(refusing, "t"), PulseMetrics.create("PulseTest", "query"), 500, CLOCK);
    }

    private static APIGatewayV2HTTPResponse invoke(QueryHandler handler, APIGatewayV2HTTPEvent event) {
        return handler.handleRequest(event, new TestContext("req", 29_000, 1024));
    }

    @Test
    void handleRequest_whenInvokedTwice_printsOneDocumentEachWithColdStartInTheFirstOnly() throws Exception {
        QueryHandler handler = handler();

        EmfOutput first = EmfOutput.during(() -> invoke(handler, ApiRequests.post("{}")));
        EmfOutput second = EmfOutput.during(() -> invoke(handler, ApiRequests.post("{}")));

        for (EmfOutput out : List.of(first, second)) {
            JsonNode doc = out.single();
            JsonNode directive = doc.get("_aws").get("CloudWatchMetrics").get(0);
            assertThat(doc.get("_aws").get("Timestamp").isIntegralNumber()).isTrue();
            assertThat(directive.get("Namespace").asText()).isEqualTo("PulseTest");
            assertThat(directive.get("Dimensions").toString()).isEqualTo("[[\"Service\"]]");
            assertThat(doc.get("Service").asText()).isEqualTo("query");
            Map<String, String> units = new TreeMap<>();
            directive
                    .get("Metrics")
                    .forEach(
                            m -> units.put(m.get("Name").asText(), m.get("Unit").asText()));
            assertThat(units)
                    .isEqualTo(new TreeMap<>(Map.of(
                            "QueryLatencyMs",
                            "Milliseconds",
                            "SeriesRequested",
                            "Count",
                            "ItemsRead",
                            "Count",
                            "ReadUnits",
                            "Count",
                            "CacheHits",
                            "Count",
                            "RollupFallbacks",
                            "Count",
                            "Unprocessed",
                            "Count",
                            "BadRequests",
                            "Count",
                            "ColdStart",
                            "Count")));
            assertThat(doc.get("BadRequests").asDouble()).isEqualTo(1.0);
            assertThat(doc.get("QueryLatencyMs").asDouble()).isPositive();
            assertThat(out.writers()).containsExactly(Thread.currentThread());
        }
        assertThat(first.single().get("ColdStart").asDouble()).isEqualTo(1.0);
        assertThat(second.single().get("ColdStart").asDouble()).isZero();
    }

    static Stream<Arguments> answers() {
        return Stream.of(
                Arguments.of("POST /query with no series", ApiRequests.post("{}"), 400, 1),
                Arguments.of("GET /query", ApiRequests.request("GET", "/query", null), 405, 0),
                Arguments.of("an unknown route", ApiRequests.request("GET", "/nothing", null), 404, 0),
                Arguments.of(
                        "a Prometheus call with a bad time",
                        ApiRequests.prometheus(
                                "GET",
                                "/prometheus/api/v1/query",
                                List.of(Map.entry("query", "m"), Map.entry("time", "NaN"))),
                        400,
                        1),
                Arguments.of("a query whose reads the table refuses", ApiRequests.post(VALID_QUERY), 200, 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("answers")
    void handleRequest_whateverTheAnswer_printsExactlyOneDocumentCountingBadRequests(
            String name, APIGatewayV2HTTPEvent event, int status, int badRequests) throws Exception {
        QueryHandler handler = handler();
        APIGatewayV2HTTPResponse[] response = new APIGatewayV2HTTPResponse[1];

        EmfOutput out = EmfOutput.during(() -> response[0] = invoke(handler, event));

        assertThat(response[0].getStatusCode()).isEqualTo(status);
        JsonNode doc = out.single();
        assertThat(doc.get("BadRequests").asDouble()).isEqualTo(badRequests);
        assertThat(doc.get("ColdStart").asDouble()).isEqualTo(1.0);
    }
}
