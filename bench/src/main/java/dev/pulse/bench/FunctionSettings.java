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

import dev.pulse.config.PulseConfig;
import dev.pulse.local.template.Bindings;
import dev.pulse.local.template.FunctionSpec;
import dev.pulse.local.template.SamTemplate;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A function as template.yaml declares it with every parameter at its Default, so that the benchmarks run the
 * code with the settings a default deployment has (write concurrency, retry backoff, memory, JVM flags) instead
 * of copies of them that could drift.
 *
 * @param logicalId      the function's logical id ({@code IngestFunction})
 * @param functionName   its resolved FunctionName
 * @param memoryMb       MemorySize
 * @param timeoutSeconds Timeout
 * @param environment    Environment.Variables with Globals merged in; references to resources are unbound
 */
record FunctionSettings(
        String logicalId, String functionName, int memoryMb, int timeoutSeconds, Map<String, String> environment) {

    /** Settings that name resources resolve to placeholders: the benchmarks bring their own table and queue. */
    private static final Bindings UNBOUND = Bindings.unbound("pulse-bench");

    FunctionSettings {
        environment = Map.copyOf(environment);
    }

    /** {@code logicalId} of {@code root}/template.yaml. */
    static FunctionSettings load(Path root, String logicalId) throws IOException {
        FunctionSpec f = SamTemplate.load(root.resolve("template.yaml"))
                .resolve(Map.of(), UNBOUND)
                .function(logicalId);
        return new FunctionSettings(logicalId, f.functionName(), f.memoryMb(), f.timeoutSeconds(), f.environment());
    }

    /** The configuration the function reads at start-up, pointed at {@code table} and {@code deadLetterUrl}. */
    PulseConfig config(String table, String deadLetterUrl) {
        Map<String, String> env = new LinkedHashMap<>(environment);
        env.put("TABLE_NAME", table);
        env.put("DLQ_URL", deadLetterUrl);
        return PulseConfig.fromEnvironment(env);
    }

    /** The JVM flags of JAVA_TOOL_OPTIONS, one an element. */
    List<String> javaToolOptions() {
        return splitOptions(environment.getOrDefault("JAVA_TOOL_OPTIONS", ""));
    }

    /** JAVA_TOOL_OPTIONS as the JVM reads it: whitespace separates options (the template's never quote any). */
    static List<String> splitOptions(String options) {
        String trimmed = options.strip();
        return trimmed.isEmpty() ? List.of() : Arrays.asList(trimmed.split("\\s+"));
    }
}
