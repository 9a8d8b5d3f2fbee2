package dev.pulse.aggregate;

import com.datadoghq.sketch.ddsketch.DDSketch;

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
    private final DDSketch sketch;

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

    public void add(double value) {
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

    /** Adds {@code other} into this summary. */
    public void merge(Summary other) {
        if (other.count == 0) {
            return;
        }
        count += other.count;
        sum.add(other.sum);
        min = Math.min(min, other.min);
        max = Math.max(max, other.max);
        if (sketch != null) {
            if (other.sketch == null) {
                throw new IllegalArgumentException("cannot merge a summary read without its sketch into one with it");
            }
            sketch.mergeWith(other.sketch);
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

    public DDSketch sketch() {
        return sketch;
    }

    /** The value at quantile {@code q} (0..1) from the sketch, or NaN when empty. */
    public double quantile(double q) {
        if (sketch == null) {
            throw new IllegalStateException("summary was read without its sketch");
        }
        return count == 0 ? Double.NaN : sketch.getValueAtQuantile(q);
    }

    /** Whether this summary carries a sketch (percentiles). */
    public boolean hasSketch() {
        return sketch != null;
    }
}
