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

import dev.pulse.aggregate.Sketches;
import dev.pulse.aggregate.Summary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * The values of a closed rollup that fall into one bucket of a query's period, merged once: what a warm
 * container serves a repeated query from. A dashboard asks the same period again and again, so the merge of a
 * bucket's minute summaries (a sketch decoded and merged per minute) and its percentiles are computed on the
 * first request and remembered; a repeat reads numbers. Immutable apart from the remembered percentiles.
 */
final class PeriodBucket {

    /**
     * At most this many stat labels' values are remembered per bucket (texts, and percentiles by quantile); past it
     * a value is computed each time. A client asking ever new labels would otherwise grow a cached bucket without
     * bound, and the cache weighs each bucket for this many ({@link #weight}).
     */
    static final int MAX_REMEMBERED = 8;
    /** Bytes one remembered label costs at most (a short String and its slot, a percentile pair), in weight units. */
    private static final int REMEMBERED_WEIGHT =
            (MAX_REMEMBERED * 80 + RollupCache.ENCODED_BYTES_PER_UNIT - 1) / RollupCache.ENCODED_BYTES_PER_UNIT;

    /** Start of the query's bucket this belongs to, epoch ms. */
    final long start;
    /** The bucket's summary; its sketch, if any, kept in its stored encoding (tens of bytes, not kilobytes). */
    final Summary summary;

    private final boolean withSketch;
    /** The exact sum rounded once: every repeat would otherwise add up the exact sum's partials again. */
    private final double sum;
    /** Percentiles answered so far: pairs of quantile and value (a dashboard asks one or two). */
    private volatile double[] percentiles = new double[0];
    /** Remembered ranks ({@link Stat.Kind#RANK}) as {bound, value} pairs, apart from the percentiles' quantiles. */
    private volatile double[] ranks = new double[0];
    /**
     * The last bucket this one was joined with and the result: a query bucket that spans two rollups (a grid
     * not on the hour, as "the last 24 hours" from now has) is the same pair on every refresh, so the merge of
     * the pair is kept with its first part, at most one a bucket.
     */
    private PeriodBucket joinedWith;

    private PeriodBucket joined;
    /** Whether a join is remembered here: only on a bucket grouped from a rollup, never on a join's result. */
    private final boolean joinable;
    /**
     * Values as JSON text, by stat label, in pairs: a repeat writes them as they are. Printing a double is most
     * of the cost of a day's answer (over 100,000 numbers) once nothing is merged.
     */
    private volatile String[] texts = new String[0];

    private PeriodBucket(long start, Summary summary, boolean withSketch, boolean joinable) {
        this.start = start;
        this.summary = summary;
        this.withSketch = withSketch;
        this.joinable = joinable;
        this.sum = summary.sum();
    }

    /**
     * Groups a rollup's entries (minute or hour summaries by start time) into buckets of {@code periodMillis} on
     * the grid through {@code phase}, leaving out entries at or after {@code endMillis}; the percentiles in
     * {@code stats} are computed while each merged sketch is decoded. Empty entries make no bucket.
     */
    static PeriodBucket[] group(
            SortedMap<Long, Summary> entries,
            long periodMillis,
            long phase,
            long endMillis,
            boolean withSketch,
            List<Stat> stats) {
        List<PeriodBucket> out = new ArrayList<>();
        long current = Long.MIN_VALUE;
        List<Summary> members = new ArrayList<>();
        for (Map.Entry<Long, Summary> e : entries.entrySet()) {
            long t = e.getKey();
            if (t >= endMillis || e.getValue().isEmpty()) {
                continue;
            }
            long bucket = t - Math.floorMod(t - phase, periodMillis);
            if (bucket != current && !members.isEmpty()) {
                out.add(merge(current, members, withSketch, stats, true));
                members.clear();
            }
            current = bucket;
            members.add(e.getValue());
        }
        if (!members.isEmpty()) {
            out.add(merge(current, members, withSketch, stats, true));
        }
        return out.toArray(PeriodBucket[]::new);
    }

    private static PeriodBucket merge(
            long start, List<Summary> members, boolean withSketch, List<Stat> stats, boolean joinable) {
        Summary merged = withSketch ? new Summary() : Summary.withoutSketch();
        members.forEach(merged::merge);
        PeriodBucket b;
        if (withSketch) {
            // Percentiles now, while the sketch is decoded; then keep only its encoding.
            List<double[]> answered = new ArrayList<>();
            for (Stat s : stats) {
                if (s.kind() == Stat.Kind.PERCENTILE && answered.size() < MAX_REMEMBERED) {
                    answered.add(new double[] {s.q(), merged.quantile(s.q())});
                }
            }
            double[] bounds = stats.stream()
                    .filter(s -> s.kind() == Stat.Kind.RANK)
                    .limit(MAX_REMEMBERED)
                    .mapToDouble(Stat::q)
                    .toArray();
            double[] ranks = merged.ranks(bounds);
            List<double[]> ranked = new ArrayList<>();
            for (int i = 0; i < bounds.length; i++) {
                ranked.add(new double[] {bounds[i], ranks[i]});
            }
            Summary compact = Summary.withEncodedSketch(
                    merged.count(), merged.exactSum(), merged.min(), merged.max(), Sketches.serialize(merged.sketch()));
            compact.restoreCounter(merged.counter());
            b = new PeriodBucket(start, compact, true, joinable);
            double[] p = new double[answered.size() * 2];
            for (int i = 0; i < answered.size(); i++) {
                p[2 * i] = answered.get(i)[0];
                p[2 * i + 1] = answered.get(i)[1];
            }
            b.percentiles = p;
            double[] r = new double[ranked.size() * 2];
            for (int i = 0; i < ranked.size(); i++) {
                r[2 * i] = ranked.get(i)[0];
                r[2 * i + 1] = ranked.get(i)[1];
            }
            b.ranks = r;
        } else {
            // The counter's runs joined once: a cached bucket is read many times and keeps one run, not one a minute.
            merged.restoreCounter(merged.counter());
            b = new PeriodBucket(start, merged, false, joinable);
        }
        return b;
    }

