package dev.pulse.ingest;

import dev.pulse.metrics.MetricName;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** The metrics IngestFunction emits, once per invocation, as one EMF document (names in PascalCase). */
public enum IngestMetric implements MetricName {
    RECORDS_IN,
    DATAPOINTS_IN,
    POISON_RECORDS,
    SKIPPED_EVENTS,
    ITEMS_WRITTEN,
    MARKS_WRITTEN,
    WRITE_RETRIES,
    THROTTLES,
    UNPROCESSED_ITEMS,
    BATCH_FAILURES,
    /** Redelivered records the shard's committed position already covers: skipped. */
    ALREADY_STORED_RECORDS,
    /** Attempts that found a newer attempt of their shard and failed without committing. */
    SUPERSEDED_ATTEMPTS,
    INGEST_LAG_MS {
        @Override
        public MetricUnit unit() {
            return MetricUnit.MILLISECONDS;
        }
    },
    COLD_START
}
