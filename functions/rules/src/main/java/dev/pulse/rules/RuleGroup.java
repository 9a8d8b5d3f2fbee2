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

import dev.pulse.rules.internal.Names;
import java.util.List;

/**
 * A group of a rule file: its rules run in order, each seeing what the previous ones recorded, at every multiple of
 * {@code intervalMillis} since the epoch. {@code limit} (0: none) bounds the alerts of one alerting rule and the
 * series of one recording rule, as Prometheus' group {@code limit}.
 */
public record RuleGroup(String file, String name, long intervalMillis, int limit, List<Rule> rules) {

    /**
     * The group's identity across files: Prometheus' group key, {@code file;name}, each part with ';' and '\\'
     * escaped ({@link Names#keyPart}) so that names holding ';' cannot make two groups one.
     */
    public String key() {
        return Names.keyPart(file) + ";" + Names.keyPart(name);
    }
}
