package dev.pulse.query;

import java.util.List;

/**
 * A validated {@code POST /query}.
 *
 * @param series        the series, at most {@link QueryLimits#MAX_SERIES}
 * @param start         first bucket's start, epoch ms, floored to a whole minute
 * @param end           exclusive end, epoch ms
 * @param periodSeconds bucket width, a multiple of 60
 * @param stats         statistics per bucket, distinct
 * @param offset        index of the first series to serve (from {@code nextToken})
 */
public record NativeQuery(List<SeriesSpec> series, long start, long end, long periodSeconds, List<Stat> stats,
        int offset) {

    public long periodMillis() {
        return periodSeconds * 1000L;
    }

    /** Number of buckets on the shared time axis. */
    public int buckets() {
        return (int) ((end - start + periodMillis() - 1) / periodMillis());
    }
}
