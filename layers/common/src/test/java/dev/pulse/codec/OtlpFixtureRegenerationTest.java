package dev.pulse.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed OTLP fixtures are what scripts/gen_otlp.py writes with the pinned OpenTelemetry Python packages:
 * regenerated here and compared byte for byte, so a fixture can neither be edited by hand nor drift from its
 * generator. Skipped when no Python with those packages is at hand ({@code -Dpulse.python=...}, default the
 * repository's .venv, which `make` builds from requirements-dev.txt).
 */
class OtlpFixtureRegenerationTest {

    private static final Path REPO = Path.of("").toAbsolutePath().getParent().getParent();

    @Test
    void genOtlp_whenRunWithThePinnedSdk_writesTheCommittedFixtures(@TempDir Path tmp) throws Exception {
        String python = System.getProperty("pulse.python", REPO.resolve(".venv/bin/python").toString());
        assumeTrue(Files.isExecutable(Path.of(python)), "no Python at " + python);
        Process probe = new ProcessBuilder(python, "-c", "import opentelemetry.sdk, opentelemetry.exporter.otlp.proto.common")
                .redirectErrorStream(true).start();
        assumeTrue(probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0, "the OpenTelemetry packages are not installed");

        Process gen = new ProcessBuilder(python, REPO.resolve("scripts/gen_otlp.py").toString(),
                "--out", tmp.toString(), "--events-out", tmp.toString()).redirectErrorStream(true).start();
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
