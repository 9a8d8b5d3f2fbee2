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
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.testing.ApiRequests;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.RefusingDynamoDb;
import dev.pulse.testing.TestContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * Every parameter of every route, given values whose spelling is short but whose naive parse is not (an exponent of
 * a hundred million, ten thousand digits), or that are no number at all (NaN, Infinity), through the real handler:
 * each is a 400 naming the parameter, in bounded time, before any read. The table behind the handler refuses every
 * call, so a request that reached it would be a 500, not a 400.
 */
class QueryParametersTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-21T12:20:00Z"), ZoneOffset.UTC);
    /** Generous: an ordinary refusal takes well under a millisecond; the bug this guards took minutes. */
    private static final Duration BOUND = Duration.ofSeconds(1);

    private static final String TEN_THOUSAND_DIGITS = "9".repeat(10_000);

    /** Values no parameter accepts: each must be refused naming its parameter. */
    private static final List<String> BAD_VALUES = List.of(
            "1e100000000",
            "-1e100000000",
            "1E+999999999",
            "1e2147483648",
            "9e-2147483648x",
            "NaN",
            "-NaN",
            "Infinity",
            "+Inf",
            "-Inf",
            "inf",
            TEN_THOUSAND_DIGITS,
            "1" + "0".repeat(400),
            "x".repeat(10_000),
            "0x1p40",
            "\uff11\uff12\uff13",
            "1_000",
            "",
            " ",
            "2026-11-21T12:00:00" + "0".repeat(10_000) + "Z",
            "P" + TEN_THOUSAND_DIGITS + "D",
            "PT1e5S",
            "1h" + "1".repeat(10_000) + "m",
            "-1e100000000s");

    private static QueryHandler handler;

    @BeforeAll
    static void warmUp() {
        DynamoDbAsyncClient refusing = new RefusingDynamoDb();
        QueryService queries = new QueryService(refusing, "t", 8, 300_000L, new RollupCache(100, 300_000L), CLOCK);
        handler = QueryFunction.handler(queries, new CatalogService(refusing, "t"), new RecordingMetrics(), 500, CLOCK);
        // Class loading and logging set-up belong to the first call, not to any parameter's bound.
        handler.handleRequest(ApiRequests.post("{}"), new TestContext("warm", 29_000, 1024));
        handler.handleRequest(
                ApiRequests.post(body("1e5", "1.5e12", "9".repeat(200))), new TestContext("warm", 29_000, 1024));
    }

    private record Route(
            String name, Function<String, APIGatewayV2HTTPEvent> request, String field, boolean prometheus) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static String jsonString(String v) {
        try {
            return JSON.writeValueAsString(v);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String body(String start, String end, String period) {
        return "{\"series\":[{\"name\":\"m\"}],\"start\":" + start + ",\"end\":" + end + ",\"period\":" + period
                + ",\"stats\":[\"avg\"]}";
    }

    private static Route query(String field) {
        return new Route(
                "POST /query " + field,
                v -> ApiRequests.post(body(
                        field.equals("start") ? jsonString(v) : "\"2026-11-21T10:00:00Z\"",
                        field.equals("end") ? jsonString(v) : "\"2026-11-21T12:00:00Z\"",
                        field.equals("period") ? jsonString(v) : "\"PT5M\"")),
                field,
                false);
    }

    private static Route series(String field) {
        return new Route(
                "GET /series " + field,
                v -> {
                    Map<String, String> params = new LinkedHashMap<>();
                    params.put("name", "m");
                    params.put(field, v);
                    return ApiRequests.request("GET", "/series", params);
                },
                field,
                false);
    }

    private static Route prometheus(String method, String endpoint, String field, String... others) {
        return new Route(
                method + " " + endpoint + " " + field,
                v -> {
                    List<Map.Entry<String, String>> params = new ArrayList<>();
                    for (int i = 0; i < others.length; i += 2) {
                        params.add(Map.entry(others[i], others[i + 1]));
                    }
                    params.add(Map.entry(field, v));
                    return ApiRequests.prometheus(method, "/prometheus/api/v1/" + endpoint, params);
                },
                field,
                true);
    }

    static List<Route> routes() {
        String[] range = {"query", "m", "start", "1795255200", "end", "1795262400", "step", "60"};
        // GET /series' nextToken is judged by the table (any base64 may be a key of the listing), so not here.
        List<Route> routes = new ArrayList<>(List.of(query("start"), query("end"), query("period"), series("limit")));
        for (String method : List.of("GET", "POST")) {
            for (String field : List.of("start", "end", "step", "timeout")) {
                List<String> others = new ArrayList<>();
                for (int i = 0; i < range.length; i += 2) {
                    if (!range[i].equals(field)) {
                        others.add(range[i]);
                        others.add(range[i + 1]);
                    }
                }
                routes.add(prometheus(method, "query_range", field, others.toArray(String[]::new)));
            }
            routes.add(prometheus(method, "query", "time", "query", "m"));
            routes.add(prometheus(method, "query", "timeout", "query", "m", "time", "1795262400"));
            routes.add(prometheus(method, "series", "start", "match[]", "m"));
            routes.add(prometheus(method, "series", "end", "match[]", "m"));
            routes.add(prometheus(method, "labels", "start"));
            routes.add(prometheus(method, "labels", "end"));
        }
        routes.add(prometheus("GET", "label/job/values", "start"));
        routes.add(prometheus("GET", "label/job/values", "end"));
        return routes;
    }

    static Stream<Arguments> badParameters() {
        return routes().stream()
                .flatMap(r -> BAD_VALUES.stream()
                        // An empty optional parameter is an absent one, as in Prometheus: the listings' start and end,
                        // the
                        // instant query's time and every timeout.
                        .filter(v -> !(v.isEmpty()
                                && r.prometheus
                                && (r.field.equals("timeout") || r.field.equals("time") || !r.name.contains("query"))))
                        .map(v -> Arguments.of(
                                r, v.length() > 40 ? v.substring(0, 20) + "...(" + v.length() + " chars)" : v, v)));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("badParameters")
    void handleRequest_whenParameterIsNotAValue_answers400NamingItInBoundedTime(Route route, String shown, String value)
            throws Exception {
        APIGatewayV2HTTPEvent event = route.request.apply(value);

        APIGatewayV2HTTPResponse response = assertTimeoutPreemptively(
                BOUND, () -> handler.handleRequest(event, new TestContext("r", 29_000, 1024)));

        assertThat(response.getStatusCode()).as(response.getBody()).isEqualTo(400);
        JsonNode body = JSON.readTree(response.getBody());
        if (route.prometheus) {
            assertThat(body.get("errorType").asText()).isEqualTo("bad_data");
            assertThat(body.get("error").asText()).startsWith("invalid parameter \"" + route.field + "\"");
        } else {
            assertThat(body.get("error").get("field").asText()).isEqualTo(route.field);
        }
    }

    static Stream<Arguments> badExpressions() {
        return Stream.of(
                        "1e100000000",
                        "m[" + TEN_THOUSAND_DIGITS + "s]",
                        "rate(m[1e100000000s])",
                        "m{a=~\"x{99999999999999999999}\"}",
                        "m{a=~\"x{1,99999999999999999999}\"}",
                        "m{a=~\"x{99999999999999999999,}\"}",
                        "(".repeat(5_000) + "m" + ")".repeat(5_000),
                        "\"" + "\\u".repeat(4_000) + "\"",
                        "m @ 1e100000000")
                .flatMap(q -> Stream.of(Arguments.of("query", q), Arguments.of("match[]", q)));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("badExpressions")
    void handleRequest_whenExpressionSpellsHugeNumbers_answers400NamingItInBoundedTime(String field, String expression)
            throws Exception {
        String endpoint = field.equals("query") ? "query" : "series";
        APIGatewayV2HTTPEvent event =
                ApiRequests.prometheus("POST", "/prometheus/api/v1/" + endpoint, List.of(Map.entry(field, expression)));

        APIGatewayV2HTTPResponse response = assertTimeoutPreemptively(
                BOUND, () -> handler.handleRequest(event, new TestContext("r", 29_000, 1024)));

        assertThat(response.getStatusCode()).as(response.getBody()).isEqualTo(400);
        assertThat(JSON.readTree(response.getBody()).get("error").asText())
                .startsWith("invalid parameter \"" + field + "\"");
    }

    static Stream<Arguments> badJsonNumbers() {
        return Stream.of("start", "end", "period")
                .flatMap(field -> Stream.of(
                                "1e100000000",
                                "-1e100000000",
                                TEN_THOUSAND_DIGITS,
                                "-" + TEN_THOUSAND_DIGITS,
                                "0." + TEN_THOUSAND_DIGITS,
                                "1" + "0".repeat(60_000),
                                "1.5e12",
                                "true",
                                "[]",
                                "{}")
                        .map(v -> Arguments.of(
                                field, v.length() > 40 ? v.substring(0, 20) + "...(" + v.length() + " chars)" : v, v)));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("badJsonNumbers")
    void handleRequest_whenQueryFieldIsAHugeJsonNumber_answers400NamingItInBoundedTime(
            String field, String shown, String value) throws Exception {
        APIGatewayV2HTTPEvent event = ApiRequests.post(body(
                field.equals("start") ? value : "\"2026-11-21T10:00:00Z\"",
                field.equals("end") ? value : "\"2026-11-21T12:00:00Z\"",
                field.equals("period") ? value : "\"PT5M\""));

        APIGatewayV2HTTPResponse response = assertTimeoutPreemptively(
                BOUND, () -> handler.handleRequest(event, new TestContext("r", 29_000, 1024)));

        assertThat(response.getStatusCode()).as(response.getBody()).isEqualTo(400);
        assertThat(JSON.readTree(response.getBody()).get("error").get("field").asText())
                .isEqualTo(field);
    }
}
