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
package dev.pulse.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.local.esm.InvokeResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Real Prometheus clients, none written here, against the local stack's HTTP API (the QueryFunction in its own JVM
 * behind the payload-2.0 gateway, AWS_IAM on every route): promtool from the Debian package {@code prometheus}
 * (unpacked by make into tools/prometheus/) and the PyPI client {@code prometheus-api-client} (requirements-dev.txt).
 * For every supported PromQL form, what each client prints equals the native {@code POST /query} answer for the same
 * windows (count, sum, min, max, avg exactly; quantiles within the sketch's 1%); series and label listings equal the
 * catalog.
 *
 * <p>promtool cannot sign requests (it sends no credentials, and only {@code query range} takes extra headers), and
 * the local API refuses unsigned requests with API Gateway's 403, as the deployed one does. Rather than open an
 * unsigned path in the API for tests, promtool talks to a {@link SigningProxy} on 127.0.0.1 that signs each request
 * with SigV4 for execute-api and forwards it: the setup a user of the deployed API needs for such a client. The
 * Python client signs by itself, with botocore's SigV4Auth passed as its requests auth.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PrometheusClientsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MINUTE = 60_000L;
    /** The fixture's datapoints lie in 11:57-11:59 on this day. */
    private static final long START = Instant.parse("2026-11-21T11:54:00Z").toEpochMilli();

    private static final long END = Instant.parse("2026-11-21T12:03:00Z").toEpochMilli();
    private static final long WARM_UP_LIMIT_SECONDS = 90;
    private static final long CLIENT_LIMIT_SECONDS = 60;

    /** A PromQL form, the native statistic of each window, its range, and what the form does to the per-series values. */
    record Form(
            String query, String stat, long rangeMillis, UnaryOperator<Map<Map<String, String>, Double>> expected) {}

    private static final List<Form> FORMS = List.of(
            new Form("count_over_time(checkout.latency[5m])", "count", 5 * MINUTE, m -> m),
            new Form("sum_over_time(checkout.latency[5m])", "sum", 5 * MINUTE, m -> m),
            new Form("avg_over_time(checkout.latency{op=~\"P.*\"}[3m])", "avg", 3 * MINUTE, m -> only(m, "op", "Pay")),
            new Form("min_over_time(checkout.latency[2m])", "min", 2 * MINUTE, m -> m),
            new Form(
                    "max_over_time(checkout.latency{op!=\"Refund\"}[5m])",
                    "max",
                    5 * MINUTE,
                    m -> only(m, "op", "Pay")),
            new Form("quantile_over_time(0.99, checkout.latency[5m])", "p99", 5 * MINUTE, m -> m),
            new Form(
                    "sum by (service) (count_over_time(checkout.latency[5m]))",
                    "count",
                    5 * MINUTE,
                    m -> group(m, "sum")),
            new Form("max by (service) (max_over_time(checkout.latency[5m]))", "max", 5 * MINUTE, m -> group(m, "max")),
            new Form("min by (service) (min_over_time(checkout.latency[5m]))", "min", 5 * MINUTE, m -> group(m, "min")),
            new Form("avg by (service) (sum_over_time(checkout.latency[5m]))", "sum", 5 * MINUTE, m -> group(m, "avg")),
            new Form(
                    "count without (op) (sum_over_time(checkout.latency[5m]))",
                    "sum",
                    5 * MINUTE,
                    m -> group(m, "count")),
            new Form("sum_over_time(checkout.latency[5m]) * 2 + 1", "sum", 5 * MINUTE, m -> map(m, x -> x * 2 + 1)),
            new Form("checkout.latency", "avg", MINUTE, m -> named(m)));

    private LocalDeployment stack;
    private SigningProxy proxy;
    private SignedApi api;
    private Path promtool;

    @BeforeAll
    void start() throws Exception {
        promtool = Path.of(System.getProperty("pulse.promtool", "tools/prometheus/usr/bin/promtool"));
        assertThat(promtool)
                .as(
                        "promtool is not unpacked: `make test` (or `make %s`) fetches the Debian package",
                        "tools/prometheus/usr/bin/promtool")
                .isExecutable();
        stack = LocalDeployment.start(LocalDeployments.options("prometheus-clients-it"), null);
        InvokeResult ingest = stack.lambda()
                .invoke(
                        "IngestFunction",
                        Files.readAllBytes(LocalDeployments.root().resolve("events/ingest-kinesis-native.json")));
        assertThat(ingest.failed())
                .as(new String(ingest.payload(), StandardCharsets.UTF_8))
                .isFalse();
        proxy = new SigningProxy(stack.apiUrl());
        api = new SignedApi(stack.apiUrl());
        waitForData();
    }

    @AfterAll
    void stop() {
        if (api != null) {
            api.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void promtoolQueryRange_everyForm_printsTheNativeAnswer() throws Exception {
        for (Form form : FORMS) {
            String printed = run(
                    promtool.toString(),
                    "query",
                    "range",
                    "--start=" + START / 1000,
                    "--end=" + END / 1000,
                    "--step=1m",
                    server(),
                    form.query());
            System.out.printf("promtool query range %s%n%s%n", form.query(), printed);
            assertThat(printed).as(form.query()).contains(" =>");
            JsonNode matrix = JSON.readTree(run(
                    promtool.toString(),
                    "query",
                    "range",
                    "-o",
                    "json",
                    "--start=" + START / 1000,
                    "--end=" + END / 1000,
                    "--step=1m",
                    server(),
                    form.query()));
            assertMatrixMatches(form, matrix);
        }
    }

    @Test
    void promtoolInstantSeriesLabels_printCatalogAndNativeAnswer() throws Exception {
        long time = Instant.parse("2026-11-21T12:00:30Z").toEpochMilli();
        String query = "count_over_time(checkout.latency[5m])";
        String printed = run(promtool.toString(), "query", "instant", "--time=" + time / 1000, server(), query);
        System.out.printf("promtool query instant %s%n%s%n", query, printed);
        JsonNode vector = JSON.readTree(
                run(promtool.toString(), "query", "instant", "-o", "json", "--time=" + time / 1000, server(), query));
        Map<Map<String, String>, Double> got = new HashMap<>();
        vector.forEach(s -> got.put(
                labels(s.path("metric")), Double.parseDouble(s.at("/value/1").asText())));
        assertThat(got).isEqualTo(nativeWindow(time, 5 * MINUTE, "count")).isNotEmpty();

        String series = run(promtool.toString(), "query", "series", "--match=checkout.latency", server());
        System.out.printf("promtool query series --match=checkout.latency%n%s%n", series);
        JsonNode seriesJson = JSON.readTree(
                run(promtool.toString(), "query", "series", "-o", "json", "--match=checkout.latency", server()));
        List<Map<String, String>> listed = new ArrayList<>();
        seriesJson.forEach(s -> listed.add(labels(s)));
        assertThat(listed).containsExactlyInAnyOrderElementsOf(catalog("checkout.latency"));

        String ops = run(promtool.toString(), "query", "labels", server(), "op");
        System.out.printf("promtool query labels op%n%s%n", ops);
        assertThat(ops.lines().map(String::trim).toList()).containsExactly("Pay", "Refund");
        String names = run(promtool.toString(), "query", "labels", server(), "__name__");
        assertThat(names.lines().map(String::trim).toList())
                .contains("checkout.latency", "cart.items", "pulse.heartbeat");
    }

    @Test
    void pythonPrometheusApiClient_everyFormAndListing_equalsNativeAnswer() throws Exception {
        Path python = Path.of(System.getProperty("pulse.moto.bin")).getParent().resolve("python");
        Path script = LocalDeployments.root().resolve("tests/src/test/python/prometheus_client_check.py");
        ArrayNode calls = JSON.createArrayNode();
        for (Form form : FORMS) {
            calls.addObject()
                    .put("kind", "range")
                    .put("query", form.query())
                    .put("start", START / 1000)
                    .put("end", END / 1000)
                    .put("step", "60");
        }
        long time = Instant.parse("2026-11-21T12:00:30Z").toEpochMilli();
        calls.addObject()
                .put("kind", "instant")
                .put("query", "sum_over_time(checkout.latency[5m])")
                .put("time", time / 1000);
        calls.addObject()
                .put("kind", "series")
                .put("match", "checkout.latency")
                .put("start", START / 1000)
                .put("end", END / 1000);
        calls.addObject().put("kind", "labels");
        calls.addObject().put("kind", "label_values").put("name", "op");
        calls.addObject().put("kind", "metrics");
        Path input = Files.createTempFile(Path.of("target"), "prometheus-calls", ".json");
        Files.writeString(input, calls.toString());
        JsonNode results =
                JSON.readTree(runWithInput(input, python.toString(), script.toString(), proxyless() + "/prometheus"));
        for (int i = 0; i < FORMS.size(); i++) {
            assertMatrixMatches(FORMS.get(i), results.get(i));
        }
        int n = FORMS.size();
        Map<Map<String, String>, Double> instant = new HashMap<>();
        results.get(n)
                .forEach(s -> instant.put(
                        labels(s.path("metric")),
                        Double.parseDouble(s.at("/value/1").asText())));
        assertThat(instant).isEqualTo(nativeWindow(time, 5 * MINUTE, "sum")).isNotEmpty();
        List<Map<String, String>> listed = new ArrayList<>();
        results.get(n + 1).forEach(s -> listed.add(labels(s)));
        assertThat(listed).containsExactlyInAnyOrderElementsOf(catalog("checkout.latency"));
        assertThat(results.get(n + 2).toString()).contains("\"__name__\"", "\"op\"", "\"service\"", "\"route\"");
        assertThat(results.get(n + 3).toString()).isEqualTo("[\"Pay\",\"Refund\"]");
        assertThat(results.get(n + 4).toString()).contains("\"checkout.latency\"", "\"cart.items\"");
    }

    // --- checks ------------------------------------------------------------------------------------------------

    /** Each step of a printed matrix against the native answer for its window, transformed as the form does. */
    private void assertMatrixMatches(Form form, JsonNode matrix) throws Exception {
        int compared = 0;
        for (long t = START; t <= END; t += MINUTE) {
            Map<Map<String, String>, Double> want =
                    form.expected().apply(nativeWindow(t, form.rangeMillis(), form.stat()));
            Map<Map<String, String>, Double> got = new HashMap<>();
            for (JsonNode s : matrix) {
                for (JsonNode point : s.path("values")) {
                    if (Math.round(point.get(0).asDouble() * 1000) == t) {
                        got.put(
                                labels(s.path("metric")),
                                Double.parseDouble(point.get(1).asText()));
                    }
                }
            }
            assertThat(got.keySet())
                    .as("%s at %s", form.query(), Instant.ofEpochMilli(t))
                    .isEqualTo(want.keySet());
            for (Map.Entry<Map<String, String>, Double> w : want.entrySet()) {
                if (form.stat().startsWith("p")) {
                    assertThat(got.get(w.getKey()))
                            .as("%s at %s", form.query(), t)
                            .isCloseTo(w.getValue(), withinPercentage(1));
                } else {
                    assertThat(got.get(w.getKey()))
                            .as("%s %s at %s", form.query(), w.getKey(), Instant.ofEpochMilli(t))
                            .isEqualTo(w.getValue());
                }
                compared++;
            }
        }
        assertThat(compared).as("points compared for %s", form.query()).isPositive();
    }

    /** The native answer for one window: [floor(t) - range, floor(t)), every series of checkout.latency. */
    private Map<Map<String, String>, Double> nativeWindow(long t, long range, String stat) throws IOException {
        long end = Math.floorDiv(t, MINUTE) * MINUTE;
        ObjectNode q = JSON.createObjectNode();
        ArrayNode series = q.putArray("series");
        for (Map<String, String> labels : catalog("checkout.latency")) {
            ObjectNode dims = series.addObject().put("name", "checkout.latency").putObject("dims");
            labels.forEach((k, v) -> {
                if (!k.equals("__name__")) {
                    dims.put(k, v);
                }
            });
        }
        q.put("start", end - range).put("end", end).put("period", range / 1000);
        q.putArray("stats").add(stat);
        SignedApi.Response r = api.post("/query", q.toString());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        Map<Map<String, String>, Double> out = new HashMap<>();
        for (JsonNode s : JSON.readTree(r.body()).path("series")) {
            JsonNode v = s.at("/values/" + stat + "/0");
            if (!v.isNull()) {
                out.put(labels(s.path("dims")), v.asDouble());
            }
        }
        return out;
    }

    /** The catalog's series of one name, as label sets (dims and __name__), read through the native GET /series. */
    private List<Map<String, String>> catalog(String name) throws IOException {
        SignedApi.Response r = api.get("/series?name=" + name);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        List<Map<String, String>> out = new ArrayList<>();
        for (JsonNode s : JSON.readTree(r.body()).path("series")) {
            Map<String, String> l = labels(s.path("dims"));
            l.put("__name__", name);
            out.add(l);
        }
        assertThat(out).isNotEmpty();
        return out;
    }

    private static Map<Map<String, String>, Double> only(
            Map<Map<String, String>, Double> m, String label, String value) {
        Map<Map<String, String>, Double> out = new HashMap<>();
        m.forEach((k, v) -> {
            if (value.equals(k.get(label))) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** The series grouped by service (all others dropped), aggregated in catalog order. */
    private static Map<Map<String, String>, Double> group(Map<Map<String, String>, Double> m, String op) {
        Map<Map<String, String>, List<Double>> groups = new HashMap<>();
        List<Map<String, String>> ordered = new ArrayList<>(m.keySet());
        ordered.sort(java.util.Comparator.comparing(k -> dev.pulse.model.SeriesKey.of("checkout.latency", k)));
        for (Map<String, String> k : ordered) {
            groups.computeIfAbsent(Map.of("service", k.get("service")), x -> new ArrayList<>())
                    .add(m.get(k));
        }
        Map<Map<String, String>, Double> out = new HashMap<>();
        groups.forEach((k, vs) -> out.put(
                k,
                switch (op) {
                    case "sum" -> vs.stream().reduce(0.0, Double::sum);
                    case "max" ->
                        vs.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
                    case "min" ->
                        vs.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
                    case "avg" -> vs.stream().reduce(0.0, Double::sum) / vs.size();
                    default -> (double) vs.size();
                }));
        return out;
    }

    private static Map<Map<String, String>, Double> map(
            Map<Map<String, String>, Double> m, java.util.function.DoubleUnaryOperator f) {
        Map<Map<String, String>, Double> out = new HashMap<>();
        m.forEach((k, v) -> out.put(k, f.applyAsDouble(v)));
        return out;
    }

    /** A bare selector keeps the metric name. */
    private static Map<Map<String, String>, Double> named(Map<Map<String, String>, Double> m) {
        Map<Map<String, String>, Double> out = new HashMap<>();
        m.forEach((k, v) -> {
            Map<String, String> l = new TreeMap<>(k);
            l.put("__name__", "checkout.latency");
            out.put(l, v);
        });
        return out;
    }

    // --- plumbing ----------------------------------------------------------------------------------------------

    private String server() {
        return proxy.endpoint() + "/prometheus";
    }

    /** The Python client signs by itself: straight to the API, no proxy. */
    private String proxyless() {
        String url = stack.apiUrl().toString();
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    private static Map<String, String> labels(JsonNode object) {
        Map<String, String> out = new TreeMap<>();
        object.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    private void waitForData() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WARM_UP_LIMIT_SECONDS);
        while (true) {
            SignedApi.Response r = api.post(
                    "/query",
                    "{\"series\":[{\"name\":\"checkout.latency\",\"dims\":{\"service\":"
                            + "\"checkout\",\"op\":\"Pay\"}}],\"start\":" + START + ",\"end\":" + END
                            + ",\"period\":60,\"stats\":[\"count\"]}");
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            long count = 0;
            for (JsonNode v : JSON.readTree(r.body()).at("/series/0/values/count")) {
                count += v.asLong();
            }
            if (count >= 4) { // the fixture's Pay datapoints in the range
                return;
            }
            assertThat(System.nanoTime())
                    .as("the fixture did not become queryable within %d s: %s", WARM_UP_LIMIT_SECONDS, r.body())
                    .isLessThan(deadline);
            Thread.sleep(500);
        }
    }

    private static String run(String... command) throws Exception {
        return runWithInput(null, command);
    }

    /** Runs a client to completion (stopped by its handle past the limit); its output, which must be exit 0. */
    private static String runWithInput(Path input, String... command) throws Exception {
        Path out = Files.createTempFile(Path.of("target"), "client", ".out");
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        if (input != null) {
            pb.redirectInput(input.toFile());
        }
        pb.environment().put("AWS_ACCESS_KEY_ID", "local");
        pb.environment().put("AWS_SECRET_ACCESS_KEY", "local");
        pb.environment().put("AWS_DEFAULT_REGION", LocalDeployment.REGION);
        pb.environment().remove("AWS_PROFILE");
        Process p = pb.start();
        try {
            if (!p.waitFor(CLIENT_LIMIT_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError(
                        String.join(" ", command) + " did not finish within " + CLIENT_LIMIT_SECONDS + " s");
            }
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        Files.deleteIfExists(out);
        assertThat(p.exitValue())
                .as("%s:%n%s", String.join(" ", command), output)
                .isZero();
        return output;
    }
}
