package dev.pulse.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A fresh JVM on the bench's own class path, started with a function's JVM settings as Lambda starts it: the
 * JVM believes the machine has MemorySize of memory ({@code -XX:MaxRAM}, so {@code -XX:MaxRAMPercentage} sizes
 * the heap from it) and reads its flags from the {@code JAVA_TOOL_OPTIONS} environment variable. The probes
 * (memory, jvm-options) run a handler in it against the parent's DynamoDB Local and print one result line,
 * {@code <PREFIX> {json}}. The cold-start benchmark starts its JVMs through the local stack's Lambda service
 * instead (the runtime interface client on the packaged artifacts).
 */
final class ChildJvm {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String OPTIONS = "JAVA_TOOL_OPTIONS";

    private ChildJvm() {
    }

    /**
     * Runs {@code main} with {@code args} in a fresh JVM with {@code -XX:MaxRAM=memoryMb} and
     * {@code javaToolOptions} as JAVA_TOOL_OPTIONS, and returns the JSON of its line starting with {@code prefix}
     * and a space. Fails with the end of its output when it exits non-zero, prints no such line, does not pick up
     * the options, or outlives {@code timeout}.
     */
    static JsonNode run(String what, int memoryMb, List<String> javaToolOptions, Class<?> main, List<String> args,
            String prefix, Duration timeout) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.add("-XX:MaxRAM=" + memoryMb + "m");
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("AWS_EMF_ENVIRONMENT", "Local");
        pb.environment().put("AWS_REGION", "us-east-1");
        // Exactly the function's options: none inherited from whoever started the benchmarks.
        pb.environment().remove(OPTIONS);
        pb.environment().remove("JDK_JAVA_OPTIONS");
        if (!javaToolOptions.isEmpty()) {
            pb.environment().put(OPTIONS, String.join(" ", javaToolOptions));
        }
        Process p = pb.start();
        // The output is read to its end: a child that hangs is killed at the timeout, which ends it.
        Thread watchdog = Thread.ofVirtual().start(() -> {
            try {
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            JsonNode result = null;
            boolean picked = false;
            List<String> tail = new ArrayList<>();
            String marker = prefix + " ";
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    if (line.startsWith(marker)) {
                        result = JSON.readTree(line.substring(marker.length()));
                    } else if (!line.startsWith("{")) { // the handlers' JSON logs and EMF documents: not of interest
                        picked |= line.startsWith("Picked up " + OPTIONS);
                        tail.add(line);
                        if (tail.size() > 20) {
                            tail.remove(0);
                        }
                    }
                }
            }
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0 || result == null) {
                throw new IllegalStateException(what + " failed (exit " + (p.isAlive() ? "none" : p.exitValue()) + "): "
                        + String.join("\n", tail));
            }
            if (picked == javaToolOptions.isEmpty()) {
                throw new IllegalStateException(what + ": the JVM " + (picked ? "picked up" : "did not pick up") + " "
                        + OPTIONS + ", expected the opposite");
            }
            return result;
        } finally {
            watchdog.interrupt();
            p.destroyForcibly();
        }
    }
}
