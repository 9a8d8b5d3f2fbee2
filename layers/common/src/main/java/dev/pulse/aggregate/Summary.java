/*
 * Copyright 2026 The Pulse authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package dev.pulse.aggregate;

import com.datadoghq.sketch.ddsketch.DDSketch;
import java.util.ArrayList;
import java.util.List;

/**
 * A mergeable summary of a set of values: count, exact sum, min, max and a DDSketch for percentiles. Minute
 * partials, hourly and daily rollups and query buckets are all summaries; merging two gives exactly the
 * summary of the union (the sketch within its 1% relative accuracy).
 */
public final class Summary {

    private long count;
    private final ExactSum sum;
    private double min = Double.POSITIVE_INFINITY;
    private double max = Double.NEGATIVE_INFINITY;
    /** The sketch, decoded; null when there is none or while it is still {@link #encodedSketch encoded}. */
    private DDSketch sketch;
    /**
     * A sketch as stored, kept encoded until this summary is changed: merging it into another decodes it
     * straight into that one. A summary read from storage is mostly only merged from, and a decoded sketch
     * takes tens of times the memory of its encoding (a few KB against tens of bytes), which decides how much
     * of a day the query's rollup cache can hold.
     */
    private byte[] encodedSketch;
    /**
     * A cumulative counter's runs ({@link Counter}), or null for every other series (gauges, deltas: they carry and
     * store nothing more). Merging only gathers runs; {@link #counter()} joins them in {@link Counter#ORDER}, so the
     * counter of merged summaries does not depend on the order they were merged in.
     */
    private List<Counter> counters;

    public Summary() {
        this(0, new ExactSum(), Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Sketches.create());
    }

    /**
     * An empty summary without a sketch, for readers that need no percentile: a sketch is by far the largest
     * part of a summary, and a query over many buckets would otherwise hold one per bucket.
     */
    public static Summary withoutSketch() {
        return new Summary(0, new ExactSum(), Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, null);
    }

    /** A summary restored from storage; {@code sketch} is null for a summary read without it. */
    public Summary(long count, ExactSum sum, double min, double max, DDSketch sketch) {
        this.count = count;
        this.sum = sum;
        this.min = min;
        this.max = max;
        this.sketch = sketch;
    }

    /** A summary restored from storage whose sketch stays in its stored encoding until it is needed. */
    public static Summary withEncodedSketch(long count, ExactSum sum, double min, double max, byte[] encodedSketch) {
        Summary s = new Summary(count, sum, min, max, null);
        s.encodedSketch = encodedSketch;
        return s;
    }

    public void add(double value) {
        decodeOwnSketch();
        count++;
        sum.add(value);
        if (value < min) {
            min = value;
        }
        if (value > max) {
            max = value;
        }
        if (sketch != null) {
            sketch.accept(value);
        }
    }

    /**
     * Adds one sample of a cumulative counter (besides {@link #add}, which adds its value to the summary): see
     * {@link Counter}; a value that is not finite is left out of the counter.
     *
     * @param startNanos the OTLP start time, epoch ns, or 0
     */
    public void addCounterSample(long time, long startNanos, double value) {
        Counter c = Counter.sample(time, startNanos, value);
        if (c != null) {
            counterRuns().add(c);
        }
    }

    private List<Counter> counterRuns() {
        if (counters == null) {
            counters = new ArrayList<>(2);
        }
        return counters;
    }

    /** The counter's runs joined ({@link Counter#fold}), or null when this summary holds no counter samples. */
    public Counter counter() {
        return counters == null ? null : Counter.fold(counters);
    }

    /** Sets the counter (a summary restored from storage); null for none. */
    public void restoreCounter(Counter c) {
        counters = c == null ? null : new ArrayList<>(List.of(c));
    }

    /** Adds {@code other} into this summary. */
    public void merge(Summary other) {
        if (other.counters != null && !other.counters.isEmpty()) {
            counterRuns().addAll(other.counters);
        }
        if (other.count == 0) {
            return;
        }
        decodeOwnSketch();
        count += other.count;
        sum.add(other.sum);
        min = Math.min(min, other.min);
        max = Math.max(max, other.max);
        if (sketch != null) {
            if (other.sketch != null) {
                sketch.mergeWith(other.sketch);
            } else if (other.encodedSketch != null) {
                Sketches.mergeEncoded(sketch, other.encodedSketch);
            } else {
                throw new IllegalArgumentException("cannot merge a summary read without its sketch into one with it");
            }
        }
    }

