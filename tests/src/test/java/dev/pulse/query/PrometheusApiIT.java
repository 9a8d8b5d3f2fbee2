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
import static org.assertj.core.api.Assertions.withinPercentage;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.testing.ApiRequests;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.TestContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.DoubleBinaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Prometheus HTTP API through the real query handler, on data ingested and rolled up by the real functions: for
 * every supported PromQL form, each answered point equals the native {@code POST /query} answer for the same window
 * (count, sum, avg, min, max exactly; quantiles within the sketch's 1%), over open hours (partials), closed hours and
 * days (rollups), ranges that are not the step and steps that are not whole minutes; listings equal the catalog;
 * everything outside the subset is a 400 {@code bad_data} naming the position.
 */
@ExtendWith(Emulators.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PrometheusApiIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-11-21T12:20:00Z");
    private static final String[] ROUTES = {"GET /cart", "POST /pay", "GET /items/{id}"};
    private static final String[] REGIONS = {"eu", "us"};
    private static final long MINUTE = 60_000L;

    private Pipeline p;
    private QueryHandler handler;
    private long sequence;

    @BeforeAll
    void ingest() {
        p = new Pipeline("pulse-prom", NOW, Duration.ofDays(14));
        Random random = new Random(16);
        p.ingest(generate(random, 2000, NOW.minus(Duration.ofDays(2)).toEpochMilli(), NOW.toEpochMilli()));
        List<KinesisEvent.KinesisEventRecord> wide = new ArrayList<>();
        for (int i = 0; i < QueryLimits.MAX_SERIES + 1; i++) {
            wide.add(record("wide.metric", Map.of("n", Integer.toString(i)), NOW.toEpochMilli() - MINUTE, i));
        }
        p.ingest(wide);
        p.compactAll();
        // Fresh data in the open hour, not built: answered from the partials.
        p.ingest(generate(random, 300, NOW.minus(Duration.ofMinutes(20)).toEpochMilli(), NOW.toEpochMilli()));
        handler = p.queryHandler();
    }

    @AfterAll
    void close() {
        p.close();
    }

    /** function, range, step, start, end: each evaluation step compared with /query over the same window. */
    @ParameterizedTest(name = "{0}({1}) [{2}] step {3} from {4}")
    @CsvSource({
        "count_over_time,    , 5m,  5m,  2026-11-21T12:00:00Z, 2026-11-21T12:20:00Z", // open hour: partials
        "sum_over_time,      , 1h,  1h,  2026-11-20T01:00:00Z, 2026-11-21T00:00:00Z", // closed hours
        "avg_over_time,      , 15m, 5m,  2026-11-20T10:07:30Z, 2026-11-20T11:07:30Z", // 3 phases, not on the minute
        "min_over_time,      , 1d,  1d,  2026-11-20T00:00:00Z, 2026-11-21T00:00:00Z", // closed days
        "max_over_time,      , 7m,  3m,  2026-11-21T11:31:00Z, 2026-11-21T12:19:00Z", // 7 phases, across the open hour
        "count_over_time,    , 90s, 30s, 2026-11-21T12:05:00Z, 2026-11-21T12:15:00Z", // range rounded up, step under a
        // minute
        "sum_over_time,      , 1h,  5m,  2026-11-20T22:00:00Z, 2026-11-21T02:00:00Z", // 12 phases from one read, across
        // midnight
        "max_over_time,      , 61m, 1m,  2026-11-21T11:00:00Z, 2026-11-21T12:19:00Z", // 61 phases: minutes slid, open
        // hour
        "quantile_over_time, 0.99, 10m, 10m, 2026-11-21T10:00:00Z, 2026-11-21T12:20:00Z",
        "quantile_over_time, 0.5,  30m, 10m, 2026-11-20T22:10:00Z, 2026-11-21T01:10:00Z", // across midnight
        "quantile_over_time, 0,    5m,  5m,  2026-11-21T12:00:00Z, 2026-11-21T12:20:00Z",
    })
    void queryRange_whenOverTimeFunction_everyStepEqualsNativeQuery(
            String function, String q, String range, String step, String start, String end) {
        String selector = "api.latency[" + range + "]";
        String query = function + "(" + (q == null ? "" : q + ", ") + selector + ")";
        for (String method : new String[] {"GET", "POST"}) {
            JsonNode body = prom(
                    method,
                    "query_range",
                    List.of(
                            Map.entry("query", query),
                            Map.entry("start", start),
                            Map.entry("end", end),
                            Map.entry("step", step)));
            assertThat(body.at("/data/resultType").asText()).isEqualTo("matrix");
            long stepMillis = duration(step);
            int points = 0;
            for (long t = Instant.parse(start).toEpochMilli();
                    t <= Instant.parse(end).toEpochMilli();
                    t += stepMillis) {
                Map<Map<String, String>, Double> want = nativeWindow(t, duration(range), stat(function, q));
                Map<Map<String, String>, Double> got = at(body, t);
                assertThat(got.keySet())
                        .as("%s at %s", query, Instant.ofEpochMilli(t))
                        .isEqualTo(want.keySet());
                for (Map.Entry<Map<String, String>, Double> w : want.entrySet()) {
                    double g = got.get(w.getKey());
                    if (function.startsWith("quantile") && !"0".equals(q)) {
                        assertThat(g)
                                .as("%s %s at %s", query, w.getKey(), t)
                                .isCloseTo(w.getValue(), withinPercentage(1));
                    } else {
                        assertThat(g).as("%s %s at %s", query, w.getKey(), t).isEqualTo(w.getValue());
                    }
                    points++;
                }
            }
            assertThat(points).as("points compared for %s", query).isPositive();
            for (JsonNode s : body.at("/data/result")) {
                assertThat(s.path("metric").has("__name__"))
                        .as("functions drop the metric name")
                        .isFalse();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"count_over_time", "sum_over_time", "avg_over_time", "min_over_time", "max_over_time"})
    void query_whenInstantOverTime_equalsNativeQueryOfTheWindowBeforeTheMinute(String function) {
        String time = "2026-11-21T12:17:42Z";
        JsonNode body = prom(
                "GET",
                "query",
                List.of(Map.entry("query", function + "(api.latency{region=\"eu\"}[10m])"), Map.entry("time", time)));
        assertThat(body.at("/data/resultType").asText()).isEqualTo("vector");
        Map<Map<String, String>, Double> want = new TreeMap<>(java.util.Comparator.comparing(Object::toString));
        nativeWindow(Instant.parse(time).toEpochMilli(), 10 * MINUTE, stat(function, null))
                .forEach((k, v) -> {
                    if (k.get("region").equals("eu")) {
                        want.put(k, v);
                    }
                });
        Map<Map<String, String>, Double> got = new HashMap<>();
        for (JsonNode s : body.at("/data/result")) {
            assertThat(s.at("/value/0").asDouble())
                    .isEqualTo(Instant.parse(time).toEpochMilli() / 1000.0);
            got.put(
                    labels(s.path("metric")),
                    Double.parseDouble(s.at("/value/1").asText()));
        }
        assertThat(got).isEqualTo(new HashMap<>(want)).hasSize(3);
    }

    /** op, grouping: the aggregation of sum_over_time equals the same aggregation of the native per-series sums. */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "sum   | by (route)", "min | by (route)", "max | by (route)", "avg | by (route)", "count | by (route)",
                "sum   | without (route)", "max | without (region)", "count |", "sum |", "avg | by (region, route)",
            })
    void queryRange_whenAggregation_equalsAggregatedNativeValues(String op, String grouping) {
        String g = grouping == null ? "" : grouping.trim();
        String query = op + " " + g + " (sum_over_time(api.latency[5m]))";
        String start = "2026-11-21T11:40:00Z";
        String end = "2026-11-21T12:20:00Z";
        JsonNode body = prom(
                "GET",
                "query_range",
                List.of(
                        Map.entry("query", query),
                        Map.entry("start", start),
                        Map.entry("end", end),
                        Map.entry("step", "5m")));
        int compared = 0;
        for (long t = Instant.parse(start).toEpochMilli();
                t <= Instant.parse(end).toEpochMilli();
                t += 5 * MINUTE) {
            Map<Map<String, String>, Double> perSeries = nativeWindow(t, 5 * MINUTE, "sum");
            Map<Map<String, String>, List<Double>> groups =
                    new TreeMap<>(java.util.Comparator.comparing(Object::toString));
            // In catalog (series key) order, as the API adds them up.
            List<Map<String, String>> ordered = new ArrayList<>(perSeries.keySet());
            ordered.sort(java.util.Comparator.comparing(k -> dev.pulse.model.SeriesKey.of("api.latency", k)));
            for (Map<String, String> k : ordered) {
                Map<String, String> key = new TreeMap<>();
                if (g.startsWith("by")) {
                    k.forEach((l, v) -> {
                        if (g.contains(l)) {
                            key.put(l, v);
                        }
                    });
                } else if (g.startsWith("without")) {
                    k.forEach((l, v) -> {
                        if (!g.contains(l)) {
                            key.put(l, v);
                        }
                    });
                }
                groups.computeIfAbsent(key, x -> new ArrayList<>()).add(perSeries.get(k));
            }
            Map<Map<String, String>, Double> want = new HashMap<>();
            groups.forEach((k, vs) -> want.put(k, aggregate(op, vs)));
            Map<Map<String, String>, Double> got = at(body, t);
            assertThat(got).as("%s at %s", query, Instant.ofEpochMilli(t)).isEqualTo(want);
            compared += got.size();
        }
        assertThat(compared).isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "sum_over_time(api.latency[5m]) * 2 + 1 | sum   | 2 * x + 1",
                "(count_over_time(api.latency[5m]) - 1) / 2 | count | (x - 1) / 2",
                "-max_over_time(api.latency[5m])        | max   | -x",
                "100 - min_over_time(api.latency[5m]) % 7 | min | 100 - x % 7",
                "2 ^ count_over_time(api.latency[5m])   | count | 2 ^ x",
            })
    void queryRange_whenScalarArithmetic_appliesToEveryNativeValue(String query, String stat, String formula) {
        Map<String, DoubleBinaryOperator> formulas = Map.of(
                "2 * x + 1",
                (x, u) -> x * 2 + 1,
                "(x - 1) / 2",
                (x, u) -> (x - 1) / 2,
                "-x",
                (x, u) -> -x,
                "100 - x % 7",
                (x, u) -> 100 - x % 7,
                "2 ^ x",
                (x, u) -> Math.pow(2, x));
        String start = "2026-11-21T11:55:00Z";
        String end = "2026-11-21T12:20:00Z";
        JsonNode body = prom(
                "POST",
                "query_range",
                List.of(
                        Map.entry("query", query),
                        Map.entry("start", start),
                        Map.entry("end", end),
                        Map.entry("step", "5m")));
        for (long t = Instant.parse(start).toEpochMilli();
                t <= Instant.parse(end).toEpochMilli();
                t += 5 * MINUTE) {
            Map<Map<String, String>, Double> want = new HashMap<>();
            nativeWindow(t, 5 * MINUTE, stat)
                    .forEach((k, v) -> want.put(k, formulas.get(formula.trim()).applyAsDouble(v, 0)));
            assertThat(at(body, t))
                    .as("%s at %s", query, Instant.ofEpochMilli(t))
                    .isEqualTo(want);
        }
    }

    @Test
    void query_whenOnlyNumbers_answersScalarAndRangeMatrixWithoutLabels() {
        // As the wire has them (a JSON tree would print 1700000000.5 as 1.7000000005E9).
        APIGatewayV2HTTPResponse scalar = call(
                "GET", "query", List.of(Map.entry("query", "1 + 2 * 3 ^ 2 / 4"), Map.entry("time", "1700000000.5")));
        assertThat(scalar.getBody())
                .isEqualTo("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":"
                        + "[1700000000.5,\"5.5\"]}}");
        APIGatewayV2HTTPResponse matrix = call(
                "GET",
                "query_range",
                List.of(
                        Map.entry("query", "-(1 / 0)"),
                        Map.entry("start", "1700000000"),
                        Map.entry("end", "1700000120"),
                        Map.entry("step", "60")));
        assertThat(matrix.getBody())
                .isEqualTo(
                        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":"
                                + "[{\"metric\":{},\"values\":[[1700000000,\"-Inf\"],[1700000060,\"-Inf\"],[1700000120,\"-Inf\"]]}]}}");
    }

    @Test
    void queryRange_whenBareSelector_answersPerStepAverageAndKeepsName() {
        String start = "2026-11-21T11:30:00Z";
        String end = "2026-11-21T12:20:00Z";
        JsonNode body = prom(
                "GET",
                "query_range",
                List.of(
                        Map.entry("query", "api.latency{region=\"us\", route=~\"GET .*\"}"),
                        Map.entry("start", start),
                        Map.entry("end", end),
                        Map.entry("step", "10m")));
        int compared = 0;
        for (long t = Instant.parse(start).toEpochMilli();
                t <= Instant.parse(end).toEpochMilli();
                t += 10 * MINUTE) {
            Map<Map<String, String>, Double> want = new HashMap<>();
            nativeWindow(t, 10 * MINUTE, "avg").forEach((k, v) -> {
                if (k.get("region").equals("us") && k.get("route").startsWith("GET ")) {
                    Map<String, String> named = new TreeMap<>(k);
                    named.put("__name__", "api.latency");
                    want.put(named, v);
                }
            });
            assertThat(at(body, t)).isEqualTo(want);
            compared += want.size();
        }
        assertThat(compared).isPositive();
    }

    @Test
    void listings_whenCatalogHasSeries_equalTheNativeCatalog() {
        JsonNode catalog = get("/series", Map.of("name", "api.latency"));
        List<Map<String, String>> want = new ArrayList<>();
        for (JsonNode s : catalog.path("series")) {
            Map<String, String> l = labels(s.path("dims"));
            l.put("__name__", s.path("name").asText());
            if (l.get("region").equals("eu")) {
                want.add(l);
            }
        }
        JsonNode series = prom(
                "POST",
                "series",
                List.of(
                        Map.entry("match[]", "api.latency{region=\"eu\"}"),
                        Map.entry("start", "2026-11-21T00:00:00Z")));
        List<Map<String, String>> got = new ArrayList<>();
        series.path("data").forEach(s -> got.add(labels(s)));
        assertThat(got).containsExactlyInAnyOrderElementsOf(want).hasSize(3);

        JsonNode labels = prom("GET", "labels", List.of(Map.entry("match[]", "{__name__=~\"api\\\\..*\"}")));
        assertThat(labels.path("data").toString()).isEqualTo("[\"__name__\",\"region\",\"route\"]");
        JsonNode all = prom("GET", "labels", List.of());
        assertThat(all.path("data").toString()).isEqualTo("[\"__name__\",\"n\",\"region\",\"route\"]");
        JsonNode routes = prom("GET", "label/route/values", List.of());
        assertThat(routes.path("data").toString()).isEqualTo("[\"GET /cart\",\"GET /items/{id}\",\"POST /pay\"]");
        JsonNode names = prom("GET", "label/__name__/values", List.of());
        assertThat(names.path("data").toString()).isEqualTo("[\"api.latency\",\"wide.metric\"]");
        JsonNode none = prom(
                "GET", "series", List.of(Map.entry("match[]", "nothing.here"), Map.entry("match[]", "{route=\"x\"}")));
        assertThat(none.toString()).isEqualTo("{\"status\":\"success\",\"data\":[]}");
    }

    @Test
    void listings_whenLimitGiven_answerTheFirstEntriesAndWarn() {
        JsonNode routes = prom("GET", "label/route/values", List.of(Map.entry("limit", "2")));
        assertThat(routes.path("data").toString()).isEqualTo("[\"GET /cart\",\"GET /items/{id}\"]");
        assertThat(routes.path("warnings").toString()).isEqualTo("[\"results truncated due to limit\"]");
        JsonNode labels = prom("POST", "labels", List.of(Map.entry("limit", "1")));
        assertThat(labels.path("data").toString()).isEqualTo("[\"__name__\"]");
        JsonNode series = prom("GET", "series", List.of(Map.entry("match[]", "api.latency"), Map.entry("limit", "4")));
        assertThat(series.path("data")).hasSize(4);
        assertThat(series.path("warnings")).hasSize(1);
        // 0 and a limit above the count answer everything, without a warning.
        for (String limit : List.of("0", "6")) {
            JsonNode all =
                    prom("GET", "series", List.of(Map.entry("match[]", "api.latency"), Map.entry("limit", limit)));
            assertThat(all.path("data")).as(limit).hasSize(6);
            assertThat(all.has("warnings")).as(limit).isFalse();
        }
    }

    @Test
    void buildInfo_whenAsked_answersThePrometheusVersionItsApiFollows() {
        JsonNode info = prom("GET", "status/buildinfo", List.of());
        assertThat(info.at("/data/version").asText()).isEqualTo("2.42.0");
        assertThat(info.at("/data/application").asText()).isEqualTo("Pulse");
        assertThat(call("POST", "status/buildinfo", List.of()).getStatusCode()).isEqualTo(405);
    }

    @Test
    void metadata_whenAsked_listsEveryMetricNameWithTypeUnknown() {
        JsonNode all = prom("GET", "metadata", List.of());
        assertThat(all.path("data").toString())
                .isEqualTo("{\"api.latency\":[{\"type\":\"unknown\",\"help\":\"\",\"unit\":\"\"}],"
                        + "\"wide.metric\":[{\"type\":\"unknown\",\"help\":\"\",\"unit\":\"\"}]}");
        assertThat(prom("GET", "metadata", List.of(Map.entry("metric", "wide.metric")))
                        .path("data")
                        .fieldNames())
                .toIterable()
                .containsExactly("wide.metric");
        assertThat(prom("GET", "metadata", List.of(Map.entry("metric", "nothing.here")))
                        .path("data")
                        .toString())
                .isEqualTo("{}");
        assertThat(prom("GET", "metadata", List.of(Map.entry("limit", "1")))
                        .path("data")
                        .fieldNames())
                .toIterable()
                .containsExactly("api.latency");
        assertThat(prom("GET", "metadata", List.of(Map.entry("limit_per_metric", "0")))
                        .path("data")
                        .toString())
                .isEqualTo("{\"api.latency\":[],\"wide.metric\":[]}");
    }

    @Test
    void queryExemplars_whenQueryParses_answersNone() {
        for (String method : List.of("GET", "POST")) {
            JsonNode none = prom(
                    method,
                    "query_exemplars",
                    List.of(
                            Map.entry("query", "rate(api.latency[5m])"),
                            Map.entry("start", "2026-11-21T11:00:00Z"),
                            Map.entry("end", "2026-11-21T12:00:00Z")));
            assertThat(none.toString()).isEqualTo("{\"status\":\"success\",\"data\":[]}");
        }
    }

    /** Every construct outside the subset, through the handler: 400, errorType bad_data, the position in the error. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "sum(api.latency) offset 1h            | 1:18:",
                "api.latency @ later()                 | 1:15:",
                "rate(api.latency[1h:1m])              | 1:1:",
                "holt_winters(api.latency[5m], 0.5, 0.5) | 1:1:",
                "predict_linear(api.latency[5m])       | 1:31:",
                "histogram_count(api.latency)          | 1:1:",
                "label_replace(api.latency, 'a-b', 'b', 'c', 'd') | 1:28:",
                "no_such_function(api.latency)         | 1:1:",
                "1 > 2                                 | 1:3:",
                "api.latency + bool api.latency        | 1:15:",
                "api.latency and 1                     | 1:13:",
                "api.latency unless on(route) group_left wide.metric | 1:30:",
                "topk('a', api.latency)                | 1:6:",
                "count_values('a-b', api.latency)      | 1:14:",
                "sum_over_time(api.latency[5 m])       | 1:27:",
                "sum_over_time(api.latency[1h5])       | 1:27:",
                "sum_over_time(api.latency[-5m])       | 1:27:",
                "sum_over_time(api.latency)            | 1:15:",
                "api.latency[5m]                       | 1:1:",
                "api.latency{route=~'(?P<x'}           | 1:20:",
                "api.latency{route=~'a{2,1}'}          | 1:20:",
                "{route=''}                            | 1:1:",
                "\"just a string\"                       | 1:1:",
                "sum(                                  | 1:5:",
            })
    void query_whenOutsideSubset_answers400BadDataWithPosition(String query, String position) {
        for (String endpoint : new String[] {"query", "query_range"}) {
            APIGatewayV2HTTPResponse r = call(
                    "GET",
                    endpoint,
                    List.of(
                            Map.entry("query", query.trim()),
                            Map.entry("start", "2026-11-21T12:00:00Z"),
                            Map.entry("end", "2026-11-21T12:10:00Z"),
                            Map.entry("step", "60")));
            JsonNode body = read(r.getBody());
            assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(400);
            assertThat(body.path("status").asText()).isEqualTo("error");
            assertThat(body.path("errorType").asText()).isEqualTo("bad_data");
            assertThat(body.path("error").asText())
                    .startsWith("invalid parameter \"query\": " + position + " parse error: ");
        }
    }

    /** Bad parameters are 400 bad_data naming the parameter, limits 400 or 422 as Prometheus answers them. */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "query_range | query=count_over_time(api.latency[5m])&end=1700000000&step=60 | 400 | bad_data | invalid parameter \"start\"",
                "query_range | query=x&start=yesterday&end=1700000000&step=60             | 400 | bad_data | invalid parameter \"start\"",
                "query_range | query=x&start=1700000100&end=1700000000&step=60            | 400 | bad_data | end timestamp must not be before start time",
                "query_range | query=x&start=1700000000&end=1700000100&step=0             | 400 | bad_data | zero or negative query resolution step",
                "query_range | query=x&start=1700000000&end=1700000100&step=5x            | 400 | bad_data | invalid parameter \"step\"",
                "query_range | query=x&start=1700000000&end=1800000000&step=60            | 400 | bad_data | exceeded maximum resolution of 11,000 points",
                "query       | time=1700000000                                           | 400 | bad_data | invalid parameter \"query\"",
                "query       | query=x&time=1700000000&timeout=-1s                       | 400 | bad_data | invalid parameter \"timeout\"",
                "query       | query=%zz                                                 | 400 | bad_data | invalid URL escape",
                "query       | query=count_over_time(wide.metric[5m])&time=2026-11-21T12:20:00Z | 422 | execution | at most 100 allowed",
                "query       | query=sum_over_time(api.latency[61m])&time=2026-11-21T12:20:00Z | 200 | | ",
                "query       | query=api.latency%20%2B%20on()%20api.latency&time=2026-11-21T12:20:00Z | 422 | execution | many-to-many matching not allowed",
                "query       | query=api.latency%20%2F%20on()%20group_left%20sum(api.latency)&time=2026-11-21T12:20:00Z | 200 | | ",
                "query       | query=label_replace(api.latency,'route','x','route','.*')&time=2026-11-21T12:20:00Z | 422 | execution | same labelset",
                "query_range | query=quantile_over_time(0.5,api.latency[61m])&start=2026-11-21T11:00:00Z&end=2026-11-21T12:00:00Z&step=1m | 400 | bad_data | different minute grids",
                "series      | start=1700000000                                          | 400 | bad_data | no match[] parameter provided",
                "series      | match[]=sum(api.latency)                                  | 400 | bad_data | must be a series selector",
                "series      | match[]=api.latency{                                      | 400 | bad_data | invalid parameter \"match[]\": 1:13:",
                "labels      | start=1700000100&end=1700000000                           | 400 | bad_data | end timestamp must not be before start time",
                "labels      | limit=-1                                                  | 400 | bad_data | invalid parameter \"limit\": must be a non-negative integer, got \"-1\"",
                "series      | match[]=x&limit=ten                                       | 400 | bad_data | invalid parameter \"limit\"",
                "metadata    | limit=many                                                | 400 | bad_data | limit must be a number",
                "labels      | limit=00000000000000000000000000000000000000000000000000000000000000000 | 400 | bad_data | invalid parameter \"limit\"",
                "query_exemplars | start=1700000000                                      | 400 | bad_data | invalid parameter \"query\"",
                "query_exemplars | query=rate(x[5m])&start=1700000100&end=1700000000     | 400 | bad_data | end timestamp must not be before start time",
                "query_exemplars | query=rate(x)                                         | 400 | bad_data | invalid parameter \"query\": 1:6:",
            })
    void api_whenBadParameters_answersPrometheusErrors(
            String endpoint, String rawQuery, int status, String type, String message) {
        APIGatewayV2HTTPEvent e = ApiRequests.prometheus("GET", "/prometheus/api/v1/" + endpoint.trim(), List.of());
        e.setRawQueryString(rawQuery.trim());
        APIGatewayV2HTTPResponse r = handler.handleRequest(e, new TestContext("q", 30_000, 1024));
        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(status);
        if (status != 200) {
            JsonNode body = read(r.getBody());
            assertThat(body.path("errorType").asText()).isEqualTo(type.trim());
            assertThat(body.path("error").asText()).contains(message.trim());
        }
    }

    @Test
    void api_whenUnknownEndpointOrMethod_answers404Or405() {
        APIGatewayV2HTTPResponse unknown = handler.handleRequest(
                ApiRequests.prometheus("GET", "/prometheus/api/v1/targets", List.of()),
                new TestContext("q", 30_000, 1024));
        assertThat(unknown.getStatusCode()).isEqualTo(404);
        assertThat(read(unknown.getBody()).path("errorType").asText()).isEqualTo("not_found");
        APIGatewayV2HTTPResponse post = handler.handleRequest(
                ApiRequests.prometheus("POST", "/prometheus/api/v1/label/route/values", List.of()),
                new TestContext("q", 30_000, 1024));
        assertThat(post.getStatusCode()).isEqualTo(405);
    }

    // --- helpers -----------------------------------------------------------------------------------------------

    private static String stat(String function, String q) {
        return switch (function) {
            case "count_over_time" -> "count";
            case "sum_over_time" -> "sum";
            case "avg_over_time" -> "avg";
            case "min_over_time" -> "min";
            case "max_over_time" -> "max";
            default ->
                "0".equals(q)
                        ? "min"
                        : "p"
                                + new java.math.BigDecimal(q)
                                        .movePointRight(2)
                                        .stripTrailingZeros()
                                        .toPlainString();
        };
    }

    private static double aggregate(String op, List<Double> values) {
        return switch (op.trim()) {
            case "sum" -> values.stream().reduce(0.0, Double::sum);
            case "min" -> values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
            case "max" -> values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            case "avg" -> values.stream().reduce(0.0, Double::sum) / values.size();
            case "count" -> values.size();
            default -> throw new IllegalArgumentException(op);
        };
    }

    /**
     * The native answer for the window a step at {@code t} reads: the whole minutes [floor(t) - range, floor(t)),
     * range rounded up to whole minutes; per series (dims), null buckets left out.
     */
    private Map<Map<String, String>, Double> nativeWindow(long t, long rangeMillis, String stat) {
        long end = Math.floorDiv(t, MINUTE) * MINUTE;
        long range = Math.max(MINUTE, Math.ceilDiv(rangeMillis, MINUTE) * MINUTE);
        ObjectNode q = JSON.createObjectNode();
        ArrayNode series = q.putArray("series");
        for (String route : ROUTES) {
            for (String region : REGIONS) {
                series.addObject()
                        .put("name", "api.latency")
                        .putObject("dims")
                        .put("route", route)
                        .put("region", region);
            }
        }
        q.put("start", end - range).put("end", end).put("period", range / 1000);
        q.putArray("stats").add(stat);
        APIGatewayV2HTTPResponse r =
                handler.handleRequest(ApiRequests.post(q.toString()), new TestContext("q", 30_000, 1024));
        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(200);
        JsonNode body = read(r.getBody());
        assertThat(body.path("timestamps")).hasSize(1);
        Map<Map<String, String>, Double> out = new HashMap<>();
        for (JsonNode s : body.path("series")) {
            JsonNode v = s.at("/values/" + stat + "/0");
            if (!v.isNull()) {
                out.put(labels(s.path("dims")), v.asDouble());
            }
        }
        return out;
    }

    /** The values of a matrix at one step: labels -> value. */
    private static Map<Map<String, String>, Double> at(JsonNode body, long t) {
        Map<Map<String, String>, Double> out = new HashMap<>();
        for (JsonNode s : body.at("/data/result")) {
            for (JsonNode point : s.path("values")) {
                if (Math.round(point.get(0).asDouble() * 1000) == t) {
                    out.put(
                            labels(s.path("metric")),
                            Double.parseDouble(point.get(1).asText()));
                }
            }
        }
        return out;
    }

    private static Map<String, String> labels(JsonNode object) {
        Map<String, String> out = new TreeMap<>();
        object.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    /** One number and one unit (s, m, h, d), as the cases above write them. */
    private static long duration(String s) {
        long n = Long.parseLong(s.substring(0, s.length() - 1));
        return n
                * switch (s.charAt(s.length() - 1)) {
                    case 's' -> 1_000L;
                    case 'm' -> MINUTE;
                    case 'h' -> 60 * MINUTE;
                    case 'd' -> 1_440 * MINUTE;
                    default -> throw new IllegalArgumentException(s);
                };
    }

    private APIGatewayV2HTTPResponse call(String method, String endpoint, List<Map.Entry<String, String>> params) {
        return handler.handleRequest(
                ApiRequests.prometheus(method, "/prometheus/api/v1/" + endpoint, params),
                new TestContext("q", 30_000, 1024));
    }

    /** A Prometheus API call that must succeed: 200 and status success. */
    private JsonNode prom(String method, String endpoint, List<Map.Entry<String, String>> params) {
        APIGatewayV2HTTPResponse r = call(method, endpoint, params);
        assertThat(r.getStatusCode())
                .as("%s %s %s: %s", method, endpoint, params, r.getBody())
                .isEqualTo(200);
        assertThat(r.getHeaders()).containsEntry("Content-Type", "application/json");
        JsonNode body = read(r.getBody());
        assertThat(body.path("status").asText()).isEqualTo("success");
        return body;
    }

    private JsonNode get(String path, Map<String, String> params) {
        APIGatewayV2HTTPResponse r =
                handler.handleRequest(ApiRequests.request("GET", path, params), new TestContext("q", 30_000, 1024));
        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(200);
        return read(r.getBody());
    }

    private static JsonNode read(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<KinesisEvent.KinesisEventRecord> generate(Random random, int n, long from, long to) {
        List<KinesisEvent.KinesisEventRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Map<String, String> dims = Map.of(
                    "route", ROUTES[random.nextInt(ROUTES.length)], "region", REGIONS[random.nextInt(REGIONS.length)]);
            long ts = from + (long) (random.nextDouble() * (to - from));
            out.add(record("api.latency", dims, ts, Math.pow(10, random.nextDouble() * 6 - 2)));
        }
        return out;
    }

    private KinesisEvent.KinesisEventRecord record(String name, Map<String, String> dims, long ts, double value) {
        String json = JSON.createObjectNode()
                .put("name", name)
                .<ObjectNode>set("dims", JSON.valueToTree(dims))
                .put("ts", ts)
                .put("value", value)
                .toString();
        return KinesisRecords.record(
                "shardId-000000000000", sequence++, name, json.getBytes(StandardCharsets.UTF_8), NOW.toEpochMilli());
    }
}
