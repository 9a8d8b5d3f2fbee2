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
import dev.pulse.query.promql.RuleEvaluation;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Prometheus' /api/v1/rules and /api/v1/alerts bodies from the rule files and the stored alert state. */
class RulesApiTest {

    private static final Instant NOON = Instant.parse("2026-11-20T12:00:00Z");
    private static final String FILE = """
            groups:
            - name: latency
              interval: 1m
              rules:
              - record: 'job:latency:max'
                expr: max by (job) (latency)
              - alert: HighLatency
                expr: latency > 0.5
                for: 2m
                labels: {severity: page}
                annotations: {summary: 'high'}
            """;

    private final InMemoryAlertStore store = new InMemoryAlertStore();

    private RuleSet rules() throws RuleFileException {
        return RuleFiles.load(Map.of("latency.rules.yml", FILE));
    }

    /** Evaluates the group at each minute with latency {@code values} of instance i-1 (null: no sample). */
    private void evaluate(RuleSet rules, Double... values) {
        for (int m = 0; m < values.length; m++) {
            Double v = values[m];
            GroupEvaluator e = new GroupEvaluator(
                    (expr, t, interval) -> v == null
                            ? List.of()
                            : List.of(new RuleEvaluation.Sample(
                                    new TreeMap<>(Map.of("__name__", "latency", "instance", "i-1")), v)),
                    store,
                    (key, at, samples) -> {},
                    Map.of(),
                    "");
            long at = NOON.plusSeconds(60L * m).toEpochMilli();
            e.evaluate(rules.groups().get(0), at);
            store.groupEvaluated(rules.groups().get(0).key(), at);
        }
    }

    @Test
    void rules_whenNeverEvaluated_listsEveryRuleWithUnknownHealthAndZeroTimes() throws Exception {
        JsonNode body = new RulesApi(rules(), store).rules(null);

        assertThat(body.get("status").asText()).isEqualTo("success");
        JsonNode group = body.get("data").get("groups").get(0);
        assertThat(group.get("name").asText()).isEqualTo("latency");
        assertThat(group.get("file").asText()).isEqualTo("latency.rules.yml");
        assertThat(group.get("interval").asDouble()).isEqualTo(60.0);
        assertThat(group.get("lastEvaluation").asText()).isEqualTo("0001-01-01T00:00:00Z");
        JsonNode record = group.get("rules").get(0);
        JsonNode alert = group.get("rules").get(1);
        assertThat(record.get("type").asText()).isEqualTo("recording");
        assertThat(record.get("name").asText()).isEqualTo("job:latency:max");
        assertThat(record.get("health").asText()).isEqualTo("unknown");
        assertThat(alert.get("type").asText()).isEqualTo("alerting");
        assertThat(alert.get("state").asText()).isEqualTo("inactive");
        assertThat(alert.get("duration").asDouble()).isEqualTo(120.0);
        assertThat(alert.get("labels").toString()).isEqualTo("{\"severity\":\"page\"}");
        assertThat(alert.get("alerts")).isEmpty();
    }

    @Test
    void rules_whenAnAlertIsPendingThenFiring_showsTheRuleStateAndItsActiveAlerts() throws Exception {
        RuleSet rules = rules();
        evaluate(rules, 0.7);
        assertThat(new RulesApi(rules, store)
                        .rules(null)
                        .get("data")
                        .get("groups")
                        .get(0)
                        .get("rules")
                        .get(1)
                        .get("state")
                        .asText())
                .isEqualTo("pending");

        evaluate(rules, 0.7, 0.8, 0.9);
        JsonNode alert = new RulesApi(rules, store)
                .rules("alert")
                .get("data")
                .get("groups")
                .get(0)
                .get("rules")
                .get(0);

        assertThat(alert.get("state").asText()).isEqualTo("firing");
        assertThat(alert.get("health").asText()).isEqualTo("ok");
        assertThat(alert.get("lastEvaluation").asText()).isEqualTo("2026-11-20T12:02:00Z");
        JsonNode a = alert.get("alerts").get(0);
        assertThat(a.get("labels").toString())
                .isEqualTo("{\"alertname\":\"HighLatency\",\"instance\":\"i-1\",\"severity\":\"page\"}");
        assertThat(a.get("state").asText()).isEqualTo("firing");
        assertThat(a.get("activeAt").asText()).isEqualTo("2026-11-20T12:00:00Z");
        assertThat(a.get("value").asText()).isEqualTo("9e-01");
    }

    @Test
    void rules_whenFilteredByType_keepsOnlyThatKind() throws Exception {
        JsonNode records = new RulesApi(rules(), store)
                .rules("record")
                .get("data")
                .get("groups")
                .get(0)
                .get("rules");

        assertThat(records).hasSize(1);
        assertThat(records.get(0).get("type").asText()).isEqualTo("recording");
        assertThatThrownBy(() -> new RulesApi(rules(), store).rules("alerting"))
                .hasMessageContaining("type='alerting'")
                .hasMessageContaining("alert, record");
    }

    @Test
    void alerts_whenOneFiresAndItResolves_listsItOnlyWhileActive() throws Exception {
        RuleSet rules = rules();
        evaluate(rules, 0.7, 0.8, 1234.5);

        JsonNode alerts = new RulesApi(rules, store).alerts().get("data").get("alerts");
        assertThat(alerts).hasSize(1);
        assertThat(alerts.get(0).get("value").asText()).isEqualTo("1.2345e+03");
        assertThat(alerts.get(0).get("annotations").toString()).isEqualTo("{\"summary\":\"high\"}");

        evaluate(rules, 0.7, 0.8, 1234.5, null);
        assertThat(new RulesApi(rules, store).alerts().get("data").get("alerts"))
                .isEmpty();
    }
}
