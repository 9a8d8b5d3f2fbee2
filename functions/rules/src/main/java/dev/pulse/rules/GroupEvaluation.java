package dev.pulse.rules;

import java.util.List;
import java.util.Map;

/**
 * What one evaluation of a group at {@code evaluatedAt} did: per rule, its samples, its error (null when none) and,
 * for an alerting rule, its alerts after the evaluation (by fingerprint, resolved ones kept 15 minutes); and the
 * {@code ALERTS} / {@code ALERTS_FOR_STATE} samples Prometheus would write for the pending and firing ones.
 */
public record GroupEvaluation(RuleGroup group, long evaluatedAt, List<Outcome> rules, List<RecordSink.Recorded> alertSeries) {

    /**
     * One rule's evaluation. {@code samples}: what the expression returned; {@code dropped}: recorded samples not
     * stored because they are not finite (Pulse stores finite summaries only); {@code superseded}: another
     * evaluation replaced the rule's alerts first, so this one's were not kept.
     */
    public record Outcome(Rule rule, String ruleKey, int samples, int dropped, String error, Map<String, Alert> alerts,
            boolean superseded) {
    }

    /** The firing alerts of the rule named {@code alertname} not resolved (what promtool's alert tests compare). */
    public List<Alert> firing(String alertname) {
        return rules.stream().filter(o -> o.rule() instanceof AlertingRule && o.rule().name().equals(alertname))
                .flatMap(o -> o.alerts().values().stream())
                .filter(a -> a.state() == AlertState.FIRING && a.resolvedAt() == 0).toList();
    }
}
