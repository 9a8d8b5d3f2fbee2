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
package dev.pulse.grafana;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.query.QueryHandler;
import dev.pulse.query.promql.internal.PromQlParser;
import dev.pulse.testing.ApiRequests;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.ExpectedResults;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.TestContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/grafana/otel-http-dashboard.json, the dashboard of OpenTelemetry HTTP services written as its users write it
 * (rate, ratios, histogram_quantile over the Prometheus names of the semantic-convention metrics): every panel's
 * expression is inside the product's PromQL (its own parser) and, sent as Grafana sends it (variables substituted, a
 * range query over the last hour at a one-minute step), answers series with values from OTLP data that went through
 * the real ingest path: two services, three routes, 2xx and 5xx answers, delta histograms with the SDK's explicit
 * bounds in seconds, an up-down counter and a gauge.
 */
@ExtendWith(Emulators.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OtelHttpDashboardIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DASHBOARD = ExpectedResults.repoRoot().resolve("docs/grafana/otel-http-dashboard.json");
    private static final Instant NOW = Instant.parse("2026-11-20T12:00:00Z");
    private static final long MINUTE = 60_000L;
    private static final int MINUTES = 90;
    /** What Grafana puts in place of the variables: $__rate_interval for a 1 m scrape interval, as Grafana formats it. */
    private static final List<String[]> VARIABLES = List.of(
            new String[] {"$__rate_interval", "4m0s"},
            new String[] {"$__interval", "1m"},
            new String[] {"$__range", "3600s"},
            new String[] {"$job", "checkout|cart"});

    private static final double[] BOUNDS = {0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10};

    private Pipeline p;
    private QueryHandler handler;
    private long sequence;

    @BeforeAll
    void ingest() {
        Random random = new Random(27);
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        long first = NOW.toEpochMilli() - MINUTES * MINUTE;
        for (String service : new String[] {"checkout", "cart"}) {
            for (int m = 0; m < MINUTES; m++) {
                long ts = first + m * MINUTE + 30_000;
                StringBuilder metrics = new StringBuilder();
                for (String route : new String[] {"/api/cart", "/api/checkout", "/api/products/{id}"}) {
                    for (int status : new int[] {200, 500}) {
                        int n = status == 200 ? 20 + random.nextInt(20) : random.nextInt(3);
                        if (n == 0) {
                            continue;
                        }
                        metrics.append(metrics.isEmpty() ? "" : ",").append(histogram(route, status, ts, n, random));
                    }
                }
                metrics.append(",{\"name\":\"http.server.active_requests\",\"unit\":\"{request}\",\"sum\":{"
                        + "\"aggregationTemporality\":1,\"isMonotonic\":false,\"dataPoints\":[{\"timeUnixNano\":\""
                        + ts * 1_000_000 + "\",\"asInt\":\"" + random.nextInt(5) + "\"}]}}");
                metrics.append(",{\"name\":\"process.memory.usage\",\"unit\":\"By\",\"gauge\":{\"dataPoints\":[{"
                        + "\"timeUnixNano\":\"" + ts * 1_000_000 + "\",\"asDouble\":"
                        + (200e6 + random.nextInt(1_000_000))
                        + "}]}}");
                String json =
                        "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":"
                                + "{\"stringValue\":\"" + service
                                + "\"}},{\"key\":\"telemetry.sdk.language\",\"value\":"
                                + "{\"stringValue\":\"java\"}}]},\"scopeMetrics\":[{\"scope\":{\"name\":\"io.opentelemetry.http\"},"
                                + "\"metrics\":[" + metrics + "]}]}]}";
                records.add(KinesisRecords.record(
                        "shardId-000000000000",
                        sequence++,
                        service,
                        json.getBytes(StandardCharsets.UTF_8),
                        NOW.toEpochMilli()));
            }
        }
        p = new Pipeline("pulse-otel-dash", NOW, Duration.ofDays(14));
        p.ingest(records);
        p.compactAll();
        handler = p.queryHandler();
    }

    /** One delta histogram point of {@code n} requests with latencies of about 20-400 ms (5xx slower). */
    private static String histogram(String route, int status, long ts, int n, Random random) {
        long[] counts = new long[BOUNDS.length + 1];
        double sum = 0;
        double min = Double.MAX_VALUE;
        double max = 0;
        for (int i = 0; i < n; i++) {
            double v = (status == 200 ? 0.02 : 0.1) + random.nextDouble() * (status == 200 ? 0.3 : 0.6);
            sum += v;
            min = Math.min(min, v);
            max = Math.max(max, v);
            int b = 0;
            while (b < BOUNDS.length && v > BOUNDS[b]) {
                b++;
            }
            counts[b]++;
        }
        StringBuilder c = new StringBuilder();
        for (long x : counts) {
            c.append(c.isEmpty() ? "" : ",").append('"').append(x).append('"');
        }
        StringBuilder bounds = new StringBuilder();
        for (double b : BOUNDS) {
            bounds.append(bounds.isEmpty() ? "" : ",").append(b);
        }
        return "{\"name\":\"http.server.request.duration\",\"unit\":\"s\",\"histogram\":{\"aggregationTemporality\":1,"
                + "\"dataPoints\":[{\"attributes\":[{\"key\":\"http.route\",\"value\":{\"stringValue\":\"" + route
                + "\"}},"
                + "{\"key\":\"http.request.method\",\"value\":{\"stringValue\":\"GET\"}},"
                + "{\"key\":\"http.response.status_code\",\"value\":{\"intValue\":\"" + status + "\"}}],"
                + "\"timeUnixNano\":\"" + ts * 1_000_000 + "\",\"count\":\"" + n + "\",\"sum\":" + sum + ",\"min\":"
                + min
                + ",\"max\":" + max + ",\"bucketCounts\":[" + c + "],\"explicitBounds\":[" + bounds + "]}]}}";
    }

    @AfterAll
    void stop() {
        if (p != null) {
            p.close();
        }
    }

    record Panel(String title, String unit, String expr) {
        @Override
        public String toString() {
            return title + ": " + expr;
        }
    }

    static Stream<Panel> panels() throws Exception {
        List<Panel> out = new ArrayList<>();
        for (JsonNode panel : JSON.readTree(Files.readString(DASHBOARD)).path("panels")) {
            for (JsonNode t : panel.path("targets")) {
                out.add(new Panel(
                        panel.path("title").asText(),
                        panel.at("/fieldConfig/defaults/unit").asText(),
                        t.path("expr").asText()));
            }
        }
        return out.stream();
    }

    private static String substitute(String expr) {
        String out = expr;
        for (String[] v : VARIABLES) {
            out = out.replace(v[0], v[1]);
        }
        return out;
    }

    @Test
    void dashboard_whenImported_hasTenPanelsOnOpenTelemetryNamesAndAServiceVariable() throws Exception {
        JsonNode d = JSON.readTree(Files.readString(DASHBOARD));
        assertThat(d.path("panels")).hasSize(10);
        List<String> exprs = panels().map(Panel::expr).toList();
        assertThat(exprs)
                .anyMatch(e -> e.startsWith(
                        "histogram_quantile(0.99, sum by (le) (rate(" + "http_server_request_duration_seconds_bucket"));
        assertThat(exprs).anyMatch(e -> e.contains(") / sum by"));
        assertThat(exprs).allSatisfy(e -> assertThat(e).doesNotContain("{__name__"));
        JsonNode job = d.at("/templating/list/1");
        assertThat(job.path("definition").asText())
                .isEqualTo("label_values(http_server_request_duration_seconds_count, job)");
        JsonNode values =
                get("label/job/values", List.of(Map.entry("match[]", "http_server_request_duration_seconds_count")));
        assertThat(values.path("data")).extracting(JsonNode::asText).containsExactly("cart", "checkout");
    }

    @ParameterizedTest
    @MethodSource("panels")
    void panel_whenSentAsGrafanaSendsIt_parsesAndAnswersSeriesWithValues(Panel panel) {
        String expr = substitute(panel.expr());
        assertThatNoException().isThrownBy(() -> PromQlParser.parse(expr));
        long end = NOW.toEpochMilli() / 1000;
        JsonNode body = get(
                "query_range",
                List.of(
                        Map.entry("query", expr),
                        Map.entry("start", Long.toString(end - 3600)),
                        Map.entry("end", Long.toString(end)),
                        Map.entry("step", "60")));
        JsonNode result = body.at("/data/result");
        assertThat(result).as("series of %s", expr).isNotEmpty();
        int points = 0;
        for (JsonNode series : result) {
            for (JsonNode v : series.path("values")) {
                double value = Double.parseDouble(v.get(1).asText());
                points++;
                switch (panel.unit()) {
                    case "percentunit" -> assertThat(value).as(expr).isBetween(0.0, 1.0);
                    case "s" -> assertThat(value).as(expr).isBetween(0.0, 10.0);
                    default -> assertThat(value).as(expr).isFinite().isNotNegative();
                }
            }
        }
        assertThat(points).as("points of %s", expr).isGreaterThanOrEqualTo(55);
    }

    /** The quantile panels: p50 <= p90 <= p99 at every step, as quantiles of one distribution must be. */
    @Test
    void latencyPanel_whenThreeQuantiles_areOrdered() throws Exception {
        List<Panel> q =
                panels().filter(p -> p.title().startsWith("Latency p50")).toList();
        assertThat(q).hasSize(3);
        long end = NOW.toEpochMilli() / 1000;
        List<JsonNode> answers = new ArrayList<>();
        for (Panel panel : q) {
            answers.add(get(
                            "query_range",
                            List.of(
                                    Map.entry("query", substitute(panel.expr())),
                                    Map.entry("start", Long.toString(end - 3600)),
                                    Map.entry("end", Long.toString(end)),
                                    Map.entry("step", "60")))
                    .at("/data/result/0/values"));
        }
        for (int i = 0; i < answers.get(0).size(); i++) {
            double p50 = answers.get(0).get(i).get(1).asDouble();
            double p90 = answers.get(1).get(i).get(1).asDouble();
            double p99 = answers.get(2).get(i).get(1).asDouble();
            assertThat(p50).isLessThanOrEqualTo(p90);
            assertThat(p90).isLessThanOrEqualTo(p99);
            assertThat(p50).isBetween(0.05, 0.5);
        }
    }

    private JsonNode get(String endpoint, List<Map.Entry<String, String>> params) {
        APIGatewayV2HTTPResponse r = handler.handleRequest(
                ApiRequests.prometheus("GET", "/prometheus/api/v1/" + endpoint, params),
                new TestContext("q", 30_000, 1024));
        assertThat(r.getStatusCode())
                .as("%s %s: %s", endpoint, params, r.getBody())
                .isEqualTo(200);
        try {
            return JSON.readTree(r.getBody());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