    /** The statistic's value for this bucket (never empty), a percentile remembered after its first answer. */
    double value(Stat stat) {
        switch (stat.kind()) {
            case COUNT -> {
                return summary.count();
            }
            case SUM -> {
                return sum;
            }
            case AVG -> {
                return sum / summary.count();
            }
            case MIN -> {
                return summary.min();
            }
            case MAX -> {
                return summary.max();
            }
            case RANK -> {
                return rank(stat.q());
            }
            case INCREASE -> {
                Double v = Stat.increase(summary);
                return v == null ? Double.NaN : v;
            }
            case RESETS, COUNTER_FIRST, COUNTER_FIRST_TIME, COUNTER_LAST, COUNTER_LAST_TIME -> {
                Double v = stat.ofCounter(summary.counter());
                return v == null ? Double.NaN : v;
            }
            default -> {
                // a percentile: below
            }
        }
        double[] p = percentiles;
        for (int i = 0; i < p.length; i += 2) {
            if (p[i] == stat.q()) {
                return p[i + 1];
            }
        }
        double v = summary.quantile(stat.q());
        synchronized (this) {
            double[] now = percentiles;
            if (now.length / 2 >= MAX_REMEMBERED) {
                return v;
            }
            double[] more = java.util.Arrays.copyOf(now, now.length + 2);
            more[now.length] = stat.q();
            more[now.length + 1] = v;
            percentiles = more;
        }
        return v;
    }

    private double rank(double bound) {
        double[] r = ranks;
        for (int i = 0; i < r.length; i += 2) {
            if (r[i] == bound) {
                return r[i + 1];
            }
        }
        double v = summary.rank(bound);
        synchronized (this) {
            double[] now = ranks;
            if (now.length / 2 >= MAX_REMEMBERED) {
                return v;
            }
            double[] more = java.util.Arrays.copyOf(now, now.length + 2);
            more[now.length] = bound;
            more[now.length + 1] = v;
            ranks = more;
        }
        return v;
    }

    /** The statistic's value as JSON writes it ({@link Double#toString}), remembered; null when not finite. */
    String text(Stat stat) {
        String[] t = texts;
        for (int i = 0; i < t.length; i += 2) {
            if (t[i].equals(stat.label())) {
                return t[i + 1];
            }
        }
        double v = value(stat);
        if (!Double.isFinite(v)) {
            return null;
        }
        String text = Double.toString(v);
        synchronized (this) {
            String[] now = texts;
            if (now.length / 2 >= MAX_REMEMBERED) {
                return text;
            }
            String[] more = java.util.Arrays.copyOf(now, now.length + 2);
            more[now.length] = stat.label();
            more[now.length + 1] = text;
            texts = more;
        }
        return text;
    }

    /** Whether the summary carries its sketch: such a bucket serves every statistic, one without only exact ones. */
    boolean hasSketch() {
        return withSketch;
    }

    /**
     * This bucket merged with {@code other} (the same query bucket, from the next rollup), remembered. With a sketch
     * only when both have one: the cache serves a reader that needs none from sketched buckets and sketch-less ones
     * alike.
     */
    synchronized PeriodBucket join(PeriodBucket other) {
        boolean sketched = withSketch && other.withSketch;
        if (!joinable) {
            // A bucket spanning three or more rollups (a period longer than the rollup): merged every time, so
            // what hangs off a cached bucket stays one join deep.
            return merge(start, List.of(summary, other.summary), sketched, List.of(), false);
        }
        if (joinedWith != other) {
            joined = merge(start, List.of(summary, other.summary), sketched, List.of(), false);
            joinedWith = other;
        }
        return joined;
    }

    /**
     * Cache weight, in the units of {@link RollupCache}: one a summary, plus its encoded sketch's size, plus the
     * most it can remember ({@value #MAX_REMEMBERED} labels), so the weight is an upper bound from the start.
     */
    long weight() {
        byte[] encoded = summary.encodedSketch();
        return 1L + (encoded == null ? 0 : encoded.length / RollupCache.ENCODED_BYTES_PER_UNIT) + REMEMBERED_WEIGHT;
    }
}
