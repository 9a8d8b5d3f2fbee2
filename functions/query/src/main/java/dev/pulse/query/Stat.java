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
    public enum Kind {
        COUNT,
        SUM,
        AVG,
        MIN,
        MAX,
        PERCENTILE,
        RANK,
        /** A cumulative counter's reset-corrected increase ({@code dev.pulse.aggregate.Counter}); the sum for other data. */
        INCREASE,
        /** A cumulative counter's resets, its first and last sample's value and time (epoch ms); absent for other data. */
        RESETS,
        COUNTER_FIRST,
        COUNTER_FIRST_TIME,
        COUNTER_LAST,
        COUNTER_LAST_TIME
    }

    /**
     * The increase in the bucket, for the Prometheus API's {@code rate} and {@code increase}: over a cumulative
     * counter the reset-corrected increase from the bucket's first sample to its last, over anything else (deltas) the
     * sum, which is the increase there. Not a name {@code POST /query} accepts.
     */
    public static final Stat INCREASE = new Stat("increase", Kind.INCREASE, 0);
    /** A cumulative counter's resets in the bucket (absent for other data). Not a name {@code POST /query} accepts. */
    public static final Stat RESETS = new Stat("resets", Kind.RESETS, 0);
    /** A cumulative counter's first sample in the bucket (absent for other data). */
    public static final Stat COUNTER_FIRST = new Stat("counter.first", Kind.COUNTER_FIRST, 0);

    public static final Stat COUNTER_FIRST_TIME = new Stat("counter.firstTime", Kind.COUNTER_FIRST_TIME, 0);
    /** A cumulative counter's last sample in the bucket (absent for other data). */
    public static final Stat COUNTER_LAST = new Stat("counter.last", Kind.COUNTER_LAST, 0);

    public static final Stat COUNTER_LAST_TIME = new Stat("counter.lastTime", Kind.COUNTER_LAST_TIME, 0);

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
                yield p.signum() <= 0
                        ? null
                        : new Stat(s, Kind.PERCENTILE, p.movePointLeft(2).doubleValue());
            }
        };
    }

    /** The value of this statistic for {@code s}, or null for an empty bucket (never a made-up zero). */
    public Double of(Summary s) {
        if (s == null) {
            return null;
        }
        if (counterKind()) {
            return ofCounter(s.counter());
        }
        if (s.isEmpty()) {
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
            case INCREASE -> increase(s);
            default -> throw new IllegalStateException(kind.name());
        };
    }

    /**
     * {@link Kind#INCREASE} of {@code s}: a cumulative counter's increase, absent (null) when all its samples in the
     * bucket are at one instant (as Prometheus, which needs two samples); the sum for other data.
     */
    static Double increase(Summary s) {
        dev.pulse.aggregate.Counter c = s.counter();
        if (c == null) {
            return s.sum();
        }
        return c.lastTime() == c.firstTime() ? null : c.increase();
    }

    /** Whether this statistic is read from a counter alone (absent without one). */
    public boolean counterKind() {
        return switch (kind) {
            case RESETS, COUNTER_FIRST, COUNTER_FIRST_TIME, COUNTER_LAST, COUNTER_LAST_TIME -> true;
            default -> false;
        };
    }

    /** A {@link #counterKind()} statistic of {@code c}; null without a counter. */
    public Double ofCounter(dev.pulse.aggregate.Counter c) {
        if (c == null) {
            return null;
        }
        return switch (kind) {
            case RESETS -> (double) c.resets();
            case COUNTER_FIRST -> c.firstValue();
            case COUNTER_FIRST_TIME -> (double) c.firstTime();
            case COUNTER_LAST -> c.lastValue();
            case COUNTER_LAST_TIME -> (double) c.lastTime();
            default -> throw new IllegalStateException(kind.name());
        };
    }
}
