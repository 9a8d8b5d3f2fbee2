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

    private Seeds() {
    }

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
