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

import java.util.List;
import java.util.Map;

/**
 * What one evaluation of a group at {@code evaluatedAt} did: per rule, its samples, its error (null when none) and,
 * for an alerting rule, its alerts after the evaluation (by fingerprint, resolved ones kept 15 minutes); and the
 * {@code ALERTS} / {@code ALERTS_FOR_STATE} samples Prometheus would write for the pending and firing ones.
 */
public record GroupEvaluation(
        RuleGroup group, long evaluatedAt, List<Outcome> rules, List<RecordSink.Recorded> alertSeries) {

    /**
     * One rule's evaluation. {@code samples}: what the expression returned; {@code dropped}: recorded samples not
     * stored because they are not finite (Pulse stores finite summaries only); {@code superseded}: another
     * evaluation replaced the rule's alerts first, or the stored ones are already from this time or later, so this
     * one's were not kept; {@code transitions}: the alerts that started firing or resolved at this evaluation, only
     * when this evaluation's alerts were kept (what is notified: a superseded evaluation notifies nothing).
     */
    public record Outcome(
            Rule rule,
            String ruleKey,
            int samples,
            int dropped,
            String error,
            Map<String, Alert> alerts,
            boolean superseded,
            List<Alert> transitions,
            boolean storeFailed) {

        Outcome(
                Rule rule,
                String ruleKey,
                int samples,
                int dropped,
                String error,
                Map<String, Alert> alerts,
                boolean superseded) {
            this(rule, ruleKey, samples, dropped, error, alerts, superseded, List.of(), false);
        }
    }

    /**
     * True when a rule's state could not be read or written (throttled past the deadline, an outage): the evaluation
     * of this time is incomplete and must be repeated, which the rules that did write it refuse as already done.
     */
    public boolean storeFailed() {
        return rules.stream().anyMatch(Outcome::storeFailed);
    }

    /** The firing alerts of the rule named {@code alertname} not resolved (what promtool's alert tests compare). */
    public List<Alert> firing(String alertname) {
        return rules.stream()
                .filter(o -> o.rule() instanceof AlertingRule && o.rule().name().equals(alertname))
                .flatMap(o -> o.alerts().values().stream())
                .filter(a -> a.state() == AlertState.FIRING && a.resolvedAt() == 0)
                .toList();
    }
}
