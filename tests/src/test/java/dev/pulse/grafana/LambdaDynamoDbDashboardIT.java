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
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.ingest.IngestResult;
import dev.pulse.ingest.metricstream.FirehoseRequest;
import dev.pulse.ingest.metricstream.MetricStreamFunction;
import dev.pulse.ingest.metricstream.MetricStreamService;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.metrics.SdkClientMetrics;
import dev.pulse.query.QueryHandler;
import dev.pulse.query.promql.internal.PromQlParser;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.ApiRequests;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.ExpectedResults;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.StdoutCapture;
import dev.pulse.testing.TestContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.metrics.CoreMetric;
import software.amazon.awssdk.http.HttpMetric;
import software.amazon.awssdk.metrics.MetricCollector;

/**
 * docs/grafana/lambda-dynamodb-dashboard.json, the Lambda and DynamoDB workload dashboard: every panel's expression is
 * inside the product's PromQL (its own parser) and, sent as Grafana sends it (variables substituted, a range query over
 * the last hour at a one-minute step), answers series with values from data that went through the real decoders and
 * the real ingest path: Lambda REPORT lines in CloudWatch Logs subscription payloads, CloudWatch metric stream updates
 * (AWS/Lambda, AWS/DynamoDB, in the JSON output format) delivered through the metric stream service, and the SDK client
 * metrics {@link SdkClientMetrics} writes, in the functions' log group's payloads.
 */