    /** Before this summary changes: its own encoded sketch becomes a decoded one. */
    private void decodeOwnSketch() {
        if (encodedSketch != null) {
            sketch = Sketches.deserialize(encodedSketch);
            encodedSketch = null;
        }
    }

    public boolean isEmpty() {
        return count == 0;
    }

    public long count() {
        return count;
    }

    /** The exact sum rounded once to a double. */
    public double sum() {
        return sum.value();
    }

    public ExactSum exactSum() {
        return sum;
    }

    public double min() {
        return min;
    }

    public double max() {
        return max;
    }

    /**
     * The sketch, or null when read without it. For a sketch still encoded this is a decoded copy, so a
     * summary shared between readers (the query's cache) is never changed by reading it.
     */
    public DDSketch sketch() {
        return sketch != null ? sketch : encodedSketch != null ? Sketches.deserialize(encodedSketch) : null;
    }

    /** The sketch's stored encoding when it has not been decoded, else null (callers must not change it). */
    public byte[] encodedSketch() {
        return encodedSketch;
    }

    /**
     * The value at quantile {@code q} (0..1) by <em>nearest rank</em>, as CloudWatch answers percentiles: the value
     * at rank {@code ceil(q x count)} of the sorted values (rank 1 for {@code q} = 0), from the sketch within its
     * relative accuracy, and exact when that rank is the lowest or the highest (the stored min and max). So the p99
     * of 1, 2, 3, 4, 5, 10, 20 is 20, not an interpolation between 10 and 20. NaN when empty.
     */
    public double quantile(double q) {
        if (!hasSketch()) {
            throw new IllegalStateException("summary was read without its sketch");
        }
        if (count == 0) {
            return Double.NaN;
        }
        long rank = nearestRank(q, count);
        if (rank <= 1) {
            return min;
        }
        if (rank >= count) {
            return max;
        }
        // DDSketch answers the value whose 0-based index is the first with a cumulative count above
        // q' x (count - 1): aim half a rank past index rank - 1, so float rounding cannot fall back a bucket.
        DDSketch sk = sketch();
        // Scaled to the sketch's own count, which equals count for every summary built by add, merge and the codecs.
        double skCount = sk.getCount();
        double at = Math.min(1.0, (rank - 0.5) * skCount / count / (skCount - 1));
        return Math.max(min, Math.min(max, sk.getValueAtQuantile(at)));
    }

    /**
     * How many of the values are at most {@code bound}: exact at and beyond the stored min and max, else from the
     * sketch, each of whose bins counts wholly on the side of the bound its value lies on (so a bound within a bin's
     * 1% relative width of a value may count it on the wrong side). This is a histogram bucket's cumulative count, as
     * Prometheus' {@code _bucket{le="bound"}} holds it. 0 when empty.
     */
    public double rank(double bound) {
        return ranks(new double[] {bound})[0];
    }

    /**
     * {@link #rank} at each of {@code bounds}, with one pass over the sketch's bins (decoded once) for all of them
     * instead of one a bound: a histogram's buckets ask every bound of each merged period at once.
     */
    public double[] ranks(double[] bounds) {
        if (!hasSketch()) {
            throw new IllegalStateException("summary was read without its sketch");
        }
        double[] out = new double[bounds.length];
        int[] lastPositive = new int[bounds.length];
        int[] firstNegative = new int[bounds.length];
        boolean[] fromBins = new boolean[bounds.length];
        DDSketch sk = null;
        int binned = 0;
        for (int j = 0; j < bounds.length; j++) {
            double bound = bounds[j];
            if (count == 0 || Double.isNaN(bound) || bound < min) {
                continue; // 0
            }
            if (bound >= max) {
                out[j] = count;
                continue;
            }
            if (sk == null) {
                sk = sketch();
            }
            com.datadoghq.sketch.ddsketch.mapping.IndexMapping mapping = sk.getIndexMapping();
            // Bin values grow with the index, so the bins on each side of the bound are a range of indices: found
            // once, instead of computing every bin's value (an exp each) per bound, which was most of a cold
            // histogram read.
            lastPositive[j] = bound <= 0 ? Integer.MIN_VALUE : lastIndexAtMost(mapping, bound);
            firstNegative[j] = bound >= 0 ? Integer.MIN_VALUE : firstIndexAtLeast(mapping, -bound);
            if (lastPositive[j] == NO_INDEX || firstNegative[j] == NO_INDEX) {
                out[j] = rankByBinValues(bound);
                continue;
            }
            fromBins[j] = true;
            binned++;
        }
        if (binned == 0) {
            return out;
        }
        double[] below = new double[bounds.length];
        double[] total = new double[1]; // values in the two stores
        sk.getNegativeValueStore().forEach((index, c) -> {
            total[0] += c;
            for (int j = 0; j < below.length; j++) {
                if (fromBins[j] && index >= firstNegative[j]) {
                    below[j] += c;
                }
            }
        });
        sk.getPositiveValueStore().forEach((index, c) -> {
            total[0] += c;
            for (int j = 0; j < below.length; j++) {
                if (fromBins[j] && index <= lastPositive[j]) {
                    below[j] += c;
                }
            }
        });
        double skCount = sk.getCount(); // a pass over every bin: once, not once a bound
        for (int j = 0; j < bounds.length; j++) {
            if (fromBins[j]) {
                out[j] = fromCounts(skCount, bounds[j], below[j], total[0]);
            }
        }
        return out;
    }

