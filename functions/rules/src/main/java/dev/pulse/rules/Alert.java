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

import dev.pulse.rules.internal.Fingerprint;
import java.util.SortedMap;

/**
 * One alert of an alerting rule, as Prometheus 2.42's rules manager keeps it (rules/alerting.go): its labels (the
 * sample's without {@code __name__}, the rule's expanded labels over them, {@code alertname}), its expanded
 * annotations, its state, the last value, and the times (epoch milliseconds, 0 for none) it became active, fired,
 * resolved and stopped being returned by the expression while {@code keep_firing_for} holds it. Immutable: every
 * evaluation makes the next version, which is what a conditional write of the next slice compares.
 */
public record Alert(
        SortedMap<String, String> labels,
        SortedMap<String, String> annotations,
        AlertState state,
        double value,
        long activeAt,
        long firedAt,
        long resolvedAt,
        long keepFiringSince) {

    /** Alertmanager's fingerprint of the labels. */
    public String fingerprint() {
        return Fingerprint.of(labels);
    }

    Alert with(AlertState s, double v, SortedMap<String, String> a, long fired, long resolved, long keepSince) {
        return new Alert(labels, a, s, v, activeAt, fired, resolved, keepSince);
    }
}
