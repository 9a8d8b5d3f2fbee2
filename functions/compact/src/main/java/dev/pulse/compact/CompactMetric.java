package dev.pulse.compact;

import dev.pulse.metrics.MetricName;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** The metrics CompactFunction emits, once per invocation, as one EMF document (names in PascalCase). */
public enum CompactMetric implements MetricName {
    RECORDS_IN,
    HOURS_RECOMPUTED,
    DAYS_RECOMPUTED,
    ITEMS_READ,
    ROLLUPS_WRITTEN,
    BATCH_FAILURES,
    COMPACT_LAG_MS {
        @Override
        public MetricUnit unit() {
            return MetricUnit.MILLISECONDS;
        }
    },
    COLD_START
}
