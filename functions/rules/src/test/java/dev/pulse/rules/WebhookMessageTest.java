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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.rules.internal.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Alertmanager's webhook message (version 4) for a rule's transitions, field by field. */
class WebhookMessageTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long FIRED = Instant.parse("2026-11-20T12:03:00Z").toEpochMilli();
    private static final long RESOLVED = Instant.parse("2026-11-20T12:09:00Z").toEpochMilli();

    private static AlertingRule rule() throws RuleFileException {
        return (AlertingRule) RuleFiles.parse(
                        "r.yml",
                        "groups:\n- name: g\n  rules:\n"
                                + "  - {alert: HighLatency, expr: 'p99{service=\"api\"} > 0.5 * 2', for: 2m}\n")
                .get(0)
                .rules()
                .get(0);
    }

    private static Alert alert(String instance, AlertState state, String summary) {
        return new Alert(
                new TreeMap<>(Map.of("alertname", "HighLatency", "service", "api", "instance", instance)),
                new TreeMap<>(Map.of("summary", summary, "runbook", "https://runbooks/latency")),
                state,
                0.7,
                FIRED - 120_000,
                FIRED,
                state == AlertState.INACTIVE ? RESOLVED : 0,
                0);
    }

    @Test
    void build_whenOneAlertFiresAndOneResolves_writesEveryFieldOfAlertmanagersMessage() throws Exception {
        List<String> messages = WebhookMessage.build(
                rule(),
                List.of(alert("b", AlertState.INACTIVE, "b is slow"), alert("a", AlertState.FIRING, "a is slow")),
                Map.of("region", "eu-west-1"),
                "https://grafana.example.com",
                "pulse");

        assertThat(messages).hasSize(1);
        JsonNode m = JSON.readTree(messages.get(0));
        assertThat(m.get("version").asText()).isEqualTo("4");
        assertThat(m.get("groupKey").asText()).isEqualTo("{}:{alertname=\"HighLatency\"}");
        assertThat(m.get("truncatedAlerts").asInt()).isZero();
        assertThat(m.get("status").asText()).isEqualTo("firing");
        assertThat(m.get("receiver").asText()).isEqualTo("pulse");
        assertThat(m.get("groupLabels").toString()).isEqualTo("{\"alertname\":\"HighLatency\"}");
        assertThat(m.get("commonLabels").toString())
                .isEqualTo("{\"alertname\":\"HighLatency\",\"region\":\"eu-west-1\",\"service\":\"api\"}");
        assertThat(m.get("commonAnnotations").toString()).isEqualTo("{\"runbook\":\"https://runbooks/latency\"}");
        assertThat(m.get("externalURL").asText()).isEqualTo("https://grafana.example.com");
        JsonNode firing = m.get("alerts").get(0);
        JsonNode resolved = m.get("alerts").get(1);
        assertThat(firing.get("status").asText()).isEqualTo("firing");
        assertThat(firing.get("labels").toString())
                .isEqualTo(
                        "{\"alertname\":\"HighLatency\",\"instance\":\"a\",\"region\":\"eu-west-1\",\"service\":\"api\"}");
        assertThat(firing.get("annotations").get("summary").asText()).isEqualTo("a is slow");
        assertThat(firing.get("startsAt").asText()).isEqualTo("2026-11-20T12:03:00Z");
        assertThat(firing.get("endsAt").asText()).isEqualTo("0001-01-01T00:00:00Z");
        assertThat(firing.get("generatorURL").asText())
                .isEqualTo("https://grafana.example.com/graph?g0.expr="
                        + "p99%7Bservice%3D%22api%22%7D+%3E+0.5+%2A+2&g0.tab=1");
        assertThat(firing.get("fingerprint").asText())
                .isEqualTo(Fingerprint.of(new TreeMap<>(
                        Map.of("alertname", "HighLatency", "instance", "a", "region", "eu-west-1", "service", "api"))));
        assertThat(resolved.get("status").asText()).isEqualTo("resolved");
        assertThat(resolved.get("endsAt").asText()).isEqualTo("2026-11-20T12:09:00Z");
        assertThat(resolved.get("labels").get("instance").asText()).isEqualTo("b");
    }

    @Test
    void build_whenTheAlertNameHoldsQuotes_quotesItInTheGroupKeyAsAlertmanagerDoes() throws Exception {
        AlertingRule quoted = (AlertingRule) RuleFiles.parse(
                        "r.yml", "groups:\n- name: g\n  rules:\n  - {alert: 'Disk \"full\"', expr: 'up == 0'}\n")
                .get(0)
                .rules()
                .get(0);
        Alert a = new Alert(
                new TreeMap<>(Map.of("alertname", "Disk \"full\"")),
                new TreeMap<>(),
                AlertState.FIRING,
                1,
                FIRED,
                FIRED,
                0,
                0);

        JsonNode m = JSON.readTree(
                WebhookMessage.build(quoted, List.of(a), Map.of(), "", "pulse").get(0));

        assertThat(m.get("groupKey").asText()).isEqualTo("{}:{alertname=\"Disk \\\"full\\\"\"}");
        assertThat(m.get("groupLabels").get("alertname").asText()).isEqualTo("Disk \"full\"");
    }

    @Test
    void build_whenEveryAlertResolved_saysResolved() throws Exception {
        JsonNode m = JSON.readTree(
                WebhookMessage.build(rule(), List.of(alert("a", AlertState.INACTIVE, "s")), Map.of(), "", "pulse")
                        .get(0));

        assertThat(m.get("status").asText()).isEqualTo("resolved");
        assertThat(m.get("alerts").get(0).get("generatorURL").asText()).startsWith("/graph?g0.expr=");
    }

    @Test
    void build_whenTheAlertsExceedOneSnsMessage_splitsThemEachUnderTheLimitAndLosesNone() throws Exception {
        List<Alert> many = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            many.add(alert("instance-" + i, AlertState.FIRING, "x".repeat(2_000)));
        }

        List<String> messages = WebhookMessage.build(rule(), many, Map.of(), "", "pulse");

        assertThat(messages).hasSizeGreaterThan(1);
        int alerts = 0;
        for (String m : messages) {
            assertThat(m.getBytes(StandardCharsets.UTF_8).length).isLessThan(256 * 1024);
            alerts += JSON.readTree(m).get("alerts").size();
        }
        assertThat(alerts).isEqualTo(400);
    }

    /**
     * An alert bigger than half a message: its annotations are what templates may expand to (each up to 65,536
     * characters, any number of them), and control characters take six bytes each in JSON.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"ten annotations of 16000 letters,10,16000,97", "one annotation of 60000 control characters,1,60000,1"})
    void build_whenOneAlertIsLargerThanHalfAMessage_shortensItsAnnotationsUnderTheSnsLimitKeepingItsFingerprint(
            String name, int annotations, int length, int codePoint) throws Exception {
        String character = Character.toString(codePoint);
        TreeMap<String, String> big = new TreeMap<>();
        for (int i = 0; i < annotations; i++) {
            big.put("a" + i, character.repeat(length));
        }
        Alert huge = new Alert(
                new TreeMap<>(Map.of("alertname", "HighLatency", "instance", "a")),
                big,
                AlertState.FIRING,
                0.7,
                FIRED - 120_000,
                FIRED,
                0,
                0);

        List<String> messages = WebhookMessage.build(rule(), List.of(huge), Map.of(), "", "pulse");

        assertThat(messages).hasSize(1);
        assertThat(messages.get(0).getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(256 * 1024);
        JsonNode a = JSON.readTree(messages.get(0)).get("alerts").get(0);
        assertThat(a.get("fingerprint").asText()).isEqualTo(huge.fingerprint());
        assertThat(a.get("labels").get("instance").asText()).isEqualTo("a");
        assertThat(a.get("annotations").get("a0").asText()).startsWith(character.repeat(100));
    }
}
