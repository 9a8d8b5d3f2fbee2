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
import java.util.concurrent.ConcurrentHashMap;

/**
 * An {@link AlertStore} in one process's memory, with the same checks the table's conditional write makes: the
 * version read, and an evaluation newer than the stored one.
 */
public final class InMemoryAlertStore implements AlertStore {

    private final Map<String, Snapshot> rules = new ConcurrentHashMap<>();
    private final Map<String, Long> groups = new ConcurrentHashMap<>();

    @Override
    public Snapshot load(String ruleKey) {
        return rules.getOrDefault(ruleKey, new Snapshot(Map.of(), 0, 0));
    }

    @Override
    public boolean replace(String ruleKey, long expectedVersion, long evaluatedAt, Map<String, Alert> alerts) {
        Snapshot next = new Snapshot(Map.copyOf(alerts), expectedVersion + 1, evaluatedAt);
        boolean[] done = {false};
        rules.compute(ruleKey, (k, current) -> {
            long version = current == null ? 0 : current.version();
            if (version != expectedVersion || (current != null && current.evaluatedAt() >= evaluatedAt)) {
                return current;
            }
            done[0] = true;
            return next;
        });
        return done[0];
    }

    @Override
    public long groupEvaluatedAt(String groupKey) {
        return groups.getOrDefault(groupKey, 0L);
    }

    @Override
    public void groupEvaluated(String groupKey, long evaluatedAt) {
        groups.merge(groupKey, evaluatedAt, Math::max);
    }
}
