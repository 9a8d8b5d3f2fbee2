package dev.pulse.ingest;

import dev.pulse.config.PulseConfig;
import java.time.Clock;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * The production wiring of IngestService ({@code IngestHandler.create}, package-private) and the handler's test
 * constructor, for tests in other packages.
 */
public final class IngestHandlerAccess {

    private IngestHandlerAccess() {
    }

    public static IngestService service(PulseConfig config, DynamoDbAsyncClient dynamo, SqsClient sqs, Clock clock) {
        return IngestHandler.create(config, dynamo, sqs, clock);
    }

    /** The production wiring with its decoder wrapped by {@code decoder}, for fault injection. */
    public static IngestService service(PulseConfig config, DynamoDbAsyncClient dynamo, SqsClient sqs, Clock clock,
            UnaryOperator<IngestService.UnitDecoder> decoder) {
        return IngestHandler.create(config, dynamo, sqs, clock, decoder);
    }

    /** The Lambda handler around {@code service}, as the runtime calls it. */
    public static IngestHandler handler(IngestService service, Metrics metrics, long safetyMarginMillis) {
        return new IngestHandler(service, metrics, safetyMarginMillis);
    }
}
