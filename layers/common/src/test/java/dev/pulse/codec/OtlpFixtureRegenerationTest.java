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
package dev.pulse.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed OTLP fixtures are what scripts/gen_otlp.py writes with the pinned OpenTelemetry Python packages:
 * regenerated here and compared byte for byte, so a fixture can neither be edited by hand nor drift from its
 * generator. Needs the project's Python ({@link ProjectPython}); without it the test fails and names the install
 * command.
 */
class OtlpFixtureRegenerationTest {

    private static final Path REPO = ProjectPython.REPO;

    @Test
    void genOtlp_whenRunWithThePinnedSdk_writesTheCommittedFixtures(@TempDir Path tmp) throws Exception {
        Path python = ProjectPython.require("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.common");

        Process gen = new ProcessBuilder(
                        python.toString(),
                        REPO.resolve("scripts/gen_otlp.py").toString(),
                        "--out",
                        tmp.toString(),
                        "--events-out",
                        tmp.toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(gen.getInputStream().readAllBytes());
        assertThat(gen.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(gen.exitValue()).as(output).isZero();

        for (String name : OtlpDecodeTest.FIXTURES) {
            assertThat(Files.readAllBytes(tmp.resolve(name))).as(name).isEqualTo(OtlpDecodeTest.fixture(name));
        }
        assertThat(Files.readAllBytes(tmp.resolve("ingest-kinesis-otlp.json")))
                .isEqualTo(Files.readAllBytes(REPO.resolve("events/ingest-kinesis-otlp.json")));
        assertThat(Files.readAllBytes(tmp.resolve("expected/ingest-kinesis-otlp.json")))
                .isEqualTo(Files.readAllBytes(REPO.resolve("events/expected/ingest-kinesis-otlp.json")));
    }
}
