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

import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.local.AlertSubscriber;
import dev.pulse.query.promql.RuleEvaluation;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.rules.internal.Fingerprint;
import dev.pulse.rules.store.DynamoDbAlertStore;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.NoMetrics;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.joda.time.DateTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The evaluator's notifications end to end: alert state in DynamoDB Local, Alertmanager's webhook message published to
 * moto's SNS (127.0.0.1) and delivered to a subscribed SQS queue, read back and checked field by field. An alert that
 * goes pending, fires and resolves, with the schedule's event delivered twice and two evaluators racing the same
 * minute, gives exactly one firing and one resolved message.
 */
@ExtendWith(Emulators.class)
class RulesNotificationIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOON = Instant.parse("2026-11-20T12:00:00Z");
    private static final String RULES = """
            groups:
            - name: latency
              rules:
              - alert: HighLatency
                expr: latency > 0.5
                for: 1m
                labels: {severity: page}
                annotations: {summary: '{{ $labels.instance }} at {{ $value }}'}
            """;

    @Test
    void handleRequest_whenAnAlertFiresAndResolvesUnderDuplicateAndConcurrentRuns_publishesOneMessagePerTransition()
            throws Exception {
        String table = "rules-notify";
        try (DynamoDbClient ddb = Emulators.dynamo().client()) {
            LocalDynamoDb.createTable(ddb, table);
        }
        StaticCredentialsProvider creds = StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));
        try (SnsClient sns = SnsClient.builder()
                        .endpointOverride(Emulators.sqs().endpoint())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(creds)
                        .httpClient(UrlConnectionHttpClient.create())
                        .build();
                SqsClient sqs = Emulators.sqs().client()) {
            String topic = sns.createTopic(b -> b.name("pulse-alerts")).topicArn();
            String queue = Emulators.sqs().createQueue("alert-receiver");
            String queueArn = sqs.getQueueAttributes(
                            b -> b.queueUrl(queue).attributeNames(QueueAttributeName.QUEUE_ARN))
                    .attributes()
                    .get(QueueAttributeName.QUEUE_ARN);
            sns.subscribe(b -> b.topicArn(topic)
                    .protocol("sqs")
                    .endpoint(queueArn)
                    .attributes(Map.of("RawMessageDelivery", "true")));

            // latency of instance i-1: 0.7 at 12:00 (pending), 0.8 at 12:01 (firing after for: 1m), gone at 12:02.
            CountDownLatch bothLoaded = new CountDownLatch(2);
            Querier querier = (expr, t, interval) -> {
                long minute = (t - NOON.toEpochMilli()) / 60_000;
                if (minute >= 2) {
                    // The two evaluators of 12:02 have both read the state before either writes it.
                    bothLoaded.countDown();
                    try {
                        bothLoaded.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return List.of();
                }
                return List.of(new RuleEvaluation.Sample(
                        new TreeMap<>(Map.of("__name__", "latency", "instance", "i-1")), minute == 0 ? 0.7 : 0.8));
            };
            RuleSet rules = RuleFiles.load(Map.of("latency.rules.yml", RULES));

            RulesHandler first = handler(rules, querier, table, sns, topic);
            invoke(first, NOON);
            invoke(first, NOON.plusSeconds(60));
            invoke(first, NOON.plusSeconds(60)); // EventBridge delivers at least once
            RulesHandler second = handler(rules, querier, table, sns, topic);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<Map<String, Object>>> racing = new ArrayList<>();
                for (RulesHandler h : List.of(first, second)) {
                    racing.add(pool.submit(() -> invoke(h, NOON.plusSeconds(150))));
                }
                for (Future<Map<String, Object>> f : racing) {
                    f.get(30, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }

            List<Message> delivered = drain(sqs, queue, 2);
            assertThat(delivered).hasSize(2);
            JsonNode firing = JSON.readTree(delivered.get(0).body());
            JsonNode resolved = JSON.readTree(delivered.get(1).body());
            if (firing.get("status").asText().equals("resolved")) {
                JsonNode t = firing;
                firing = resolved;
                resolved = t;
            }
            Map<String, String> labels = Map.of("alertname", "HighLatency", "instance", "i-1", "severity", "page");
            String fingerprint = Fingerprint.of(new TreeMap<>(labels));
            for (JsonNode m : List.of(firing, resolved)) {
                assertThat(m.get("version").asText()).isEqualTo("4");
                assertThat(m.get("groupKey").asText()).isEqualTo("{}:{alertname=\"HighLatency\"}");
                assertThat(m.get("receiver").asText()).isEqualTo("pulse");
                assertThat(m.get("truncatedAlerts").asInt()).isZero();
                assertThat(m.get("groupLabels")).isEqualTo(JSON.valueToTree(Map.of("alertname", "HighLatency")));
                assertThat(m.get("commonLabels")).isEqualTo(JSON.valueToTree(labels));
                assertThat(m.get("externalURL").asText()).isEqualTo("https://grafana.example.com");
                assertThat(m.get("alerts")).hasSize(1);
                JsonNode a = m.get("alerts").get(0);
                assertThat(a.get("labels")).isEqualTo(JSON.valueToTree(labels));
                assertThat(a.get("fingerprint").asText()).isEqualTo(fingerprint);
                assertThat(a.get("startsAt").asText()).isEqualTo("2026-11-20T12:01:00Z");
                assertThat(a.get("generatorURL").asText())
                        .isEqualTo("https://grafana.example.com/graph?g0.expr=latency+%3E+0.5&g0.tab=1");
                assertThat(a.get("annotations")).isEqualTo(JSON.valueToTree(Map.of("summary", "i-1 at 0.8")));
                assertThat(m.get("commonAnnotations")).isEqualTo(JSON.valueToTree(Map.of("summary", "i-1 at 0.8")));
            }
            assertThat(firing.get("status").asText()).isEqualTo("firing");
            assertThat(firing.get("alerts").get(0).get("status").asText()).isEqualTo("firing");
            assertThat(firing.get("alerts").get(0).get("endsAt").asText()).isEqualTo("0001-01-01T00:00:00Z");
            assertThat(resolved.get("status").asText()).isEqualTo("resolved");
            assertThat(resolved.get("alerts").get(0).get("status").asText()).isEqualTo("resolved");
            assertThat(resolved.get("alerts").get(0).get("endsAt").asText()).isEqualTo("2026-11-20T12:02:00Z");
            assertThat(delivered)
                    .allSatisfy(msg -> assertThat(
                                    msg.messageAttributes().get("alertname").stringValue())
                            .isEqualTo("HighLatency"));
            // Nothing else arrives: the duplicate and the losing racer published nothing.
            assertThat(drain(sqs, queue, 1)).isEmpty();
        }
    }

    /**
     * make run's path: the topic's HTTP subscription (moto posts SNS's envelope) to the local stack's subscriber on
     * 127.0.0.1, which keeps each alert with its arrival: one firing and one resolved, with the message's labels,
     * fingerprint and times.
     */
    @Test
    void handleRequest_whenSubscribedOverHttp_localSubscriberReceivesOneFiringAndOneResolved() throws Exception {
        String table = "rules-notify-http";
        try (DynamoDbClient ddb = Emulators.dynamo().client()) {
            LocalDynamoDb.createTable(ddb, table);
        }
        StaticCredentialsProvider creds = StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));
        try (SnsClient sns = SnsClient.builder()
                        .endpointOverride(Emulators.sqs().endpoint())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(creds)
                        .httpClient(UrlConnectionHttpClient.create())
                        .build();
                AlertSubscriber subscriber = AlertSubscriber.start(java.time.Clock.systemUTC())) {
            String topic = sns.createTopic(b -> b.name("pulse-alerts-http")).topicArn();
            sns.subscribe(b -> b.topicArn(topic)
                    .protocol("http")
                    .endpoint(subscriber.endpoint().toString())
                    .attributes(Map.of("RawMessageDelivery", "true")));
            // latency of i-1: 0.8 at 12:00 and 12:01 (pending, then firing after for: 1m), gone at 12:02.
            Querier querier = (expr, t, interval) -> (t - NOON.toEpochMilli()) / 60_000 >= 2
                    ? List.of()
                    : List.of(new RuleEvaluation.Sample(
                            new TreeMap<>(Map.of("__name__", "latency", "instance", "i-1")), 0.8));
            RulesHandler h = handler(RuleFiles.load(Map.of("latency.rules.yml", RULES)), querier, table, sns, topic);
            long before = System.currentTimeMillis();

            invoke(h, NOON);
            invoke(h, NOON.plusSeconds(60));
            invoke(h, NOON.plusSeconds(60)); // a duplicate delivery sends nothing
            invoke(h, NOON.plusSeconds(120));

            List<AlertSubscriber.Delivery> got = subscriber.deliveries();
            assertThat(got).extracting(AlertSubscriber.Delivery::status).containsExactly("firing", "resolved");
            String fingerprint = Fingerprint.of(
                    new TreeMap<>(Map.of("alertname", "HighLatency", "instance", "i-1", "severity", "page")));
            assertThat(got).allSatisfy(d -> {
                assertThat(d.alertname()).isEqualTo("HighLatency");
                assertThat(d.labels()).containsEntry("instance", "i-1").containsEntry("severity", "page");
                assertThat(d.fingerprint()).isEqualTo(fingerprint);
                assertThat(d.startsAt()).isEqualTo("2026-11-20T12:01:00Z");
                assertThat(d.receivedAtMillis()).isBetween(before, System.currentTimeMillis());
            });
            assertThat(got.get(1).endsAt()).isEqualTo("2026-11-20T12:02:00Z");
            assertThat(subscriber.messages()).isEqualTo(2);
            assertThat(subscriber.rejected()).isZero();
        }
    }

    private static RulesHandler handler(RuleSet rules, Querier querier, String table, SnsClient sns, String topic) {
        AtomicReference<Deadline> deadline = new AtomicReference<>(Deadline.inMillis(30_000));
        AlertStore store = new DynamoDbAlertStore(Emulators.dynamoAsync(), table, new Backoff(10, 200), deadline::get);
        GroupEvaluator evaluator =
                new GroupEvaluator(querier, store, (key, at, samples) -> {}, Map.of(), "https://grafana.example.com");
        Notifier notifier = new SnsNotifier(sns, topic, Map.of(), "https://grafana.example.com", "pulse");
        return new RulesHandler(
                rules, evaluator, store, notifier, new NoMetrics(), 10, 0, deadline, java.time.Clock.systemUTC());
    }

    private static Map<String, Object> invoke(RulesHandler h, Instant at) {
        ScheduledEvent event = new ScheduledEvent();
        event.setTime(new DateTime(at.toEpochMilli()));
        return h.handleRequest(event, new TestContext("req", 60_000, 1024));
    }

    /** Reads the queue until {@code expected} messages arrived or 3 s passed with none. */
    private static List<Message> drain(SqsClient sqs, String queue, int expected) {
        List<Message> out = new ArrayList<>();
        long quietUntil = System.nanoTime() + 3_000_000_000L;
        while (out.size() < expected && System.nanoTime() < quietUntil) {
            List<Message> got = sqs.receiveMessage(b -> b.queueUrl(queue)
                            .maxNumberOfMessages(10)
                            .waitTimeSeconds(1)
                            .messageAttributeNames("All"))
                    .messages();
            for (Message m : got) {
                sqs.deleteMessage(b -> b.queueUrl(queue).receiptHandle(m.receiptHandle()));
            }
            out.addAll(got);
        }
        return out;
    }
}
