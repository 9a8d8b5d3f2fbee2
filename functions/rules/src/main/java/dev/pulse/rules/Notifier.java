package dev.pulse.rules;

import java.util.List;

/**
 * Where the evaluator sends an alerting rule's transitions, only after the evaluation's state write won (so a retried
 * or concurrent evaluation that lost never notifies). In production: {@link SnsNotifier}, Alertmanager's webhook
 * message on an SNS topic.
 */
@FunctionalInterface
public interface Notifier {

    /**
     * Sends the alerts of {@code rule} that started firing or resolved at {@code evaluatedAt}; returns the number of
     * messages sent. Throws when a message could not be delivered; the message says which rule and why.
     */
    int send(AlertingRule rule, long evaluatedAt, List<Alert> transitions) throws Exception;
}
