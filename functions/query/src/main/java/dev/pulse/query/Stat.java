package dev.pulse.query;

import dev.pulse.aggregate.Summary;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A statistic of a bucket: {@code count sum avg min max} or a percentile {@code pNN[.N]} (for example
 * {@code p50}, {@code p99.9}), computed from the bucket's merged summary.
 *
 * @param label the name as requested, used as the key in the response
 * @param kind  what to compute
 * @param q     the quantile in 0..1 for a percentile, the bound for a rank, else 0
 */
public record Stat(String label, Kind kind, double q) {

    /** What a statistic computes. */
    public enum Kind { COUNT, SUM, AVG, MIN, MAX, PERCENTILE, RANK }

    /**
     * How many values are at most {@code bound} ({@link Summary#rank}): the cumulative count of a histogram bucket, for
     * the Prometheus API's {@code _bucket{le}} series of a stored histogram. Not a name {@code POST /query} accepts.
     */
    public static Stat rank(double bound) {
        return new Stat("le=" + bound, Kind.RANK, bound);
    }

    /** Whether computing this statistic needs the sketch. */
    public boolean needsSketch() {
        return kind == Kind.PERCENTILE || kind == Kind.RANK;
    }

    private static final Pattern PERCENTILE = Pattern.compile("p(100|[0-9]{1,2}(\\.[0-9]{1,3})?)");

    /** Parses a stat name; returns null when it is not one. */
    public static Stat parse(String s) {
        return switch (s) {
            case "count" -> new Stat(s, Kind.COUNT, 0);
            case "sum" -> new Stat(s, Kind.SUM, 0);
            case "avg" -> new Stat(s, Kind.AVG, 0);
            case "min" -> new Stat(s, Kind.MIN, 0);
            case "max" -> new Stat(s, Kind.MAX, 0);
            default -> {
                Matcher m = PERCENTILE.matcher(s);
                if (!m.matches()) {
                    yield null;
                }
                java.math.BigDecimal p = new java.math.BigDecimal(m.group(1));
                // Decimal division, so p99.9 is exactly the double nearest 0.999.
                yield p.signum() <= 0 ? null : new Stat(s, Kind.PERCENTILE, p.movePointLeft(2).doubleValue());
            }
        };
    }

    /** The value of this statistic for {@code s}, or null for an empty bucket (never a made-up zero). */
    public Double of(Summary s) {
        if (s == null || s.isEmpty()) {
            return null;
        }
        return switch (kind) {
            case COUNT -> (double) s.count();
            case SUM -> s.sum();
            case AVG -> s.sum() / s.count();
            case MIN -> s.min();
            case MAX -> s.max();
            case PERCENTILE -> s.quantile(q);
            case RANK -> s.rank(q);
        };
    }
}
