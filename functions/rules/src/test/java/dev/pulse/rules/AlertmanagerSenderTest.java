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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Alertmanager sender: Prometheus' postable alerts (startsAt when fired, endsAt four resend periods ahead while
 * firing, the resolve time once resolved, pending ones not sent), batches of 64, bounded timeouts, failures reported
 * with the reason, and the credentials read from their secret and read again after Alertmanager refused them.
 */
class AlertmanagerSenderTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long NOON = Instant.parse("2026-11-20T12:00:00Z").toEpochMilli();
    private static final long MINUTE = 60_000;

    private final RecordingAlertmanager server = new RecordingAlertmanager();

    @AfterEach
    void stop() {
        server.close();
    }

    private static AlertingRule rule() throws RuleFileException {
        return (AlertingRule) RuleFiles.load(
                        Map.of("r.yml", "groups:\n- name: g\n  rules: [{alert: HighLatency, expr: 'latency > 0.5'}]\n"))
                .groups()
                .get(0)
                .rules()
                .get(0);
    }

    private static Alert alert(String instance, AlertState state, long activeAt, long firedAt, long resolvedAt) {
        return new Alert(
                new TreeMap<>(Map.of("alertname", "HighLatency", "instance", instance)),
                new TreeMap<>(Map.of("summary", instance + " is slow")),
                state,
                0.8,
                activeAt,
                firedAt,
                resolvedAt,
                0);
    }

    private AlertmanagerSender sender(AlertmanagerAuth auth, Map<String, String> external) {
        return new AlertmanagerSender(
                AlertmanagerSender.httpClient(), server.url() + "/", auth, external, "https://grafana.example.com");
    }

    @Test
    void alerts_whenFiringPendingAndResolved_givesPrometheusPostableAlertsForFiringAndResolvedOnly() throws Exception {
        AlertmanagerSender s = sender(AlertmanagerAuth.none(), Map.of("region", "eu-west-1", "instance", "ignored"));
        long t = NOON + 5 * MINUTE;

        List<ObjectNode> alerts = s.alerts(
                rule(),
                t,
                MINUTE,
                List.of(
                        alert("i-1", AlertState.FIRING, NOON, NOON + MINUTE, 0),
                        alert("i-2", AlertState.PENDING, t, 0, 0),
                        alert("i-3", AlertState.INACTIVE, NOON, NOON + MINUTE, NOON + 4 * MINUTE)));

        assertThat(alerts).hasSize(2);
        JsonNode firing = alerts.stream()
                .filter(a -> a.get("labels").get("instance").asText().equals("i-1"))
                .findFirst()
                .orElseThrow();
        assertThat(firing).isEqualTo(JSON.readTree("""
                        {"labels":{"alertname":"HighLatency","instance":"i-1","region":"eu-west-1"},
                         "annotations":{"summary":"i-1 is slow"},
                         "startsAt":"2026-11-20T12:01:00.000Z","endsAt":"2026-11-20T12:09:00.000Z",
                         "generatorURL":"https://grafana.example.com/graph?g0.expr=latency+%3E+0.5&g0.tab=1"}
                        """));
        JsonNode resolved = alerts.stream()
                .filter(a -> a.get("labels").get("instance").asText().equals("i-3"))
                .findFirst()
                .orElseThrow();
        assertThat(resolved.get("startsAt").asText()).isEqualTo("2026-11-20T12:01:00.000Z");
        assertThat(resolved.get("endsAt").asText()).isEqualTo("2026-11-20T12:04:00.000Z");
    }

    @ParameterizedTest
    @CsvSource({"60000, 2026-11-20T12:04:00.000Z", "30000, 2026-11-20T12:04:00.000Z", "300000, 2026-11-20T12:20:00.000Z"
    })
    void alerts_whenFiring_endsFourTimesTheLongerOfResendDelayAndIntervalAhead(long interval, String endsAt)
            throws Exception {
        List<ObjectNode> alerts = sender(AlertmanagerAuth.none(), Map.of())
                .alerts(rule(), NOON, interval, List.of(alert("i-1", AlertState.FIRING, NOON, NOON, 0)));

        assertThat(alerts.get(0).get("endsAt").asText()).isEqualTo(endsAt);
    }

    @Test
    void send_whenMoreThan64Alerts_postsJsonArraysOfAtMost64ToApiV2Alerts() throws Exception {
        AlertmanagerSender s = sender(AlertmanagerAuth.none(), Map.of());
        List<Alert> many = new ArrayList<>();
        for (int i = 0; i < 130; i++) {
            many.add(alert("i-" + i, AlertState.FIRING, NOON, NOON, 0));
        }

        AlertmanagerSender.Result r = s.send(s.alerts(rule(), NOON, MINUTE, many), Deadline.inMillis(10_000));

        assertThat(r).isEqualTo(new AlertmanagerSender.Result(130, 0, 0, null));
        assertThat(server.requests).hasSize(3);
        assertThat(server.requests).allSatisfy(q -> {
            assertThat(q.method()).isEqualTo("POST");
            assertThat(q.path()).isEqualTo("/api/v2/alerts");
            assertThat(q.contentType()).isEqualTo("application/json");
            assertThat(q.authorization()).isNull();
        });
        assertThat(server.requests.stream().map(q -> readTree(q.body()).size()).toList())
                .containsExactly(64, 64, 2);
    }

    @Test
    void send_whenAlertmanagerAnswersAnError_reportsTheStatusAndTheStartOfTheAnswer() throws Exception {
        AlertmanagerSender s = sender(AlertmanagerAuth.none(), Map.of());
        server.status = 400;

        AlertmanagerSender.Result r = s.send(
                s.alerts(rule(), NOON, MINUTE, List.of(alert("i-1", AlertState.FIRING, NOON, NOON, 0))),
                Deadline.inMillis(10_000));

        assertThat(r.sent()).isZero();
        assertThat(r.failedRequests()).isEqualTo(1);
        assertThat(r.failedAlerts()).isEqualTo(1);
        assertThat(r.firstError()).endsWith("/api/v2/alerts: HTTP 400: bad alert");
    }

    @Test
    void send_whenAlertmanagerDoesNotAnswer_givesUpAtTheRunsDeadline() throws Exception {
        AlertmanagerSender s = sender(AlertmanagerAuth.none(), Map.of());
        server.delayMillis = 5_000;
        long started = System.nanoTime();

        AlertmanagerSender.Result r = s.send(
                s.alerts(rule(), NOON, MINUTE, List.of(alert("i-1", AlertState.FIRING, NOON, NOON, 0))),
                Deadline.inMillis(1_000));

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
        assertThat(r.firstError()).endsWith(": timed out");
    }

    @Test
    void send_whenAlertmanagerIsNotListening_reportsTheConnectionFailure() throws Exception {
        AlertmanagerSender s = sender(AlertmanagerAuth.none(), Map.of());
        List<ObjectNode> alerts =
                s.alerts(rule(), NOON, MINUTE, List.of(alert("i-1", AlertState.FIRING, NOON, NOON, 0)));
        server.close();

        AlertmanagerSender.Result r = s.send(alerts, Deadline.inMillis(10_000));

        assertThat(r.failedRequests()).isEqualTo(1);
        assertThat(r.firstError()).contains("ConnectException");
    }

    @Test
    void send_whenTheRunHasNoTimeLeft_sendsNothingAndSaysWhy() throws Exception {
        AlertmanagerSender s = sender(AlertmanagerAuth.none(), Map.of());

        AlertmanagerSender.Result r = s.send(
                s.alerts(rule(), NOON, MINUTE, List.of(alert("i-1", AlertState.FIRING, NOON, NOON, 0))),
                Deadline.inMillis(100));

        assertThat(server.requests).isEmpty();
        assertThat(r.firstError()).startsWith("not sent: ");
    }

    @Test
    void send_whenBasicAuth_sendsTheSecretsCredentials() throws Exception {
        AlertmanagerSender s = sender(
                new AlertmanagerAuth(
                        AlertmanagerAuth.Scheme.BASIC,
                        () -> "{\"username\":\"pulse\",\"password\":\"s3cr:et\"}",
                        Clock.systemUTC()),
                Map.of());

        s.send(
                s.alerts(rule(), NOON, MINUTE, List.of(alert("i-1", AlertState.FIRING, NOON, NOON, 0))),
                Deadline.inMillis(10_000));

        assertThat(server.requests.get(0).authorization())
                .isEqualTo("Basic "
                        + Base64.getEncoder().encodeToString("pulse:s3cr:et".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void send_whenAlertmanagerRefusesTheToken_readsTheSecretAgainAMinuteAfterTheLastRead() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        MutableClock clock = new MutableClock(Instant.ofEpochMilli(NOON));
        AlertmanagerSender s = sender(
                new AlertmanagerAuth(
                        AlertmanagerAuth.Scheme.BEARER,
                        () -> "{\"token\":\"t" + reads.incrementAndGet() + "\"}",
                        clock),
                Map.of());
        List<ObjectNode> alerts =
                s.alerts(rule(), NOON, MINUTE, List.of(alert("i-1", AlertState.FIRING, NOON, NOON, 0)));
        server.status = 401;

        s.send(alerts, Deadline.inMillis(10_000));
        s.send(alerts, Deadline.inMillis(10_000)); // refused again within the minute: the same token
        clock.advance(Duration.ofSeconds(60));
        s.send(alerts, Deadline.inMillis(10_000)); // refused a minute after the read: read again next time
        server.status = 200;
        AlertmanagerSender.Result r = s.send(alerts, Deadline.inMillis(10_000));

        assertThat(server.requests.stream().map(RecordingAlertmanager.Request::authorization))
                .containsExactly("Bearer t1", "Bearer t1", "Bearer t1", "Bearer t2");
        assertThat(r.sent()).isEqualTo(1);
        assertThat(reads).hasValue(2);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "BASIC  | {\"username\":\"u\"}              | no \"password\" string",
                "BASIC  | {\"username\":\"a:b\",\"password\":\"p\"} | must not contain ':'",
                "BEARER | not json                           | is not JSON",
                "BEARER | {\"token\":\"a\\nb\"}                | control character",
                "BEARER | {\"token\":7}                      | no \"token\" string"
            })
    void header_whenTheSecretIsMalformed_failsNamingTheField(String scheme, String secret, String message) {
        AlertmanagerAuth auth =
                new AlertmanagerAuth(AlertmanagerAuth.Scheme.valueOf(scheme), () -> secret, Clock.systemUTC());

        assertThatThrownBy(auth::header).hasMessageContaining(message);
    }

    @Test
    void send_whenTheSecretCannotBeRead_reportsItWithoutARequest() throws Exception {
        AlertmanagerSender s = sender(
                new AlertmanagerAuth(
                        AlertmanagerAuth.Scheme.BEARER,
                        () -> {
                            throw new IllegalStateException("AccessDeniedException");
                        },
                        Clock.systemUTC()),
                Map.of());

        AlertmanagerSender.Result r = s.send(
                s.alerts(rule(), NOON, MINUTE, List.of(alert("i-1", AlertState.FIRING, NOON, NOON, 0))),
                Deadline.inMillis(10_000));

        assertThat(server.requests).isEmpty();
        assertThat(r.firstError()).contains("credentials could not be read: AccessDeniedException");
    }

    private static JsonNode readTree(String s) {
        try {
            return JSON.readTree(s);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
