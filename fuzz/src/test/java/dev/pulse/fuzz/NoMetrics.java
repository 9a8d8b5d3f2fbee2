package dev.pulse.fuzz;

import com.amazonaws.services.lambda.runtime.Context;
import java.time.Instant;
import java.util.function.Consumer;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.model.MetricResolution;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** Metrics that go nowhere: a fuzzed handler would otherwise print an EMF document per input. */
public final class NoMetrics implements Metrics {

    @Override
    public void addMetric(String name, double value, MetricUnit unit, MetricResolution resolution) {
    }

    @Override
    public void addDimension(DimensionSet dimensionSet) {
    }

    @Override
    public void setTimestamp(Instant timestamp) {
    }

    @Override
    public void addMetadata(String key, Object value) {
    }

    @Override
    public void setDefaultDimensions(DimensionSet dimensionSet) {
    }

    @Override
    public DimensionSet getDefaultDimensions() {
        return new DimensionSet();
    }

    @Override
    public void setNamespace(String namespace) {
    }

    @Override
    public void setRaiseOnEmptyMetrics(boolean raiseOnEmptyMetrics) {
    }

    @Override
    public void clearDefaultDimensions() {
    }

    @Override
    public void flush() {
    }

    @Override
    public void captureColdStartMetric(Context context, DimensionSet dimensions) {
    }

    @Override
    public void captureColdStartMetric(DimensionSet dimensions) {
    }

    @Override
    public void flushMetrics(Consumer<Metrics> metrics) {
    }
}
