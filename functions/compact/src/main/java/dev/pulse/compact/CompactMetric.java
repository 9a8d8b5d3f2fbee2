package dev.pulse.compact;

import dev.pulse.metrics.MetricName;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** The metrics CompactFunction emits, once per invocation, as one EMF document. */
public enum CompactMetric implements MetricName {
    RECORDS_IN("RecordsIn"),
    HOURS_RECOMPUTED("HoursRecomputed"),
    DAYS_RECOMPUTED("DaysRecomputed"),
    ITEMS_READ("ItemsRead"),
    ROLLUPS_WRITTEN("RollupsWritten"),
    BATCH_FAILURES("BatchFailures"),
    COMPACT_LAG_MS("CompactLagMs", MetricUnit.MILLISECONDS),
    COLD_START("ColdStart");

    private final String metricName;
    private final MetricUnit unit;

    CompactMetric(String metricName) {
        this(metricName, MetricUnit.COUNT);
    }

    CompactMetric(String metricName, MetricUnit unit) {
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
