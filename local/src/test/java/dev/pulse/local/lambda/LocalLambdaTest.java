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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.local.esm.InvokeResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The local Lambda service against real JVMs running the AWS runtime interface client: responses, errors,
 * timeouts and crashes come back as Lambda reports them.
 */
class LocalLambdaTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> LOG = new CopyOnWriteArrayList<>();
    private static LocalLambda lambda;

    @BeforeAll
    static void start() {
        List<Path> cp = Arrays.stream(System.getProperty("java.class.path").split(":"))
                .map(Path::of)
                .toList();
        Path javaHome = Path.of(System.getProperty("java.home"));
        lambda = new LocalLambda(
                List.of(
                        fn("Echo", TestHandlers.Echo.class, 3, cp, javaHome),
                        fn("Fail", TestHandlers.Fail.class, 3, cp, javaHome),
                        fn("Sleep", TestHandlers.Sleep.class, 1, cp, javaHome),
                        fn("Crash", TestHandlers.Crash.class, 3, cp, javaHome)),
                f -> line -> LOG.add(f.logicalId() + " " + line),
                2);
    }

    private static FunctionConfig fn(String id, Class<?> handler, int timeoutSeconds, List<Path> cp, Path javaHome) {
        return new FunctionConfig(
                id,
                "test-" + id,
                "arn:aws:lambda:us-east-1:000000000000:function:test-" + id,
                handler.getName() + "::handleRequest",
                256,
                Duration.ofSeconds(timeoutSeconds),
                Map.of("GREETING", "hello", "AWS_REGION", "us-east-1", "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=50"),
                Path.of("target"),
                cp,
                javaHome);
    }

    @AfterAll
    static void stop() {
        lambda.close();
    }

    private static JsonNode json(InvokeResult r) throws Exception {
        return JSON.readTree(new String(r.payload(), StandardCharsets.UTF_8));
    }

    @Test
    void invoke_whenHandlerAnswers_returnsItsResponseWithTheTemplateSettings() throws Exception {
        InvokeResult r = lambda.invoke("test-Echo", "{\"a\":1}".getBytes(StandardCharsets.UTF_8));

        assertThat(r.failed()).isFalse();
        JsonNode body = json(r);
        assertThat(body.path("input").path("a").asInt()).isEqualTo(1);
        assertThat(body.path("functionName").asText()).isEqualTo("test-Echo");
        assertThat(body.path("memory").asInt()).isEqualTo(256);
        assertThat(body.path("greeting").asText()).isEqualTo("hello");
        // MaxRAMPercentage=50 of a 256 MB "machine": the heap follows MemorySize, not the host's RAM.
        assertThat(body.path("maxHeapMb").asLong()).isBetween(100L, 140L);
        assertThat(body.path("remainingMillis").asLong()).isBetween(1L, 3_000L);
        // The function's stdout is read by another thread, as Lambda ships logs beside the response: wait for it.
        assertThat(awaitLog(l -> l.startsWith("Echo echo {a=1}"), Duration.ofSeconds(10)))
                .as("log lines: %s", LOG)
                .isTrue();
    }

    private static boolean awaitLog(Predicate<String> line, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (LOG.stream().anyMatch(line)) {
                return true;
            }
            Thread.sleep(20);
        }
        return LOG.stream().anyMatch(line);
    }

    @Test
    void invoke_whenWarm_reusesTheEnvironment() throws Exception {
        long first = json(lambda.invoke("Echo", "{}".getBytes(StandardCharsets.UTF_8)))
                .path("pid")
                .asLong();
        long second = json(lambda.invoke(
                        "arn:aws:lambda:us-east-1:000000000000:function:test-Echo",
                        "{}".getBytes(StandardCharsets.UTF_8)))
                .path("pid")
                .asLong();

        assertThat(second).isEqualTo(first);
    }

    @Test
    void invoke_whenHandlerThrows_reportsUnhandledWithTheErrorType() throws Exception {
        InvokeResult r = lambda.invoke("test-Fail", "{}".getBytes(StandardCharsets.UTF_8));

        assertThat(r.functionError()).isEqualTo("Unhandled");
        assertThat(json(r).path("errorType").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(json(r).path("errorMessage").asText()).isEqualTo("boom");
    }

    @Test
    void invoke_whenTimeoutPasses_stopsTheEnvironmentAndReportsTimeout() throws Exception {
        InvokeResult r = lambda.invoke("test-Sleep", "{}".getBytes(StandardCharsets.UTF_8));

        assertThat(r.functionError()).isEqualTo("Unhandled");
        assertThat(json(r).path("errorType").asText()).isEqualTo("Sandbox.Timedout");
        assertThat(json(r).path("errorMessage").asText()).contains("Task timed out after 1.00 seconds");
        assertThat(lambda.pids()).allMatch(pid -> ProcessHandle.of(pid).isPresent());
    }

    @Test
    void invoke_whenJvmDies_reportsExitErrorAndStartsAFreshEnvironmentNextTime() throws Exception {
        InvokeResult r = lambda.invoke("test-Crash", "{}".getBytes(StandardCharsets.UTF_8));
        InvokeResult again = lambda.invoke("test-Crash", "{}".getBytes(StandardCharsets.UTF_8));

        assertThat(json(r).path("errorType").asText()).isEqualTo("Runtime.ExitError");
        assertThat(json(again).path("errorType").asText()).isEqualTo("Runtime.ExitError");
        assertThat(lambda.stats("Crash").coldStarts()).isEqualTo(2);
    }

    @Test
    void prewarm_whenSnapStart_initialisesASpareBeforeTrafficAndReplacesItWhenTaken() throws Exception {
        List<Path> cp = Arrays.stream(System.getProperty("java.class.path").split(":"))
                .map(Path::of)
                .toList();
        FunctionConfig snap = fn("Snap", TestHandlers.Pause.class, 3, cp, Path.of(System.getProperty("java.home")))
                .withInit(FunctionConfig.Init.SNAP_START);
        try (LocalLambda own = new LocalLambda(List.of(snap), f -> line -> {}, 3)) {
            assertThat(own.prewarm("Snap", 1)).isEqualTo(1);
            List<Long> ready = own.pids();
            assertThat(ready).hasSize(2);

            // Two at once: both run in environments initialised before the traffic, none started for them.
            var first = java.util.concurrent.CompletableFuture.supplyAsync(() -> invokePid(own));
            var second = java.util.concurrent.CompletableFuture.supplyAsync(() -> invokePid(own));
            assertThat(List.of(first.get(), second.get()))
                    .doesNotHaveDuplicates()
                    .isSubsetOf(ready);

            // Every environment was busy at once: a new spare starts in the background, up to the cap.
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (own.pids().size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(own.pids()).hasSize(3).containsAll(ready);
            assertThat(own.stats("Snap").coldStarts()).isEqualTo(3);
            assertThat(own.stats("Snap").errors()).isZero();
        }
    }

    @Test
    void invoke_whenAnEnvironmentIsStillWarmingUp_waitsForItInsteadOfStartingAnother() throws Exception {
        List<Path> cp = Arrays.stream(System.getProperty("java.class.path").split(":"))
                .map(Path::of)
                .toList();
        FunctionConfig echo = fn("Warming", TestHandlers.Echo.class, 3, cp, Path.of(System.getProperty("java.home")));
        try (LocalLambda own = new LocalLambda(List.of(echo), f -> line -> {}, 3)) {
            var warmUp = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return own.prewarm("Warming", 1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (own.pids().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            List<Long> warming = own.pids();

            InvokeResult r = own.invoke("Warming", "{}".getBytes(StandardCharsets.UTF_8));

            assertThat(r.failed()).isFalse();
            assertThat(json(r).path("pid").asLong()).isEqualTo(warming.getFirst());
            assertThat(warmUp.get()).isEqualTo(1);
            assertThat(own.stats("Warming").coldStarts()).isEqualTo(1);
        }
    }

    private static long invokePid(LocalLambda on) {
        try {
            InvokeResult r = on.invoke("Snap", "{}".getBytes(StandardCharsets.UTF_8));
            assertThat(r.failed()).isFalse();
            return Long.parseLong(new String(r.payload(), StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void invoke_whenFunctionUnknown_namesIt() {
        assertThatThrownBy(() -> lambda.invoke("nope", new byte[0])).hasMessageContaining("Function not found: nope");
    }
}
