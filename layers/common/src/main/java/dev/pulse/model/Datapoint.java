package dev.pulse.model;

import dev.pulse.aggregate.Summary;
import java.util.Map;
import java.util.Objects;

/**
 * One measurement of one series at one instant, or (from OTLP histograms) a producer's own summary of many.
 *
 * @param name      metric name, 1-255 characters
 * @param dims      dimensions (may be empty, never null); order does not matter for identity
 * @param timestamp epoch milliseconds
 * @param value     the measured value; for a pre-aggregated datapoint the sum of its values
 * @param unit      CloudWatch unit name, or {@code null} when the producer gave none
 * @param summary   null for a single value; otherwise the count, sum, min, max and sketch of the values the
 *                  producer already aggregated, merged as a whole into the minute (so its count and sum stay exact)
 * @param kind      the producer's metric type where it sends one (OTLP: {@link MetricKind}), else {@code null}; kept in
 *                  the series catalog so the query API can answer under the Prometheus names of OTel metrics
 */
public record Datapoint(String name, Map<String, String> dims, long timestamp, double value, String unit, Summary summary,
        MetricKind kind) {

    public Datapoint {
        Objects.requireNonNull(name, "name");
        dims = dims == null ? Map.of() : dims;
    }

    public Datapoint(String name, Map<String, String> dims, long timestamp, double value, String unit, Summary summary) {
        this(name, dims, timestamp, value, unit, summary, null);
    }

    /** A single measured value. */
    public Datapoint(String name, Map<String, String> dims, long timestamp, double value, String unit) {
        this(name, dims, timestamp, value, unit, null);
    }

    /** A producer's summary of many values; {@link #value()} is their sum. */
    public static Datapoint preAggregated(String name, Map<String, String> dims, long timestamp, String unit, Summary summary) {
        return new Datapoint(name, dims, timestamp, summary.sum(), unit, Objects.requireNonNull(summary, "summary"));
    }

    /** This datapoint with the producer's metric type. */
    public Datapoint withKind(MetricKind k) {
        return new Datapoint(name, dims, timestamp, value, unit, summary, k);
    }

    /** The canonical series key of this datapoint (see {@link SeriesKey}). */
    public String seriesKey() {
        return SeriesKey.of(name, dims);
    }
}
