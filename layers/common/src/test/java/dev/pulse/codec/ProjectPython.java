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

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The project's Python, for the tests that hold committed fixtures against the producer libraries that made them
 * (aws-kinesis-agg, the OpenTelemetry SDK): {@code -Dpulse.python=...}, by default the repository's .venv, which
 * {@code make test} builds from requirements-dev.txt before it runs Maven. When it or a package is missing the test
 * fails and says how to install it, rather than skipping: a skipped check would let a hand-edited fixture, or one
 * that drifted from its generator, pass CI.
 */
final class ProjectPython {

    /** The repository root: tests run in layers/common. */
    static final Path REPO = Path.of("").toAbsolutePath().getParent().getParent();

    static final String INSTALL = "`make test` installs requirements-dev.txt into .venv before running Maven; by hand: "
            + "python3 -m venv .venv && "
            + ".venv/bin/pip install -r requirements-dev.txt (or pass -Dpulse.python=<a python with those packages>)";

    private ProjectPython() {}

    /**
     * The Python executable, after checking that it imports {@code modules}; fails the calling test naming what is
     * missing and the command that installs it.
     */
    static Path require(String... modules) throws IOException, InterruptedException {
        Path python = Path.of(System.getProperty(
                "pulse.python", REPO.resolve(".venv/bin/python").toString()));
        if (!Files.isExecutable(python)) {
            fail("no Python at " + python + ": this test needs the project's .venv (requirements-dev.txt); " + INSTALL);
        }
        Process probe = new ProcessBuilder(python.toString(), "-c", "import " + String.join(", ", modules))
                .redirectErrorStream(true)
                .start();
        String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!probe.waitFor(60, TimeUnit.SECONDS)) {
            probe.destroyForcibly();
            fail(python + " did not import " + String.join(", ", modules) + " within 60 s");
        }
        if (probe.exitValue() != 0) {
            String[] lines = output.strip().split("\\R");
            fail(python + " cannot import " + String.join(", ", modules) + " (" + lines[lines.length - 1] + "): "
                    + INSTALL);
        }
        return python;
    }
}