@ExtendWith(Emulators.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LambdaDynamoDbDashboardIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DASHBOARD =
            ExpectedResults.repoRoot().resolve("docs/grafana/lambda-dynamodb-dashboard.json");
    private static final Instant NOW = Instant.parse("2026-11-20T12:00:00Z");
    private static final long MINUTE = 60_000L;
    private static final int MINUTES = 70;
    /** What Grafana puts in place of the variables; $__interval_ms before $__interval, which it starts with. */
    private static final List<String[]> VARIABLES = List.of(
            new String[] {"$__interval_ms", "60000"},
            new String[] {"$__interval", "1m"},
            new String[] {"$function", "checkout|orders-worker"},
            new String[] {"$table", "orders|pulse"});
    /** Invocations a minute per function: REPORT lines and the metric stream's Invocations agree. */
    private static final Map<String, Integer> INVOCATIONS = Map.of("checkout", 10, "orders-worker", 6);

    private static final String[] TABLE_OPERATIONS = {"BatchWriteItem", "Query", "UpdateItem"};

    private Pipeline p;
    private QueryHandler handler;
    private long sequence;

    @BeforeAll
    void ingest() throws Exception {
        Random random = new Random(28);
        long first = NOW.toEpochMilli() - MINUTES * MINUTE;
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        List<String> streamed = new ArrayList<>();
        SdkClientMetrics clients = SdkClientMetrics.shared();
        clients.flush(); // anything another test's clients left: not this test's data
        for (int m = 0; m < MINUTES; m++) {
            long minute = first + m * MINUTE;
            for (Map.Entry<String, Integer> fn : INVOCATIONS.entrySet()) {
                List<String> lines = new ArrayList<>();
                for (int i = 0; i < fn.getValue(); i++) {
                    lines.add("REPORT RequestId: " + new java.util.UUID(m, i) + "\tDuration: "
                            + (20 + random.nextInt(300)) + "." + random.nextInt(100)
                            + " ms\tBilled Duration: 330 ms\tMemory Size: 512 MB\tMax Memory Used: "
                            + (90 + random.nextInt(60)) + " MB\t"
                            + (i == 0 ? "Init Duration: " + (400 + random.nextInt(400)) + ".5 ms\t" : ""));
                }
                records.add(logs(fn.getKey(), minute + 10_000, lines));
                streamed.addAll(lambdaUpdates(fn.getKey(), fn.getValue(), minute, random));
            }
            for (String table : new String[] {"orders", "pulse"}) {
                streamed.addAll(tableUpdates(table, minute, random));
            }
            records.add(logs("orders-worker", minute + 20_000, clientMetrics(clients, minute + 20_000, random)));
        }
        p = new Pipeline("pulse-lambda-dash", NOW, Duration.ofDays(14));
        p.ingest(records);
        MetricStreamService stream = MetricStreamFunction.service(
                p.config, Emulators.dynamoAsync(), Emulators.sqs().client(), p.clock(), "us-east-1");
        // One Firehose delivery per 500 updates, each record a line of the JSON output format.
        for (int i = 0; i < streamed.size(); i += 500) {
            List<byte[]> delivery = streamed.subList(i, Math.min(streamed.size(), i + 500)).stream()
                    .map(s -> (s + "\n").getBytes(StandardCharsets.UTF_8))
                    .toList();
            IngestResult r = stream.deliver(
                    new FirehoseRequest("dash-" + i, NOW.toEpochMilli(), delivery),
                    Deadline.inMillis(60_000),
                    new InvocationMetrics<>(IngestMetric.class));
            assertThat(r.failed()).as(r.failureReason()).isFalse();
            assertThat(r.poisonRecords()).isZero();
        }
        p.compactAll();
        handler = p.queryHandler();
    }

    /** AWS/Lambda updates of one function and minute, as a metric stream sends them. */
    private static List<String> lambdaUpdates(String fn, int invocations, long minute, Random random) {
        String dims = "{\"FunctionName\":\"" + fn + "\"}";
        int errors = random.nextInt(2);
        return List.of(
                update("AWS/Lambda", "Invocations", dims, minute, invocations, invocations, 1, 1, "Count", ""),
                update("AWS/Lambda", "Errors", dims, minute, invocations, errors, 0, Math.min(1, errors), "Count", ""),
                update("AWS/Lambda", "Throttles", dims, minute, invocations, random.nextInt(3), 0, 1, "Count", ""),
                update("AWS/Lambda", "ConcurrentExecutions", dims, minute, 1, 2 + random.nextInt(5), 2, 6, "Count", ""),
                update(
                        "AWS/Lambda",
                        "IteratorAge",
                        dims,
                        minute,
                        invocations,
                        invocations * 150.0,
                        20,
                        400 + random.nextInt(500),
                        "Milliseconds",
                        ""));
    }

    /** AWS/DynamoDB updates of one table and minute (per operation for throttles and latency). */
    private static List<String> tableUpdates(String table, long minute, Random random) {
        String dims = "{\"TableName\":\"" + table + "\"}";
        List<String> out = new ArrayList<>();
        double wcu = 3_000 + random.nextInt(3_000);
        out.add(update("AWS/DynamoDB", "ConsumedWriteCapacityUnits", dims, minute, 60, wcu, 20, 150, "Count", ""));
        out.add(update("AWS/DynamoDB", "ProvisionedWriteCapacityUnits", dims, minute, 1, 100, 100, 100, "Count", ""));
        out.add(update("AWS/DynamoDB", "ConsumedReadCapacityUnits", dims, minute, 60, wcu / 2, 10, 80, "Count", ""));
        out.add(update("AWS/DynamoDB", "ProvisionedReadCapacityUnits", dims, minute, 1, 50, 50, 50, "Count", ""));
        for (String op : TABLE_OPERATIONS) {
            String opDims = "{\"TableName\":\"" + table + "\",\"Operation\":\"" + op + "\"}";
            int throttled = random.nextInt(4);
            out.add(update(
                    "AWS/DynamoDB", "ThrottledRequests", opDims, minute, 1 + throttled, throttled, 0, 1, "Count", ""));
            double p99 = 8 + random.nextInt(20);
            out.add(update(
                    "AWS/DynamoDB",
                    "SuccessfulRequestLatency",
                    opDims,
                    minute,
                    200,
                    200 * 4.5,
                    1.2,
                    p99 + 5,
                    "Milliseconds",
                    ",\"p50\":4.0,\"p99\":" + p99));
        }
        return out;
    }

    private static String update(
            String namespace,
            String metric,
            String dims,
            long ts,
            double count,
            double sum,
            double min,
            double max,
            String unit,
            String percentiles) {
        return "{\"metric_stream_name\":\"pulse\",\"account_id\":\"123456789012\",\"region\":\"us-east-1\","
                + "\"namespace\":\"" + namespace + "\",\"metric_name\":\"" + metric + "\",\"dimensions\":" + dims
                + ",\"timestamp\":" + ts + ",\"value\":{\"count\":" + count + ",\"sum\":" + sum + ",\"max\":" + max
                + ",\"min\":" + min + percentiles + "},\"unit\":\"" + unit + "\"}";
    }

    /**
     * The EMF documents {@link SdkClientMetrics} writes for one invocation of orders-worker: its DynamoDB client's calls
     * (some throttled and retried, waiting for connections) and an SQS call, as the SDK reports them (the SDK's own
     * metric collector), stamped at {@code ts} as if flushed then.
     */
    private static List<String> clientMetrics(SdkClientMetrics clients, long ts, Random random) throws IOException {
        clients.service("orders-worker");
        for (int i = 0; i < 8; i++) {
            int throttled = random.nextInt(3);
            clients.publish(call("DynamoDB", i % 2 == 0 ? "BatchWriteItem" : "UpdateItem", throttled, random));
        }
        clients.publish(call("SQS", "SendMessage", 0, random));
        List<String> out = new ArrayList<>();
        for (String line : StdoutCapture.lines(clients::flush)) {
            ObjectNode doc = (ObjectNode) JSON.readTree(line);
            ((ObjectNode) doc.get("_aws")).put("Timestamp", ts);
            out.add(doc.toString());
        }
        assertThat(out).hasSize(3);
        return out;
    }

    private static software.amazon.awssdk.metrics.MetricCollection call(
            String service, String operation, int throttled, Random random) {
        MetricCollector call = MetricCollector.create("ApiCall");
        call.reportMetric(CoreMetric.SERVICE_ID, service);
        call.reportMetric(CoreMetric.OPERATION_NAME, operation);
        call.reportMetric(CoreMetric.API_CALL_SUCCESSFUL, true);
        call.reportMetric(CoreMetric.RETRY_COUNT, throttled);
        call.reportMetric(CoreMetric.API_CALL_DURATION, Duration.ofMillis(5 + random.nextInt(40) + 30L * throttled));
        for (int a = 0; a <= throttled; a++) {
            MetricCollector attempt = call.createChild("ApiCallAttempt");
            if (a < throttled) {
                attempt.reportMetric(CoreMetric.ERROR_TYPE, "Throttling");
            }
            MetricCollector http = attempt.createChild("HttpClient");
            http.reportMetric(HttpMetric.MAX_CONCURRENCY, 16);
            http.reportMetric(HttpMetric.LEASED_CONCURRENCY, 1 + random.nextInt(16));
            http.reportMetric(HttpMetric.PENDING_CONCURRENCY_ACQUIRES, random.nextInt(4));
            http.reportMetric(HttpMetric.CONCURRENCY_ACQUIRE_DURATION, Duration.ofMillis(random.nextInt(20)));
        }
        return call.collect();
    }

    /** A CloudWatch Logs subscription record of {@code /aws/lambda/<fn>} with {@code messages} as its log events. */
    private KinesisEvent.KinesisEventRecord logs(String fn, long ts, List<String> messages) throws IOException {
        ObjectNode root = JSON.createObjectNode()
                .put("messageType", "DATA_MESSAGE")
                .put("owner", "123456789012")
                .put("logGroup", "/aws/lambda/" + fn)
                .put("logStream", "2026/11/20/[$LATEST]0123456789abcdef0123456789abcdef");
        root.putArray("subscriptionFilters").add("pulse");
        ArrayNode events = root.putArray("logEvents");
        for (int i = 0; i < messages.size(); i++) {
            events.addObject().put("id", ts + "-" + i).put("timestamp", ts).put("message", messages.get(i));
        }
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(root.toString().getBytes(StandardCharsets.UTF_8));
        }
        return KinesisRecords.record(
                "shardId-000000000000", sequence++, "/aws/lambda/" + fn, gz.toByteArray(), NOW.toEpochMilli());
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
    void dashboard_whenImported_hasADataSourceFunctionAndTableVariablesAndUniquePanels() throws Exception {
        JsonNode d = JSON.readTree(Files.readString(DASHBOARD));
        assertThat(d.path("uid").asText()).matches("[a-z0-9-]{1,40}");
        JsonNode vars = d.at("/templating/list");
        assertThat(vars.get(0).path("type").asText()).isEqualTo("datasource");
        assertThat(vars.get(1).path("definition").asText())
                .isEqualTo("label_values({__name__=\"lambda.duration\"}, function)");
        assertThat(vars.get(2).path("definition").asText())
                .isEqualTo("label_values({__name__=\"AWS/DynamoDB/ConsumedWriteCapacityUnits\"}, TableName)");
        java.util.Set<Integer> ids = new java.util.HashSet<>();
        assertThat(d.path("panels")).hasSize(18).allSatisfy(panel -> {
            assertThat(ids.add(panel.path("id").asInt())).isTrue();
            assertThat(panel.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
            assertThat(panel.path("targets")).isNotEmpty();
        });
        JsonNode functions =
                get("label/function/values", List.of(Map.entry("match[]", "{__name__=\"lambda.duration\"}")));
        assertThat(functions.path("data")).extracting(JsonNode::asText).containsExactly("checkout", "orders-worker");
        JsonNode tables = get(
                "label/TableName/values",
                List.of(Map.entry("match[]", "{__name__=\"AWS/DynamoDB/ConsumedWriteCapacityUnits\"}")));
        assertThat(tables.path("data")).extracting(JsonNode::asText).containsExactly("orders", "pulse");
    }

    @ParameterizedTest
    @MethodSource("panels")
    void panel_whenSentAsGrafanaSendsIt_parsesAndAnswersSeriesWithValues(Panel panel) {
        String expr = substitute(panel.expr());
        assertThatNoException().isThrownBy(() -> PromQlParser.parse(expr));
        JsonNode result = range(expr).at("/data/result");
        assertThat(result).as("series of %s", expr).isNotEmpty();
        int points = 0;
        for (JsonNode series : result) {
            for (JsonNode v : series.path("values")) {
                double value = Double.parseDouble(v.get(1).asText());
                points++;
                switch (panel.unit()) {
                    case "percentunit" -> assertThat(value).as(expr).isBetween(0.0, 1.0);
                    default -> assertThat(value).as(expr).isFinite().isNotNegative();
                }
            }
        }
        assertThat(points).as("points of %s", expr).isGreaterThanOrEqualTo(55);
    }

    /** The metric stream's counts come back exact: every minute's Invocations, as sent, per function. */
    @Test
    void invocationsPanel_whenQueried_answersTheStreamedSumsExactly() throws Exception {
        Panel invocations = panels().filter(p -> p.title().startsWith("Invocations"))
                .findFirst()
                .orElseThrow();
        JsonNode result = range(substitute(invocations.expr())).at("/data/result");
        assertThat(result).hasSize(2);
        for (JsonNode series : result) {
            int want = INVOCATIONS.get(series.at("/metric/FunctionName").asText());
            assertThat(series.path("values"))
                    .hasSizeGreaterThanOrEqualTo(55)
                    .allSatisfy(v -> assertThat(v.get(1).asDouble()).isEqualTo(want));
        }
    }

    /** Cold starts: one a minute per function, as the REPORT lines carry them. */
    @Test
    void coldStartPanel_whenQueried_countsOneInitDurationAMinute() throws Exception {
        Panel cold = panels().filter(p -> p.title().startsWith("Cold starts"))
                .findFirst()
                .orElseThrow();
        JsonNode result = range(substitute(cold.expr())).at("/data/result");
        assertThat(result)
                .hasSize(2)
                .allSatisfy(series -> assertThat(series.path("values"))
                        .allSatisfy(v -> assertThat(v.get(1).asDouble()).isEqualTo(1.0)));
    }

    /** Memory: each function's size, from the same REPORT lines, above what it used. */
    @Test
    void memoryPanel_whenQueried_showsEachFunctionsSizeAndWhatItUsedBelowIt() throws Exception {
        List<Panel> memory = panels().filter(p -> p.title().startsWith("Memory used against memory size"))
                .toList();
        assertThat(memory).hasSize(2);
        JsonNode used = range(substitute(memory.get(0).expr())).at("/data/result");
        JsonNode size = range(substitute(memory.get(1).expr())).at("/data/result");
        assertThat(size)
                .hasSize(2)
                .allSatisfy(series -> assertThat(series.path("values"))
                        .hasSizeGreaterThanOrEqualTo(55)
                        .allSatisfy(v -> assertThat(v.get(1).asDouble()).isEqualTo(512.0)));
        assertThat(used)
                .hasSize(2)
                .allSatisfy(series -> assertThat(series.path("values"))
                        .allSatisfy(v ->
                                assertThat(v.get(1).asDouble()).isPositive().isLessThanOrEqualTo(512.0)));
    }

    private JsonNode range(String expr) {
        long end = NOW.toEpochMilli() / 1000;
        return get(
                "query_range",
                List.of(
                        Map.entry("query", expr),
                        Map.entry("start", Long.toString(end - 3600)),
                        Map.entry("end", Long.toString(end)),
                        Map.entry("step", "60")));
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
