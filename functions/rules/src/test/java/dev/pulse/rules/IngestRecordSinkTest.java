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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.query.CatalogService;
import dev.pulse.query.QueryFunction;
import dev.pulse.query.promql.RuleEvaluation;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.DynamoDbLocalExtension;
import dev.pulse.testing.MutableClock;
import dev.pulse.testing.RecordingSqs;
import dev.pulse.testing.RefusingDynamoDb;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Recording rules stored through ingest's exactly-once path (DynamoDB Local on 127.0.0.1): a retried or repeated
 * evaluation of the same time stores its samples once, and the next rule reads them at the evaluation time.
 */
class IngestRecordSinkTest {

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    private static final String TABLE = "recorded";
    private static final Instant T = Instant.parse("2026-11-20T12:05:00Z");
    private static PulseConfig config;

    @BeforeAll
    static void table() {
        LocalDynamoDb.createTable(DYNAMO.reader(), TABLE);
        config = TestConfig.of(
                TABLE,
                "https://sqs.us-east-1.amazonaws.com/123456789012/dlq",
                TestConfig.acceptingPast(Duration.ofDays(2)));
    }

    private static RecordSink.Recorded sample(String job, double v) {
        return new RecordSink.Recorded(
                Collections.unmodifiableSortedMap(new TreeMap<>(Map.of("__name__", "job:latency:max", "job", job))), v);
    }

    private static IngestRecordSink sink(
            software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient client, RecordingSqs dlq) {
        MutableClock clock = new MutableClock(T.plusSeconds(5));
        return new IngestRecordSink(
                IngestFunction.service(config, client, dlq, clock),
                () -> Deadline.inMillis(10_000),
                clock,
                "us-east-1");
    }

    private static List<RuleEvaluation.Sample> query(String expr) throws Exception {
        MutableClock clock = new MutableClock(T.plusSeconds(5));
        RuleEvaluation evaluation = new RuleEvaluation(
                QueryFunction.service(config, DYNAMO.async(), clock, QueryFunction.cache()),
                new CatalogService(DYNAMO.async(), TABLE));
        return RulesFunction.querier(evaluation).query(expr, T.toEpochMilli(), 60_000);
    }

    @Test
    void write_whenTheSameTimeIsStoredTwiceAndByAnotherRun_theNextRuleReadsEachSampleOnce() throws Exception {
        RecordingSqs dlq = new RecordingSqs();
        List<RecordSink.Recorded> samples = List.of(sample("api", 0.25), sample("web", 4));

        sink(DYNAMO.async(), dlq).write("r.yml;g;0;job:latency:max", T.toEpochMilli(), samples);
        sink(DYNAMO.async(), dlq).write("r.yml;g;0;job:latency:max", T.toEpochMilli(), samples); // a retried run
        sink(DYNAMO.async(), dlq)
                .write(
                        "r.yml;g;0;job:latency:max",
                        T.toEpochMilli(),
                        List.of(samples.get(1), samples.get(0))); // another container, samples in another order

        assertThat(dlq.messages()).isEmpty();
        List<RuleEvaluation.Sample> sums = query("sum_over_time({__name__=\"job:latency:max\"}[1m])");
        assertThat(sums)
                .extracting(s -> s.labels().get("job") + "=" + s.value())
                .containsExactlyInAnyOrder("api=0.25", "web=4.0");
        assertThat(query("{__name__=\"job:latency:max\"}")).hasSize(2);
    }

    @Test
    void write_whenTheTableRefusesEveryWrite_throwsNotStoredSoTheTimeIsRepeated() {
        RecordingSqs dlq = new RecordingSqs();
        IngestRecordSink sink = sink(new RefusingDynamoDb(), dlq);

        assertThatThrownBy(() -> sink.write("r.yml;g;1;other:x", T.toEpochMilli(), List.of(sample("api", 1))))
                .isInstanceOf(RecordSink.NotStoredException.class)
                .hasMessageContaining("ingest failed");
    }

    @Test
    void shard_whenTheRuleKeyHoldsColonsAndHashes_isPlainAndStablePerRule() {
        assertThat(IngestRecordSink.shard("a:b#c.yml;g;0;job:x"))
                .matches("rule-[0-9a-f]{16}")
                .isEqualTo(IngestRecordSink.shard("a:b#c.yml;g;0;job:x"))
                .isNotEqualTo(IngestRecordSink.shard("a:b#c.yml;g;1;job:x"));
    }

    @Test
    void evaluate_whenAlertsArePendingAndFiring_storesAlertsAndForStateSeriesQueryableAtTheEvaluationTime()
            throws Exception {
        RecordingSqs dlq = new RecordingSqs();
        RuleGroup g = RuleFiles.parse(
                        "a.yml",
                        "groups:\n- name: g\n  rules:\n"
                                + "  - {alert: Now, expr: up == 0, labels: {severity: page}}\n"
                                + "  - {alert: Later, expr: up == 0, for: 5m}\n")
                .get(0);
        Querier down = (expr, t, interval) ->
                List.of(new RuleEvaluation.Sample(new TreeMap<>(Map.of("__name__", "up", "job", "api")), 0));
        GroupEvaluator evaluator =
                new GroupEvaluator(down, new InMemoryAlertStore(), sink(DYNAMO.async(), dlq), Map.of(), "");

        evaluator.evaluate(g, T.toEpochMilli());
        evaluator.evaluate(g, T.toEpochMilli()); // a retried run: superseded, stores nothing more

        assertThat(dlq.messages()).isEmpty();
        assertThat(query("sum_over_time({__name__=\"ALERTS\"}[1m])"))
                .extracting(s -> new TreeMap<>(s.labels()) + "=" + s.value())
                .containsExactlyInAnyOrder(
                        "{alertname=Now, alertstate=firing, job=api, severity=page}=1.0",
                        "{alertname=Later, alertstate=pending, job=api}=1.0");
        assertThat(query("{__name__=\"ALERTS_FOR_STATE\"}"))
                .extracting(s -> s.labels().get("alertname") + "=" + (long) s.value())
                .containsExactlyInAnyOrder("Now=" + T.getEpochSecond(), "Later=" + T.getEpochSecond());
    }
}
