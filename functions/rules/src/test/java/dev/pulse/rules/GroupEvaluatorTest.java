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

import dev.pulse.query.promql.RuleEvaluation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Alert states with a scripted {@link Querier} (what the expression returns at each minute), for what promtool's
 * tests cannot show: resolved alerts kept 15 minutes, ALERTS and ALERTS_FOR_STATE, the group limit, duplicate label
 * sets, a failed query, a concurrent evaluation. The semantics are rules/alerting.go's (Prometheus 2.42).
 */
class GroupEvaluatorTest {

    private static final long MINUTE = 60_000;
    private final Map<Long, List<RuleEvaluation.Sample>> script = new TreeMap<>();
    private final List<RecordSink.Recorded> recorded = new ArrayList<>();
    private final List<String> keys = new ArrayList<>();
    private boolean failQuery;

    private final Querier querier = (expr, t, interval) -> {
        if (failQuery) {
            throw new Querier.QueryFailedException("timeout: not read within the budget", null);
        }
        return script.getOrDefault(t, List.of());
    };

    private static RuleEvaluation.Sample sample(double v, String... labels) {
        SortedMap<String, String> m = new TreeMap<>();
        m.put("__name__", "x");
        for (int i = 0; i < labels.length; i += 2) {
            m.put(labels[i], labels[i + 1]);
        }
        return new RuleEvaluation.Sample(m, v);
    }

    private RuleGroup group(int limit, String rules) throws RuleFileException {
        RuleGroup g = RuleFiles.parse(
                        "t.yml",
                        "groups:\n- name: g\n" + (limit > 0 ? "  limit: " + limit + "\n" : "") + "  rules:\n" + rules)
                .get(0);
        return g;
    }

    private GroupEvaluator evaluator(AlertStore store) {
        return new GroupEvaluator(
                querier,
                store,
                (key, at, samples) -> {
                    keys.add(key + "@" + at);
                    recorded.addAll(samples);
                },
                Map.of(),
                "");
    }

    @Test
    void evaluate_whenAFiringAlertResolves_keepsItResolvedFor15MinutesThenForgetsIt() throws Exception {
        RuleGroup g = group(0, "  - {alert: A, expr: x > 0}\n");
        GroupEvaluator e = evaluator(new InMemoryAlertStore());
        script.put(0L, List.of(sample(1, "i", "a")));

        assertThat(e.evaluate(g, 0).firing("A")).hasSize(1);
        GroupEvaluation resolved = e.evaluate(g, MINUTE);
        Alert a = resolved.rules().get(0).alerts().values().iterator().next();
        assertThat(a.state()).isEqualTo(AlertState.INACTIVE);
        assertThat(a.resolvedAt()).isEqualTo(MINUTE);
        assertThat(a.firedAt()).isZero();
        assertThat(resolved.alertSeries()).isEmpty();
        // Kept while ts - resolvedAt <= 15m, dropped after.
        assertThat(e.evaluate(g, 16 * MINUTE).rules().get(0).alerts()).hasSize(1);
        assertThat(e.evaluate(g, 17 * MINUTE).rules().get(0).alerts()).isEmpty();
    }

    @Test
    void evaluate_whenAlertsArePendingAndFiring_writesAlertsAndForStateSeries() throws Exception {
        RuleGroup g = group(0, "  - {alert: A, expr: x > 0, for: 1m, labels: {severity: page}}\n");
        GroupEvaluator e = evaluator(new InMemoryAlertStore());
        script.put(0L, List.of(sample(5, "i", "a")));
        script.put(MINUTE, List.of(sample(6, "i", "a")));

        GroupEvaluation pending = e.evaluate(g, 0);
        GroupEvaluation firing = e.evaluate(g, MINUTE);

        assertThat(pending.alertSeries())
                .extracting(r -> r.labels().toString() + "=" + r.value())
                .containsExactlyInAnyOrder(
                        "{__name__=ALERTS, alertname=A, alertstate=pending, i=a, severity=page}=1.0",
                        "{__name__=ALERTS_FOR_STATE, alertname=A, i=a, severity=page}=0.0");
        assertThat(firing.alertSeries())
                .extracting(r -> r.labels().get("alertstate"))
                .contains("firing");
        Alert a = firing.firing("A").get(0);
        assertThat(a.activeAt()).isZero();
        assertThat(a.firedAt()).isEqualTo(MINUTE);
        assertThat(a.value()).isEqualTo(6);
        assertThat(a.fingerprint())
                .hasSize(16)
                .isEqualTo(pending.rules().get(0).alerts().keySet().iterator().next());
    }

