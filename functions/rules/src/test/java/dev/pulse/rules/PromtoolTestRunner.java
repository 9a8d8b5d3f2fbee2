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
package dev.pulse.rules;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.ingest.IngestResult;
import dev.pulse.ingest.IngestService;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.query.CatalogService;
import dev.pulse.query.QueryFunction;
import dev.pulse.query.QueryMetric;
import dev.pulse.query.promql.PromQlException;
import dev.pulse.query.promql.RuleEvaluation;
import dev.pulse.retry.Deadline;
import dev.pulse.rules.internal.Durations;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.MutableClock;
import dev.pulse.testing.RecordingSqs;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Runs a {@code promtool test rules} file against Pulse: each test's input series go through ingest's real code path
 * into a fresh table of DynamoDB Local, the clock steps through the evaluation times, Pulse's {@link GroupEvaluator}
 * evaluates every group through the query service's PromQL ({@link RulesFunction#querier}), recording rules write
 * back through ingest, and the file's {@code alert_rule_test} and {@code promql_expr_test} expectations are compared
 * with what Pulse produced. Returns the differences (empty: the file passes).
 *
 * <p>Minute resolution, by design: the input series must be at 1m intervals and {@code evaluation_interval} 1m.
 * promtool's sample at time {@code T} is the value Prometheus reads at {@code T}; Pulse's rule evaluated at
 * {@code T} reads the minute before {@code T}, so the sample is ingested with the timestamp {@code T - 30 s}. A bare
 * selector then answers exactly that sample (Pulse averages the interval; one sample per interval is its own
 * average). Prometheus' 5-minute lookback (a series that stopped still answers for 5 minutes) does not apply: Pulse
 * answers only the interval, so the test files end their series by a value change, never by a gap.
 */
final class PromtoolTestRunner {

    /** promtool's time 0. */
    static final long BASE = Instant.parse("2026-11-20T00:00:00Z").toEpochMilli();

    private static final long MINUTE = 60_000;
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final String INPUT_SHARD = "shardId-000000000000";
    private static final String RULES_SHARD = "shardId-000000000001";

    private final DynamoDbAsyncClient async;
    private final DynamoDbClient reader;

    PromtoolTestRunner(DynamoDbAsyncClient async, DynamoDbClient reader) {
        this.async = async;
        this.reader = reader;
    }

    List<String> run(Path testFile) throws IOException, RuleFileException {
        JsonNode root = YAML.readTree(testFile.toFile());
        long evalInterval = root.has("evaluation_interval")
                ? Durations.parse(root.get("evaluation_interval").asText())
                : MINUTE;
        if (evalInterval != MINUTE) {
            throw new IllegalArgumentException(testFile + ": Pulse's runner evaluates at 1m (minute resolution)");
        }
        Map<String, String> files = new LinkedHashMap<>();
        for (JsonNode f : root.get("rule_files")) {
            files.put(f.asText(), Files.readString(testFile.resolveSibling(f.asText()), StandardCharsets.UTF_8));
        }
        RuleSet rules = RuleFiles.load(files);
        List<String> failures = new ArrayList<>();
        int index = 0;
        for (JsonNode test : root.get("tests")) {
            index++;
            for (String f : runTest(rules, test, evalInterval)) {
                failures.add(testFile.getFileName() + " test " + index + ": " + f);
            }
        }
        return failures;
    }

