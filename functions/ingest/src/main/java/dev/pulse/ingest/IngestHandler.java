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
package dev.pulse.ingest;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.pulse.config.PulseConfig;
import dev.pulse.metrics.ColdStart;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.snapstart.Priming;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * Lambda entry point for the Kinesis event source mapping. Translates only: the event to
 * {@link IngestService}, the result to a partial batch response, the counters to one EMF document flushed
 * at the end of the invocation.
 */
public final class IngestHandler implements RequestHandler<KinesisEvent, StreamsEventResponse> {

    private static final Logger LOG = LoggerFactory.getLogger(IngestHandler.class);
    /** The {@code eventName} of the records in a batch sent by the redrive tool (scripts/redrive.py). */
    public static final String REDRIVE_EVENT_NAME = "pulse:redrive";

    private final IngestService service;
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
    public IngestHandler() {
        this(PulseConfig.fromEnvironment(System.getenv()));
    }

    private IngestHandler(PulseConfig config) {
        this(IngestFunction.service(config), PulseMetrics.create("ingest"), config.safetyMarginMillis());
        this.priming = Priming.register(new IngestPriming(config));
    }

    /** The handler around a wired service; {@link IngestFunction#handler} is the way in from other packages. */
    IngestHandler(IngestService service, Metrics metrics, long safetyMarginMillis) {
        this.service = service;
        this.metrics = metrics;
        this.safetyMarginMillis = safetyMarginMillis;
    }

    @Override
    public StreamsEventResponse handleRequest(KinesisEvent event, Context context) {
        return PowertoolsLogging.withLogging(context, () -> handle(event, context));
    }

    private StreamsEventResponse handle(KinesisEvent event, Context context) {
        return InvocationMetrics.measure(IngestMetric.class, metrics, counters -> {
            counters.add(IngestMetric.COLD_START, coldStart.take() ? 1 : 0);
            List<KinesisEvent.KinesisEventRecord> records =
                    event == null || event.getRecords() == null ? List.of() : event.getRecords();
            Deadline deadline = Deadline.inMillis(context.getRemainingTimeInMillis() - safetyMarginMillis);
            boolean redrive = isRedrive(records);
            IngestResult r = redrive
                    ? service.redrive(records, deadline, counters)
                    : service.ingest(records, deadline, counters);
            if (redrive && r.failed()) {
                // A synchronous invocation by the redrive tool: it reads the error and keeps the DLQ message.
                throw new RedriveFailedException("redrive of " + r.records() + " records failed: " + r.failureReason());
            }
            if (r.failed()) {
                if (r.failedSequence() == null) {
                    // Nothing to report a partial failure against: a function error makes Lambda retry it all.
                    throw new IllegalStateException(
                            "batch failed and its first record has no sequence number: " + r.failureReason());
                }
                LOG.error(
                        "batch failed, reporting its first record so Lambda retries the whole batch",
                        entry("reported", r.failedSequence()),
                        entry("reason", r.failureReason()),
                        entry("records", r.records()),
                        entry("partials", r.partials()));
                return StreamsEventResponse.builder()
                        .withBatchItemFailures(List.of(new StreamsEventResponse.BatchItemFailure(r.failedSequence())))
                        .build();
            }
            if (r.endedEarly() != null) {
                // Not a failure: the records before failedSequence are stored and committed, Lambda resumes there.
                LOG.warn(
                        "batch stored up to the reported record; Lambda resumes there",
                        entry("reported", r.failedSequence()),
                        entry("reason", r.endedEarly()),
                        entry("records", r.records()),
                        entry("datapoints", r.datapoints()),
                        entry("partials", r.partials()),
                        entry("poison", r.poisonRecords()));
                return StreamsEventResponse.builder()
                        .withBatchItemFailures(List.of(new StreamsEventResponse.BatchItemFailure(r.failedSequence())))
                        .build();
            }
            LOG.info(
                    redrive ? "batch redriven" : "batch ingested",
                    entry("records", r.records()),
                    entry("datapoints", r.datapoints()),
                    entry("partials", r.partials()),
                    entry("poison", r.poisonRecords()),
                    entry("skipped", r.skippedEvents()),
                    entry("alreadyStored", r.alreadyStored()),
                    entry("itemsWritten", r.write().itemsWritten()),
                    entry("redrive", redrive),
                    entry("retries", r.write().retries()),
                    entry("lagMs", r.maxLagMillis()));
            return StreamsEventResponse.builder()
                    .withBatchItemFailures(List.of())
                    .build();
        });
    }

    /**
     * True for a batch the redrive tool sent: every record's {@code eventName} is {@value #REDRIVE_EVENT_NAME}.
     * A batch that mixes it with stream records is a hand-made event and is refused.
     */
    static boolean isRedrive(List<KinesisEvent.KinesisEventRecord> records) {
        long marked = records.stream()
                .filter(r -> REDRIVE_EVENT_NAME.equals(r.getEventName()))
                .count();
        if (marked > 0 && marked < records.size()) {
            throw new IllegalArgumentException("a batch mixes " + marked + " redrive records (eventName "
                    + REDRIVE_EVENT_NAME + ") with " + (records.size() - marked) + " stream records");
        }
        return marked > 0;
    }

    /** A redrive that could not store its batch; the redrive tool shows the message and keeps the DLQ message. */
    public static final class RedriveFailedException extends RuntimeException {
        RedriveFailedException(String message) {
            super(message);
        }
    }
}
