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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Real push clients, none written here, against the local stack's push endpoints (PushFunction in its own JVM behind
 * the payload-2.0 gateway, AWS_IAM on both routes), the values read back exact through {@code POST /query} once
 * ingest has stored them from the stream:
 * <ul>
 *   <li>the OpenTelemetry Python SDK's OTLP/HTTP exporter (PyPI {@code opentelemetry-exporter-otlp-proto-http},
 *       requirements-dev.txt), protobuf with gzip, signing with botocore through the requests session it takes;</li>
 *   <li>Prometheus (Debian's package, unpacked into tools/prometheus/) scraping a target of this test and
 *       remote-writing what it scraped through a {@link SigningProxy}: Prometheus' own {@code sigv4} block signs for
 *       {@code aps} (Amazon Managed Prometheus), not {@code execute-api}. The target answers a fixed number of scrapes
 *       with known values, then fails, so the exact count and sum of what Prometheus sent are known.</li>
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PushClientsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long LIMIT_SECONDS = 90;
    private static final int SCRAPES = 5;

    private LocalDeployment stack;
    private SignedApi api;
    private final String run = "r" + Long.toString(System.currentTimeMillis(), 36);

    @BeforeAll
    void start() throws Exception {
        stack = LocalDeployment.start(LocalDeployments.options("push-clients-it"), null);
        api = new SignedApi(stack.apiUrl());
        // QueryFunction's first answer includes its JVM's start: on a busy machine longer than a client's read timeout.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        while (true) {
            try {
                if (api.get("/series?name=push.requests").status() == 200) {
                    return;
                }
            } catch (java.io.IOException e) {
                // still starting
            }
            assertThat(System.nanoTime()).as("the query API did not answer").isLessThan(deadline);
            Thread.sleep(1_000);
        }
    }

    @AfterAll
    void stop() {
        if (api != null) {
            api.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void otelPythonExporter_whenCounterGaugeAndHistogramExported_storesEachExactly() throws Exception {
        Path python = Path.of(System.getProperty("pulse.moto.bin")).getParent().resolve("python");
        Path script = LocalDeployments.root().resolve("tests/src/test/python/otlp_push_check.py");

        String out = run(python.toString(), script.toString(), base() + "/otlp/v1/metrics", run);

        assertThat(JSON.readTree(out.lines().reduce((a, b) -> b).orElseThrow())
                        .path("result")
                        .asText())
                .as(out)
                .isEqualTo("SUCCESS");
        // A cumulative sum is stored as samples of its running total: one export, one sample per series.
        assertThat(awaitStats("push.requests", Map.of("route", "/a"), 1))
                .containsEntry("count", 1.0)
                .containsEntry("sum", 6.0);
        assertThat(awaitStats("push.requests", Map.of("route", "/b"), 1)).containsEntry("sum", 7.0);
        assertThat(awaitStats("push.temperature", Map.of("room", "lab"), 1))
                .containsEntry("min", 21.25)
                .containsEntry("max", 21.25);
        assertThat(awaitStats("push.latency", Map.of("route", "/a"), 4))
                .containsEntry("count", 4.0)
                .containsEntry("sum", 16.0)
                .containsEntry("min", 1.0)
                .containsEntry("max", 10.0);
    }

    /**
     * A client that got no answer sends its request again (OTLP exporters and Prometheus retry the same body): the
     * records of the second request are the first's, put again, and ingest stores them once.
     */
    @Test
    void otlpPush_whenTheSameRequestIsSentAgain_storesItOnce() throws Exception {
        long now = System.currentTimeMillis();
        SignedApi.Response first = api.post("/otlp/v1/metrics", otlpSum(now - 20_000, 5));
        SignedApi.Response again = api.post("/otlp/v1/metrics", otlpSum(now - 20_000, 5));
        SignedApi.Response next = api.post("/otlp/v1/metrics", otlpSum(now - 10_000, 7));

        assertThat(List.of(first.status(), again.status(), next.status())).containsOnly(200);
        assertThat(awaitStats("push.resent", Map.of(), 2))
                .containsEntry("count", 2.0)
                .containsEntry("sum", 12.0);
        Thread.sleep(3_000);
        assertThat(stats("push.resent", Map.of())).containsEntry("count", 2.0);
    }

    /** One delta sum point of {@code push.resent} for this run, in OTLP/JSON. */
    private String otlpSum(long timeMillis, int value) {
        long end = timeMillis * 1_000_000L;
        return """
                {"resourceMetrics":[{"resource":{"attributes":[{"key":"run","value":{"stringValue":"%s"}}]},
                "scopeMetrics":[{"metrics":[{"name":"push.resent","sum":{"aggregationTemporality":1,"isMonotonic":true,
                "dataPoints":[{"startTimeUnixNano":"%d","timeUnixNano":"%d","asInt":"%d"}]}}]}]}]}""".formatted(run, end - 10_000_000_000L, end, value);
    }

    @Test
    void prometheusRemoteWrite_whenTargetScrapedFiveTimes_storesEverySampleOnce() throws Exception {
        Path prometheus = Path.of(System.getProperty(
                "pulse.prometheus",
                Path.of(System.getProperty("pulse.promtool", "tools/prometheus/usr/bin/promtool"))
                        .resolveSibling("prometheus")
                        .toString()));
        assertThat(prometheus)
                .as("prometheus is not unpacked: `make test` fetches the Debian package")
                .isExecutable();
        AtomicInteger scrapes = new AtomicInteger();
        HttpServer target = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        target.createContext("/metrics", ex -> {
            try (ex) {
                int n = scrapes.incrementAndGet();
                if (n > SCRAPES) {
                    ex.sendResponseHeaders(503, -1);
                    return;
                }
                byte[] body = ("# TYPE pulse_push_scrape_number gauge\n"
                                + "pulse_push_scrape_number{run=\"" + run + "\"} " + n + "\n"
                                + "# TYPE pulse_push_scrapes_total counter\n"
                                + "pulse_push_scrapes_total{run=\"" + run + "\"} " + n + "\n")
                        .getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
                ex.sendResponseHeaders(200, body.length);
                ex.getResponseBody().write(body);
            }
        });
        target.start();
        Path dir = Files.createTempDirectory(Path.of("target"), "prometheus-push");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (SigningProxy proxy = new SigningProxy(stack.apiUrl())) {
            Path config = dir.resolve("prometheus.yml");
            Files.writeString(config, """
                    global:
                      scrape_interval: 1s
                      scrape_timeout: 900ms
                    scrape_configs:
                      - job_name: pushit
                        static_configs:
                          - targets: ["127.0.0.1:%d"]
                    remote_write:
                      - url: %s/prometheus/api/v1/write
                        queue_config:
                          batch_send_deadline: 1s
                          min_backoff: 100ms
                          max_backoff: 1s
                    """.formatted(target.getAddress().getPort(), proxy.endpoint()));
            Process p = new ProcessBuilder(
                            prometheus.toString(),
                            "--config.file=" + config,
                            "--storage.tsdb.path=" + dir.resolve("data"),
                            "--web.listen-address=127.0.0.1:" + port)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("prometheus.log").toFile())
                    .start();
            try {
                Map<String, Double> gauge = awaitStats("pulse_push_scrape_number", Map.of("job", "pushit"), SCRAPES);
                assertThat(gauge)
                        .as(Files.readString(dir.resolve("prometheus.log")))
                        .containsEntry("count", (double) SCRAPES)
                        .containsEntry("sum", 15.0)
                        .containsEntry("min", 1.0)
                        .containsEntry("max", 5.0);
                assertThat(awaitStats("pulse_push_scrapes_total", Map.of("job", "pushit"), SCRAPES))
                        .containsEntry("count", (double) SCRAPES)
                        .containsEntry("max", 5.0);
                // Nothing more arrives later: each sample was stored once.
                Thread.sleep(3_000);
                assertThat(stats("pulse_push_scrape_number", Map.of("job", "pushit")))
                        .containsEntry("count", (double) SCRAPES);
            } finally {
                p.destroy();
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
                target.stop(0);
            }
        }
    }

    // --- reading back -----------------------------------------------------------------------------------------

    /** Polls until the series with these dims (and this run's) holds at least {@code count} datapoints. */
    private Map<String, Double> awaitStats(String name, Map<String, String> dims, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        while (true) {
            Map<String, Double> s = stats(name, dims);
            if (s.getOrDefault("count", 0.0) >= count) {
                return s;
            }
            assertThat(System.nanoTime())
                    .as("%s%s did not reach %d datapoints within %d s: %s", name, dims, count, LIMIT_SECONDS, s)
                    .isLessThan(deadline);
            Thread.sleep(500);
        }
    }

    /** count, sum, min and max over the last 30 minutes of the one series of {@code name} with these dims and run. */
    private Map<String, Double> stats(String name, Map<String, String> dims) throws Exception {
        SignedApi.Response listed = api.get("/series?name=" + URLEncoder.encode(name, StandardCharsets.UTF_8));
        assertThat(listed.status()).as(listed.body()).isEqualTo(200);
        List<Map<String, String>> matching = new ArrayList<>();
        for (JsonNode s : JSON.readTree(listed.body()).path("series")) {
            Map<String, String> d = new TreeMap<>();
            s.path("dims")
                    .properties()
                    .forEach(e -> d.put(e.getKey(), e.getValue().asText()));
            if (run.equals(d.get("run")) && d.entrySet().containsAll(dims.entrySet())) {
                matching.add(d);
            }
        }
        if (matching.isEmpty()) {
            return Map.of();
        }
        assertThat(matching).as("series of %s with %s", name, dims).hasSize(1);
        long now = System.currentTimeMillis();
        long end = (now / 60_000 + 2) * 60_000;
        long start = end - 30 * 60_000;
        ObjectNode q = JSON.createObjectNode();
        ObjectNode series = q.putArray("series").addObject().put("name", name);
        ObjectNode d = series.putObject("dims");
        matching.get(0).forEach(d::put);
        q.put("start", start).put("end", end).put("period", 30 * 60);
        q.putArray("stats").add("count").add("sum").add("min").add("max");
        SignedApi.Response r = api.post("/query", q.toString());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        Map<String, Double> out = new HashMap<>();
        JsonNode values = JSON.readTree(r.body()).at("/series/0/values");
        for (String stat : List.of("count", "sum", "min", "max")) {
            JsonNode v = values.path(stat).path(0);
            if (!v.isMissingNode() && !v.isNull()) {
                out.put(stat, v.asDouble());
            }
        }
        return out;
    }

    private String base() {
        String url = stack.apiUrl().toString();
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** Runs a client to completion (stopped by its handle past the limit); its output, which must be exit 0. */
    private static String run(String... command) throws Exception {
        Path out = Files.createTempFile(Path.of("target"), "client", ".out");
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put("AWS_ACCESS_KEY_ID", "local");
        pb.environment().put("AWS_SECRET_ACCESS_KEY", "local");
        pb.environment().put("AWS_DEFAULT_REGION", LocalDeployment.REGION);
        pb.environment().remove("AWS_PROFILE");
        Process p = pb.start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError(String.join(" ", command) + " did not finish within 60 s");
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
