package dev.pulse.ingest;

import dev.pulse.metrics.MetricName;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** The metrics IngestFunction emits, once per invocation, as one EMF document. */
public enum IngestMetric implements MetricName {
    RECORDS_IN("RecordsIn"),
    DATAPOINTS_IN("DatapointsIn"),
    POISON_RECORDS("PoisonRecords"),
    SKIPPED_EVENTS("SkippedEvents"),
    ITEMS_WRITTEN("ItemsWritten"),
    WRITE_RETRIES("WriteRetries"),
    THROTTLES("Throttles"),
    UNPROCESSED_ITEMS("UnprocessedItems"),
    BATCH_FAILURES("BatchFailures"),
    INGEST_LAG_MS("IngestLagMs", MetricUnit.MILLISECONDS),
    COLD_START("ColdStart");

    private final String metricName;
    private final MetricUnit unit;

    IngestMetric(String metricName) {
        this(metricName, MetricUnit.COUNT);
    }

    IngestMetric(String metricName, MetricUnit unit) {
        this.metricName = metricName;
        this.unit = unit;
    }

    @Override
    public String metricName() {
        return metricName;
    }

    @Override
    public MetricUnit unit() {
        return unit;
    }
}
