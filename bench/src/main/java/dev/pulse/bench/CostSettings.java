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
package dev.pulse.bench;

import dev.pulse.local.template.SamTemplate;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the cost benchmark takes from template.yaml at its defaults: the three functions (memory, timeout,
 * environment), the ingest mapping's batching and the compactor's schedule.
 *
 * @param compactScheduleMillis the period of {@code CompactSchedule} (a {@code rate(...)} expression)
 */
record CostSettings(
        FunctionSettings ingest,
        FunctionSettings compact,
        FunctionSettings query,
        int batchSize,
        long batchingWindowMillis,
        long compactScheduleMillis,
        String buildSchedule,
        String streamMode,
        Map<String, String> parameters) {

    private static final Pattern RATE =
            Pattern.compile("rate\\(\\s*(\\d+)\\s+(minute|minutes|hour|hours|day|days)\\s*\\)");

    static CostSettings load(Path root) throws IOException {
        Map<String, String> p = SamTemplate.load(root.resolve("template.yaml")).parameterDefaults();
        String schedule = p.getOrDefault("CompactSchedule", "rate(5 minutes)");
        return new CostSettings(
                FunctionSettings.load(root, "IngestFunction"),
                FunctionSettings.load(root, "CompactFunction"),
                FunctionSettings.load(root, "QueryFunction"),
                Integer.parseInt(p.getOrDefault("BatchSize", "100")),
                Long.parseLong(p.getOrDefault("MaximumBatchingWindowInSeconds", "0")) * 1000L,
                rateMillis(schedule),
                schedule,
                p.getOrDefault("StreamMode", "ON_DEMAND"),
                Map.copyOf(p));
    }

    /** {@code rate(5 minutes)} -> 300,000. */
    static long rateMillis(String expression) {
        Matcher m = RATE.matcher(expression.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "CompactSchedule '" + expression + "' is not a rate(N minutes|hours|days) expression");
        }
        long n = Long.parseLong(m.group(1));
        long unit =
                m.group(2).startsWith("minute") ? 60_000L : m.group(2).startsWith("hour") ? 3_600_000L : 86_400_000L;
        return n * unit;
    }
}
