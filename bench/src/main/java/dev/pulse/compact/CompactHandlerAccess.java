package dev.pulse.compact;

import dev.pulse.config.PulseConfig;
import java.time.Clock;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * The benchmarks' way to the rollup builder's package-private wiring: the real {@link CompactHandler} over the
 * {@link CompactService} the runtime builds for a configuration, on a given client and clock (the cost benchmark
 * runs it on a simulated clock against DynamoDB Local). Lives in the handler's package on the bench class path only;
 * never deployed.
 */
public final class CompactHandlerAccess {

    private CompactHandlerAccess() {
    }

    /** {@code CompactHandler.create(config, dynamo, clock)}: the production wiring on the given client and clock. */
    public static CompactService service(PulseConfig config, DynamoDbAsyncClient dynamo, Clock clock) {
        return CompactHandler.create(config, dynamo, clock);
    }

    /** {@code new CompactHandler(service, metrics, safetyMarginMillis)}. */
    public static CompactHandler handler(CompactService service, Metrics metrics, long safetyMarginMillis) {
        return new CompactHandler(service, metrics, safetyMarginMillis);
    }
}
