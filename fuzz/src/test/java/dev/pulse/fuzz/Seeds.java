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
package dev.pulse.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A harness's seed inputs ({@code <Class>Inputs/<method>/seeds/} on the test class path), run once when the harness
 * class loads. The first decode of a format loads and instruments its classes (seconds for OTLP's generated protobuf
 * code on a busy machine); done before the fuzzer starts, that time is not charged to the first input's time bound.
 */
public final class Seeds {

    private Seeds() {}

    /** Feeds every seed of {@code testClass}'s harness {@code method} to {@code harness}; findings are left to Jazzer. */
    public static void warmUp(Class<?> testClass, String method, Consumer<byte[]> harness) {
        URL dir = testClass.getResource(testClass.getSimpleName() + "Inputs/" + method + "/seeds");
        if (dir == null || !"file".equals(dir.getProtocol())) {
            return;
        }
        try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
            for (Path p : files.sorted().toList()) {
                try {
                    harness.accept(Files.readAllBytes(p));
                } catch (RuntimeException | AssertionError e) {
                    // Not the place to report it: the same seed runs as its own test (or fuzzing input) next.
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@link #warmUp} for each of {@code methods}, all fed to the same harness. */
    public static void warmUp(Class<?> testClass, List<String> methods, Consumer<byte[]> harness) {
        methods.forEach(m -> warmUp(testClass, m, harness));
    }
}
