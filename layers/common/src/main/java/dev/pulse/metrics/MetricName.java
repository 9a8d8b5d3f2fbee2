package dev.pulse.metrics;

import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** A metric a function emits: implemented by each function's enum of metric names. */
public interface MetricName {

    /** The CloudWatch metric name, e.g. {@code RecordsIn}. */
    String metricName();

    MetricUnit unit();
}