    @Test
    void evaluate_whenAlertsExceedTheGroupLimit_dropsThemAllAndSaysSo() throws Exception {
        RuleGroup g = group(1, "  - {alert: A, expr: x > 0}\n");
        script.put(0L, List.of(sample(1, "i", "a"), sample(1, "i", "b")));

        GroupEvaluation.Outcome o =
                evaluator(new InMemoryAlertStore()).evaluate(g, 0).rules().get(0);

        assertThat(o.error()).isEqualTo("exceeded limit of 1 with 2 alerts");
        assertThat(o.alerts()).isEmpty();
    }

    @Test
    void evaluate_whenRuleLabelsMakeTwoSamplesEqual_refusesTheVector() throws Exception {
        RuleGroup g = group(
                0, "  - {alert: A, expr: x > 0, labels: {i: same}}\n  - {record: r, expr: x, labels: {i: same}}\n");
        script.put(0L, List.of(sample(1, "i", "a"), sample(2, "i", "b")));

        GroupEvaluation e = evaluator(new InMemoryAlertStore()).evaluate(g, 0);

        assertThat(e.rules().get(0).error())
                .isEqualTo("vector contains metrics with the same labelset after applying alert labels");
        assertThat(e.rules().get(1).error())
                .isEqualTo("vector contains metrics with the same labelset after applying rule labels");
        assertThat(recorded).isEmpty();
    }

    @Test
    void evaluate_whenTheQueryFails_leavesTheAlertsAsTheyWere() throws Exception {
        RuleGroup g = group(0, "  - {alert: A, expr: x > 0}\n");
        InMemoryAlertStore store = new InMemoryAlertStore();
        script.put(0L, List.of(sample(1, "i", "a")));
        evaluator(store).evaluate(g, 0);
        failQuery = true;

        GroupEvaluation.Outcome o = evaluator(store).evaluate(g, MINUTE).rules().get(0);

        assertThat(o.error()).startsWith("timeout");
        assertThat(o.alerts().values()).extracting(Alert::state).containsExactly(AlertState.FIRING);
        assertThat(store.load(GroupEvaluator.ruleKey(g, 0)).evaluatedAt()).isZero();
    }

    @Test
    void evaluate_whenAnotherEvaluationReplacedTheAlertsFirst_keepsTheOtherOnesAndSaysSuperseded() throws Exception {
        RuleGroup g = group(0, "  - {alert: A, expr: x > 0}\n");
        InMemoryAlertStore real = new InMemoryAlertStore();
        // The store answers an old version once, as a concurrent evaluation's write would make it.
        AlertStore racing = new AlertStore() {
            @Override
            public Snapshot load(String ruleKey) {
                Snapshot s = real.load(ruleKey);
                real.replace(ruleKey, s.version(), -1, Map.of());
                return s;
            }

            @Override
            public boolean replace(String ruleKey, long expectedVersion, long evaluatedAt, Map<String, Alert> alerts) {
                return real.replace(ruleKey, expectedVersion, evaluatedAt, alerts);
            }

            @Override
            public long groupEvaluatedAt(String groupKey) {
                return real.groupEvaluatedAt(groupKey);
            }

            @Override
            public void groupEvaluated(String groupKey, long evaluatedAt) {
                real.groupEvaluated(groupKey, evaluatedAt);
            }
        };
        script.put(0L, List.of(sample(1, "i", "a")));

        GroupEvaluation e = evaluator(racing).evaluate(g, 0);

        assertThat(e.rules().get(0).superseded()).isTrue();
        assertThat(e.alertSeries()).isEmpty();
        assertThat(real.load(GroupEvaluator.ruleKey(g, 0)).evaluatedAt()).isEqualTo(-1);
    }

