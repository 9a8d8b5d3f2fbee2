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

import dev.pulse.local.template.FunctionSpec;
import dev.pulse.local.template.LayerSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The functions' and layers' artifacts, built the way {@code sam build} builds them: for
 * {@code BuildMethod: makefile} it runs {@code make build-<LogicalId> ARTIFACTS_DIR=...} in the CodeUri
 * (ContentUri) folder, the same Makefile target SAM calls, into a build directory of the local stack. The
 * Maven reactor must have packaged the modules first ({@code make run} does).
 */
final class Artifacts {

    private final Path buildDir;
    private final Map<String, Path> built = new ConcurrentHashMap<>();

    Artifacts(Path buildDir) {
        this.buildDir = buildDir;
    }

    /** {@code LAMBDA_TASK_ROOT} of the function. */
    Path function(FunctionSpec f) throws IOException, InterruptedException {
        return build(f.logicalId(), f.codeUri(), f.buildMethod());
    }

    /** The jars a Java layer puts on the class path ({@code java/lib/*.jar}, as under /opt). */
    List<Path> layerJars(LayerSpec layer) throws IOException, InterruptedException {
        Path dir = build(layer.logicalId(), layer.contentUri(), layer.buildMethod())
                .resolve("java/lib");
        return jars(dir);
    }

    /** The function's own jars: its classes folder and {@code lib/*.jar}, as the java21 runtime loads them. */
    static List<Path> jars(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return new ArrayList<>(
                    s.filter(p -> p.toString().endsWith(".jar")).sorted().toList());
        }
    }

    private Path build(String logicalId, Path source, String buildMethod) throws IOException, InterruptedException {
        Path cached = built.get(logicalId);
        if (cached != null) {
            return cached;
        }
        if (!"makefile".equals(buildMethod)) {
            throw new IllegalStateException(logicalId + ": the local stack builds BuildMethod: makefile resources only"
                    + " (found " + buildMethod + "); run `sam build` and point --build-dir at .aws-sam/build instead");
        }
        Path out = buildDir.resolve(logicalId);
        deleteRecursively(out);
        Files.createDirectories(out);
        Path log = buildDir.resolve(logicalId + ".build.log");
        Process p = new ProcessBuilder(
                        "make",
                        "--no-print-directory",
                        "-C",
                        source.toString(),
                        "build-" + logicalId,
                        "ARTIFACTS_DIR=" + out.toAbsolutePath())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("building " + logicalId + " failed (make build-" + logicalId + " in "
                    + source + "): " + Files.readString(log).strip());
        }
        built.put(logicalId, out);
        return out;
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
