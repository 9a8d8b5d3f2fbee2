package dev.pulse.query;

import dev.pulse.model.SeriesKey;
import java.util.Map;

/**
 * One requested series.
 *
 * @param name metric name
 * @param dims dimensions (order does not matter)
 */
public record SeriesSpec(String name, Map<String, String> dims) {

    public String key() {
        return SeriesKey.of(name, dims);
    }
}
