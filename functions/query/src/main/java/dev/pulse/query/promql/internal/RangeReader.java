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
package dev.pulse.query.promql.internal;

import dev.pulse.aggregate.Summary;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.query.BadRequestException;
import dev.pulse.query.NativeQuery;
import dev.pulse.query.NativeResult;
import dev.pulse.query.QueryLimits;
import dev.pulse.query.QueryMetric;
import dev.pulse.query.QueryService;
import dev.pulse.query.SeriesSpec;
import dev.pulse.query.Stat;
import dev.pulse.query.promql.PromQlException;
import dev.pulse.retry.Deadline;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Answers windows of stored data through {@link QueryService}, the same reads as {@code POST /query}: no second
 * storage reader. The window ending at step time {@code t} with range {@code r} is the whole minutes
 * {@code [floor(t) - r, floor(t))}, {@code floor} to the minute and {@code r} rounded up to whole minutes (storage
 * holds minutes). Windows that lie on one grid of period {@code r} (one phase) are one range query with period
 * {@code r}, so each window is one bucket of that query, and count, sum, min, max and percentiles come from the
 * bucket's merged summary exactly as {@code /query} computes them. A range longer than the step puts windows on
 * several phases: for statistics that add up exactly (count, sum, avg, min, max) one query on the finest grid that
 * tiles every window answers them all ({@link #slide}); percentiles and ranks need each window's merged sketch, so
 * one query a phase, at most {@link #MAX_PHASES}.
 */
public final class RangeReader implements Evaluator.Source {

    static final long MINUTE = 60_000L;
    /** Range queries one selector may need (windows overlapping in more ways are refused). */
    public static final int MAX_PHASES = 60;

    private final QueryService queries;
    private final CatalogMatcher catalog;
    private final long[] times;
    private final Deadline deadline;
    private final InvocationMetrics<QueryMetric> metrics;

    /** @param times the evaluation times, epoch ms */
    public RangeReader(
            QueryService queries,
            CatalogMatcher catalog,
            long[] times,
            Deadline deadline,
            InvocationMetrics<QueryMetric> metrics) {
        this(queries, catalog, times, deadline, metrics, times[0], times[times.length - 1], latest(SHARED_READS));
    }

    private RangeReader(
            QueryService queries,
            CatalogMatcher catalog,
            long[] times,
            Deadline deadline,
            InvocationMetrics<QueryMetric> metrics,
            long start,
            long end,
            Map<ReadKey, NativeResult> shared) {
        this.shared = shared;
        this.queries = queries;
        this.catalog = catalog;
        this.times = times.clone();
        this.deadline = deadline;
        this.metrics = metrics;
        this.start = start;
        this.end = end;
    }

    /** The query's start and end, for {@code @ start()} and {@code @ end()} (also inside a subquery). */
    private final long start;

    private final long end;

    @Override
    public Evaluator.Source at(long[] otherTimes) {
        return new RangeReader(queries, catalog, otherTimes, deadline, metrics, start, end, shared);
    }

    /** A map that keeps its {@code n} latest entries. */
    private static <K, V> Map<K, V> latest(int n) {
        return new java.util.LinkedHashMap<>(2 * n, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > n;
            }
        };
    }

    /** {@code millis} rounded up to whole minutes, at least one. */
    public static long wholeMinutes(long millis) {
        return Math.max(MINUTE, Math.ceilDiv(millis, MINUTE) * MINUTE);
    }

    /** The series a selector matches, within the limits of {@code POST /query}. */
    private List<CatalogMatcher.Match> match(Expr.Selector selector) throws PromQlException {
        CatalogMatcher.Found found = catalog.match(selector.matchers());
        if (found.truncated()) {
            throw new PromQlException(
                    PromQlException.Type.EXECUTION,
                    "the selector at position " + (selector.pos() + 1)
                            + " would read more than " + CatalogMatcher.MAX_SCANNED
                            + " catalog entries: give the metric name"
                            + " with =");
        }
        if (found.collision() != null) {
            throw new PromQlException(
                    PromQlException.Type.EXECUTION,
                    "the selector at position " + (selector.pos() + 1) + ": " + found.collision());
        }
        List<CatalogMatcher.Match> series = found.series();
        int stored = stored(series).size();
        if (stored > QueryLimits.MAX_SERIES) {
            throw new PromQlException(
                    PromQlException.Type.EXECUTION,
                    "the selector at position " + (selector.pos() + 1)
                            + " matches " + stored + " series, at most " + QueryLimits.MAX_SERIES + " allowed (the"
                            + " limit of POST /query): narrow it with label matchers");
        }
        if ((long) series.size() * times.length > QueryLimits.MAX_POINTS) {
            throw new PromQlException(
                    PromQlException.Type.EXECUTION,
                    "the answer would hold " + series.size() + " series x "
                            + times.length + " steps, more than " + QueryLimits.MAX_POINTS
                            + " points: use a longer step or"
                            + " narrow the selector");
        }
        return series;
    }

    /** The distinct stored series behind {@code matches}, in order. */
    private static List<SeriesSpec> stored(List<CatalogMatcher.Match> matches) {
        return new ArrayList<>(new java.util.LinkedHashSet<>(
                matches.stream().map(CatalogMatcher.Match::stored).toList()));
    }

    private static final Stat SUM = Stat.parse("sum");
    private static final Stat COUNT = Stat.parse("count");

    /**
     * The statistic of the stored series that answers {@code stat} for match {@code m}: a histogram's {@code _count}
     * and {@code _sum} are its windows' count and sum whatever the function (a window's per-point split is not kept), a
     * {@code _bucket} the window's rank at {@code le} (its count at +Inf).
     */
    static Stat statFor(CatalogMatcher.Match m, Stat stat) {
        return switch (m.view()) {
            case RAW -> stat;
            case COUNT -> COUNT;
            case SUM -> stat.kind() == Stat.Kind.COUNT ? COUNT : SUM;
            case BUCKET -> Double.isInfinite(m.le()) ? COUNT : Stat.rank(m.le());
        };
    }

    /** The end of the window read for step {@code i}: the read time (offset and @ applied) rounded down to the minute. */
    private long windowEnd(Expr.Selector selector, long time) {
        return Math.floorDiv(selector.readTime(time, start, end), MINUTE) * MINUTE;
    }

    @Override
    public List<Minutes> minutes(Expr.Selector selector, long rangeMillis) throws PromQlException {
        return minutes(selector, rangeMillis, false);
    }

    @Override
    public List<Minutes> counterMinutes(Expr.Selector selector, long rangeMillis) throws PromQlException {
        return minutes(selector, rangeMillis, true);
    }

    /** The counter statistics a minute read asks for with {@code counters} (absent for series without a counter). */
    private static final List<Stat> COUNTER_STATS = List.of(
            Stat.COUNTER_FIRST,
            Stat.COUNTER_FIRST_TIME,
            Stat.COUNTER_LAST,
            Stat.COUNTER_LAST_TIME,
            Stat.INCREASE,
            Stat.RESETS);

    private List<Minutes> minutes(Expr.Selector selector, long rangeMillis, boolean counters) throws PromQlException {
        long range = wholeMinutes(rangeMillis);
        List<CatalogMatcher.Match> matches = match(selector);
        if (matches.isEmpty()) {
            return List.of();
        }
        List<SeriesSpec> series = stored(matches);
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (long t : times) {
            long end = windowEnd(selector, t);
            if (end - range < 0) {
                throw new PromQlException(
                        PromQlException.Type.BAD_DATA,
                        "the " + range / MINUTE + "m window before" + " the evaluation time " + end / 1000
                                + " reaches before 1970");
            }
            first = Math.min(first, end - range);
            last = Math.max(last, end);
        }
        long buckets = (last - first) / MINUTE;
        if (buckets > QueryLimits.MAX_BUCKETS) {
            throw new PromQlException(
                    PromQlException.Type.BAD_DATA,
                    "this function reads every minute of its windows:"
                            + " the windows of this query cover " + buckets + " minutes, at most "
                            + QueryLimits.MAX_BUCKETS
                            + ": use a shorter time range");
        }
        if ((long) series.size() * buckets > QueryLimits.MAX_POINTS) {
            throw new PromQlException(
                    PromQlException.Type.EXECUTION,
                    "this function reads every minute of its windows:"
                            + " " + series.size() + " series x " + buckets + " minutes is more than "
                            + QueryLimits.MAX_POINTS
                            + " points: use a shorter time range or narrow the selector");
        }
        Stat sum = SUM;
        Stat count = COUNT;
        java.util.LinkedHashSet<Stat> stats = new java.util.LinkedHashSet<>(List.of(sum, count));
        for (CatalogMatcher.Match m : matches) {
            if (m.view() == OtelNames.View.BUCKET) {
                stats.add(statFor(m, sum));
            }
        }
        if (counters) {
            stats.addAll(COUNTER_STATS);
        }
        Map<SeriesSpec, Map<String, double[]>> out = new HashMap<>();
        int offset = 0;
        while (offset < series.size()) {
            NativeResult r;
            try {
                r = read(
                        new NativeQuery(series, first, last, MINUTE / 1000, List.copyOf(stats), offset), MINUTE, first);
            } catch (PromQlException e) {
                if (e.type() != PromQlException.Type.BAD_DATA) {
                    throw e;
                }
                // No range or step helps here: these functions need the minutes themselves.
                throw PromQlException.invalidParameter(
                        times.length == 1 ? "time" : "start",
                        "irate, delta, idelta,"
                                + " last_over_time, stddev_over_time, stdvar_over_time, changes, resets, deriv and"
                                + " predict_linear read each minute of their windows,"
                                + " and the minutes from " + java.time.Instant.ofEpochMilli(first)
                                + " are past the retention of"
                                + " minute detail: "
                                + e.getMessage().substring(e.getMessage().indexOf("retention: ") + 11));
            }
            for (NativeResult.SeriesValues sv : r.series()) {
                out.put(sv.series(), sv.values());
            }
            offset += r.series().size() + r.unprocessed().size();
            if (r.series().isEmpty()) {
                break;
            }
        }
        List<Minutes> result = new ArrayList<>();
        for (CatalogMatcher.Match m : matches) {
            Map<String, double[]> values = out.get(m.stored());
            if (values == null) {
                continue;
            }
            double[] counts = values.get(count.label()).clone();
            for (int k = 0; k < counts.length; k++) {
                if (Double.isNaN(counts[k])) {
                    counts[k] = 0;
                }
            }
            double[] sums;
            if (m.view() == OtelNames.View.RAW) {
                sums = values.get(sum.label()).clone();
            } else {
                // One sample a minute: the minute's count, sum or bucket count as a whole.
                sums = values.get(statFor(m, sum).label()).clone();
                for (int k = 0; k < counts.length; k++) {
                    counts[k] = counts[k] > 0 ? 1 : 0;
                }
            }
            result.add(new Minutes(
                    m.labels(),
                    first,
                    sums,
                    counts,
                    counters && m.view() == OtelNames.View.RAW ? counterMinutes(values) : null));
        }
        return result;
    }

    /** The counter columns of a minute read, or null when no minute holds a counter sample. */
    private static Minutes.Counters counterMinutes(Map<String, double[]> values) {
        double[] firstTime = values.get(Stat.COUNTER_FIRST_TIME.label());
        boolean any = false;
        for (double t : firstTime) {
            any |= !Double.isNaN(t);
        }
        return !any
                ? null
                : new Minutes.Counters(
                        values.get(Stat.COUNTER_FIRST.label()),
                        firstTime,
                        values.get(Stat.COUNTER_LAST.label()),
                        values.get(Stat.COUNTER_LAST_TIME.label()),
                        values.get(Stat.INCREASE.label()),
                        values.get(Stat.RESETS.label()));
    }

    /** A read of {@link #readShared}: everything but the statistics. */
    private record ReadKey(List<SeriesSpec> series, long first, long last, long period, int offset) {}

    /** The reads of this request that another selector may ask again (a ratio's two sides), the latest few. */
    private final Map<ReadKey, NativeResult> shared;

    /** How many reads a request keeps for its other selectors: each may hold up to {@link QueryLimits#MAX_POINTS}. */
    private static final int SHARED_READS = 4;

    /**
     * A bucketed read of {@code series} for {@code stats}, or the same read this request already did: the two sides of
     * {@code x_sum / x_count} or {@code x_bucket{le="100"} / x_count} read the same stored series over the same windows,
     * so count and sum ride along with every read (they come from each bucket's summary as it is, at no cost worth a
     * second pass over the cache).
     */
    private NativeResult readShared(
            List<SeriesSpec> series, long first, long last, long period, java.util.Set<Stat> stats, int offset)
            throws PromQlException {
        ReadKey key = new ReadKey(series, first, last, period, offset);
        NativeResult done = shared.get(key);
        if (done != null && covers(done, stats)) {
            return done;
        }
        java.util.LinkedHashSet<Stat> all = new java.util.LinkedHashSet<>(stats);
        all.add(SUM);
        all.add(COUNT);
        NativeResult r =
                read(new NativeQuery(series, first, last, period / 1000, List.copyOf(all), offset), period, first);
        shared.put(key, r);
        return r;
    }

    /** Whether {@code r} answers every statistic of {@code stats}. */
    private static boolean covers(NativeResult r, java.util.Set<Stat> stats) {
        if (r.series().isEmpty()) {
            return true;
        }
        Map<String, double[]> values = r.series().get(0).values();
        for (Stat s : stats) {
            if (!values.containsKey(s.label())) {
                return false;
            }
        }
        return true;
    }

    /** One read through {@link QueryService}, its refusals said in the Prometheus API's terms. */
    private NativeResult read(NativeQuery request, long range, long first) throws PromQlException {
        NativeResult r;
        try {
            r = queries.queryValues(request, deadline, metrics);
        } catch (BadRequestException e) {
            throw beyondRetention(range, first, e);
        }
        if (!r.unprocessed().isEmpty()) {
            String reason = r.unprocessed().get(0).reason();
            throw new PromQlException(
                    reason.equals("ReadFailed") ? PromQlException.Type.UNAVAILABLE : PromQlException.Type.TIMEOUT,
                    r.unprocessed().size() + " series could not be read within" + " the time budget (" + reason
                            + "); it is safe to retry");
        }
        return r;
    }

    @Override
    public List<Series> windows(Expr.Selector selector, long rangeMillis, Stat stat) throws PromQlException {
        long range = wholeMinutes(rangeMillis);
        List<CatalogMatcher.Match> matches = match(selector);
        if (matches.isEmpty()) {
            return List.of();
        }
        List<SeriesSpec> series = stored(matches);
        // Per stored series, the matches it answers and the statistic each reads.
        Map<SeriesSpec, List<CatalogMatcher.Match>> bySeries = new HashMap<>();
        java.util.LinkedHashSet<Stat> stats = new java.util.LinkedHashSet<>();
        java.util.IdentityHashMap<CatalogMatcher.Match, Series> out = new java.util.IdentityHashMap<>();
        for (CatalogMatcher.Match m : matches) {
            bySeries.computeIfAbsent(m.stored(), k -> new ArrayList<>()).add(m);
            stats.add(statFor(m, stat));
            out.put(m, new Series(m.labels(), new double[times.length], new boolean[times.length]));
        }
        // Windows by phase on the grid of period `range`: window i is [T_i - range, T_i).
        Map<Long, List<Integer>> phases = new TreeMap<>();
        for (int i = 0; i < times.length; i++) {
            long end = windowEnd(selector, times[i]);
            if (end - range < 0) {
                throw new PromQlException(
                        PromQlException.Type.BAD_DATA,
                        "the " + range / MINUTE + "m window before" + " the evaluation time " + end / 1000
                                + " reaches before 1970");
            }
            phases.computeIfAbsent(Math.floorMod(end, range), k -> new ArrayList<>())
                    .add(i);
        }
        if (phases.size() > 1 && slidable(stats)) {
            List<Series> slid = slide(selector, range, matches, series, bySeries, stat, out);
            if (slid != null) {
                return slid;
            }
        }
        if (phases.size() > MAX_PHASES) {
            throw new PromQlException(
                    PromQlException.Type.BAD_DATA,
                    "the range " + range / MINUTE + "m at this step puts"
                            + " windows on " + phases.size() + " different minute grids, at most " + MAX_PHASES
                            + " supported: use a"
                            + " range that is at most " + MAX_PHASES
                            + " steps, or a step that is a multiple of the range");
        }
        for (List<Integer> steps : phases.values()) {
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            for (int i : steps) {
                long end = windowEnd(selector, times[i]);
                first = Math.min(first, end - range);
                last = Math.max(last, end);
            }
            long buckets = (last - first) / range;
            if (buckets > QueryLimits.MAX_BUCKETS) {
                throw new PromQlException(
                        PromQlException.Type.BAD_DATA,
                        "windows of " + range / MINUTE + "m over this"
                                + " time range are " + buckets + " buckets of storage, at most "
                                + QueryLimits.MAX_BUCKETS
                                + ": use a longer range or a shorter time range");
            }
            // Each step's bucket in this phase's read, once (not per series and match).
            int[] step = steps.stream().mapToInt(Integer::intValue).toArray();
            int[] bucket = new int[step.length];
            for (int k = 0; k < bucket.length; k++) {
                bucket[k] = (int) ((windowEnd(selector, times[step[k]]) - range - first) / range);
            }
            int offset = 0;
            while (offset < series.size()) {
                NativeResult r = readShared(series, first, last, range, stats, offset);
                for (NativeResult.SeriesValues sv : r.series()) {
                    for (CatalogMatcher.Match m : bySeries.getOrDefault(sv.series(), List.of())) {
                        double[] values = sv.values().get(statFor(m, stat).label());
                        Series target = out.get(m);
                        for (int k = 0; k < bucket.length; k++) {
                            int i = step[k];
                            double v = values[bucket[k]];
                            if (!Double.isNaN(v)) {
                                target.values()[i] = v;
                                target.present()[i] = true;
                            }
                        }
                    }
                }
                offset += r.series().size() + r.unprocessed().size();
                if (r.series().isEmpty()) {
                    break;
                }
            }
        }
        return answered(matches, out);
    }

    /** Whether each window's value follows exactly from the summaries of buckets that tile it (no sketch needed). */
    private static boolean slidable(java.util.Set<Stat> stats) {
        for (Stat s : stats) {
            if (s.needsSketch()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Windows on several phases (a range longer than the step, as {@code increase(x[1h])} at a 5-minute step) from one
     * read: the buckets of the largest period that tiles every window (the gcd of the range and the distances between
     * window ends), then each window the merge of its buckets. Exact as a read per phase: counts add, min and max
     * compare, and a window's sum is the exact sum of its buckets' exact sums, rounded once, as the merged summary of
     * the window rounds it. Null when that grid is finer than a query may ask ({@link QueryLimits#MAX_BUCKETS}) or its
     * read is refused (a level past its retention): the caller reads per phase, which answers or says why not.
     */
    private List<Series> slide(
            Expr.Selector selector,
            long range,
            List<CatalogMatcher.Match> matches,
            List<SeriesSpec> series,
            Map<SeriesSpec, List<CatalogMatcher.Match>> bySeries,
            Stat stat,
            Map<CatalogMatcher.Match, Series> out)
            throws PromQlException {
        long[] ends = new long[times.length];
        long grid = range;
        for (int i = 0; i < times.length; i++) {
            ends[i] = windowEnd(selector, times[i]);
            grid = gcd(grid, Math.abs(ends[i] - ends[0]));
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (long end : ends) {
            first = Math.min(first, end - range);
            last = Math.max(last, end);
        }
        if ((last - first) / grid > QueryLimits.MAX_BUCKETS) {
            return null;
        }
        int width = (int) (range / grid);
        List<Stat> read = List.of(SUM, COUNT);
        boolean countsOnly = true;
        for (CatalogMatcher.Match m : matches) {
            countsOnly &= statFor(m, stat).kind() == Stat.Kind.COUNT;
        }
        int offset = 0;
        while (offset < series.size()) {
            QueryService.SummaryPage page;
            try {
                page = queries.summaries(
                        new NativeQuery(series, first, last, grid / 1000, read, offset), deadline, metrics);
            } catch (BadRequestException e) {
                return null;
            }
            if (!page.unprocessed().isEmpty()) {
                String reason = page.unprocessed().get(0).reason();
                throw new PromQlException(
                        reason.equals("ReadFailed") ? PromQlException.Type.UNAVAILABLE : PromQlException.Type.TIMEOUT,
                        page.unprocessed().size() + " series could not be read within" + " the time budget (" + reason
                                + "); it is safe to retry");
            }
            for (QueryService.SeriesSummaries ss : page.series()) {
                List<CatalogMatcher.Match> ms = bySeries.getOrDefault(ss.series(), List.of());
                if (countsOnly) {
                    slideCounts(ss.buckets(), ends, range, first, grid, width, ms, out);
                    continue;
                }
                for (int i = 0; i < ends.length; i++) {
                    Summary window = merge(ss.buckets(), (int) ((ends[i] - range - first) / grid), width);
                    if (window == null) {
                        continue;
                    }
                    for (CatalogMatcher.Match m : ms) {
                        Double v = statFor(m, stat).of(window);
                        if (v != null && !Double.isNaN(v)) {
                            Series target = out.get(m);
                            target.values()[i] = v;
                            target.present()[i] = true;
                        }
                    }
                }
            }
            offset += page.series().size() + page.unprocessed().size();
            if (page.series().isEmpty()) {
                break;
            }
        }
        return answered(matches, out);
    }

    /**
     * {@link #slide} when every match answers a count (a histogram's {@code _count}, as {@code increase(x_count[1h])}
     * reads it): each window's count is a difference of running totals of its buckets' counts, exact in a long, instead
     * of a merge of its buckets' summaries; a window without a non-empty bucket has no value, as there.
     */
    private static void slideCounts(
            Summary[] buckets,
            long[] ends,
            long range,
            long first,
            long grid,
            int width,
            List<CatalogMatcher.Match> ms,
            Map<CatalogMatcher.Match, Series> out) {
        long[] counts = new long[buckets.length + 1];
        int[] filled = new int[buckets.length + 1];
        for (int k = 0; k < buckets.length; k++) {
            boolean any = buckets[k] != null && !buckets[k].isEmpty();
            counts[k + 1] = counts[k] + (any ? buckets[k].count() : 0);
            filled[k + 1] = filled[k] + (any ? 1 : 0);
        }
        for (int i = 0; i < ends.length; i++) {
            int from = (int) ((ends[i] - range - first) / grid);
            if (filled[from + width] == filled[from]) {
                continue;
            }
            double v = counts[from + width] - counts[from];
            for (CatalogMatcher.Match m : ms) {
                Series target = out.get(m);
                target.values()[i] = v;
                target.present()[i] = true;
            }
        }
    }

    /** The series of {@code matches}, in their order, that got at least one value. */
    private static List<Series> answered(List<CatalogMatcher.Match> matches, Map<CatalogMatcher.Match, Series> out) {
        List<Series> result = new ArrayList<>();
        for (CatalogMatcher.Match m : matches) {
            Series x = out.get(m);
            if (!x.isEmpty()) {
                result.add(x);
            }
        }
        return result;
    }

    /** The buckets {@code [from, from + width)} merged without their sketches (read-only), or null when all are empty. */
    private static Summary merge(Summary[] buckets, int from, int width) {
        Summary window = null;
        for (int k = from; k < from + width; k++) {
            Summary b = buckets[k];
            if (b != null && !b.isEmpty()) {
                if (window == null) {
                    window = Summary.withoutSketch();
                }
                window.merge(b);
            }
        }
        return window;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /**
     * The windows need a level past its retention ({@link QueryService#query} refused their read), said in the
     * Prometheus API's terms: the read starts at the first evaluation time less the range and has the range as its
     * period, so the time parameters and the selector's range together decide which level can answer.
     */
    private PromQlException beyondRetention(long range, long first, BadRequestException e) {
        String message = e.getMessage();
        String advice = message.startsWith("data is kept")
                ? message.replace("start must not be before", "no window may start before")
                : message.substring(0, message.lastIndexOf(':')) + ": use a range of whole hours (such as [1h]) and"
                        + " evaluation times on the hour (start and step in whole hours)";
        return PromQlException.invalidParameter(
                times.length == 1 ? "time" : "start",
                "the " + range / MINUTE + "m windows from " + java.time.Instant.ofEpochMilli(first)
                        + " reach past the retention: " + advice);
    }
}
