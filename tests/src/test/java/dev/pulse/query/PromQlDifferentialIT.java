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
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.testing.ApiRequests;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.TestContext;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Pulse's PromQL answers against Prometheus' own engine (the Debian package's 2.42 server) on the same data: the
 * series below, one datapoint a minute at second 30, go through Pulse's real ingest path into DynamoDB Local and, as
 * OpenMetrics through {@code promtool tsdb create-blocks-from openmetrics}, into a Prometheus started on 127.0.0.1
 * for this class. Every supported construct is queried on both at minute-aligned times and compared point by point:
 * equal (within 1e-9 relative) where the semantics agree, and where Pulse differs by design
 * (docs/prometheus-api.md) the documented difference and its bound are asserted.
 *
 * <p>The counters are stored in Pulse as deltas (the increase within each minute: {@code req}, {@code vreq},
 * {@code err}) and in Prometheus both as the same deltas (for the {@code *_over_time} functions) and as the cumulative
 * counter a Prometheus producer would expose ({@code req_cum}, {@code vreq_cum}, starting at 10,000), which is what
 * Prometheus' {@code rate}, {@code increase} and {@code irate} are meant for.
 */
@ExtendWith(Emulators.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PromQlDifferentialIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MINUTE = 60_000L;
    private static final Instant NOW = Instant.parse("2026-11-20T12:00:00Z");
    /** Data in the minutes [NOW - 150m, NOW), one sample a minute at second 30. */
    private static final int MINUTES = 150;

    private static final long START = NOW.toEpochMilli() - 60 * MINUTE;
    private static final long END = NOW.toEpochMilli();
    private static final String[] ROUTES = {"a", "b", "c"};
    private static final String[] REGIONS = {"eu", "us"};
    private static final String[] BUCKETS = {"0.1", "0.5", "1", "+Inf"};
    /** OTLP metrics and the Prometheus names OpenTelemetry's compatibility rules give them. */
    private static final String OTEL_GAUGE = "process_memory_usage_bytes";

    private static final String OTEL_COUNTER = "http_server_requests_total";
    private static final String OTEL_HISTOGRAM = "http_server_request_duration_seconds";
    private static final String[] OTEL_BOUNDS = {"0.1", "0.5", "1"};
    /** OTLP cumulative monotonic sums, stored as the running totals they are: a steady one and one that resets. */
    private static final String CUM_STEADY = "jobs_steady_total";

    private static final String CUM_RESETTING = "jobs_processed_total";

    private Pipeline p;
    private QueryHandler handler;
    private long sequence;
    private Process prometheus;
    private Path dir;
    private String prometheusUrl;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    void start() throws Exception {
        Path promtool = Path.of(System.getProperty("pulse.promtool", "tools/prometheus/usr/bin/promtool"));
        Path server = Path.of(System.getProperty(
                "pulse.prometheus", promtool.resolveSibling("prometheus").toString()));
        assertThat(server)
                .as(
                        "the Prometheus server is not unpacked: `make test` (or `make %s`) fetches the Debian"
                                + " package",
                        "tools/prometheus/usr/bin/promtool")
                .isExecutable();
        assertThat(promtool).isExecutable();

        // The same samples for both stores.
        Random random = new Random(26);
        Random jobsRandom = new Random(27); // apart, so the other series keep their values
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        StringBuilder om = new StringBuilder();
        long first = NOW.toEpochMilli() - MINUTES * MINUTE;
        Map<String, StringBuilder> families = new LinkedHashMap<>();
        for (String name : new String[] {
            "req",
            "req_cum",
            "vreq",
            "vreq_cum",
            "err",
            "lat",
            "hb",
            "hc",
            "hc_cum",
            OTEL_GAUGE,
            OTEL_COUNTER,
            OTEL_HISTOGRAM + "_bucket",
            OTEL_HISTOGRAM + "_count",
            OTEL_HISTOGRAM + "_sum",
            CUM_STEADY,
            CUM_RESETTING
        }) {
            families.put(name, new StringBuilder("# TYPE " + name + " gauge\n"));
        }
        int index = 0;
        double[][] bucketTotals = new double[ROUTES.length * REGIONS.length][BUCKETS.length];
        for (String route : ROUTES) {
            for (String region : REGIONS) {
                index++;
                Map<String, String> dims = Map.of("route", route, "region", region);
                String labels = "{route=\"" + route + "\",region=\"" + region + "\"}";
                double reqCum = 10_000;
                double vreqCum = 10_000;
                double[] otelCum = new double[OTEL_BOUNDS.length + 4];
                java.util.Arrays.fill(otelCum, 10_000);
                String otelLabels = "{http_route=\"" + route + "\",region=\"" + region + "\",job=\"checkout\","
                        + "service_name=\"checkout\"}";
                // The cumulative sums' running totals and the OTLP start time of the current one (a restart sets both).
                double steadyTotal = 10_000;
                double jobsTotal = 10_000 + 1_000 * index;
                long jobsStart = (first - 3_600_000) * 1_000_000;
                for (int m = 0; m < MINUTES; m++) {
                    long ts = first + m * MINUTE + 30_000;
                    String seconds = Long.toString(ts / 1000);
                    // A constant increase per minute (a steady counter) and a varying one.
                    double req = index;
                    double vreq = random.nextInt(21);
                    double lat = random.nextInt(10_000) / 100.0 + 0.5;
                    reqCum += req;
                    vreqCum += vreq;
                    records.add(record("req", dims, ts, req));
                    records.add(record("vreq", dims, ts, vreq));
                    records.add(record("lat", dims, ts, lat));
                    families.get("req")
                            .append("req")
                            .append(labels)
                            .append(' ')
                            .append(req)
                            .append(' ')
                            .append(seconds)
                            .append('\n');
                    families.get("req_cum")
                            .append("req_cum")
                            .append(labels)
                            .append(' ')
                            .append(reqCum)
                            .append(' ')
                            .append(seconds)
                            .append('\n');
                    families.get("vreq")
                            .append("vreq")
                            .append(labels)
                            .append(' ')
                            .append(vreq)
                            .append(' ')
                            .append(seconds)
                            .append('\n');
                    families.get("vreq_cum")
                            .append("vreq_cum")
                            .append(labels)
                            .append(' ')
                            .append(vreqCum)
                            .append(' ')
                            .append(seconds)
                            .append('\n');
                    families.get("lat")
                            .append("lat")
                            .append(labels)
                            .append(' ')
                            .append(lat)
                            .append(' ')
                            .append(seconds)
                            .append('\n');
                    // Classic histogram buckets: a gauge of random (not always monotonic) counts, and a steady
                    // counter per bucket (Pulse's per-minute increments; Prometheus' running total). Route c has no
                    // +Inf bucket; route b writes its 1 bucket as "1.0" too, which Prometheus adds to "1".
                    double[] steady = {index, index + 2, 2 * index + 3, 3 * index + 3};
                    for (int b = 0; b < BUCKETS.length; b++) {
                        if (route.equals("c") && BUCKETS[b].equals("+Inf")) {
                            continue;
                        }
                        Map<String, String> bdims = new HashMap<>(dims);
                        bdims.put("le", BUCKETS[b]);
                        String blabels = labels.substring(0, labels.length() - 1) + ",le=\"" + BUCKETS[b] + "\"}";
                        double hb = random.nextInt(20);
                        bucketTotals[index - 1][b] += steady[b];
                        records.add(record("hb", bdims, ts, hb));
                        records.add(record("hc", bdims, ts, steady[b]));
                        families.get("hb")
                                .append("hb")
                                .append(blabels)
                                .append(' ')
                                .append(hb)
                                .append(' ')
                                .append(seconds)
                                .append('\n');
                        families.get("hc")
                                .append("hc")
                                .append(blabels)
                                .append(' ')
                                .append(steady[b])
                                .append(' ')
                                .append(seconds)
                                .append('\n');
                        families.get("hc_cum")
                                .append("hc_cum")
                                .append(blabels)
                                .append(' ')
                                .append(10_000 + bucketTotals[index - 1][b])
                                .append(' ')
                                .append(seconds)
                                .append('\n');
                    }
                    if (route.equals("b")) {
                        Map<String, String> bdims = new HashMap<>(dims);
                        bdims.put("le", "1.0");
                        String blabels = labels.substring(0, labels.length() - 1) + ",le=\"1.0\"}";
                        records.add(record("hb", bdims, ts, 3));
                        families.get("hb")
                                .append("hb")
                                .append(blabels)
                                .append(" 3 ")
                                .append(seconds)
                                .append('\n');
                    }
                    // The same through OTLP (a delta histogram, a delta counter, a gauge) for Pulse, and as the
                    // cumulative series OpenTelemetry's Prometheus exporters would write for Prometheus.
                    long[] counts = {index, index + 2, 2L * index + 1, 1};
                    long total = 0;
                    for (long c : counts) {
                        total += c;
                    }
                    double sum = total * 0.25;
                    double memory = 1_000_000 + random.nextInt(1_000_000);
                    records.add(otlp(route, region, ts, counts, sum, index, memory));
                    families.get(OTEL_GAUGE)
                            .append(OTEL_GAUGE)
                            .append(otelLabels)
                            .append(' ')
                            .append(memory)
                            .append(' ')
                            .append(seconds)
                            .append('\n');
                    otelCum[0] += index;
                    families.get(OTEL_COUNTER)
                            .append(OTEL_COUNTER)
                            .append(otelLabels)
                            .append(' ')
                            .append(otelCum[0])
                            .append(' ')
                            .append(seconds)
                            .append('\n');
                    long cumulative = 0;
                    for (int b = 0; b < counts.length; b++) {
                        cumulative += counts[b];
                        otelCum[1 + b] += cumulative;
                        String le = b < OTEL_BOUNDS.length ? OTEL_BOUNDS[b] : "+Inf";
                        families.get(OTEL_HISTOGRAM + "_bucket")
                                .append(OTEL_HISTOGRAM)
                                .append("_bucket")
                                .append(otelLabels, 0, otelLabels.length() - 1)
                                .append(",le=\"")
                                .append(le)
                                .append("\"} ")
                                .append(otelCum[1 + b])
                                .append(' ')
                                .append(seconds)
                                .append('\n');
                    }
                    otelCum[5] += total;
                    otelCum[6] += sum;
                    families.get(OTEL_HISTOGRAM + "_count")
                            .append(OTEL_HISTOGRAM)
                            .append("_count")
                            .append(otelLabels)
                            .append(' ')
                            .append(otelCum[5])
                            .append(' ')
                            .append(seconds)
                            .append('\n');
                    families.get(OTEL_HISTOGRAM + "_sum")
                            .append(OTEL_HISTOGRAM)
                            .append("_sum")
                            .append(otelLabels)
                            .append(' ')
                            .append(otelCum[6])
                            .append(' ')
                            .append(seconds)
                            .append('\n');
                    // Cumulative sums: the steady one grows by index a minute; the other by 0..40, and its writer
                    // restarts every 37 minutes (a phase per series), its total then counting again from a few.
                    steadyTotal += index;
                    if ((m + 11 * index) % 37 == 0) {
                        jobsTotal = jobsRandom.nextInt(5);
                        jobsStart = (ts - 1_000) * 1_000_000;
                    } else {
                        jobsTotal += jobsRandom.nextInt(41);
                    }
                    records.add(otlpCumulative(route, region, ts, steadyTotal, jobsTotal, jobsStart));
                    families.get(CUM_STEADY)
                            .append(CUM_STEADY)
                            .append(otelLabels)
                            .append(' ')
                            .append(steadyTotal)
                            .append(' ')
                            .append(seconds)
                            .append('\n');
                    families.get(CUM_RESETTING)
                            .append(CUM_RESETTING)
                            .append(otelLabels)
                            .append(' ')
                            .append(jobsTotal)
                            .append(' ')
                            .append(seconds)
                            .append('\n');
                    if (!route.equals("c")) {
                        double err = random.nextInt(6);
                        records.add(record("err", dims, ts, err));
                        families.get("err")
                                .append("err")
                                .append(labels)
                                .append(' ')
                                .append(err)
                                .append(' ')
                                .append(seconds)
                                .append('\n');
                    }
                }
            }
        }
        families.values().forEach(om::append);
        om.append("# EOF\n");

        p = new Pipeline("pulse-promdiff", NOW, Duration.ofDays(14));
        // Two attributes that become the same label name, on two series of one metric: both answer as
        // dup_gauge{a_b="x"} under the OpenTelemetry names.
        records.add(otlpGauge("dup.gauge", "a.b", "x", first + 30_000));
        records.add(otlpGauge("dup.gauge", "a_b", "x", first + 30_000));
        p.ingest(records);
        p.compactAll();
        handler = p.queryHandler();

        dir = Files.createTempDirectory("promql-differential");
        Path input = dir.resolve("data.om");
        Files.writeString(input, om);
        Path data = dir.resolve("data");
        run(
                promtool.toString(),
                "tsdb",
                "create-blocks-from",
                "openmetrics",
                "--quiet",
                input.toString(),
                data.toString());
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, "global: {}\n");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        prometheusUrl = "http://127.0.0.1:" + port;
        prometheus = new ProcessBuilder(
                        server.toString(),
                        "--config.file=" + config,
                        "--storage.tsdb.path=" + data,
                        "--web.listen-address=127.0.0.1:" + port,
                        // Retention counts back from the newest block; the data is older than the default 15 days allow
                        // once the calendar moves on.
                        "--storage.tsdb.retention.time=100y")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("prometheus.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(prometheusUrl + "/-/ready"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    break;
                }
            } catch (IOException e) {
                // not listening yet
            }
            assertThat(prometheus.isAlive())
                    .as("prometheus exited: %s", Files.readString(dir.resolve("prometheus.log")))
                    .isTrue();
            assertThat(System.nanoTime()).as("prometheus ready within 30 s").isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (prometheus != null) {
            prometheus.destroy(); // by its handle (its PID), SIGTERM
            if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (p != null) {
            p.close();
        }
        if (dir != null) {
            try (var walk = Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder())
                        .forEach(f -> f.toFile().delete());
            }
        }
    }

    /**
     * mode, Pulse's expression, Prometheus' (when it differs), and the mode's parameter. Modes: {@code equal};
     * {@code ratio} (Prometheus' value is Pulse's times the parameter: delta's extrapolation over n samples in a
     * window of n minutes is n/(n-1)); {@code bound} (|Pulse - Prometheus| at most the parameter, a Pulse expression:
     * increase over a counter whose first in-window increase Prometheus cannot see); {@code sketch} (within 1%,
     * quantiles from the merged sketch); {@code timestamp} (Pulse answers the evaluation time, Prometheus the sample's:
     * Pulse's is later by at most the 5-minute lookback); {@code empty} (both answer no series); {@code first} (equal
     * at the first step only: Prometheus 2.42's predict_linear under @ reads a window that moves with the step).
     */
    @ParameterizedTest(name = "[{index}] {1}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '~',
            value = {
                // selectors and the range functions over whole minutes
                "equal     | lat                                      |                                 |",
                "equal     | lat{route=~\"[ab]\", region!=\"us\"}     |                                 |",
                "equal     | sum_over_time(vreq[5m])                  |                                 |",
                "equal     | count_over_time(lat[10m])                |                                 |",
                "equal     | avg_over_time(lat[5m])                   |                                 |",
                "equal     | min_over_time(lat[7m])                   |                                 |",
                "equal     | max_over_time(lat[15m])                  |                                 |",
                "equal     | quantile_over_time(0, lat[10m])          |                                 |",
                "sketch    | quantile_over_time(1, lat[10m])          |                                 |",
                "equal     | last_over_time(lat[5m])                  |                                 |",
                "equal     | present_over_time(lat[5m])               |                                 |",
                "equal     | absent_over_time(nothing{a=\"b\"}[5m])   |                                 |",
                "empty     | absent_over_time(lat[5m])                |                                 |",
                "equal     | stddev_over_time(lat[10m])               |                                 |",
                "equal     | stdvar_over_time(lat[5m])                |                                 |",
                // counters: Pulse's exact increase of delta data against Prometheus' extrapolated increase of the
                // counter
                "equal     | increase(req[5m])                        | increase(req_cum[5m])           |",
                "equal     | rate(req[10m])                           | rate(req_cum[10m])              |",
                "equal     | sum by (route) (rate(req[5m]))           | sum by (route) (rate(req_cum[5m])) |",
                "bound     | increase(vreq[5m])                       | increase(vreq_cum[5m])          | max_over_time(vreq[5m]) * 5 / 4",
                "bound     | rate(vreq[10m])                          | rate(vreq_cum[10m])             | max_over_time(vreq[10m]) * 10 / 9 / 600",
                "equal     | irate(vreq[5m])                          | irate(vreq_cum[5m])             |",
                "empty     | irate(req[1m])                           | irate(req_cum[1m])              |",
                "equal     | idelta(lat[5m])                          |                                 |",
                "ratio     | delta(lat[5m])                           |                                 | 1.25",
                "ratio     | delta(lat[10m])                          |                                 | 1.1111111111111112",
                // changes, resets, deriv, predict_linear over the per-minute values (one sample a minute: the samples)
                "equal     | changes(lat[10m])                        |                                 |",
                "equal     | changes(err[15m])                        |                                 |",
                "equal     | changes(req[5m])                         |                                 |",
                "equal     | resets(err[10m])                         |                                 |",
                "equal     | resets(lat[5m])                          |                                 |",
                "equal     | resets(vreq[10m])                        |                                 |",
                "equal     | deriv(lat[5m])                           |                                 |",
                "equal     | deriv(err[1h])                           |                                 |",
                "equal     | deriv(req[10m])                          |                                 |",
                "empty     | deriv(lat[1m])                           |                                 |",
                "equal     | predict_linear(lat[10m], 3600)           |                                 |",
                "equal     | predict_linear(err[30m], 4 * 3600)       |                                 |",
                "equal     | predict_linear(lat[5m], 0)               |                                 |",
                "equal     | predict_linear(lat[10m] offset 5m, 600)  |                                 |",
                "first     | predict_linear(lat[10m] @ 1795174200, 600) |                               |",
                "equal     | sum by (route) (changes(err[15m])) > 10  |                                 |",
                "equal     | deriv(lat[5m]) >= 0                      |                                 |",
                // comparisons
                "equal     | lat > 50                                 |                                 |",
                "equal     | 50 >= lat                                |                                 |",
                "equal     | lat != bool 50                           |                                 |",
                "equal     | lat < bool 25                            |                                 |",
                "equal     | 1 == bool 1                              |                                 |",
                "equal     | lat > on(route, region) vreq             |                                 |",
                "equal     | lat <= bool ignoring(x) vreq             |                                 |",
                "equal     | lat == lat                               |                                 |",
                // arithmetic between vectors and vector matching
                "equal     | err / vreq                               |                                 |",
                "equal     | sum by (route) (err) / sum by (route) (vreq) |                             |",
                "equal     | lat - on(route) group_left avg by (route) (lat) |                          |",
                "equal     | avg by (route) (lat) - on(route) group_right lat |                         |",
                "equal     | lat * on(route, region) group_left(x) err |                                |",
                "equal     | lat / ignoring(region) group_left sum without (region) (vreq) |            |",
                "equal     | lat + on() group_left vector(100)        |                                 |",
                "equal     | lat atan2 vreq                           |                                 |",
                "equal     | -lat % 7 ^ 2                             |                                 |",
                // set operators
                "equal     | lat and err                              |                                 |",
                "equal     | lat or err                               |                                 |",
                "equal     | lat unless err                           |                                 |",
                "equal     | lat and on(route) (err > 3)              |                                 |",
                "equal     | vreq unless ignoring(region) err         |                                 |",
                "equal     | err or on(route) lat                     |                                 |",
                // aggregations
                "equal     | sum(lat)                                 |                                 |",
                "equal     | avg by (region) (lat)                    |                                 |",
                "equal     | min without (route) (lat)                |                                 |",
                "equal     | max(lat) by (route)                      |                                 |",
                "equal     | count(err)                               |                                 |",
                "equal     | group by (route) (err)                   |                                 |",
                "equal     | stddev(lat)                              |                                 |",
                "equal     | stdvar by (route) (lat)                  |                                 |",
                "equal     | quantile(0.3, lat)                       |                                 |",
                "equal     | quantile by (region) (0.9, lat)          |                                 |",
                "equal     | topk(2, lat)                             |                                 |",
                "equal     | bottomk by (route) (1, lat)              |                                 |",
                "equal     | topk(scalar(count(err)) - 2, lat)        |                                 |",
                "equal     | count_values(\"v\", floor(lat / 10))     |                                 |",
                "equal     | count_values by (route) (\"v\", err)     |                                 |",
                // functions
                "equal     | vector(1)                                |                                 |",
                "equal     | scalar(sum(lat))                         |                                 |",
                "equal     | scalar(lat)                              |                                 |",
                "equal     | time()                                   |                                 |",
                "equal     | vector(time()) - 60                      |                                 |",
                "timestamp | timestamp(lat)                           |                                 |",
                "equal     | absent(nothing{a=\"b\", c=~\"d\"})       |                                 |",
                "empty     | absent(lat)                              |                                 |",
                "equal     | abs(lat - 50)                            |                                 |",
                "equal     | ceil(lat) + floor(lat)                   |                                 |",
                "equal     | round(lat) + round(lat, 5)               |                                 |",
                "equal     | exp(lat / 100)                           |                                 |",
                "equal     | ln(lat)                                  |                                 |",
                "equal     | log2(lat)                                |                                 |",
                "equal     | log10(lat)                               |                                 |",
                "equal     | sqrt(lat)                                |                                 |",
                "equal     | sgn(lat - 50)                            |                                 |",
                "equal     | clamp(lat, 20, 80)                       |                                 |",
                "empty     | clamp(lat, 80, 20)                       |                                 |",
                "equal     | clamp_min(lat, 30) + clamp_max(lat, 60)  |                                 |",
                "equal     | sort(lat)                                |                                 |",
                "equal     | sort_desc(rate(req[5m]))                 | sort_desc(rate(req_cum[5m]))    |",
                "equal     | label_replace(lat, \"r2\", \"$1-x\", \"route\", \"(.*)\") |                   |",
                "equal     | label_replace(lat, \"route\", \"\", \"route\", \"c\")  |                     |",
                "equal     | label_replace(lat, \"__name__\", \"l_$2\", \"region\", \"(e)(u)\") |        |",
                "equal     | label_join(lat, \"k\", \"/\", \"route\", \"region\", \"none\") |            |",
                // histogram_quantile over classic buckets
                "equal     | histogram_quantile(0.5, hb)              |                                 |",
                "equal     | histogram_quantile(0.9, sum by (le) (hb)) |                                |",
                "equal     | histogram_quantile(0.99, sum by (le, route) (hb)) |                        |",
                "equal     | histogram_quantile(0, hb)                |                                 |",
                "equal     | histogram_quantile(1, hb)                |                                 |",
                "equal     | histogram_quantile(-1, hb)               |                                 |",
                "equal     | histogram_quantile(2, hb)                |                                 |",
                "equal     | histogram_quantile(0.25, hb{route=\"a\", le!=\"+Inf\"}) |                 |",
                "equal     | histogram_quantile(0.9, rate(hc[5m]))    | histogram_quantile(0.9, rate(hc_cum[5m])) |",
                "equal     | histogram_quantile(0.75, sum by (le) (rate(hc[10m]))) | histogram_quantile(0.75, sum by (le) (rate(hc_cum[10m]))) |",
                "empty     | histogram_quantile(0.5, lat)             |                                 |",
                // trigonometric and date functions (dates: the value as Unix seconds, UTC)
                "equal     | sin(lat) + cos(lat)                      |                                 |",
                "equal     | tan(lat)                                 |                                 |",
                "equal     | asin(lat / 101) - acos(lat / 101)        |                                 |",
                "equal     | atan(lat)                                |                                 |",
                "equal     | acos(lat)                                |                                 |",
                "equal     | sinh(lat / 20) * cosh(lat / 20)          |                                 |",
                "equal     | tanh(lat / 20)                           |                                 |",
                "equal     | asinh(lat - 50)                          |                                 |",
                "equal     | asinh(lat * 1e7) + asinh(lat / 1e9)      |                                 |",
                "equal     | acosh(lat + 1)                           |                                 |",
                "equal     | acosh(lat)                               |                                 |",
                "equal     | atanh(lat / 101 - 0.5)                   |                                 |",
                "equal     | atanh(lat / 1e9)                         |                                 |",
                "equal     | deg(lat) - rad(lat)                      |                                 |",
                "equal     | lat * pi()                               |                                 |",
                "equal     | pi()                                     |                                 |",
                "equal     | hour() + minute()                        |                                 |",
                "equal     | day_of_week() + day_of_month() + day_of_year() |                           |",
                "equal     | days_in_month() + month() + year()       |                                 |",
                "equal     | hour(lat * 1e7)                          |                                 |",
                "equal     | minute(-lat * 1e5)                       |                                 |",
                "equal     | day_of_week(lat * 1e7)                   |                                 |",
                "equal     | days_in_month(lat * 3e7)                 |                                 |",
                "equal     | day_of_year(lat * 3e7) + month(lat * 3e7) |                                |",
                "equal     | year(-lat * 3e8)                         |                                 |",
                // offset and @
                "equal     | lat offset 7m                            |                                 |",
                "equal     | sum_over_time(vreq[5m] offset 10m)       |                                 |",
                "equal     | rate(req[5m] offset 3m)                  | rate(req_cum[5m] offset 3m)     |",
                "equal     | lat @ 1795174200                         |                                 |",
                "equal     | increase(req[5m] @ 1795174200)           | increase(req_cum[5m] @ 1795174200) |",
                "equal     | max_over_time(lat[10m] @ 1795174200 offset 5m) |                           |",
                "equal     | lat @ start()                            |                                 |",
                // subqueries (over whole-minute steps; a bare selector inside answers the average over the step)
                "equal     | max_over_time(rate(req[5m])[30m:5m])     | max_over_time(rate(req_cum[5m])[30m:5m]) |",
                "equal     | avg_over_time(sum by (route) (lat)[10m:1m]) |                              |",
                "equal     | count_over_time(lat[10m:1m])             |                                 |",
                "equal     | quantile_over_time(0.5, lat[10m:1m])     |                                 |",
                "equal     | stddev_over_time(lat[10m:])              |                                 |",
                "equal     | last_over_time(lat[7m:1m])               |                                 |",
                "equal     | min_over_time(sum_over_time(vreq[5m])[15m:5m]) |                           |",
                "equal     | present_over_time((lat > 90)[10m:1m])    |                                 |",
                "equal     | changes(err[15m:1m])                     |                                 |",
                "equal     | resets(sum by (route) (err)[10m:1m])     |                                 |",
                "equal     | deriv(lat[10m:1m])                       |                                 |",
                "equal     | deriv(sum_over_time(vreq[5m])[30m:5m])   |                                 |",
                "equal     | predict_linear(lat[10m:1m], 600)         |                                 |",
                "equal     | predict_linear(avg by (region) (last_over_time(lat[1m]))[20m:2m], -300) | |",
                "equal     | rate(req[5m] @ end())                    | rate(req_cum[5m] @ end())       |",
                "equal     | irate(vreq[5m] @ start() offset 2m)      | irate(vreq_cum[5m] @ start() offset 2m) |",
                // OTLP metrics under OpenTelemetry's Prometheus names: Pulse's aliases of the stored delta series
                // against
                // the cumulative series a Collector's Prometheus exporter would have written
                "equal     | process_memory_usage_bytes               |                                 |",
                "equal     | process_memory_usage_bytes{job=\"checkout\", http_route=~\"[ab]\"} |     |",
                "equal     | max by (service_name) (process_memory_usage_bytes) |                       |",
                "equal     | rate(http_server_requests_total[5m])     |                                 |",
                "equal     | sum by (job, http_route) (increase(http_server_requests_total[10m])) |     |",
                "equal     | histogram_quantile(0.9, sum by (le) (rate(http_server_request_duration_seconds_bucket[5m]))) | |",
                "equal     | histogram_quantile(0.5, sum by (le, http_route) (rate(http_server_request_duration_seconds_bucket{region=\"eu\"}[5m]))) | |",
                "equal     | histogram_quantile(0.99, rate(http_server_request_duration_seconds_bucket[10m])) | |",
                "equal     | sum by (http_route) (rate(http_server_request_duration_seconds_count[5m])) | |",
                "equal     | sum(rate(http_server_request_duration_seconds_sum[5m])) / sum(rate(http_server_request_duration_seconds_count[5m])) | |",
                "equal     | increase(http_server_request_duration_seconds_bucket{le=\"0.5\"}[10m]) |   |",
                "equal     | sum(rate(http_server_request_duration_seconds_bucket{le=\"0.1\"}[5m])) / sum(rate(http_server_request_duration_seconds_count[5m])) | |",
                // OTLP cumulative sums, stored as running totals: Pulse's reset-corrected increase between the first
                // and the
                // last sample in the window's whole minutes, Prometheus' the same extrapolated towards the window's
                // edges (by
                // at most half a sample interval each side here), so Prometheus' is at most n/(n-1) times Pulse's, and
                // exactly that for a steady counter
                "ratio     | increase(jobs_steady_total[5m])          |                                 | 1.25",
                "ratio     | rate(jobs_steady_total[10m])             |                                 | 1.1111111111111112",
                "bound     | increase(jobs_processed_total[5m])       |                                 | increase(jobs_processed_total[5m]) / 4",
                "bound     | rate(jobs_processed_total[10m])          |                                 | rate(jobs_processed_total[10m]) / 9",
                "bound     | sum by (http_route) (increase(jobs_processed_total[1h])) | | sum by (http_route) (increase(jobs_processed_total[1h])) / 59",
                "bound     | increase(jobs_processed_total[1h])       |                                 | increase(jobs_processed_total[1h]) / 59",
                "equal     | irate(jobs_processed_total[5m])          |                                 |",
                "equal     | resets(jobs_processed_total[10m])        |                                 |",
                "equal     | resets(jobs_processed_total[1h])         |                                 |",
                "empty     | irate(jobs_processed_total[1m])          |                                 |",
                "empty     | increase(jobs_processed_total[1m])       |                                 |",
                "empty     | rate(jobs_steady_total[1m])              |                                 |",
            })
    void queryRange_whenSameData_answersAsPrometheusOrWithinTheDocumentedDifference(
            String mode, String pulseQuery, String promQuery, String parameter) throws Exception {
        String pq = pulseQuery.trim();
        String prq = promQuery == null ? pq : promQuery.trim();
        Map<Map<String, String>, Map<Long, Double>> pulse = matrix(pulse(pq, "query_range"));
        Map<Map<String, String>, Map<Long, Double>> prom = matrix(prometheus(prq, "query_range"));
        assertThat(pulse.keySet()).as("the series of %s", pq).isEqualTo(prom.keySet());
        if (mode.trim().equals("first")) {
            // Prometheus 2.42 turns @ into an offset from the query's start, and for predict_linear (evaluated at
            // every step, its intercept being the step's time) so reads a window that moves with the step, clipped
            // to the data it fetched around the @ time. At the first step that window is the @ window; there the
            // answers are equal. Pulse reads the @ window at every step.
            assertThat(pulse.keySet()).isNotEmpty();
            for (Map.Entry<Map<String, String>, Map<Long, Double>> s : prom.entrySet()) {
                assertClose(
                        pulse.get(s.getKey()).get(START / 1000),
                        s.getValue().get(START / 1000),
                        1e-9,
                        pq + " " + s.getKey() + " at the first step");
            }
            return;
        }
        Map<Map<String, String>, Map<Long, Double>> bound =
                mode.trim().equals("bound") ? matrix(pulse(parameter.trim(), "query_range")) : null;
        int points = 0;
        for (Map.Entry<Map<String, String>, Map<Long, Double>> s : prom.entrySet()) {
            Map<Long, Double> mine = pulse.get(s.getKey());
            assertThat(mine.keySet())
                    .as("the steps of %s %s", pq, s.getKey())
                    .isEqualTo(s.getValue().keySet());
            for (Map.Entry<Long, Double> point : s.getValue().entrySet()) {
                double want = point.getValue();
                double got = mine.get(point.getKey());
                String where = pq + " " + s.getKey() + " at " + point.getKey();
                switch (mode.trim()) {
                    case "equal" -> assertClose(got, want, 1e-9, where);
                    case "ratio" -> assertClose(got * Double.parseDouble(parameter.trim()), want, 1e-9, where);
                    case "sketch" -> assertClose(got, want, 0.01, where);
                    case "timestamp" -> assertThat(got - want).as(where).isBetween(0.0, 300.0);
                    case "bound" -> {
                        Map<String, String> labels = new TreeMap<>(s.getKey());
                        labels.remove("__name__");
                        double limit = bound.get(labels).get(point.getKey());
                        assertThat(Math.abs(got - want))
                                .as(where + " within " + limit)
                                .isLessThanOrEqualTo(limit + 1e-9);
                    }
                    default -> throw new IllegalArgumentException(mode);
                }
                points++;
            }
        }
        if (mode.trim().equals("empty")) {
            assertThat(prom).as("Prometheus' answer to %s", prq).isEmpty();
        } else {
            assertThat(points)
                    .as("points compared for %s (an expression answering nothing compares nothing)", pq)
                    .isPositive();
        }
    }

    /**
     * A function on the wrong type (rate of a gauge, histogram_quantile of series without le): Prometheus 2.42 answers
     * without a warning, and so does Pulse.
     */
    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            value = {"rate(process_memory_usage_bytes[5m])", "histogram_quantile(0.9, lat)", "increase(lat[5m])"})
    void queryRange_whenFunctionOnTheWrongType_answersWithoutWarningAsPrometheus(String query) throws Exception {
        JsonNode pulse = pulse(query, "query_range");
        JsonNode prom = prometheus(query, "query_range");
        assertThat(prom.has("warnings"))
                .as("Prometheus 2.42 warns on %s: %s", query, prom.path("warnings"))
                .isFalse();
        assertThat(pulse.has("warnings")).isFalse();
        assertThat(matrix(pulse).keySet()).isEqualTo(matrix(prom).keySet());
    }

    /** format_query: Pulse prints each expression as the 2.42 server does, long ones split over lines. */
    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '~',
            value = {
                "sum(rate(http_server_requests_total[5m]))by(job)",
                "histogram_quantile(0.99, sum by (le, http_route) (rate(http_server_request_duration_seconds_bucket{job=\"checkout\", region=~\"[eu][us]\"}[5m]))) > 0.5 and on(http_route) sum by (http_route) (rate(http_server_requests_total[5m])) > 1",
                "lat > on(route, region) group_left vreq offset 1m30s",
                "((predict_linear(lat[10m] @ 1795174200, 4 * 3600)))",
                "max_over_time(deriv(rate(req{route=\"a\"}[5m])[30m:1m])[1h:5m]) - -1e6",
            })
    void formatQuery_whenExpression_printsAsPrometheus(String query) throws Exception {
        assertThat(pulse(query, "format_query").path("data").asText())
                .isEqualTo(prometheus(query, "format_query").path("data").asText());
    }

    /** The listings Grafana's query editor reads name the OpenTelemetry names and labels, as Prometheus does. */
    @Test
    void listings_whenOtlpMetrics_showTheOpenTelemetryNamesAndLabelsAsPrometheus() throws Exception {
        String match = "{__name__=~\"http_server.*|process_memory.*\"}";
        JsonNode pulseNames = pulseListing("label/__name__/values", match);
        JsonNode promNames = prometheusListing("label/__name__/values", match);
        assertThat(pulseNames).isEqualTo(promNames);
        assertThat(pulseNames.toString()).contains(OTEL_HISTOGRAM + "_bucket", OTEL_COUNTER, OTEL_GAUGE);
        assertThat(pulseListing("labels", "{__name__=\"" + OTEL_HISTOGRAM + "_bucket\"}"))
                .isEqualTo(prometheusListing("labels", "{__name__=\"" + OTEL_HISTOGRAM + "_bucket\"}"));
        assertThat(pulseListing("label/le/values", "{__name__=\"" + OTEL_HISTOGRAM + "_bucket\"}"))
                .isEqualTo(prometheusListing("label/le/values", "{__name__=\"" + OTEL_HISTOGRAM + "_bucket\"}"));
        assertThat(pulseListing("series", "{__name__=\"" + OTEL_COUNTER + "\", http_route=\"a\"}"))
                .isEqualTo(prometheusListing("series", "{__name__=\"" + OTEL_COUNTER + "\", http_route=\"a\"}"));
    }

    /** /api/v1/metadata serves the type the OTLP producer sent, the histogram as one family. */
    @Test
    void metadata_whenOtlpMetrics_servesTheirTypes() {
        JsonNode data = pulseGet("metadata", List.of()).path("data");
        assertThat(data.at("/" + OTEL_HISTOGRAM + "/0/type").asText()).isEqualTo("histogram");
        assertThat(data.at("/" + OTEL_COUNTER + "/0/type").asText()).isEqualTo("counter");
        assertThat(data.at("/" + OTEL_GAUGE + "/0/type").asText()).isEqualTo("gauge");
        assertThat(data.at("/" + OTEL_COUNTER + "/0/help").asText()).contains("delta", "http.server.requests");
        assertThat(data.at("/lat/0/type").asText()).isEqualTo("unknown");
        assertThat(data.has(OTEL_HISTOGRAM + "_bucket")).isFalse();
    }

    /**
     * Two stored series whose attributes normalise to the same labels ({@code a.b} and {@code a_b}) would be one series
     * to Prometheus: the query names both instead of merging them, and each stays readable by its stored name.
     */
    @Test
    void queryRange_whenTwoSeriesNormaliseToTheSameLabels_refusesNamingBoth() {
        APIGatewayV2HTTPResponse r = handler.handleRequest(
                ApiRequests.prometheus(
                        "GET", "/prometheus/api/v1/query_range", params("dup_gauge", "query_range", "60")),
                new TestContext("q", 30_000, 1024));
        assertThat(r.getStatusCode()).isEqualTo(422);
        assertThat(r.getBody()).contains("dup.gauge{a.b=x}", "dup.gauge{a_b=x}", "stored name");
        JsonNode stored = pulse("{__name__=\"dup.gauge\"}", "query", "60");
        assertThat(stored.at("/data/result")).hasSize(0); // the instant query's time is past the one sample
        JsonNode listed = pulseListing("series", "{__name__=\"dup.gauge\"}");
        assertThat(listed).hasSize(2);
    }

    private JsonNode pulseListing(String endpoint, String match) {
        return pulseGet(endpoint, List.of(Map.entry("match[]", match))).path("data");
    }

    private JsonNode pulseGet(String endpoint, List<Map.Entry<String, String>> params) {
        APIGatewayV2HTTPResponse r = handler.handleRequest(
                ApiRequests.prometheus("GET", "/prometheus/api/v1/" + endpoint, params),
                new TestContext("q", 30_000, 1024));
        assertThat(r.getStatusCode()).as("Pulse %s: %s", endpoint, r.getBody()).isEqualTo(200);
        return read(r.getBody());
    }

    private JsonNode prometheusListing(String endpoint, String match) throws Exception {
        String q = "match[]=" + URLEncoder.encode(match, StandardCharsets.UTF_8) + "&start=" + (START / 1000 - 9000)
                + "&end=" + END / 1000;
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(prometheusUrl + "/api/v1/" + endpoint + "?" + q))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("Prometheus %s: %s", endpoint, r.body()).isEqualTo(200);
        return read(r.body()).path("data");
    }

    /** Pulse's bare selector at a step of 5 minutes is Prometheus' avg_over_time over the step, exactly. */
    @Test
    void queryRange_whenBareSelectorAtLongerStep_equalsPrometheusAverageOverTheStep() throws Exception {
        Map<Map<String, String>, Map<Long, Double>> pulse = matrix(pulse("lat", "query_range", "300"));
        Map<Map<String, String>, Map<Long, Double>> prom =
                matrix(prometheus("avg_over_time(lat[5m])", "query_range", "300"));
        assertThat(pulse.keySet().stream()
                        .map(l -> {
                            Map<String, String> m = new TreeMap<>(l);
                            m.remove("__name__");
                            return m;
                        })
                        .toList())
                .containsExactlyInAnyOrderElementsOf(prom.keySet());
        int points = 0;
        for (Map.Entry<Map<String, String>, Map<Long, Double>> s : pulse.entrySet()) {
            Map<String, String> labels = new TreeMap<>(s.getKey());
            labels.remove("__name__");
            for (Map.Entry<Long, Double> point : s.getValue().entrySet()) {
                assertClose(
                        point.getValue(),
                        prom.get(labels).get(point.getKey()),
                        1e-9,
                        "lat " + labels + " at " + point.getKey());
                points++;
            }
        }
        assertThat(points).isEqualTo(6 * 13);
    }

    /** Instant queries: the same elements in the same order where the order is the answer (sort, sort_desc, topk). */
    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "sort(last_over_time(lat[1m]))",
                "sort_desc(last_over_time(lat[1m]))",
                "topk(3, last_over_time(lat[1m]))",
                "bottomk(2, last_over_time(lat[1m]))",
                "sort(sum by (route) (last_over_time(lat[1m])))",
                "sort_desc(last_over_time(lat[1m]) > 40)",
                "topk by (route) (1, last_over_time(lat[1m]))",
            })
    void query_whenOrderIsTheAnswer_ordersAsPrometheus(String query) throws Exception {
        List<String> pulse = ordered(pulse(query, "query"));
        List<String> prom = ordered(prometheus(query, "query"));
        assertThat(pulse).isNotEmpty().containsExactlyElementsOf(prom);
    }

    private static List<String> ordered(JsonNode body) {
        assertThat(body.at("/data/resultType").asText()).isEqualTo("vector");
        List<String> out = new ArrayList<>();
        for (JsonNode s : body.at("/data/result")) {
            out.add(labels(s.path("metric")) + " " + s.path("value").get(1).asText());
        }
        return out;
    }

    private static void assertClose(double got, double want, double relative, String where) {
        if (Double.isNaN(want)) {
            assertThat(got).as(where).isNaN();
            return;
        }
        if (Double.isInfinite(want) || want == 0) {
            assertThat(got).as(where).isEqualTo(want);
            return;
        }
        assertThat(Math.abs(got - want) / Math.abs(want))
                .as("%s: Pulse %s, Prometheus %s", where, got, want)
                .isLessThanOrEqualTo(relative);
    }

    // --- the two servers ---------------------------------------------------------------------------------------

    private JsonNode pulse(String query, String endpoint) {
        return pulse(query, endpoint, "60");
    }

    private JsonNode pulse(String query, String endpoint, String step) {
        APIGatewayV2HTTPResponse r = handler.handleRequest(
                ApiRequests.prometheus("GET", "/prometheus/api/v1/" + endpoint, params(query, endpoint, step)),
                new TestContext("q", 30_000, 1024));
        assertThat(r.getStatusCode()).as("Pulse %s: %s", query, r.getBody()).isEqualTo(200);
        return read(r.getBody());
    }

    private JsonNode prometheus(String query, String endpoint) throws Exception {
        return prometheus(query, endpoint, "60");
    }

    private JsonNode prometheus(String query, String endpoint, String step) throws Exception {
        StringBuilder q = new StringBuilder();
        for (Map.Entry<String, String> e : params(query, endpoint, step)) {
            q.append(q.isEmpty() ? "" : "&")
                    .append(e.getKey())
                    .append('=')
                    .append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
        }
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(prometheusUrl + "/api/v1/" + endpoint + "?" + q))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("Prometheus %s: %s", query, r.body()).isEqualTo(200);
        return read(r.body());
    }

    private static List<Map.Entry<String, String>> params(String query, String endpoint, String step) {
        if (endpoint.equals("format_query")) {
            return List.of(Map.entry("query", query));
        }
        if (endpoint.equals("query")) {
            return List.of(Map.entry("query", query), Map.entry("time", Long.toString(END / 1000 - 17 * 60)));
        }
        return List.of(
                Map.entry("query", query),
                Map.entry("start", Long.toString(START / 1000)),
                Map.entry("end", Long.toString(END / 1000)),
                Map.entry("step", step));
    }

    /** A matrix answer: labels -> (unix seconds -> value). */
    private static Map<Map<String, String>, Map<Long, Double>> matrix(JsonNode body) {
        assertThat(body.at("/data/resultType").asText()).isEqualTo("matrix");
        Map<Map<String, String>, Map<Long, Double>> out = new LinkedHashMap<>();
        for (JsonNode s : body.at("/data/result")) {
            Map<Long, Double> points = new TreeMap<>();
            for (JsonNode v : s.path("values")) {
                points.put(v.get(0).asLong(), parse(v.get(1).asText()));
            }
            out.put(labels(s.path("metric")), points);
        }
        return out;
    }

    private static Map<String, String> labels(JsonNode metric) {
        Map<String, String> labels = new TreeMap<>();
        metric.fields()
                .forEachRemaining(f -> labels.put(f.getKey(), f.getValue().asText()));
        return labels;
    }

    private static double parse(String v) {
        return switch (v) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(v);
        };
    }

    private static JsonNode read(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue())
                .as(String.join(" ", command) + ": " + output)
                .isZero();
    }

    /** One OTLP/JSON request: a delta histogram (bounds {@link #OTEL_BOUNDS}), a delta counter and a gauge. */
    private KinesisEvent.KinesisEventRecord otlp(
            String route, String region, long ts, long[] counts, double sum, double requests, double memory) {
        String nanos = "\"" + ts * 1_000_000 + "\"";
        String attrs = "[{\"key\":\"http.route\",\"value\":{\"stringValue\":\"" + route + "\"}},"
                + "{\"key\":\"region\",\"value\":{\"stringValue\":\"" + region + "\"}}]";
        long count = 0;
        StringBuilder buckets = new StringBuilder();
        for (long c : counts) {
            count += c;
            buckets.append(buckets.isEmpty() ? "" : ",").append('"').append(c).append('"');
        }
        String json = "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":"
                + "{\"stringValue\":\"checkout\"}}]},\"scopeMetrics\":[{\"metrics\":["
                + "{\"name\":\"http.server.request.duration\",\"unit\":\"s\",\"histogram\":{\"aggregationTemporality\":1,"
                + "\"dataPoints\":[{\"attributes\":" + attrs + ",\"timeUnixNano\":" + nanos + ",\"count\":\"" + count
                + "\",\"sum\":" + sum + ",\"min\":0.01,\"max\":3.0,\"bucketCounts\":[" + buckets
                + "],\"explicitBounds\":[" + String.join(",", OTEL_BOUNDS) + "]}]}},"
                + "{\"name\":\"http.server.requests\",\"unit\":\"{request}\",\"sum\":{\"aggregationTemporality\":1,"
                + "\"isMonotonic\":true,\"dataPoints\":[{\"attributes\":" + attrs + ",\"timeUnixNano\":" + nanos
                + ",\"asDouble\":" + requests + "}]}},"
                + "{\"name\":\"process.memory.usage\",\"unit\":\"By\",\"gauge\":{\"dataPoints\":[{\"attributes\":"
                + attrs + ",\"timeUnixNano\":" + nanos + ",\"asDouble\":" + memory + "}]}}]}]}]}";
        return KinesisRecords.record(
                "shardId-000000000000",
                sequence++,
                route + region,
                json.getBytes(StandardCharsets.UTF_8),
                NOW.toEpochMilli());
    }

    /** One OTLP/JSON request of two cumulative monotonic sums, each point with its start time. */
    private KinesisEvent.KinesisEventRecord otlpCumulative(
            String route, String region, long ts, double steady, double jobs, long jobsStartNanos) {
        String nanos = "\"" + ts * 1_000_000 + "\"";
        String attrs = "[{\"key\":\"http.route\",\"value\":{\"stringValue\":\"" + route + "\"}},"
                + "{\"key\":\"region\",\"value\":{\"stringValue\":\"" + region + "\"}}]";
        String steadyStart = "\"" + (NOW.toEpochMilli() - 86_400_000L) * 1_000_000 + "\"";
        String json = "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":"
                + "{\"stringValue\":\"checkout\"}}]},\"scopeMetrics\":[{\"metrics\":["
                + "{\"name\":\"jobs.steady\",\"unit\":\"{job}\",\"sum\":{\"aggregationTemporality\":2,"
                + "\"isMonotonic\":true,\"dataPoints\":[{\"attributes\":" + attrs + ",\"startTimeUnixNano\":"
                + steadyStart
                + ",\"timeUnixNano\":" + nanos + ",\"asDouble\":" + steady + "}]}},"
                + "{\"name\":\"jobs.processed\",\"unit\":\"{job}\",\"sum\":{\"aggregationTemporality\":2,"
                + "\"isMonotonic\":true,\"dataPoints\":[{\"attributes\":" + attrs + ",\"startTimeUnixNano\":\""
                + jobsStartNanos + "\",\"timeUnixNano\":" + nanos + ",\"asDouble\":" + jobs + "}]}}]}]}]}";
        return KinesisRecords.record(
                "shardId-000000000000",
                sequence++,
                route + region + "cum",
                json.getBytes(StandardCharsets.UTF_8),
                NOW.toEpochMilli());
    }

    private KinesisEvent.KinesisEventRecord otlpGauge(String name, String key, String value, long ts) {
        String json = "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"" + name + "\",\"gauge\":"
                + "{\"dataPoints\":[{\"attributes\":[{\"key\":\"" + key + "\",\"value\":{\"stringValue\":\"" + value
                + "\"}}],\"timeUnixNano\":\"" + ts * 1_000_000 + "\",\"asDouble\":1}]}}]}]}]}";
        return KinesisRecords.record(
                "shardId-000000000000", sequence++, name, json.getBytes(StandardCharsets.UTF_8), NOW.toEpochMilli());
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
