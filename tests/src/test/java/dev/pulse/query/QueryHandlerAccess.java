package dev.pulse.query;

import dev.pulse.testing.Emulators;
import dev.pulse.testing.Pipeline;
import software.amazon.lambda.powertools.metrics.MetricsBuilder;

/** Builds a QueryHandler (its collaborator constructor is package-private) on a pipeline's table. */
public final class QueryHandlerAccess {

    private QueryHandlerAccess() {
    }

    public static QueryHandler create(Pipeline p) {
        return new QueryHandler(new QueryService(Emulators.dynamo().asyncClient(), p.table, 8, 300_000L,
                new RollupCache(100_000, 300_000L), p.clock()),
                new CatalogService(Emulators.dynamo().asyncClient(), p.table),
                MetricsBuilder.builder().withNamespace("PulseTest").withService("query").build(), 3_000);
    }
}
