package dev.pulse.compact;

import dev.pulse.config.PulseConfig;
import java.time.Clock;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/** The production wiring of the rollup builder (package-private in CompactHandler) for tests in other packages. */
public final class CompactHandlerAccess {

    private CompactHandlerAccess() {
    }

    public static CompactService service(PulseConfig config, DynamoDbAsyncClient dynamo, Clock clock) {
        return CompactHandler.create(config, dynamo, clock);
    }

    /** The handler as Lambda runs it, on {@code dynamo} and {@code clock}, publishing to {@code metrics}. */
    public static CompactHandler handler(PulseConfig config, DynamoDbAsyncClient dynamo, Clock clock, Metrics metrics) {
        return new CompactHandler(service(config, dynamo, clock), metrics, config.safetyMarginMillis());
    }
}
