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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A fresh JVM on the bench's own class path, started with a function's JVM settings as Lambda starts it: the
 * JVM believes the machine has MemorySize of memory ({@code -XX:MaxRAM}, so {@code -XX:MaxRAMPercentage} sizes
 * the heap from it) and reads its flags from the {@code JAVA_TOOL_OPTIONS} environment variable. The probes
 * (memory, jvm-options) run a handler in it against the parent's DynamoDB Local and print result lines,
 * {@code <PREFIX> {json}}; a probe that takes commands reads them one a line from its stdin. Between commands the
 * JVM can be frozen ({@link #pause()}), as Lambda freezes an execution environment between invocations. The
 * cold-start benchmark starts its JVMs through the local stack's Lambda service instead (the runtime interface
 * client on the packaged artifacts).
 */
final class ChildJvm implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String OPTIONS = "JAVA_TOOL_OPTIONS";
    /** What the reader thread queues when the child's output ends. */
    private static final String EOF = "\u0000EOF";

    private final String what;
    private final List<String> javaToolOptions;
    private final Process process;
    private final OutputStream commands;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Deque<String> tail = new ArrayDeque<>();
    private volatile boolean picked;
    private boolean paused;

    private ChildJvm(String what, List<String> javaToolOptions, Process process) {
        this.what = what;
        this.javaToolOptions = List.copyOf(javaToolOptions);
        this.process = process;
        this.commands = process.getOutputStream();
        Thread.ofPlatform().daemon().name("child-jvm-output").start(this::pump);
    }

    /**
     * Runs {@code main} with {@code args} in a fresh JVM with {@code -XX:MaxRAM=memoryMb} and
     * {@code javaToolOptions} as JAVA_TOOL_OPTIONS, and returns the JSON of its line starting with {@code prefix}
     * and a space. Fails with the end of its output when it exits non-zero, prints no such line, does not pick up
     * the options, or outlives {@code timeout}.
     */
    static JsonNode run(
            String what,
            int memoryMb,
            List<String> javaToolOptions,
            Class<?> main,
            List<String> args,
            String prefix,
            Duration timeout)
            throws IOException, InterruptedException {
        try (ChildJvm child = start(what, memoryMb, javaToolOptions, main, args, false)) {
            JsonNode result = child.await(prefix, timeout);
            child.finish(Duration.ofSeconds(10));
            return result;
        }
    }

    /**
     * Starts {@code main} as {@link #run} does; talk to it with {@link #send} and {@link #await}. With
     * {@code oneCpu} the JVM runs on one CPU of this machine ({@code taskset}) while it still counts all of them
     * ({@code -XX:ActiveProcessorCount}): as in Lambda, where a 1,024 MB function's JVM sees 2 vCPUs but gets
     * about 0.6 of one, its compiler and GC threads take their CPU from the handler's.
     */
    static ChildJvm start(
            String what, int memoryMb, List<String> javaToolOptions, Class<?> main, List<String> args, boolean oneCpu)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        if (oneCpu) {
            cmd.addAll(List.of(
                    "taskset", "-c", Integer.toString(Runtime.getRuntime().availableProcessors() - 1)));
        }
        cmd.add(ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        if (oneCpu) {
            cmd.add("-XX:ActiveProcessorCount=" + Runtime.getRuntime().availableProcessors());
        }
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
        return new ChildJvm(what, javaToolOptions, pb.start());
    }

    /** Sends one command line to the child (resuming it first if it was paused). */
    void send(String command) throws IOException, InterruptedException {
        resume();
        commands.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        commands.flush();
    }

    /** The JSON of the child's next line starting with {@code prefix}; fails if it ends or takes longer than {@code timeout}. */
    // EOF is a sentinel instance the reader thread queues: only that instance, never an equal line, ends the stream.
    @SuppressWarnings("ReferenceEquality")
    JsonNode await(String prefix, Duration timeout) throws IOException, InterruptedException {
        String marker = prefix + " ";
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw failure("no " + prefix + " line within " + timeout.toSeconds() + " s");
            }
            if (line == EOF) {
                throw failure("ended without a " + prefix + " line");
            }
            if (line.startsWith(marker)) {
                checkPickedUp();
                return JSON.readTree(line.substring(marker.length()));
            }
        }
    }

    /** Freezes the JVM (SIGSTOP), compiler threads and all, as Lambda freezes an idle execution environment. */
    void pause() throws IOException, InterruptedException {
        signal("-STOP");
        paused = true;
    }

    /** Thaws it (SIGCONT) if it was paused. */
    void resume() throws IOException, InterruptedException {
        if (paused) {
            signal("-CONT");
            paused = false;
        }
    }

    /** Waits for the child to exit, which must be with status 0. */
    void finish(Duration timeout) throws IOException, InterruptedException {
        resume();
        commands.close();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || process.exitValue() != 0) {
            throw failure("did not exit cleanly");
        }
    }

    @Override
    public void close() {
        try {
            resume();
        } catch (IOException | InterruptedException e) {
            // destroyed below either way
        }
        process.destroyForcibly();
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid()))
                .redirectErrorStream(true)
                .start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException(what + ": kill " + signal + " failed: "
                    + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private void checkPickedUp() {
        if (picked == javaToolOptions.isEmpty()) {
            throw new IllegalStateException(what + ": the JVM " + (picked ? "picked up" : "did not pick up") + " "
                    + OPTIONS + ", expected the opposite");
        }
    }

    private IllegalStateException failure(String problem) {
        String exit = process.isAlive() ? "running" : "exit " + process.exitValue();
        synchronized (tail) {
            return new IllegalStateException(what + " " + problem + " (" + exit + "): " + String.join("\n", tail));
        }
    }

    /** Reads the child's output: result lines to the queue, the handlers' JSON logs dropped, the rest kept as a tail. */
    private void pump() {
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("{")) {
                    continue; // the handlers' JSON logs and EMF documents: not of interest
                }
                if (line.startsWith("Picked up " + OPTIONS)) {
                    picked = true; // the JVM prints it before main runs
                }
                synchronized (tail) {
                    tail.addLast(line);
                    if (tail.size() > 20) {
                        tail.removeFirst();
                    }
                }
                lines.add(line);
            }
        } catch (IOException e) {
            if (process.isAlive()) {
                throw new UncheckedIOException(e);
            }
        } finally {
            lines.add(EOF);
        }
    }
}
