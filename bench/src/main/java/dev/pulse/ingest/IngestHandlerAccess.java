package dev.pulse.ingest;

import dev.pulse.config.PulseConfig;
import java.time.Clock;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * The benchmarks' way to the handler's package-private constructor: the real {@link IngestHandler} over an
 * {@link IngestService} wired to DynamoDB Local, where the public constructor would build its clients from the
 * Lambda environment. Lives in the handler's package on the bench class path only; never deployed.
 */
public final class IngestHandlerAccess {

    private IngestHandlerAccess() {
    }

    /** {@code IngestHandler.create(config, dynamo, sqs)}: the production wiring on the given clients. */
    public static IngestService service(PulseConfig config, DynamoDbAsyncClient dynamo, SqsClient sqs) {
        return IngestHandler.create(config, dynamo, sqs);
    }

    /** {@code IngestHandler.create(config, dynamo, sqs, clock)}: the same wiring on a given (simulated) clock. */
    public static IngestService service(PulseConfig config, DynamoDbAsyncClient dynamo, SqsClient sqs, Clock clock) {
        return IngestHandler.create(config, dynamo, sqs, clock);
    }

    /** {@code new IngestHandler(service, metrics, safetyMarginMillis)}. */
    public static IngestHandler handler(IngestService service, Metrics metrics, long safetyMarginMillis) {
        return new IngestHandler(service, metrics, safetyMarginMillis);
    }
}
