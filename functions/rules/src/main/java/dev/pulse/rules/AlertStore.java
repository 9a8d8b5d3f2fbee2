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

import java.util.Map;

/**
 * Where the alerts of each alerting rule live between evaluations, keyed by the rule's identity
 * ({@code <file>;<group>;<index>;<alertname>}) and then by the alert's fingerprint, and how far each group has been
 * evaluated. A rule's alerts are replaced only by a conditional write on the version the evaluation read, and only
 * by an evaluation newer than the stored one, so a retried, late or concurrent evaluation never loses a transition
 * and never applies one twice. In the table: {@code dev.pulse.rules.store.DynamoDbAlertStore}; in one process's
 * memory: {@link InMemoryAlertStore}. A store that cannot be reached throws {@link AlertStoreException}.
 */
public interface AlertStore {

    /** The alerts of {@code ruleKey} (empty when none), and the version a later {@link #replace} must name. */
    Snapshot load(String ruleKey);

    /**
     * Replaces the alerts of {@code ruleKey} with {@code alerts}, evaluated at {@code evaluatedAt}, if the stored
     * version is still {@code expectedVersion} and the stored evaluation is older than {@code evaluatedAt}; false when
     * another evaluation replaced them first (the caller then must not notify: the winner did).
     */
    boolean replace(String ruleKey, long expectedVersion, long evaluatedAt, Map<String, Alert> alerts);

    /** The last aligned time {@code groupKey} was evaluated at, or 0 before its first evaluation. */
    long groupEvaluatedAt(String groupKey);

    /** Records that {@code groupKey} was evaluated at {@code evaluatedAt}; never moves the stored time back. */
    void groupEvaluated(String groupKey, long evaluatedAt);

    record Snapshot(Map<String, Alert> alerts, long version, long evaluatedAt) {}

    /**
     * The alerts do not fit the store (more than a table item holds): a property of the evaluation's result, not of
     * the store's availability, so repeating the time would fail the same way. The rule's evaluation fails and its
     * alerts stay as they were (as after a failed query); the rest of the group goes on.
     */
    final class StateTooLargeException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        public StateTooLargeException(String message) {
            super(message);
        }
    }

    /** The store could not be read or written in time, or refused the write; the message says which and why. */
    final class AlertStoreException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        public AlertStoreException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
