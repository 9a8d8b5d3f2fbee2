package dev.pulse.query.promql.internal;

import java.util.SortedMap;

/**
 * One series' per-minute summaries over the minutes {@code [first, first + sum.length * 1 min)}: the sum and count of
 * each minute's datapoints (count 0 where a minute holds none). The functions that need the order of the data in a
 * window (irate, delta, last_over_time, ...) are answered from these.
 */
public record Minutes(SortedMap<String, String> labels, long first, double[] sum, double[] count) {
}
