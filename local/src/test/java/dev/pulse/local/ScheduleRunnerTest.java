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

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.local.esm.FunctionInvoker;
import dev.pulse.local.esm.InvokeResult;
import dev.pulse.local.lambda.FaultPlan;
import dev.pulse.local.template.ScheduleSpec;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The local EventBridge schedule: its event, its period, Lambda's retries of a failed run, no overlapping runs. */
class ScheduleRunnerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ScheduleSpec BUILD = new ScheduleSpec(
            "CompactFunction",
            "Build",
            "rate(5 minutes)",
            Duration.ofMinutes(5),
            "pulse-local-CompactFunctionBuild-LOCAL",
            null,
            2);
    private static final byte[] OK = "{\"hoursBuilt\":1,\"daysBuilt\":0,\"periodsPending\":0,\"stopped\":false}"
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] ERROR = "{\"errorMessage\":\"boom\",\"errorType\":\"java.lang.IllegalStateException\"}"
            .getBytes(StandardCharsets.UTF_8);

    /** Records every event and answers from a script: fail the first {@code failures} invocations, then succeed. */
    static final class Function implements FunctionInvoker {
        final List<JsonNode> events = new CopyOnWriteArrayList<>();
        final AtomicInteger inFlight = new AtomicInteger();
        volatile int maxInFlight;
        volatile int failures;
        volatile long busyMillis;

        @Override
        public InvokeResult invoke(byte[] payload) throws InterruptedException {
            maxInFlight = Math.max(maxInFlight, inFlight.incrementAndGet());
            try {
                events.add(parse(payload));
                Thread.sleep(busyMillis);
                boolean fail;
                synchronized (this) {
                    fail = failures > 0;
                    failures--;
                }
                return fail ? new InvokeResult(ERROR, "Unhandled", "r") : new InvokeResult(OK, null, "r");
            } finally {
                inFlight.decrementAndGet();
            }
        }
    }

    private static JsonNode parse(byte[] payload) {
        try {
            return JSON.readTree(payload);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private static ScheduleRunner start(ScheduleSpec spec, FunctionInvoker f, Duration every, FaultPlan faults) {
        return ScheduleRunner.start(spec, f, every, "us-east-1", "000000000000", faults, Clock.systemUTC());
    }

    private static void await(java.util.function.BooleanSupplier condition, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not met within %s", max).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    @Test
    void event_whenNoInput_isEventBridgeScheduledEventAtTheScheduledSecond() throws Exception {
        Instant at = Instant.parse("2026-11-24T01:10:05.750Z");
        try (ScheduleRunner r = ScheduleRunner.start(
                BUILD,
                p -> null,
                Duration.ZERO,
                "us-east-1",
                "000000000000",
                FaultPlan.NONE,
                Clock.fixed(at, ZoneOffset.UTC))) {
            JsonNode event = parse(r.event(at));

            assertThat(event.properties())
                    .extracting(java.util.Map.Entry::getKey)
                    .containsExactly(
                            "version",
                            "id",
                            "detail-type",
                            "source",
                            "account",
                            "time",
                            "region",
                            "resources",
                            "detail");
            assertThat(event.path("version").asText()).isEqualTo("0");
            assertThat(event.path("id").asText())
                    .matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
            assertThat(event.path("detail-type").asText()).isEqualTo("Scheduled Event");
            assertThat(event.path("source").asText()).isEqualTo("aws.events");
            assertThat(event.path("account").asText()).isEqualTo("000000000000");
            assertThat(event.path("time").asText()).isEqualTo("2026-11-24T01:10:05Z");
            assertThat(event.path("region").asText()).isEqualTo("us-east-1");
            assertThat(event.path("resources")).hasSize(1);
            assertThat(event.path("resources").get(0).asText())
                    .isEqualTo("arn:aws:events:us-east-1:000000000000:rule/pulse-local-CompactFunctionBuild-LOCAL");
            assertThat(event.path("detail").isObject() && event.path("detail").isEmpty())
                    .isTrue();
            assertThat(parse(r.event(at)).path("id").asText())
                    .as("a new id for every run")
                    .isNotEqualTo(event.path("id").asText());
        }
    }

    @Test
    void event_whenInputGiven_isTheInput() throws Exception {
        ScheduleSpec withInput =
                new ScheduleSpec("Fn", "Tick", "rate(1 hour)", Duration.ofHours(1), "rule", "{\"mode\":\"full\"}", 2);
        Function f = new Function();
        try (ScheduleRunner r = start(withInput, f, Duration.ZERO, FaultPlan.NONE)) {
            r.runNow();
        }

        assertThat(f.events).containsExactly(JSON.readTree("{\"mode\":\"full\"}"));
    }

    @Test
    void start_whenPeriodCompressed_runsEveryPeriodAndNeverTwiceAtOnce() throws Exception {
        Function f = new Function();
        f.busyMillis = 150; // each run outlasts the 50 ms period
        long t0 = System.nanoTime();
        ScheduleRunner r = start(BUILD, f, Duration.ofMillis(50), FaultPlan.NONE);
        try (r) {
            await(() -> r.runs() >= 4, Duration.ofSeconds(10));
            r.runNow(); // queued behind the scheduled runs, never beside them
            await(() -> r.runs() >= 6, Duration.ofSeconds(10));
        }

        assertThat(f.maxInFlight).isEqualTo(1);
        assertThat(r.invocations()).isEqualTo(f.events.size()).isGreaterThanOrEqualTo(r.runs() - 1);
        assertThat(r.errors()).isZero();
        assertThat(JSON.readTree(r.lastResponse()).path("hoursBuilt").asInt()).isEqualTo(1);
        assertThat((System.nanoTime() - t0) / 1_000_000)
                .as("runs back to back, not all at once")
                .isGreaterThanOrEqualTo(5 * 150);
        // Each run's time is its scheduled time: increasing.
        List<Instant> times = f.events.stream()
                .map(e -> Instant.parse(e.path("time").asText()))
                .toList();
        assertThat(times).isSorted();
    }

    @Test
    void start_whenPeriodZero_runsOnlyWhenAsked() throws Exception {
        Function f = new Function();
        try (ScheduleRunner r = start(BUILD, f, Duration.ZERO, FaultPlan.NONE)) {
            Thread.sleep(200);
            assertThat(r.runs()).isZero();

            InvokeResult result = r.runNow();

            assertThat(result.failed()).isFalse();
            assertThat(r.runs()).isEqualTo(1);
            assertThat(r.describe()).contains("no runs of its own");
        }
    }

    @Test
    void runNow_whenRunFailsTwice_lambdaRetriesItWithTheSameEvent() throws Exception {
        Function f = new Function();
        f.failures = 2;
        try (ScheduleRunner r = start(BUILD, f, Duration.ZERO, FaultPlan.NONE)) {
            InvokeResult result = r.runNow();

            assertThat(result.failed()).isFalse();
            assertThat(r.runs()).isEqualTo(1);
            assertThat(r.invocations()).isEqualTo(3);
            assertThat(r.retries()).isEqualTo(2);
            assertThat(r.errors()).isEqualTo(2);
            assertThat(r.failedRuns()).isZero();
        }
        assertThat(f.events).hasSize(3).allSatisfy(e -> assertThat(e).isEqualTo(f.events.get(0)));
    }

    @Test
    void runNow_whenRunKeepsFailing_givesUpAfterTheFunctionsRetries() throws Exception {
        Function f = new Function();
        f.failures = 100;
        ScheduleSpec noRetries =
                new ScheduleSpec("CompactFunction", "Build", "rate(5 minutes)", Duration.ofMinutes(5), "rule", null, 0);
        try (ScheduleRunner r = start(noRetries, f, Duration.ZERO, FaultPlan.NONE);
                ScheduleRunner withRetries = start(BUILD, f, Duration.ZERO, FaultPlan.NONE)) {
            assertThat(r.runNow().failed()).isTrue();
            assertThat(withRetries.runNow().failed()).isTrue();

            assertThat(r.invocations()).isEqualTo(1);
            assertThat(r.failedRuns()).isEqualTo(1);
            assertThat(withRetries.invocations()).isEqualTo(3);
            assertThat(withRetries.failedRuns()).isEqualTo(1);
            assertThat(JSON.readTree(withRetries.lastResponse())
                            .path("errorMessage")
                            .asText())
                    .isEqualTo("boom");
        }
    }

    @Test
    void retryDelay_whenPeriodCompressed_scalesLambdasOneAndTwoMinutes() {
        try (ScheduleRunner real = start(BUILD, p -> null, Duration.ZERO, FaultPlan.NONE)) {
            assertThat(real.retryDelay(1)).isZero();
        }
        ScheduleRunner fifteen = ScheduleRunner.start(
                BUILD, p -> null, Duration.ofSeconds(15), "us-east-1", "0", FaultPlan.NONE, Clock.systemUTC());
        ScheduleRunner asIs = ScheduleRunner.start(
                BUILD, p -> null, Duration.ofMinutes(5), "us-east-1", "0", FaultPlan.NONE, Clock.systemUTC());
        try (fifteen;
                asIs) {
            assertThat(fifteen.retryDelay(1)).isEqualTo(Duration.ofSeconds(3));
            assertThat(fifteen.retryDelay(2)).isEqualTo(Duration.ofSeconds(6));
            assertThat(asIs.retryDelay(1)).isEqualTo(Duration.ofMinutes(1));
            assertThat(asIs.retryDelay(2)).isEqualTo(Duration.ofMinutes(2));
            assertThat(asIs.retryDelay(3)).isEqualTo(Duration.ofMinutes(2));
        }
    }

    @Test
    void runNow_whenFaultPlanDuplicates_deliversTheEventTwice() throws Exception {
        Function f = new Function();
        FaultPlan twice = new FaultPlan() {
            @Override
            public boolean duplicateDelivery(String functionLogicalId) {
                return functionLogicalId.equals("CompactFunction");
            }
        };
        try (ScheduleRunner r = start(BUILD, f, Duration.ZERO, twice)) {
            r.runNow();

            assertThat(r.runs()).isEqualTo(1);
            assertThat(r.invocations()).isEqualTo(2);
            assertThat(r.duplicateDeliveries()).isEqualTo(1);
        }
        assertThat(f.events).hasSize(2);
        assertThat(f.events.get(1)).isEqualTo(f.events.get(0));
    }

    @Test
    void close_whenRunning_stopsTheSchedule() throws Exception {
        Function f = new Function();
        ScheduleRunner r = start(BUILD, f, Duration.ofMillis(20), FaultPlan.NONE);
        await(() -> r.runs() >= 2, Duration.ofSeconds(10));

        r.close();
        long after = f.events.size();
        Thread.sleep(200);

        assertThat(f.events).hasSize((int) after);
    }

    @Test
    void invoke_whenEnvironmentCannotStart_countsAFailedInvocation() throws Exception {
        FunctionInvoker broken = p -> {
            throw new IllegalStateException("could not start CompactFunction: no java");
        };
        ScheduleSpec noRetries =
                new ScheduleSpec("CompactFunction", "Build", "rate(5 minutes)", Duration.ofMinutes(5), "rule", null, 0);
        try (ScheduleRunner r = start(noRetries, broken, Duration.ZERO, FaultPlan.NONE)) {
            InvokeResult result = r.runNow();

            assertThat(result.failed()).isTrue();
            assertThat(r.errors()).isEqualTo(1);
            assertThat(r.lastResponse()).contains("could not start CompactFunction");
        }
    }
}
