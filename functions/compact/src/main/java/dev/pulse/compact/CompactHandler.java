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
package dev.pulse.compact;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import dev.pulse.config.PulseConfig;
import dev.pulse.metrics.ColdStart;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.snapstart.Priming;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * Lambda entry point of the compactor, invoked by its EventBridge schedule. Translates only: one run of
 * {@link CompactService}, its outcome as the response, the counters as one EMF document at the end of the
 * invocation. A run that fails on a DynamoDB error throws after reporting, so the function's Errors metric and
 * alarm see it; what it did not build stays queued for the next run either way.
 */
public final class CompactHandler implements RequestHandler<ScheduledEvent, CompactResult> {

    private static final Logger LOG = LoggerFactory.getLogger(CompactHandler.class);
    private final CompactService service;
    private final Metrics metrics;
    private final long safetyMarginMillis;
    private final ColdStart coldStart = new ColdStart();
    /** The SnapStart hooks; held here because the runtime's CRaC context holds them weakly. */
    // Never read: the field is the strong reference that keeps the hooks alive.
    @SuppressWarnings("UnusedVariable")
    private Priming priming;

    /**
     * Used by the Lambda runtime: configuration from the environment, clients built once per container, the
     * SnapStart priming hooks registered.
     */
    public CompactHandler() {
        this(PulseConfig.fromEnvironment(System.getenv()));
    }

    private CompactHandler(PulseConfig config) {
        this(CompactFunction.service(config), PulseMetrics.create("compact"), config.safetyMarginMillis());
        this.priming = Priming.register(new CompactPriming(config));
    }

    /** The handler around a wired service; {@link CompactFunction#handler} is the way in from other packages. */
    CompactHandler(CompactService service, Metrics metrics, long safetyMarginMillis) {
        this.service = service;
        this.metrics = metrics;
        this.safetyMarginMillis = safetyMarginMillis;
    }

    @Override
    public CompactResult handleRequest(ScheduledEvent event, Context context) {
        return PowertoolsLogging.withLogging(
                context,
                () -> InvocationMetrics.measure(CompactMetric.class, metrics, counters -> {
                    counters.add(CompactMetric.COLD_START, coldStart.take() ? 1 : 0);
                    Deadline deadline = Deadline.inMillis(context.getRemainingTimeInMillis() - safetyMarginMillis);
                    CompactResult r = service.build(deadline, counters);
                    if (r.stopped() && !r.stopReason().startsWith("deadline")) {
                        LOG.error(
                                "compaction run failed, what it did not build stays queued",
                                entry("reason", r.stopReason()),
                                entry("hoursBuilt", r.hoursBuilt()),
                                entry("daysBuilt", r.daysBuilt()),
                                entry("pending", r.periodsPending()));
                        throw new IllegalStateException("compaction run failed: " + r.stopReason());
                    }
                    LOG.info(
                            "compaction run",
                            entry("queued", r.periodsQueued()),
                            entry("hoursBuilt", r.hoursBuilt()),
                            entry("daysBuilt", r.daysBuilt()),
                            entry("pending", r.periodsPending()),
                            entry("losingWrites", r.losingWrites()),
                            entry("marksResolved", r.marksResolved()),
                            entry("oldestPendingAgeSeconds", r.oldestPendingAgeSeconds()),
                            entry("stopped", r.stopped()));
                    return r;
                }));
    }
}
