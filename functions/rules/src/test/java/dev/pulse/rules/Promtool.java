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

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The real promtool (Prometheus 2.42, the Debian package; {@code -Dpulse.promtool}), run to completion. */
final class Promtool {

    record Result(int exitCode, String output) {}

    private Promtool() {}

    static Path binary() {
        Path p = Path.of(System.getProperty("pulse.promtool", "tools/prometheus/usr/bin/promtool"));
        assertThat(p)
                .as("promtool is not unpacked: `make test` fetches the Debian package (tools/prometheus)")
                .isExecutable();
        return p;
    }

    static Path rulesDir() {
        return Path.of(System.getProperty("pulse.rules.dir", "../../rules"))
                .toAbsolutePath()
                .normalize();
    }

    static Result run(Path workDir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(binary().toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("promtool did not finish within 60 s");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
