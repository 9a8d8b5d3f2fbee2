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
package dev.pulse.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * Sums the metrics a function writes as EMF lines on stdout, the way CloudWatch would aggregate them: the local
 * stack's progress line and report come from the functions' own metrics, not from a second set of counters.
 */
final class EmfTotals {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, DoubleAdder> sums = new ConcurrentHashMap<>();

    /** Adds the metrics of {@code line} if it is an EMF document; ignores every other line. */
    void accept(String line) {
        if (!line.startsWith("{\"_aws\"")) {
            return;
        }
        try {
            JsonNode doc = JSON.readTree(line);
            for (JsonNode directive : doc.path("_aws").path("CloudWatchMetrics")) {
                for (JsonNode m : directive.path("Metrics")) {
                    String name = m.path("Name").asText();
                    JsonNode v = doc.path(name);
                    if (v.isNumber()) {
                        sums.computeIfAbsent(name, k -> new DoubleAdder()).add(v.asDouble());
                    } else if (v.isArray()) {
                        v.forEach(x -> sums.computeIfAbsent(name, k -> new DoubleAdder())
                                .add(x.asDouble()));
                    }
                }
            }
        } catch (Exception e) {
            // Not EMF after all (a log line that happens to start the same way): nothing to add.
        }
    }

    long sum(String metric) {
        DoubleAdder a = sums.get(metric);
        return a == null ? 0 : Math.round(a.sum());
    }

    Map<String, Long> all() {
        Map<String, Long> out = new TreeMap<>();
        sums.forEach((k, v) -> out.put(k, Math.round(v.sum())));
        return out;
    }
}
