package dev.pulse.model;

import java.util.Map;
import java.util.Objects;

/**
 * One measurement of one series at one instant.
 *
 * @param name      metric name, 1-255 characters
 * @param dims      dimensions (may be empty, never null); order does not matter for identity
 * @param timestamp epoch milliseconds
 * @param value     the measured value
 * @param unit      CloudWatch unit name, or {@code null} when the producer gave none
 */
public record Datapoint(String name, Map<String, String> dims, long timestamp, double value, String unit) {

    public Datapoint {
        Objects.requireNonNull(name, "name");
        dims = dims == null ? Map.of() : dims;
    }

    /** The canonical series key of this datapoint (see {@link SeriesKey}). */
    public String seriesKey() {
        return SeriesKey.of(name, dims);
    }
}