    /** {@link #rank} from every bin's value: the definition, for bounds the mapping cannot index. */
    double rankByBinValues(double bound) {
        if (count == 0 || Double.isNaN(bound) || bound < min) {
            return 0;
        }
        if (bound >= max) {
            return count;
        }
        DDSketch sk = sketch();
        com.datadoghq.sketch.ddsketch.mapping.IndexMapping mapping = sk.getIndexMapping();
        double[] below = new double[2];
        sk.getNegativeValueStore().forEach((index, c) -> {
            below[1] += c;
            if (-mapping.value(index) <= bound) {
                below[0] += c;
            }
        });
        sk.getPositiveValueStore().forEach((index, c) -> {
            below[1] += c;
            if (mapping.value(index) <= bound) {
                below[0] += c;
            }
        });
        return fromSketch(sk, bound, below);
    }

    /** Returned by the index searches when they cannot decide: the caller computes every bin's value instead. */
    private static final int NO_INDEX = Integer.MAX_VALUE;

    /** The largest index whose bin value is at most {@code x} ({@code x > 0}), or {@link #NO_INDEX}. */
    static int lastIndexAtMost(com.datadoghq.sketch.ddsketch.mapping.IndexMapping mapping, double x) {
        if (!(x >= mapping.minIndexableValue() && x <= mapping.maxIndexableValue())) {
            return NO_INDEX;
        }
        int j = mapping.index(x);
        // x lies in bin j, whose value lies in the bin too: at most one step either way, a few allowed for rounding.
        for (int step = 0; step < 4; step++) {
            if (mapping.value(j) > x) {
                j--;
            } else if (mapping.value(j + 1) <= x) {
                j++;
            } else {
                return j;
            }
        }
        return NO_INDEX;
    }

    /** The smallest index whose bin value is at least {@code x} ({@code x > 0}), or {@link #NO_INDEX}. */
    static int firstIndexAtLeast(com.datadoghq.sketch.ddsketch.mapping.IndexMapping mapping, double x) {
        if (!(x >= mapping.minIndexableValue() && x <= mapping.maxIndexableValue())) {
            return NO_INDEX;
        }
        int j = mapping.index(x);
        for (int step = 0; step < 4; step++) {
            if (mapping.value(j) < x) {
                j++;
            } else if (mapping.value(j - 1) >= x) {
                j--;
            } else {
                return j;
            }
        }
        return NO_INDEX;
    }

    private double fromSketch(DDSketch sk, double bound, double[] below) {
        return fromCounts(sk.getCount(), bound, below[0], below[1]);
    }

    /**
     * The rank from the sketch's counts: {@code below} in the bins at most the bound, {@code binsTotal} in all bins, the
     * rest ({@code skCount - binsTotal}) zeros; scaled to the exact count.
     */
    private double fromCounts(double skCount, double bound, double below, double binsTotal) {
        double zeros = skCount - binsTotal;
        if (bound >= 0) {
            below += zeros;
        }
        return Math.max(0, Math.min(count, Math.rint(below * count / skCount)));
    }

    /**
     * {@code ceil(q x count)}, at least 1. A product within a few ulps of a whole number is that number: it should
     * be one but came out a rounding error above it (0.9 x 10 = 9.000000000000002). A percentile has at most three
     * decimals, so a product that is not whole misses one by at least 1e-5, far more than the rounding error.
     */
    static long nearestRank(double q, long count) {
        double x = q * count;
        double whole = Math.rint(x);
        return Math.max(1, (long) (Math.abs(x - whole) <= 4 * Math.ulp(x) ? whole : Math.ceil(x)));
    }

    /** Whether this summary carries a sketch (percentiles). */
    public boolean hasSketch() {
        return sketch != null || encodedSketch != null;
    }
}
