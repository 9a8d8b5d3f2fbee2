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
package dev.pulse.local.lambda;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.local.esm.InvokeResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * One Lambda execution environment: a fresh JVM running the AWS Lambda runtime interface client with the
 * function's artifact, environment and memory, serving one invocation at a time through its own Runtime API.
 * An invocation that outlives the timeout, or a JVM that dies, ends the environment (its process is stopped
 * through its handle, by PID) and the invocation fails as it does in Lambda.
 */
final class ExecutionEnvironment implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MAIN = "com.amazonaws.services.lambda.runtime.api.client.AWSLambda";

    private final FunctionConfig config;
    private final RuntimeApiServer api;
    private final Process process;
    private final CompletableFuture<Integer> exited;
    private volatile boolean dead;
    private volatile boolean initialised;

    private ExecutionEnvironment(FunctionConfig config, RuntimeApiServer api, Process process) {
        this.config = config;
        this.api = api;
        this.process = process;
        this.exited = process.onExit().thenApply(Process::exitValue);
    }

    /** Starts the JVM; its init runs until the runtime asks for the first invocation. */
    static ExecutionEnvironment start(FunctionConfig config, Consumer<String> log) throws IOException {
        RuntimeApiServer api = new RuntimeApiServer();
        try {
            List<String> cmd = new ArrayList<>();
            cmd.add(config.javaHome().resolve("bin/java").toString());
            // The JVM sizes its heap from what it believes is the machine's memory: in Lambda that is MemorySize,
            // so -XX:MaxRAMPercentage in JAVA_TOOL_OPTIONS means the same here.
            cmd.add("-XX:MaxRAM=" + config.memoryMb() + "m");
            cmd.add("--enable-native-access=ALL-UNNAMED");
            // No /tmp/hsperfdata_<user>/<pid> per environment: the local stack writes only under the project.
            cmd.add("-XX:-UsePerfData");
            if (config.init() != FunctionConfig.Init.SNAP_START_WITHOUT_HOOKS) {
                // As the managed java21 runtime starts the JVM: org.crac registers with the runtime client's context.
                cmd.add("-Dorg.crac.Core.Compat=com.amazonaws.services.lambda.crac");
            }
            Path jni = nativeClient(config.classPath());
            if (jni != null) {
                // The client otherwise unpacks its JNI library to one fixed file in /tmp: environments starting
                // together overwrite it while another JVM maps it, and that JVM dies with SIGBUS.
                cmd.add("-Dcom.amazonaws.services.lambda.runtime.api.client.runtimeapi.NativeClient.JNI=" + jni);
            }
            cmd.add("-cp");
            cmd.add(config.classPath().stream().map(Path::toString).collect(Collectors.joining(":")));
            cmd.add(MAIN);
            cmd.add(config.handler());
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .directory(config.taskRoot().toFile());
            Map<String, String> env = pb.environment();
            String path = env.getOrDefault("PATH", "/usr/bin:/bin");
            env.clear();
            env.put("PATH", path);
            env.put("LANG", "en_US.UTF-8");
            env.put("TZ", ":UTC");
            env.putAll(config.environment());
            env.put("_HANDLER", config.handler());
            env.put("AWS_LAMBDA_RUNTIME_API", api.address());
            env.put("LAMBDA_TASK_ROOT", config.taskRoot().toString());
            env.put("AWS_LAMBDA_FUNCTION_NAME", config.name());
            env.put("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", Integer.toString(config.memoryMb()));
            env.put("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST");
            env.put(
                    "AWS_LAMBDA_INITIALIZATION_TYPE",
                    config.init() == FunctionConfig.Init.ON_DEMAND ? "on-demand" : "snap-start");
            env.putIfAbsent("AWS_EXECUTION_ENV", "AWS_Lambda_java21");
            env.putIfAbsent("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/" + config.name());
            env.put(
                    "AWS_LAMBDA_LOG_STREAM_NAME",
                    "local/[$LATEST]"
                            + new UUID(
                                            ThreadLocalRandom.current().nextLong(),
                                            ThreadLocalRandom.current().nextLong())
                                    .toString()
                                    .replace("-", ""));
            Process p = pb.start();
            // A platform thread: a blocking read of a pipe pins a virtual thread's carrier, and with several
            // environments the pumps took every carrier, starving the stack's own HTTP handlers.
            Thread.ofPlatform().daemon().name(config.logicalId() + "-log").start(() -> pump(p, log));
            return new ExecutionEnvironment(config, api, p);
        } catch (IOException | RuntimeException e) {
            api.close();
            throw e;
        }
    }

    /**
     * The runtime interface client's JNI library for this machine, unpacked once per client jar into a folder
     * named after the jar (kept between runs, so nothing accumulates in /tmp).
     */
    static synchronized Path nativeClient(List<Path> classPath) throws IOException {
        Path jar = classPath.stream()
                .filter(p -> p.getFileName().toString().startsWith("aws-lambda-java-runtime-interface-client"))
                .findFirst()
                .orElse(null);
        if (jar == null) {
            return null;
        }
        String arch = System.getProperty("os.arch").equals("aarch64") ? "aarch_64" : "x86_64";
        Path dir = Path.of(
                System.getProperty("java.io.tmpdir"),
                "pulse-lambda-jni-" + jar.getFileName().toString().replace(".jar", "") + "-" + Files.size(jar) + "-"
                        + arch);
        Path lib = dir.resolve("libaws-lambda-jni.so");
        if (Files.isRegularFile(lib)) {
            return lib;
        }
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry entry = zip.getEntry("jni/libaws-lambda-jni.linux-" + arch + ".so");
            if (entry == null) {
                return null;
            }
            Files.createDirectories(dir);
            Path part = Files.createTempFile(dir, "lib", ".part");
            try (InputStream in = zip.getInputStream(entry)) {
                Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
            }
            // Atomic, so a JVM loading the library never sees half a file (another stack may race us).
            Files.move(part, lib, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return lib;
        }
    }

    private static void pump(Process p, Consumer<String> log) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                log.accept(line);
            }
        } catch (IOException e) {
            // The process ended; nothing more to read.
        }
    }

    long pid() {
        return process.pid();
    }

    boolean dead() {
        return dead || !process.isAlive();
    }

    /**
     * Runs one invocation (the caller guarantees one at a time). On a cold environment the init is awaited
     * first, with its own allowance, and the timeout starts when the function is ready, as in Lambda where
     * an on-demand init does not count against the invocation's timeout.
     */
    InvokeResult invoke(byte[] payload) throws InterruptedException {
        return invoke(payload, FaultPlan.Fault.NONE);
    }

    /** {@link #invoke(byte[])} with an injected fault: the JVM killed, or a timeout, {@code fault.after()} in. */
    InvokeResult invoke(byte[] payload, FaultPlan.Fault fault) throws InterruptedException {
        String requestId = new UUID(
                        ThreadLocalRandom.current().nextLong(),
                        ThreadLocalRandom.current().nextLong())
                .toString();
        long timeoutMillis = config.timeout().toMillis();
        long started = System.currentTimeMillis();
        if (!initialised) {
            InvokeResult initFailure = awaitInit(requestId);
            if (initFailure != null) {
                return initFailure;
            }
            started = System.currentTimeMillis();
        }
        CompletableFuture<RuntimeApiServer.Outcome> outcome = new CompletableFuture<>();
        String trace = "Root=1-%08x-%024x;Parent=%016x;Sampled=0"
                .formatted(
                        started / 1000,
                        ThreadLocalRandom.current().nextLong() & 0xffffffffffffL,
                        ThreadLocalRandom.current().nextLong());
        api.submit(new RuntimeApiServer.Invocation(
                requestId, payload, started + timeoutMillis, config.arn(), trace, outcome));
        CompletableFuture<Object> done = CompletableFuture.anyOf(outcome, exited);
        if (fault.kind() == FaultPlan.Kind.CRASH) {
            // Killed from outside, like an out-of-memory kill: whatever the function wrote so far stays written.
            CompletableFuture.delayedExecutor(fault.after().toMillis(), TimeUnit.MILLISECONDS)
                    .execute(process::destroyForcibly);
        }
        long waitMillis = fault.kind() == FaultPlan.Kind.TIMEOUT
                ? Math.min(timeoutMillis, fault.after().toMillis())
                : timeoutMillis;
        try {
            done.get(waitMillis, TimeUnit.MILLISECONDS);
            if (fault.kind() == FaultPlan.Kind.TIMEOUT && !outcome.isDone()) {
                throw new TimeoutException();
            }
        } catch (TimeoutException e) {
            close();
            return fail(
                    requestId,
                    "Sandbox.Timedout",
                    "RequestId: " + requestId + " Error: Task timed out after "
                            + String.format("%.2f", timeoutMillis / 1000.0) + " seconds");
        } catch (ExecutionException e) {
            return fail(requestId, "Runtime.Unknown", String.valueOf(e.getCause()));
        }
        if (!outcome.isDone()) {
            dead = true;
            return fail(
                    requestId,
                    "Runtime.ExitError",
                    "RequestId: " + requestId + " Error: Runtime exited with error: exit status " + exited.join());
        }
        RuntimeApiServer.Outcome o = outcome.join();
        return new InvokeResult(o.payload(), o.error() ? "Unhandled" : null, requestId);
    }

    /**
     * Waits for the function's init (static initialisers and constructor, until the runtime asks for work).
     *
     * @return null when the environment is ready, else the failed invocation's result
     */
    InvokeResult awaitInit(String requestId) throws InterruptedException {
        if (initialised) {
            return null;
        }
        CompletableFuture<Object> init = CompletableFuture.anyOf(api.ready(), api.initError(), exited);
        try {
            init.get(initAllowance(config).toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return fail(requestId, "Runtime.InitTimeout", "init did not finish");
        }
        if (api.initError().isDone()) {
            dead = true;
            close();
            return new InvokeResult(api.initError().join(), "Unhandled", requestId);
        }
        if (!api.ready().isDone()) {
            return fail(
                    requestId,
                    "Runtime.ExitError",
                    "RequestId: " + requestId + " Error: Runtime exited with error: exit status " + exited.join());
        }
        initialised = true;
        return null;
    }

    /**
     * How long an init may take here. An on-demand init gets its own 10 s in Lambda (outside the timeout): 60 s
     * allows for a slow, busy machine. A SnapStart init stands for the init Lambda runs when it publishes the version,
     * before the version can be invoked and outside any invocation: it is waited for as a deployment is, however long
     * a loaded machine takes (killing it at a minute only started another, equally slow, cold JVM under the traffic).
     */
    static java.time.Duration initAllowance(FunctionConfig config) {
        java.time.Duration onDemand =
                java.time.Duration.ofMillis(Math.max(60_000, config.timeout().toMillis()));
        return config.init() == FunctionConfig.Init.ON_DEMAND ? onDemand : java.time.Duration.ofMinutes(10);
    }

    private InvokeResult fail(String requestId, String type, String message) {
        dead = true;
        close();
        ObjectNode error = JSON.createObjectNode().put("errorType", type).put("errorMessage", message);
        return new InvokeResult(error.toString().getBytes(StandardCharsets.UTF_8), "Unhandled", requestId);
    }

    @Override
    public void close() {
        dead = true;
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            api.close();
        }
    }
}
