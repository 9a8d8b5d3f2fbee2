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

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.local.esm.FunctionInvoker;
import dev.pulse.local.esm.InvokeResult;
import dev.pulse.local.lambda.FaultPlan;
import dev.pulse.local.template.ScheduleSpec;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One {@code Schedule} event of the template, running: every period it sends the function the event an
 * EventBridge rule sends (a "Scheduled Event" whose {@code time} is the scheduled instant, or the event's
 * {@code Input}) through the local Lambda service. The period is the rate expression's, or a shorter one given to
 * the local stack ({@code --schedule-every}) so that a one-minute run sees several five-minute builds.
 *
 * <p>As with Lambda's asynchronous invocation, a run that ends in a function error is retried with the same event,
 * up to {@link ScheduleSpec#asyncRetryAttempts()} times, after about 1 and then 2 minutes (scaled by the same
 * factor as the period). Unlike AWS, runs never overlap: the next run starts after the previous one (and its
 * retries) returned, and scheduled times that passed meanwhile are merged into that one run.
 */
public final class ScheduleRunner implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ScheduleRunner.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Lambda's waits before the first and the second retry of a failed asynchronous invocation. */
    private static final Duration[] RETRY_DELAYS = {Duration.ofMinutes(1), Duration.ofMinutes(2)};

    private final ScheduleSpec spec;
    private final FunctionInvoker function;
    private final Duration every;
    private final String region;
    private final String accountId;
    private final FaultPlan faults;
    private final Clock clock;
    /** Held for the whole of a run, retries included: scheduled runs and {@link #runNow()} never overlap. */
    private final ReentrantLock running = new ReentrantLock(true);

    private final Thread thread;
    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong invocations = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong failedRuns = new AtomicLong();
    private volatile String lastResponse;
    private volatile boolean stopped;

    private ScheduleRunner(
            ScheduleSpec spec,
            FunctionInvoker function,
            Duration every,
            String region,
            String accountId,
            FaultPlan faults,
            Clock clock) {
        if (every.isNegative()) {
            throw new IllegalArgumentException("a schedule's period cannot be negative: " + every);
        }
        this.spec = spec;
        this.function = function;
        this.every = every;
        this.region = region;
        this.accountId = accountId;
        this.faults = faults;
        this.clock = clock;
        this.thread = Thread.ofPlatform()
                .daemon()
                .name("schedule-" + spec.functionId() + "-" + spec.eventId())
                .unstarted(this::loop);
    }

    /**
     * Starts the schedule; its first run is one period from now (as a new rate rule's is).
     *
     * @param function invokes the function through the local Lambda service (for EventBridge, an asynchronous
     *                 invocation; here its outcome is awaited, so that runs do not overlap)
     * @param every the period to run at: {@code spec.period()} for the template's, shorter to compress time;
     *              {@link Duration#ZERO} for no runs of its own (only {@link #runNow()})
     */
    static ScheduleRunner start(
            ScheduleSpec spec,
            FunctionInvoker function,
            Duration every,
            String region,
            String accountId,
            FaultPlan faults,
            Clock clock) {
        ScheduleRunner r = new ScheduleRunner(spec, function, every, region, accountId, faults, clock);
        if (!every.isZero()) {
            r.thread.start();
        }
        return r;
    }

    public ScheduleSpec spec() {
        return spec;
    }

    /** The period it runs at locally; zero when it only runs through {@link #runNow()}. */
    public Duration every() {
        return every;
    }

    /** One line for the start-up summary. */
    public String describe() {
        String when = every.isZero()
                ? "no runs of its own (schedule period 0)"
                : every.equals(spec.period())
                        ? "every " + seconds(every)
                        : "every " + seconds(every) + " locally (compressed)";
        return String.format(
                Locale.ROOT,
                "%s -> %s: %s, %s, retries of a failed run %d%s",
                spec.expression(),
                spec.functionId(),
                spec.ruleName(),
                when,
                spec.asyncRetryAttempts(),
                spec.input() == null ? "" : ", constant Input");
    }

    /**
     * Runs the schedule once, now, the way a scheduled run goes (retries included), after any run in progress; for
     * tests and tools that need a build at a point of their choosing.
     *
     * @return the outcome of the last invocation of the run
     */
    public InvokeResult runNow() throws InterruptedException {
        running.lockInterruptibly();
        try {
            return run(clock.instant());
        } finally {
            running.unlock();
        }
    }

    /** Scheduled events delivered: scheduled runs and {@link #runNow()} calls. */
    public long runs() {
        return runs.get();
    }

    /** Invocations of the function: runs, their retries and duplicate deliveries. */
    public long invocations() {
        return invocations.get();
    }

    /** Invocations that ended in a function error, or whose environment could not start. */
    public long errors() {
        return errors.get();
    }

    /** Runs still failed after their last retry. */
    public long failedRuns() {
        return failedRuns.get();
    }

    /** Invocations that retried a failed run. */
    public long retries() {
        return retries.get();
    }

    /** Runs delivered a second time on purpose (fault injection: EventBridge delivers at least once). */
    public long duplicateDeliveries() {
        return duplicates.get();
    }

    /** The response of the last invocation that returned one (JSON text, or Lambda's error JSON), or null. */
    public String lastResponse() {
        return lastResponse;
    }

    /** The JSON the function gets for a run scheduled at {@code time}. */
    byte[] event(Instant time) {
        if (spec.input() != null) {
            return spec.input().getBytes(StandardCharsets.UTF_8);
        }
        ObjectNode e = JSON.createObjectNode();
        e.put("version", "0");
        e.put("id", UUID.randomUUID().toString());
        e.put("detail-type", "Scheduled Event");
        e.put("source", "aws.events");
        e.put("account", accountId);
        e.put("time", DateTimeFormatter.ISO_INSTANT.format(time.truncatedTo(ChronoUnit.SECONDS)));
        e.put("region", region);
        e.putArray("resources").add(spec.ruleArn(region, accountId));
        e.putObject("detail");
        return e.toString().getBytes(StandardCharsets.UTF_8);
    }

    private void loop() {
        Instant next = clock.instant().plus(every);
        while (!stopped) {
            try {
                long wait = Duration.between(clock.instant(), next).toMillis();
                if (wait > 0) {
                    Thread.sleep(wait);
                }
                running.lockInterruptibly();
                try {
                    if (stopped) {
                        return;
                    }
                    run(next);
                } finally {
                    running.unlock();
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (stopped) {
                    return;
                }
                LOG.log(System.Logger.Level.WARNING, "schedule " + spec.id() + ": " + e.getMessage());
            }
            next = next.plus(every);
            Instant now = clock.instant();
            if (next.isBefore(now)) {
                next = now; // the run outlasted its period: the times it missed become this one run
            }
        }
    }

    /** One run: the event, Lambda's retries while it fails, and (fault injection) a second delivery. */
    private InvokeResult run(Instant time) throws InterruptedException {
        runs.incrementAndGet();
        byte[] event = event(time);
        InvokeResult r = invoke(event);
        for (int attempt = 1; r.failed() && attempt <= spec.asyncRetryAttempts() && !stopped; attempt++) {
            Thread.sleep(retryDelay(attempt).toMillis());
            retries.incrementAndGet();
            r = invoke(event);
        }
        if (r.failed()) {
            failedRuns.incrementAndGet();
        } else if (faults.duplicateDelivery(spec.functionId())) {
            duplicates.incrementAndGet();
            invoke(event);
        }
        return r;
    }

    /** Lambda's wait before retry {@code attempt} (1 minute, then 2), scaled as the period is. */
    Duration retryDelay(int attempt) {
        Duration aws = RETRY_DELAYS[Math.min(attempt, RETRY_DELAYS.length) - 1];
        if (every.isZero()) {
            return Duration.ZERO;
        }
        return Duration.ofNanos((long)
                (aws.toNanos() * ((double) every.toNanos() / spec.period().toNanos())));
    }

    private InvokeResult invoke(byte[] event) throws InterruptedException {
        invocations.incrementAndGet();
        InvokeResult r;
        try {
            r = function.invoke(event);
        } catch (RuntimeException e) {
            if (stopped) {
                throw e;
            }
            // The environment could not start: Lambda would report a failed invocation.
            errors.incrementAndGet();
            String message = JSON.createObjectNode()
                    .put("errorMessage", String.valueOf(e.getMessage()))
                    .put("errorType", "Runtime.LocalStartFailure")
                    .toString();
            lastResponse = message;
            return new InvokeResult(message.getBytes(StandardCharsets.UTF_8), "Unhandled", null);
        }
        if (r.failed()) {
            errors.incrementAndGet();
        }
        lastResponse = new String(r.payload(), StandardCharsets.UTF_8);
        return r;
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0
                ? d.toSeconds() + " s"
                : String.format(Locale.ROOT, "%.3f s", d.toMillis() / 1000.0);
    }

    /** Stops the schedule; a run in progress is interrupted (its invocation's environment is stopped). */
    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        if (thread.isAlive()) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
