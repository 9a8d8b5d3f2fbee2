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
