package dev.pulse.query;

import dev.pulse.metrics.MetricName;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** The metrics QueryFunction emits, once per invocation, as one EMF document (names in PascalCase). */
public enum QueryMetric implements MetricName {
    QUERY_LATENCY_MS {
        @Override
        public MetricUnit unit() {
            return MetricUnit.MILLISECONDS;
        }
    },
    SERIES_REQUESTED,
    ITEMS_READ,
    /** DynamoDB read capacity units the invocation consumed (as DynamoDB reports them: item sizes, not bytes sent). */
    READ_UNITS,
    CACHE_HITS,
    /** Rollups not complete (marked since their build, or not built yet) answered from the level below. */
    ROLLUP_FALLBACKS,
    UNPROCESSED,
    BAD_REQUESTS,
    COLD_START
}
