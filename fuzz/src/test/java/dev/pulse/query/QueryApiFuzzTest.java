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

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.config.PulseConfig;
import dev.pulse.fuzz.Seeds;
import dev.pulse.testing.NoMetrics;
import dev.pulse.testing.TestContext;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Fuzzes the query API's request handling through the real {@link QueryHandler} (its routing, {@link QueryParser},
 * the Prometheus API's parameters and PromQL parser) over a table that holds nothing. The contract for every
 * request: an answer of 200 or a client error (400, 404, 405, 422) whose JSON body says what is wrong; never a 500
 * (the handler's answer to an exception it did not expect) or a 503 (its query ran out of time); bounded time per
 * request (Jazzer's per-input timeout, junit-platform.properties) within the Lambda's heap.
 */
class QueryApiFuzzTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The clock every answer is computed against, so an input's answer does not change with the day it runs. */
    private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");

    private static final Set<Integer> CLIENT_ERRORS = Set.of(400, 404, 405, 422);

    private static final QueryHandler HANDLER = QueryFunction.handler(
            PulseConfig.fromEnvironment(Map.of(
                    "TABLE_NAME",
                    "pulse-fuzz",
                    "DLQ_URL",
                    "https://sqs.us-east-1.amazonaws.com/000000000000/pulse-fuzz-dlq")),
            new EmptyTable(),
            Clock.fixed(NOW, ZoneOffset.UTC),
            new NoMetrics());

    static {
        Seeds.warmUp(
                QueryApiFuzzTest.class,
                "handleRequest_whenAnyHttpRequest_answers200OrClientError",
                new QueryApiFuzzTest()::handleRequest_whenAnyHttpRequest_answers200OrClientError);
    }

    /** The bytes are the body of {@code POST /query} (UTF-8). */
    @FuzzTest
    void handleRequest_whenAnyQueryBody_answers200OrClientError(byte[] body) {
        APIGatewayV2HTTPEvent event = event("POST", "/query", null, new String(body, StandardCharsets.UTF_8));
        checkContract(event, false);
    }

    /**
     * The bytes are a whole request, as text: {@code METHOD PATH} on the first line, the raw query string on the
     * second, the body after it; e.g. {@code GET /prometheus/api/v1/query_range} then
     * {@code query=rate(x[5m])&start=0&end=600&step=60}. Every route is reachable: {@code /query}, {@code /series}
     * and the Prometheus API under {@code /prometheus/api/v1/}.
     */
    @FuzzTest
    void handleRequest_whenAnyHttpRequest_answers200OrClientError(byte[] request) {
        String text = new String(request, StandardCharsets.UTF_8);
        String[] lines = text.split("\n", 3);
        String[] start = lines[0].split(" ", 2);
        String method = start[0];
        String path = start.length > 1 ? start[1] : "/";
        String query = lines.length > 1 ? lines[1] : null;
        String body = lines.length > 2 ? lines[2] : null;
        checkContract(event(method, path, query, body), path.startsWith(QueryHandler.PROMETHEUS_PREFIX));
    }

    private static void checkContract(APIGatewayV2HTTPEvent event, boolean prometheus) {
        APIGatewayV2HTTPResponse response =
                HANDLER.handleRequest(event, TestContext.fixedRemaining("QueryFunction", "fuzz", 29_000, 1024));
        int status = response.getStatusCode();
        if (status != 200 && !CLIENT_ERRORS.contains(status)) {
            throw new AssertionError("status " + status + " for "
                    + event.getRequestContext().getHttp().getMethod()
                    + " " + event.getRawPath() + "?" + event.getRawQueryString() + " body " + event.getBody()
                    + ": " + response.getBody());
        }
        JsonNode body;
        try {
            body = JSON.readTree(response.getBody());
        } catch (IOException e) {
            throw new AssertionError("status " + status + " with a body that is not JSON: " + response.getBody(), e);
        }
        if (status == 200) {
            return;
        }
        String reason = prometheus
                ? body.path("error").asText("")
                : body.path("error").path("message").asText("");
        if (reason.isBlank()) {
            throw new AssertionError("status " + status + " without a reason: " + response.getBody());
        }
    }

    private static APIGatewayV2HTTPEvent event(String method, String path, String rawQuery, String body) {
        return APIGatewayV2HTTPEvent.builder()
                .withRawPath(path)
                .withRawQueryString(rawQuery)
                .withQueryStringParameters(rawQuery == null ? null : parameters(rawQuery))
                .withBody(body)
                .withIsBase64Encoded(false)
                .withRequestContext(APIGatewayV2HTTPEvent.RequestContext.builder()
                        .withHttp(APIGatewayV2HTTPEvent.RequestContext.Http.builder()
                                .withMethod(method)
                                .withPath(path)
                                .build())
                        .build())
                .build();
    }

    /** As API Gateway passes them: decoded, a repeated name's values joined with commas. */
    private static Map<String, String> parameters(String rawQuery) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String k = decode(eq < 0 ? pair : pair.substring(0, eq));
            String v = eq < 0 ? "" : decode(pair.substring(eq + 1));
            out.merge(k, v, (a, b) -> a + "," + b);
        }
        return out;
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s; // API Gateway passes a malformed escape through as it came
        }
    }
}
