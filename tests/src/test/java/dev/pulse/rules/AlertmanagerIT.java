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

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.ingest.IngestResult;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.rules.internal.Fingerprint;
import dev.pulse.rules.store.DynamoDbAlertStore;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.RecordingSqs;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.joda.time.DateTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A real Alertmanager (Debian's prometheus-alertmanager 0.25, {@code -Dpulse.alertmanager}, on 127.0.0.1, clustering
 * off) receives Pulse's alerts from the evaluator: series ingested through ingest's code into DynamoDB Local, rules
 * evaluated through the query service's PromQL, state in the table, alerts posted by {@link AlertmanagerSender}. Two
 * rules over two instances go pending, fire and resolve; Alertmanager's own API shows what it received and how it
 * grouped it (by alertname), and the webhook messages Alertmanager sends to a receiver in the test are compared with
 * the ones Pulse publishes to SNS for the same transitions (a differential check of {@link WebhookMessage}).
 */
@ExtendWith(Emulators.class)
class AlertmanagerIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MINUTE = 60_000;
    private static final String EXTERNAL_URL = "https://grafana.example.com";
    private static final String RULES = """
            groups:
            - name: latency
              rules:
              - alert: HighLatency
                expr: latency > 0.5
                for: 1m
                labels: {severity: page}
                annotations: {summary: '{{ $labels.instance }} at {{ $value }}'}
              - alert: LatencySeen
                expr: latency > 0
                labels: {severity: info}
                annotations: {summary: 'latency seen on {{ $labels.instance }}'}
            """;

    @TempDir
    Path dir;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<JsonNode> webhooks = new CopyOnWriteArrayList<>();
    private HttpServer receiver;
    private Process alertmanager;
    private String alertmanagerUrl;

    @BeforeEach
    void start() throws Exception {
        Path binary =
                Path.of(System.getProperty("pulse.alertmanager", "tools/alertmanager/usr/bin/prometheus-alertmanager"));
        assertThat(binary)
                .as("Alertmanager is not unpacked: `make test` (or `make %s`) fetches the Debian package", binary)
                .isExecutable();
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        receiver.createContext("/hook", exchange -> {
            try (exchange) {
                webhooks.add(JSON.readTree(exchange.getRequestBody().readNBytes(1 << 20)));
                exchange.sendResponseHeaders(200, -1);
            }
        });
        receiver.start();
        Path config = dir.resolve("alertmanager.yml");
        Files.writeString(config, """
                route:
                  receiver: pulse
                  group_by: [alertname]
                  group_wait: 1s
                  group_interval: 1s
                  repeat_interval: 1h
                receivers:
                - name: pulse
                  webhook_configs:
                  - url: http://127.0.0.1:%d/hook
                    send_resolved: true
                """.formatted(receiver.getAddress().getPort()));
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        alertmanagerUrl = "http://127.0.0.1:" + port;
        // Debian's build reads its notification templates from /usr/share/prometheus/alertmanager (a fixed path, no
        // flag), where nothing is installed: the package's own share/ is laid over /usr/share in a mount namespace
        // of this process alone (unshare, an overlay; the machine's /usr/share is untouched). exec keeps the PID, so
        // the process handle stops Alertmanager itself.
        Path share = binary.toAbsolutePath().getParent().resolveSibling("share");
        alertmanager = new ProcessBuilder(
                        "unshare",
                        "--mount",
                        "--map-root-user",
                        "sh",
                        "-c",
                        "mount -t overlay overlay -o lowerdir=\"$1\":/usr/share /usr/share && shift && exec \"$0\" \"$@\"",
                        binary.toAbsolutePath().toString(),
                        share.toString(),
                        "--config.file=" + config,
                        "--storage.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port,
                        "--cluster.listen-address=",
                        // The messages' externalURL: Pulse's is RulesExternalUrl, Alertmanager's its own; the same
                        // here.
                        "--web.external-url=" + EXTERNAL_URL)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("alertmanager.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                if (get("/-/ready").statusCode() == 200) {
                    break;
                }
            } catch (IOException e) {
                // not listening yet
            }
            assertThat(alertmanager.isAlive())
                    .as("alertmanager exited: %s", Files.readString(dir.resolve("alertmanager.log")))
                    .isTrue();
            assertThat(System.nanoTime()).as("alertmanager ready within 30 s").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (alertmanager != null) {
            alertmanager.destroy(); // by its handle (its PID), SIGTERM
            if (!alertmanager.waitFor(10, TimeUnit.SECONDS)) {
                alertmanager.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    @Test
    void handleRequest_whenAlertsGoPendingFireAndResolve_alertmanagerReceivesGroupsAndResolvesThemAsPulseNotifies()
            throws Exception {
        String table = "rules-alertmanager";
        try (DynamoDbClient ddb = Emulators.dynamo().client()) {
            LocalDynamoDb.createTable(ddb, table);
        }
        PulseConfig config = TestConfig.of(
                table,
                "https://sqs.us-east-1.amazonaws.com/123456789012/dlq",
                TestConfig.acceptingPast(Duration.ofHours(1)));
        // Alertmanager resolves an alert whose endsAt has passed: the evaluations are at the last minutes of the
        // wall clock, so a firing alert's endsAt (4 minutes on) is still ahead while the test reads it.
        long t2 = Math.floorDiv(System.currentTimeMillis(), MINUTE) * MINUTE;
        long t0 = t2 - 2 * MINUTE;
        long t1 = t2 - MINUTE;
        RecordingSqs dlq = new RecordingSqs();
        // latency{instance=i-1}: 0.7 then 0.8; {instance=i-2}: 0.9 then 0.6; nothing in the minute before t2.
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        records.add(record(1, "i-1", t0 - 30_000, 0.7));
        records.add(record(2, "i-2", t0 - 30_000, 0.9));
        records.add(record(3, "i-1", t1 - 30_000, 0.8));
        records.add(record(4, "i-2", t1 - 30_000, 0.6));
        IngestResult ingested = IngestFunction.service(config, Emulators.dynamoAsync(), dlq, Clock.systemUTC())
                .ingest(records, Deadline.inMillis(30_000), new InvocationMetrics<>(IngestMetric.class));
        assertThat(ingested.failed()).as("ingest: %s", ingested.failureReason()).isFalse();
        assertThat(dlq.messages()).isEmpty();

        List<String> published = new CopyOnWriteArrayList<>();
        RecordingMetrics metrics = new RecordingMetrics();
        RulesHandler handler = handler(config, published, metrics);

        // t0: HighLatency pending (not sent), LatencySeen fires at once.
        invoke(handler, t0);
        assertThat(metrics.last("AlertmanagerAlertsSent")).isEqualTo(2);
        JsonNode seenFiring = awaitWebhook(m -> isGroup(m, "LatencySeen", "firing"));
        // t1: HighLatency fires; LatencySeen is sent again (every evaluation while firing).
        invoke(handler, t1);
        assertThat(metrics.last("AlertmanagerAlertsSent")).isEqualTo(4);
        JsonNode highFiring = awaitWebhook(m -> isGroup(m, "HighLatency", "firing"));

        // What Alertmanager holds: four active alerts, Pulse's labels, annotations, times and fingerprints.
        JsonNode alerts = JSON.readTree(get("/api/v2/alerts").body());
        assertThat(alerts).hasSize(4);
        Map<String, JsonNode> byFingerprint = new HashMap<>();
        alerts.forEach(a -> byFingerprint.put(a.get("fingerprint").asText(), a));
        for (String instance : List.of("i-1", "i-2")) {
            JsonNode high = byFingerprint.get(fingerprint("HighLatency", instance, "page"));
            assertThat(high).as("HighLatency %s in %s", instance, alerts).isNotNull();
            assertThat(high.get("labels"))
                    .isEqualTo(JSON.valueToTree(
                            Map.of("alertname", "HighLatency", "instance", instance, "severity", "page")));
            assertThat(high.get("annotations").get("summary").asText())
                    .isEqualTo(instance + " at " + (instance.equals("i-1") ? "0.8" : "0.6"));
            assertThat(Instant.parse(high.get("startsAt").asText())).isEqualTo(Instant.ofEpochMilli(t1));
            assertThat(Instant.parse(high.get("endsAt").asText())).isEqualTo(Instant.ofEpochMilli(t1 + 4 * MINUTE));
            assertThat(high.get("generatorURL").asText())
                    .isEqualTo(EXTERNAL_URL + "/graph?g0.expr=latency+%3E+0.5&g0.tab=1");
            assertThat(high.get("status").get("state").asText()).isEqualTo("active");
            assertThat(high.get("receivers").get(0).get("name").asText()).isEqualTo("pulse");
            JsonNode seen = byFingerprint.get(fingerprint("LatencySeen", instance, "info"));
            assertThat(seen).as("LatencySeen %s in %s", instance, alerts).isNotNull();
            assertThat(Instant.parse(seen.get("startsAt").asText())).isEqualTo(Instant.ofEpochMilli(t0));
            assertThat(Instant.parse(seen.get("endsAt").asText())).isEqualTo(Instant.ofEpochMilli(t1 + 4 * MINUTE));
        }
        // Grouped by alertname: two groups of two.
        JsonNode groups = JSON.readTree(get("/api/v2/alerts/groups").body());
        Map<String, List<String>> grouped = new TreeMap<>();
        for (JsonNode g : groups) {
            List<String> members = new ArrayList<>();
            g.get("alerts")
                    .forEach(a -> members.add(a.get("labels").get("instance").asText()));
            members.sort(null);
            grouped.put(g.get("labels").toString(), members);
            assertThat(g.get("receiver").get("name").asText()).isEqualTo("pulse");
        }
        assertThat(grouped)
                .containsExactly(
                        Map.entry("{\"alertname\":\"HighLatency\"}", List.of("i-1", "i-2")),
                        Map.entry("{\"alertname\":\"LatencySeen\"}", List.of("i-1", "i-2")));

        // t2: both rules' alerts resolve; Alertmanager shows none active and sends the resolved messages.
        invoke(handler, t2);
        assertThat(metrics.last("AlertmanagerAlertsSent")).isEqualTo(4);
        assertThat(metrics.last("AlertmanagerFailures")).isZero();
        JsonNode highResolved = awaitWebhook(m -> isGroup(m, "HighLatency", "resolved"));
        JsonNode seenResolved = awaitWebhook(m -> isGroup(m, "LatencySeen", "resolved"));
        assertThat(JSON.readTree(get("/api/v2/alerts").body())).isEmpty();
        assertThat(JSON.readTree(get("/api/v2/alerts/groups").body())).isEmpty();
        for (JsonNode m : List.of(highResolved, seenResolved)) {
            assertThat(m.get("alerts"))
                    .allSatisfy(a ->
                            assertThat(Instant.parse(a.get("endsAt").asText())).isEqualTo(Instant.ofEpochMilli(t2)));
        }

        // Differential: Alertmanager's webhook message for each transition against the one Pulse publishes to SNS.
        assertThat(published)
                .as("Pulse's messages: %s; Alertmanager's: %s", published, webhooks)
                .hasSize(4);
        Map<String, JsonNode> pulse = new HashMap<>();
        for (String p : published) {
            JsonNode m = JSON.readTree(p);
            pulse.put(
                    m.get("groupLabels").get("alertname").asText() + " "
                            + m.get("status").asText(),
                    m);
        }
        assertSameMessage(pulse.get("LatencySeen firing"), seenFiring);
        assertSameMessage(pulse.get("HighLatency firing"), highFiring);
        assertSameMessage(pulse.get("HighLatency resolved"), highResolved);
        assertSameMessage(pulse.get("LatencySeen resolved"), seenResolved);
        assertThat(highFiring.get("alerts"))
                .allSatisfy(a -> assertThat(a.get("endsAt").asText()).isEqualTo("0001-01-01T00:00:00Z"));
    }

    /**
     * Every field equal, alerts matched by fingerprint (Alertmanager orders a group's alerts its own way, Pulse
     * firing first, then by fingerprint). A firing alert's {@code endsAt} is Go's zero time in both:
     * Alertmanager does not show an end that has not come yet.
     */
    private static void assertSameMessage(JsonNode pulse, JsonNode alertmanager) {
        assertThat(pulse).as("Pulse's message").isNotNull();
        ObjectNode ours = pulse.deepCopy();
        ObjectNode theirs = alertmanager.deepCopy();
        Map<String, JsonNode> ourAlerts = new TreeMap<>();
        ours.remove("alerts").forEach(a -> ourAlerts.put(a.get("fingerprint").asText(), a));
        Map<String, JsonNode> theirAlerts = new TreeMap<>();
        theirs.remove("alerts")
                .forEach(a -> theirAlerts.put(a.get("fingerprint").asText(), a));
        assertThat(theirs).as("Alertmanager's message against Pulse's").isEqualTo(ours);
        assertThat(theirAlerts).as("Alertmanager's alerts against Pulse's").isEqualTo(ourAlerts);
    }

    /**
     * Alertmanager's message for the group with both instances' alerts in {@code status}. Alertmanager flushes a new
     * group at once when its first alert started longer than group_wait ago (Pulse's startsAt is the evaluation
     * time), so a first message may hold the first alert of a request only; the next flush, a group_interval later,
     * holds both.
     */
    private static boolean isGroup(JsonNode m, String alertname, String status) {
        return m.get("groupLabels").path("alertname").asText().equals(alertname)
                && m.get("status").asText().equals(status)
                && m.get("alerts").size() == 2
                && java.util.stream.StreamSupport.stream(m.get("alerts").spliterator(), false)
                        .allMatch(a -> a.get("status").asText().equals(status));
    }

    private JsonNode awaitWebhook(Predicate<JsonNode> which) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            for (JsonNode m : webhooks) {
                if (which.test(m)) {
                    return m;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("Alertmanager sent no such webhook message within 20 s; it sent " + webhooks
                + "; log: " + Files.readString(dir.resolve("alertmanager.log")));
    }

    private static String fingerprint(String alertname, String instance, String severity) {
        return Fingerprint.of(
                new TreeMap<>(Map.of("alertname", alertname, "instance", instance, "severity", severity)));
    }

    private RulesHandler handler(PulseConfig config, List<String> published, RecordingMetrics metrics)
            throws RuleFileException {
        AtomicReference<Deadline> deadline = new AtomicReference<>(Deadline.inMillis(30_000));
        AlertStore store = new DynamoDbAlertStore(
                Emulators.dynamoAsync(), config.tableName(), new Backoff(10, 200), deadline::get);
        GroupEvaluator evaluator = RulesFunction.evaluator(
                RulesFunction.querier(config, Emulators.dynamoAsync(), Clock.systemUTC()),
                store,
                (key, at, samples) -> {},
                Map.of(),
                EXTERNAL_URL);
        // What SnsNotifier publishes, kept instead of sent (RulesNotificationIT covers the trip through SNS).
        Notifier notifier = (rule, at, transitions) -> {
            List<String> messages = WebhookMessage.build(rule, transitions, Map.of(), EXTERNAL_URL, "pulse");
            published.addAll(messages);
            return messages.size();
        };
        AlertmanagerSender sender = new AlertmanagerSender(
                AlertmanagerSender.httpClient(), alertmanagerUrl, AlertmanagerAuth.none(), Map.of(), EXTERNAL_URL);
        return new RulesHandler(
                RuleFiles.load(Map.of("latency.rules.yml", RULES)),
                evaluator,
                store,
                notifier,
                metrics,
                10,
                0,
                deadline,
                Clock.systemUTC(),
                sender);
    }

    private static void invoke(RulesHandler h, long at) {
        ScheduledEvent event = new ScheduledEvent();
        event.setTime(new DateTime(at));
        Map<String, Object> out = h.handleRequest(event, new TestContext("req", 60_000, 1024));
        assertThat(out.get("groups").toString()).contains("errors=[]");
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(alertmanagerUrl + path))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static KinesisEvent.KinesisEventRecord record(long n, String instance, long ts, double value) {
        ObjectNode node = JSON.createObjectNode();
        node.put("name", "latency");
        node.putObject("dims").put("instance", instance);
        node.put("ts", ts);
        node.put("value", value);
        return KinesisRecords.record(
                "shardId-000000000000",
                n,
                "pk-" + n,
                node.toString().getBytes(StandardCharsets.UTF_8),
                System.currentTimeMillis());
    }
}
