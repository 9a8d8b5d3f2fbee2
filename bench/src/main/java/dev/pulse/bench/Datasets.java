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
package dev.pulse.bench;

import static dev.pulse.testing.Gzip.gzip;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Deterministic telemetry for the benchmarks, shaped like production traffic: a few hundred series (names x
 * services x routes), values spread over orders of magnitude, timestamps inside the batch's few minutes.
 */
public final class Datasets {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The stream the benchmarks' records come from (part of ingest's shard checkpoint key, so of its item sizes). */
    static final String STREAM_ARN = "arn:aws:kinesis:us-east-1:123456789012:stream/pulse-bench";

    private static final String[] NAMES = {
        "api.latency",
        "api.requests",
        "db.latency",
        "queue.depth",
        "cart.items",
        "checkout.orders",
        "cache.hits",
        "payment.amount"
    };
    private static final String[] SERVICES = {"checkout", "cart", "catalog", "search", "payments"};
    private static final String[] ROUTES = {"GET /items/{id}", "POST /cart", "GET /search", "POST /pay", "GET /health"};

    private Datasets() {}

    /**
     * {@code records} native NDJSON records of {@code perRecord} datapoints each over at most
     * {@code NAMES x SERVICES x ROUTES} (200) series, timestamps in the {@code spanMillis} after {@code start}.
     */
    public static List<byte[]> ndjson(int records, int perRecord, long start, long spanMillis, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<byte[]> out = new ArrayList<>(records);
        StringBuilder sb = new StringBuilder(perRecord * 128);
        for (int r = 0; r < records; r++) {
            sb.setLength(0);
            for (int i = 0; i < perRecord; i++) {
                sb.append("{\"name\":\"")
                        .append(NAMES[rnd.nextInt(NAMES.length)])
                        .append("\",\"dims\":{\"service\":\"")
                        .append(SERVICES[rnd.nextInt(SERVICES.length)])
                        .append("\",\"route\":\"")
                        .append(ROUTES[rnd.nextInt(ROUTES.length)])
                        .append("\"},\"ts\":")
                        .append(start + rnd.nextLong(spanMillis))
                        .append(",\"value\":")
                        .append(value(rnd))
                        .append(",\"unit\":\"Milliseconds\"}\n");
            }
            out.add(sb.toString().getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    /**
     * {@code records} OTLP metrics records as the Collector's awskinesis exporter writes them by default (otlp_proto, no
     * compression): one ExportMetricsServiceRequest with a resource ({@code service.name}) and {@code perRecord}
     * data points, alternately a gauge and a delta histogram (10 explicit buckets, 20 values, min and max) of a route.
     */
    public static List<byte[]> otlp(int records, int perRecord, long start, long spanMillis, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<byte[]> out = new ArrayList<>(records);
        var delta = io.opentelemetry.proto.metrics.v1.AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA;
        double[] bounds = {5, 10, 25, 50, 75, 100, 250, 500, 1000};
        for (int r = 0; r < records; r++) {
            var scope = io.opentelemetry.proto.metrics.v1.ScopeMetrics.newBuilder();
            for (int i = 0; i < perRecord; i++) {
                long nanos = (start + rnd.nextLong(spanMillis)) * 1_000_000L;
                var route = io.opentelemetry.proto.common.v1.KeyValue.newBuilder()
                        .setKey("route")
                        .setValue(io.opentelemetry.proto.common.v1.AnyValue.newBuilder()
                                .setStringValue(ROUTES[rnd.nextInt(ROUTES.length)]));
                var metric = io.opentelemetry.proto.metrics.v1.Metric.newBuilder()
                        .setName(NAMES[rnd.nextInt(NAMES.length)])
                        .setUnit("ms");
                if (i % 2 == 0) {
                    metric.setGauge(io.opentelemetry.proto.metrics.v1.Gauge.newBuilder()
                            .addDataPoints(io.opentelemetry.proto.metrics.v1.NumberDataPoint.newBuilder()
                                    .setTimeUnixNano(nanos)
                                    .addAttributes(route)
                                    .setAsDouble(Double.parseDouble(value(rnd)))));
                } else {
                    long[] counts = new long[bounds.length + 1];
                    double sum = 0;
                    double min = Double.MAX_VALUE;
                    double max = -Double.MAX_VALUE;
                    for (int v = 0; v < 20; v++) {
                        double x = Double.parseDouble(value(rnd));
                        int b = 0;
                        while (b < bounds.length && x > bounds[b]) {
                            b++;
                        }
                        counts[b]++;
                        sum += x;
                        min = Math.min(min, x);
                        max = Math.max(max, x);
                    }
                    var dp = io.opentelemetry.proto.metrics.v1.HistogramDataPoint.newBuilder()
                            .setTimeUnixNano(nanos)
                            .addAttributes(route)
                            .setCount(20)
                            .setSum(sum)
                            .setMin(min)
                            .setMax(max);
                    for (double b : bounds) {
                        dp.addExplicitBounds(b);
                    }
                    for (long c : counts) {
                        dp.addBucketCounts(c);
                    }
                    metric.setHistogram(io.opentelemetry.proto.metrics.v1.Histogram.newBuilder()
                            .setAggregationTemporality(delta)
                            .addDataPoints(dp));
                }
                scope.addMetrics(metric);
            }
            out.add(io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest.newBuilder()
                    .addResourceMetrics(io.opentelemetry.proto.metrics.v1.ResourceMetrics.newBuilder()
                            .setResource(io.opentelemetry.proto.resource.v1.Resource.newBuilder()
                                    .addAttributes(io.opentelemetry.proto.common.v1.KeyValue.newBuilder()
                                            .setKey("service.name")
                                            .setValue(io.opentelemetry.proto.common.v1.AnyValue.newBuilder()
                                                    .setStringValue(SERVICES[rnd.nextInt(SERVICES.length)]))))
                            .addScopeMetrics(scope))
                    .build()
                    .toByteArray());
        }
        return out;
    }

    /**
     * {@code records} CloudWatch Logs subscription payloads (gzip), each with {@code eventsPerRecord} log events
     * from one function's log group: per invocation a START line, an application line, an EMF document with a
     * latency array of three values and a count, END, and REPORT (4 datapoints), as Lambda functions write them.
     */
    public static List<byte[]> cloudWatchLogs(
            int records, int eventsPerRecord, long start, long spanMillis, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<byte[]> out = new ArrayList<>(records);
        for (int r = 0; r < records; r++) {
            String service = SERVICES[rnd.nextInt(SERVICES.length)];
            ObjectNode env = JSON.createObjectNode();
            env.put("messageType", "DATA_MESSAGE")
                    .put("owner", "123456789012")
                    .put("logGroup", "/aws/lambda/" + service + "-api")
                    .put("logStream", "2026/11/21/[$LATEST]0123456789abcdef");
            env.putArray("subscriptionFilters").add("pulse");
            ArrayNode events = env.putArray("logEvents");
            for (int e = 0; e < eventsPerRecord; e++) {
                long ts = start + rnd.nextLong(spanMillis);
                String requestId = "%08x-0000-4000-8000-%012x".formatted(rnd.nextInt(), rnd.nextLong(1L << 48));
                String msg = switch (e % 5) {
                    case 0 -> "START RequestId: " + requestId + " Version: $LATEST\n";
                    case 1 ->
                        "2026-11-21T11:56:40.010Z\t" + requestId + "\tINFO\thandled order " + rnd.nextInt(100_000)
                                + "\n";
                    case 2 ->
                        "{\"_aws\":{\"Timestamp\":" + ts + ",\"CloudWatchMetrics\":[{\"Namespace\":\"Shop\","
                                + "\"Dimensions\":[[\"service\",\"route\"]],\"Metrics\":[{\"Name\":\"Latency\",\"Unit\":\"Milliseconds\"},"
                                + "{\"Name\":\"Orders\",\"Unit\":\"Count\"}]}]},\"service\":\"" + service
                                + "\",\"route\":\""
                                + ROUTES[rnd.nextInt(ROUTES.length)] + "\",\"Latency\":[" + value(rnd) + ","
                                + value(rnd) + ","
                                + value(rnd) + "],\"Orders\":" + (1 + rnd.nextInt(3)) + "}";
                    case 3 -> "END RequestId: " + requestId + "\n";
                    default ->
                        String.format(
                                Locale.ROOT,
                                "REPORT RequestId: %s\tDuration: %.2f ms\tBilled Duration: %d ms\t"
                                        + "Memory Size: 512 MB\tMax Memory Used: %d MB\t\n",
                                requestId,
                                5 + rnd.nextDouble() * 200,
                                6 + rnd.nextInt(200),
                                90 + rnd.nextInt(60));
                };
                events.addObject()
                        .put("id", Long.toString(ts) + e)
                        .put("timestamp", ts)
                        .put("message", msg);
            }
            out.add(gzip(env.toString().getBytes(StandardCharsets.UTF_8)));
        }
        return out;
    }

    /** A value between 0.01 and 100,000 with three decimals, log-uniform: latencies and amounts. */
    private static String value(SplittableRandom rnd) {
        return String.format(Locale.ROOT, "%.3f", Math.pow(10, -2 + rnd.nextDouble() * 7));
    }
}
