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

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.config.PulseConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FunctionSettingsTest {

    /** Surefire runs in the module's directory; the template is the repository's. */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void splitOptions_whenFoldedYamlWithRunsOfWhitespace_returnsEachFlag() {
        assertThat(FunctionSettings.splitOptions(
                        "  -XX:+TieredCompilation  -XX:MaxRAMPercentage=75\n-XX:+UseSerialGC "))
                .containsExactly("-XX:+TieredCompilation", "-XX:MaxRAMPercentage=75", "-XX:+UseSerialGC");
    }

    @Test
    void splitOptions_whenBlank_returnsNothing() {
        assertThat(FunctionSettings.splitOptions(" \n ")).isEmpty();
    }

    @Test
    void load_whenIngestFunction_hasTheTemplatesDefaultsAndJvmFlags() throws Exception {
        FunctionSettings fn = FunctionSettings.load(ROOT, "IngestFunction");

        PulseConfig config = fn.config("bench-table", "http://127.0.0.1:1/queue");

        assertThat(fn.memoryMb()).isEqualTo(1024);
        assertThat(fn.timeoutSeconds()).isEqualTo(60);
        assertThat(config.tableName()).isEqualTo("bench-table");
        assertThat(config.deadLetterUrl()).isEqualTo("http://127.0.0.1:1/queue");
        assertThat(config.writeConcurrency()).isEqualTo(8);
        assertThat(config.safetyMarginMillis()).isEqualTo(3_000);
        assertThat(fn.javaToolOptions())
                .containsExactly(
                        "-XX:+TieredCompilation",
                        "-XX:TieredStopAtLevel=1",
                        "-XX:MaxRAMPercentage=75",
                        "-XX:+UseSerialGC",
                        "-Djava.net.preferIPv4Stack=true");
    }

    @Test
    void load_whenQueryFunction_hasTheGlobalC1OnlyOptionsWithTheSharedPart() throws Exception {
        FunctionSettings fn = FunctionSettings.load(ROOT, "QueryFunction");

        assertThat(fn.javaToolOptions())
                .containsExactly(
                        "-XX:+TieredCompilation",
                        "-XX:TieredStopAtLevel=1",
                        "-XX:MaxRAMPercentage=75",
                        "-XX:+UseSerialGC",
                        "-Djava.net.preferIPv4Stack=true");
    }
}
