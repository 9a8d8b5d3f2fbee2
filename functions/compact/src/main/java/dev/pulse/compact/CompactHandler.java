package dev.pulse.compact;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.pulse.config.AwsClients;
import dev.pulse.config.PulseConfig;
import dev.pulse.metrics.ColdStart;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.retry.Deadline;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;
import software.amazon.lambda.powertools.metrics.Metrics;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

/**
 * Lambda entry point for the table's stream. Translates only: the stream batch to {@link CompactService},
 * the result to a partial batch response (the whole batch on failure: rollups are recomputed whole, so a
 * retry is always safe), the counters to one EMF document at the end of the invocation.
 */
public final class CompactHandler implements RequestHandler<DynamodbEvent, StreamsEventResponse> {

    private static final Logger LOG = LoggerFactory.getLogger(CompactHandler.class);

    private final CompactService service;
    private final Metrics metrics;
    private final long safetyMarginMillis;
    private final ColdStart coldStart = new ColdStart();

    /** Used by the Lambda runtime: configuration from the environment, clients built once per container. */
    public CompactHandler() {
        this(PulseConfig.fromEnvironment(System.getenv()));
    }

    private CompactHandler(PulseConfig config) {
        this(create(config), PulseMetrics.create("compact"), config.safetyMarginMillis());
    }

    CompactHandler(CompactService service, Metrics metrics, long safetyMarginMillis) {
        this.service = service;
        this.metrics = metrics;
        this.safetyMarginMillis = safetyMarginMillis;
    }

    static CompactService create(PulseConfig config) {
        return new CompactService(AwsClients.dynamoDbAsync(config.writeConcurrency(), true), config.tableName(),
                config.writeConcurrency(), config.hourlyTtl().toSeconds(), config.dailyTtl().toSeconds(),
                Clock.systemUTC());
    }


    @Override
    public StreamsEventResponse handleRequest(DynamodbEvent event, Context context) {
        return PowertoolsLogging.withLogging(context, () -> InvocationMetrics.measure(CompactMetric.class, metrics, counters -> {
            counters.add(CompactMetric.COLD_START, coldStart.take() ? 1 : 0);
            List<DynamodbEvent.DynamodbStreamRecord> records = event == null || event.getRecords() == null
                    ? List.of() : event.getRecords();
            Deadline deadline = Deadline.inMillis(context.getRemainingTimeInMillis() - safetyMarginMillis);
            CompactResult r = service.compact(records, deadline, counters);
            if (r.failed()) {
                if (r.failedSequence() == null) {
                    throw new IllegalStateException("batch failed and its first record has no sequence number: "
                            + r.failureReason());
                }
                LOG.error("batch failed, reporting {} so Lambda retries the whole batch: {}", r.failedSequence(),
                        r.failureReason(), entry("records", r.records()));
                return StreamsEventResponse.builder()
                        .withBatchItemFailures(List.of(new StreamsEventResponse.BatchItemFailure(r.failedSequence())))
                        .build();
            }
            LOG.info("rollups recomputed", entry("records", r.records()), entry("hours", r.hours()),
                    entry("days", r.days()));
            return StreamsEventResponse.builder().withBatchItemFailures(List.of()).build();
        }));
    }
}