    private List<String> runTest(RuleSet rules, JsonNode test, long evalInterval) {
        long interval =
                test.has("interval") ? Durations.parse(test.get("interval").asText()) : evalInterval;
        if (interval != MINUTE) {
            throw new IllegalArgumentException(
                    "Pulse's runner needs input series at 1m intervals, not " + interval + " ms");
        }
        String table = "rules-" + TABLES.incrementAndGet();
        LocalDynamoDb.createTable(reader, table);
        RecordingSqs dlq = new RecordingSqs();
        PulseConfig config = TestConfig.of(
                table,
                "https://sqs.us-east-1.amazonaws.com/123456789012/dlq",
                TestConfig.acceptingPast(Duration.ofDays(2)));
        // Ingest's "now" stands after every datapoint of the test: arrival times and the accepted window follow it.
        MutableClock ingestClock =
                new MutableClock(Instant.ofEpochMilli(BASE + Duration.ofDays(1).toMillis()));
        IngestService ingest = IngestFunction.service(config, async, dlq, ingestClock);
        AtomicLong sequence = new AtomicLong();
        List<String> failures = new ArrayList<>();

        List<KinesisEvent.KinesisEventRecord> input = new ArrayList<>();
        for (JsonNode s : test.path("input_series")) {
            SortedMap<String, String> labels =
                    SeriesNotation.labels(s.get("series").asText());
            List<Double> values = SeriesNotation.values(s.get("values").asText());
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i) != null) {
                    input.add(record(
                            INPUT_SHARD,
                            sequence.incrementAndGet(),
                            labels,
                            BASE + i * MINUTE - 30_000,
                            values.get(i),
                            ingestClock.millis()));
                }
            }
        }
        ingest(ingest, input, dlq, failures);

        MutableClock queryClock = new MutableClock(Instant.ofEpochMilli(BASE));
        RuleEvaluation evaluation = new RuleEvaluation(
                QueryFunction.service(config, async, queryClock, QueryFunction.cache()),
                new CatalogService(async, config.tableName()));
        Querier querier = RulesFunction.querier(evaluation);
        RecordSink sink = (ruleKey, evaluatedAt, samples) -> {
            List<KinesisEvent.KinesisEventRecord> out = new ArrayList<>();
            for (RecordSink.Recorded r : samples) {
                out.add(record(
                        RULES_SHARD,
                        sequence.incrementAndGet(),
                        r.labels(),
                        evaluatedAt - 30_000,
                        r.value(),
                        ingestClock.millis()));
            }
            ingest(ingest, out, dlq, failures);
        };
        Map<String, String> external = new TreeMap<>();
        test.path("external_labels")
                .fields()
                .forEachRemaining(e -> external.put(e.getKey(), e.getValue().asText()));
        GroupEvaluator evaluator = RulesFunction.evaluator(
                querier,
                new InMemoryAlertStore(),
                sink,
                external,
                test.path("external_url").asText(""));

        List<JsonNode> alertTests = new ArrayList<>();
        test.path("alert_rule_test").forEach(alertTests::add);
        long maxEval = 0;
        for (JsonNode a : alertTests) {
            maxEval = Math.max(maxEval, Durations.parse(a.get("eval_time").asText()));
        }
        for (JsonNode p : test.path("promql_expr_test")) {
            maxEval = Math.max(maxEval, Durations.parse(p.get("eval_time").asText()));
        }
        for (long ts = 0; ts <= maxEval; ts += evalInterval) {
            queryClock.setMillis(BASE + ts);
            Map<String, List<Alert>> firing = new TreeMap<>();
            for (RuleGroup g : rules.groups()) {
                if ((BASE + ts) % g.intervalMillis() != 0) {
                    continue;
                }
                GroupEvaluation e = evaluator.evaluate(g, BASE + ts);
                for (GroupEvaluation.Outcome o : e.rules()) {
                    if (o.error() != null) {
                        failures.add("at " + Durations.format(ts) + ", rule " + o.ruleKey() + ": " + o.error());
                    }
                    if (o.rule() instanceof AlertingRule) {
                        firing.computeIfAbsent(o.rule().name(), k -> new ArrayList<>())
                                .addAll(e.firing(o.rule().name()));
                    }
                }
            }
            for (JsonNode a : alertTests) {
                long at = Durations.parse(a.get("eval_time").asText());
                if (at >= ts && at < ts + evalInterval) {
                    compareAlerts(a, firing.getOrDefault(a.get("alertname").asText(), List.of()), failures);
                }
            }
        }
        for (JsonNode p : test.path("promql_expr_test")) {
            long at = Durations.parse(p.get("eval_time").asText());
            queryClock.setMillis(BASE + at);
            compareSamples(p, evaluation, BASE + at, evalInterval, failures);
        }
        reader.deleteTable(b -> b.tableName(table));
        return failures;
    }

    private static void ingest(
            IngestService ingest,
            List<KinesisEvent.KinesisEventRecord> records,
            RecordingSqs dlq,
            List<String> failures) {
        for (int i = 0; i < records.size(); i += 100) {
            IngestResult r = ingest.ingest(
                    records.subList(i, Math.min(records.size(), i + 100)),
                    Deadline.inMillis(30_000),
                    new InvocationMetrics<>(IngestMetric.class));
            if (r.failed()) {
                failures.add("ingest failed: " + r.failureReason());
            }
        }
        if (!dlq.messages().isEmpty()) {
            failures.add("ingest refused datapoints: " + dlq.messages());
        }
    }

    private static KinesisEvent.KinesisEventRecord record(
            String shard, long n, SortedMap<String, String> labels, long ts, double value, long arrival) {
        ObjectMapper json = new ObjectMapper();
        var node = json.createObjectNode();
        node.put("name", labels.get("__name__"));
        var dims = node.putObject("dims");
        labels.forEach((k, v) -> {
            if (!k.equals("__name__")) {
                dims.put(k, v);
            }
        });
        node.put("ts", ts);
        node.put("value", value);
        return KinesisRecords.record(shard, n, "pk-" + n, node.toString().getBytes(StandardCharsets.UTF_8), arrival);
    }

    private static void compareAlerts(JsonNode test, List<Alert> got, List<String> failures) {
        String name = test.get("alertname").asText();
        List<String> expected = new ArrayList<>();
        for (JsonNode e : test.path("exp_alerts")) {
            SortedMap<String, String> labels = map(e.path("exp_labels"));
            labels.put("alertname", name);
            expected.add(labels + " " + map(e.path("exp_annotations")));
        }
        List<String> actual = new ArrayList<>();
        for (Alert a : got) {
            actual.add(a.labels() + " " + a.annotations());
        }
        expected.sort(null);
        actual.sort(null);
        if (!expected.equals(actual)) {
            failures.add("alertname " + name + ", eval_time "
                    + test.get("eval_time").asText() + ":\n  exp " + expected + "\n  got " + actual);
        }
    }

    private static void compareSamples(
            JsonNode test, RuleEvaluation evaluation, long at, long interval, List<String> failures) {
        String expr = test.get("expr").asText();
        List<String> expected = new ArrayList<>();
        for (JsonNode s : test.path("exp_samples")) {
            expected.add(SeriesNotation.labels(s.get("labels").asText()) + " "
                    + PromQlValues.format(s.get("value").asDouble()));
        }
        List<String> actual = new ArrayList<>();
        try {
            for (RuleEvaluation.Sample s : evaluation
                    .evaluate(expr, at, interval, Deadline.inMillis(10_000), new InvocationMetrics<>(QueryMetric.class))
                    .samples()) {
                actual.add(s.labels() + " " + PromQlValues.format(s.value()));
            }
        } catch (PromQlException e) {
            failures.add("expr " + expr + ": " + e.getMessage());
            return;
        }
        expected.sort(null);
        actual.sort(null);
        if (!expected.equals(actual)) {
            failures.add("expr " + expr + ", eval_time " + test.get("eval_time").asText() + ":\n  exp " + expected
                    + "\n  got " + actual);
        }
    }

    private static SortedMap<String, String> map(JsonNode n) {
        SortedMap<String, String> out = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    /** Values compared as Prometheus prints them (exact to the shortest decimal that reads back). */
    static final class PromQlValues {
        static String format(double v) {
            return dev.pulse.query.promql.PromQlService.formatValue(v);
        }
    }
}
