package dev.pulse.query;

import dev.pulse.config.PulseConfig;
import java.time.Clock;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * The benchmarks' way to the query handler's collaborator constructor (package-private, as for tests): the
 * runtime's wiring for {@code config}, on a given client, clock and metrics sink.
 */
public final class QueryBenchAccess {

    private QueryBenchAccess() {
    }

    public static QueryHandler handler(PulseConfig config, DynamoDbAsyncClient client, Clock clock, Metrics metrics) {
        return new QueryHandler(config, client, clock, metrics);
    }

    /** As {@link #handler}, with its rollup cache given, so a benchmark can weigh it. */
    public static QueryHandler handler(PulseConfig config, DynamoDbAsyncClient client, Clock clock, Metrics metrics,
            RollupCache cache) {
        return new QueryHandler(config, client, clock, metrics, cache);
    }
}
