package dev.pulse.query;

import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * The benchmarks' way to the query handler's collaborator constructor (package-private, as for tests), wired
 * as {@code QueryHandler}'s runtime constructor wires it: the same concurrency, compaction grace and cache size.
 */
public final class QueryBenchAccess {

    /** The template's WriteConcurrency default; the handler reads with four times that many calls in flight. */
    public static final int WRITE_CONCURRENCY = 8;

    private QueryBenchAccess() {
    }

    /** A handler over {@code table} whose clock reads {@code clock}, publishing to {@code metrics}. */
    public static QueryHandler handler(DynamoDbAsyncClient client, String table, java.time.Clock clock, Metrics metrics) {
        return new QueryHandler(new QueryService(client, table, WRITE_CONCURRENCY * 4, 5 * 60_000L,
                new RollupCache(400_000, 5 * 60_000L), clock), new CatalogService(client, table), metrics, 1_000);
    }
}
