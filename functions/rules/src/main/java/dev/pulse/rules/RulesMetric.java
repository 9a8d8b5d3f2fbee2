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

import dev.pulse.metrics.MetricName;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** The metrics RulesFunction (the rules evaluator) emits, once per invocation, as one EMF document (PascalCase names). */
public enum RulesMetric implements MetricName {
    /** Rule evaluations done (a rule at one aligned time; a group caught up over three times counts three per rule). */
    RULE_EVALUATIONS,
    /** Rule evaluations that failed: the query (a limit, a timeout), the state write, the group limit, a duplicate label set. */
    RULE_EVALUATION_FAILURES,
    /** Rule evaluations not kept: the time was already evaluated, or another evaluation wrote the rule's state first. */
    SUPERSEDED_EVALUATIONS,
    /** Aligned times still to evaluate after this invocation, over all groups: the evaluator's lag (alarmed). */
    RULE_EVALUATIONS_BEHIND,
    /** Pending alerts after the invocation's latest evaluation of each group. */
    ALERTS_PENDING,
    /** Firing alerts after the invocation's latest evaluation of each group. */
    ALERTS_FIRING,
    /** Alertmanager webhook messages published to the topic (one per rule and evaluation with a transition). */
    NOTIFICATIONS_SENT,
    /** Alerts those messages carried as firing or resolved. */
    ALERTS_NOTIFIED,
    /** Messages the topic refused or did not answer in time; their transitions are logged with the rule (ERROR). */
    NOTIFICATION_FAILURES,
    /** Alerts Alertmanager's {@code /api/v2/alerts} accepted (firing ones at every evaluation, resolved ones kept). */
    ALERTMANAGER_ALERTS_SENT,
    /** Requests to Alertmanager that failed (refused, timed out, a non-2xx answer); logged at ERROR with the reason. */
    ALERTMANAGER_FAILURES,
    /** The invocation's evaluation time, all groups. */
    EVALUATION_DURATION_MS {
        @Override
        public MetricUnit unit() {
            return MetricUnit.MILLISECONDS;
        }
    },
    COLD_START
}