    @Test
    void evaluate_whenARecordingRuleAnswersNaN_storesTheFiniteSamplesAndCountsTheRest() throws Exception {
        RuleGroup g = group(0, "  - {record: 'r:x', expr: x, labels: {source: rules}}\n");
        script.put(
                0L,
                List.of(sample(Double.NaN, "i", "a"), sample(Double.POSITIVE_INFINITY, "i", "b"), sample(3, "i", "c")));

        GroupEvaluation.Outcome o =
                evaluator(new InMemoryAlertStore()).evaluate(g, 0).rules().get(0);

        assertThat(o.dropped()).isEqualTo(2);
        assertThat(recorded).singleElement().satisfies(r -> {
            assertThat(r.labels())
                    .containsExactlyEntriesOf(new TreeMap<>(Map.of("__name__", "r:x", "i", "c", "source", "rules")));
            assertThat(r.value()).isEqualTo(3);
        });
    }

    @Test
    void evaluate_whenAnAnnotationTemplateFails_storesPrometheusErrorText() throws Exception {
        RuleGroup g = group(0, "  - {alert: A, expr: x > 0, annotations: {s: '{{ humanize $labels.i }}'}}\n");
        script.put(0L, List.of(sample(1, "i", "abc")));

        Alert a = evaluator(new InMemoryAlertStore()).evaluate(g, 0).firing("A").get(0);

        assertThat(a.annotations().get("s"))
                .startsWith("<error expanding template: template: __alert_A: error calling humanize");
    }

    @Test
    void evaluate_whenTheStateWriteWon_storesTheAlertsSeriesUnderTheRulesOwnKeyOnce() throws Exception {
        RuleGroup g = group(0, "  - {alert: A, expr: x > 0, for: 1m}\n");
        GroupEvaluator e = evaluator(new InMemoryAlertStore());
        script.put(0L, List.of(sample(5, "i", "a")));
        script.put(MINUTE, List.of(sample(6, "i", "a")));

        e.evaluate(g, 0);
        e.evaluate(g, MINUTE);
        GroupEvaluation again = e.evaluate(g, MINUTE); // a retried run: superseded, stores nothing

        assertThat(again.rules().get(0).superseded()).isTrue();
        assertThat(keys).containsExactly("t.yml;g;0;A;ALERTS@0", "t.yml;g;0;A;ALERTS@60000");
        assertThat(recorded)
                .extracting(r -> r.labels().toString() + "=" + r.value())
                .containsExactly(
                        "{__name__=ALERTS, alertname=A, alertstate=pending, i=a}=1.0",
                        "{__name__=ALERTS_FOR_STATE, alertname=A, i=a}=0.0",
                        "{__name__=ALERTS, alertname=A, alertstate=firing, i=a}=1.0",
                        "{__name__=ALERTS_FOR_STATE, alertname=A, i=a}=0.0");
    }

    @Test
    void evaluate_whenTheAlertsSeriesCannotBeStored_keepsTheStateAndItsTransitionsAndSaysWhy() throws Exception {
        RuleGroup g = group(0, "  - {alert: A, expr: x > 0}\n");
        InMemoryAlertStore store = new InMemoryAlertStore();
        GroupEvaluator e = new GroupEvaluator(
                querier,
                store,
                (key, at, samples) -> {
                    throw new RecordSink.NotStoredException("throttled");
                },
                Map.of(),
                "");
        script.put(0L, List.of(sample(5, "i", "a")));

        GroupEvaluation.Outcome o = e.evaluate(g, 0).rules().get(0);

        assertThat(o.error()).isEqualTo("writing the ALERTS series failed: throttled");
        assertThat(o.transitions()).singleElement().extracting(Alert::state).isEqualTo(AlertState.FIRING);
        assertThat(o.storeFailed()).isFalse();
        assertThat(store.load("t.yml;g;0;A").alerts()).hasSize(1);
    }

