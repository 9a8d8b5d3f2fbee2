package dev.pulse.rules;

import java.util.Map;

/**
 * Where the alerts of each alerting rule live between evaluations, keyed by the rule's identity
 * ({@code <file>;<group>;<index>;<alertname>}) and then by the alert's fingerprint. This slice keeps them in memory
 * ({@link InMemoryAlertStore}); the scheduled evaluator keeps them in the table and replaces a rule's alerts only by
 * a conditional write on the version it read, so a retried or concurrent evaluation never loses a transition.
 */
public interface AlertStore {

    /** The alerts of {@code ruleKey} (empty when none), and the version a later {@link #replace} must name. */
    Snapshot load(String ruleKey);

    /**
     * Replaces the alerts of {@code ruleKey} with {@code alerts}, evaluated at {@code evaluatedAt}, if the stored
     * version is still {@code expectedVersion}; false when another evaluation replaced them first.
     */
    boolean replace(String ruleKey, long expectedVersion, long evaluatedAt, Map<String, Alert> alerts);

    record Snapshot(Map<String, Alert> alerts, long version, long evaluatedAt) {
    }
}
