package dev.pulse.query;

import dev.pulse.testing.Emulators;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.RecordingMetrics;
import software.amazon.lambda.powertools.metrics.Metrics;

/** The production wiring of QueryHandler (package-private) on a pipeline's table, configuration and clock. */
public final class QueryHandlerAccess {

    private QueryHandlerAccess() {
    }

    /** A cold query container on {@code p}: its own rollup cache. */
    public static QueryHandler create(Pipeline p) {
        return create(p, new RecordingMetrics());
    }

    public static QueryHandler create(Pipeline p, Metrics metrics) {
        return new QueryHandler(p.config, Emulators.dynamoAsync(), p.clock(), metrics);
    }
}