    /**
     * Group and alert names may hold any character (promtool accepts both): group "g" with alert "A;1;B" first and
     * group "g;0;A" with alert "B" second would both be "t.yml;g;0;A;1;B" if the key only joined the names with ';',
     * and the second rule would be refused as already evaluated, its alert never firing.
     */
    @Test
    void evaluate_whenGroupAndAlertNamesHoldTheKeySeparator_keepsEachRulesStateApart(@TempDir Path dir)
            throws Exception {
        String yaml = "groups:\n- name: g\n  rules:\n  - {alert: 'A;1;B', expr: x > 0}\n"
                + "- name: 'g;0;A'\n  rules:\n  - {alert: C, expr: x > 0}\n  - {alert: B, expr: x > 0}\n";
        Files.writeString(dir.resolve("t.yml"), yaml);
        Promtool.Result promtool = Promtool.run(dir, "check", "rules", "t.yml");
        List<RuleGroup> groups = RuleFiles.parse("t.yml", yaml);
        GroupEvaluator e = evaluator(new InMemoryAlertStore());
        script.put(0L, List.of(sample(1, "i", "a")));

        GroupEvaluation first = e.evaluate(groups.get(0), 0);
        GroupEvaluation second = e.evaluate(groups.get(1), 0);

        assertThat(promtool.exitCode()).as(promtool.output()).isZero();
        assertThat(GroupEvaluator.ruleKey(groups.get(1), 1)).isNotEqualTo(GroupEvaluator.ruleKey(groups.get(0), 0));
        assertThat(first.firing("A;1;B")).hasSize(1);
        assertThat(second.rules().get(1).superseded()).isFalse();
        assertThat(second.firing("B")).hasSize(1);
    }

    @Test
    void evaluate_whenOneRulesAlertsDoNotFitTheStore_failsThatRuleAndLetsTheGroupMoveOn() throws Exception {
        RuleGroup g = group(0, "  - {alert: Many, expr: x > 0}\n  - {alert: B, expr: x > 0}\n");
        InMemoryAlertStore real = new InMemoryAlertStore();
        String many = GroupEvaluator.ruleKey(g, 0);
        AlertStore full = new AlertStore() {
            @Override
            public Snapshot load(String ruleKey) {
                return real.load(ruleKey);
            }

            @Override
            public boolean replace(String ruleKey, long expectedVersion, long evaluatedAt, Map<String, Alert> alerts) {
                if (ruleKey.equals(many)) {
                    throw new StateTooLargeException("the state of rule " + ruleKey + " takes 400001 bytes");
                }
                return real.replace(ruleKey, expectedVersion, evaluatedAt, alerts);
            }

            @Override
            public long groupEvaluatedAt(String groupKey) {
                return real.groupEvaluatedAt(groupKey);
            }

            @Override
            public void groupEvaluated(String groupKey, long evaluatedAt) {
                real.groupEvaluated(groupKey, evaluatedAt);
            }
        };
        script.put(0L, List.of(sample(1, "i", "a")));

        GroupEvaluation e = evaluator(full).evaluate(g, 0);

        // Repeating the time would fail the same way: a store failure would hold the whole group at it for good.
        assertThat(e.storeFailed()).isFalse();
        assertThat(e.rules().get(0).error()).contains("takes 400001 bytes");
        assertThat(e.rules().get(0).transitions()).isEmpty();
        assertThat(e.firing("B")).hasSize(1);
    }
}
