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

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import dev.pulse.query.Stat;
import dev.pulse.query.promql.PromQlException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Evaluates a parsed expression at every step of a query. Selectors and range functions are answered by a
 * {@link Source} (the stored summaries: one statistic per window, or each minute's sum and count); aggregations,
 * functions and operators are computed here, step by step, with Prometheus' semantics (promql/engine.go and
 * promql/functions.go of Prometheus 2.42): which labels survive, how vectors are matched and the errors when they
 * cannot be, NaN handling, the order of sort and topk.
 */
public final class Evaluator {

    private static final long MINUTE = 60_000L;
    /** Go's constants Ln2/Ln10 and 1/Ln2, folded exactly and rounded once, as Go's math.Log10 and math.Log2 use them. */
    // Written with Go's digits (math/const.go) so they can be compared with its source; each rounds to one double.
    @SuppressWarnings("FloatingPointLiteralPrecision")
    private static final double LN2_OVER_LN10 = 0.30102999566398119521373889472449302677;

    @SuppressWarnings("FloatingPointLiteralPrecision") // Go's digits, as above
    private static final double ONE_OVER_LN2 = 1.442695040888963407359924681001892137;

    /** Where windows of stored data come from. */
    public interface Source {
        /**
         * The series {@code selector} matches, each with {@code stat} of its data in the window of length
         * {@code rangeMillis} ending at every step (absent where the window holds no data). Labels include
         * {@code __name__}.
         */
        List<Series> windows(Expr.Selector selector, long rangeMillis, Stat stat) throws PromQlException;

        /**
         * The series {@code selector} matches, each with every minute's sum and count over the minutes the windows of
         * length {@code rangeMillis} ending at the steps cover.
         */
        List<Minutes> minutes(Expr.Selector selector, long rangeMillis) throws PromQlException;

        /**
         * {@link #minutes}, with each cumulative counter's samples per minute ({@link Minutes#counter()}) for irate and
         * resets; a source without counters answers the plain minutes.
         */
        default List<Minutes> counterMinutes(Expr.Selector selector, long rangeMillis) throws PromQlException {
            return minutes(selector, rangeMillis);
        }

        /** The same store read at other evaluation times (a subquery's steps); {@code @ start()} stays the query's. */
        Source at(long[] times);
    }

    /** A subquery may be evaluated at this many distinct times, the steps of a range query at most. */
    static final int MAX_SUBQUERY_STEPS = 11_000;

    private final Source source;
    private final long[] times;
    private final int steps;
    private final long bareRangeMillis;

    /**
     * @param times           the evaluation times, epoch ms
     * @param bareRangeMillis the window of a bare selector (which answers the average over it): the step of a range
     *                        query, the lookback of an instant query
     */
    public Evaluator(Source source, long[] times, long bareRangeMillis) {
        this(source, times, bareRangeMillis, times[0], times[times.length - 1]);
    }

    private Evaluator(Source source, long[] times, long bareRangeMillis, long start, long end) {
        this.source = source;
        this.times = times.clone();
        this.steps = times.length;
        this.bareRangeMillis = bareRangeMillis;
        this.start = start;
        this.end = end;
    }

    /** The query's start and end ({@code @ start()}, {@code @ end()}), also inside a subquery. */
    private final long start;

    private final long end;

    public Value evaluate(Expr e) throws PromQlException {
        return switch (e) {
            case Expr.NumberLiteral n -> constant(n.value());
            case Expr.StringLiteral s -> throw new IllegalStateException("a string is only a function's argument");
            case Expr.Selector s -> new Value.Vector(source.windows(s, bareRangeMillis, Stat.parse("avg")));
            case Expr.OverTime o -> overTime(o);
            case Expr.OverSubquery o -> overSubquery(o);
            case Expr.Subquery q -> throw new IllegalStateException("a subquery is only a function's argument");
            case Expr.Call c -> call(c);
            case Expr.Aggregation a -> aggregate(a, (Value.Vector) evaluate(a.inner()));
            case Expr.Negation n -> negate(evaluate(n.inner()));
            case Expr.Binary b -> binary(b, evaluate(b.lhs()), evaluate(b.rhs()));
        };
    }

    private Value.Scalar constant(double value) {
        double[] v = new double[steps];
        Arrays.fill(v, value);
        return new Value.Scalar(v);
    }

    private double[] scalar(Expr e) throws PromQlException {
        return ((Value.Scalar) evaluate(e)).values();
    }

    /** The statistic a range function reads from each window's merged summary. */
    static Stat stat(Expr.OverTime o) {
        return switch (o.function()) {
            case COUNT, PRESENT, ABSENT -> Stat.parse("count");
            case SUM -> Stat.parse("sum");
            // Over deltas the sum; over a cumulative counter the reset-corrected increase of its samples in the window.
            case RATE, INCREASE -> Stat.INCREASE;
            case AVG -> Stat.parse("avg");
            case MIN -> Stat.parse("min");
            case MAX -> Stat.parse("max");
            // The 0-quantile is the minimum, exactly (a sketch percentile needs a positive rank).
            case QUANTILE ->
                o.q() == 0
                        ? Stat.parse("min")
                        : new Stat(
                                "p"
                                        + BigDecimal.valueOf(o.q())
                                                .movePointRight(2)
                                                .stripTrailingZeros()
                                                .toPlainString(),
                                Stat.Kind.PERCENTILE,
                                o.q());
            default -> throw new IllegalStateException(o.function() + " is answered per minute");
        };
    }

    // --- range functions -----------------------------------------------------------------------------------------

    private Value overTime(Expr.OverTime o) throws PromQlException {
        Expr.Selector sel = o.selector();
        String name = o.function().promQlName();
        if (o.function() == Expr.OverTimeFunction.LAST) {
            return new Value.Vector(perMinute(o)); // the one range function that keeps the name, as in Prometheus
        }
        if (o.function().perMinute()) {
            return new Value.Vector(unique(dropName(perMinute(o)), name));
        }
        List<Series> in = source.windows(sel, sel.rangeMillis(), stat(o));
        switch (o.function()) {
            case RATE -> {
                // Over delta data the increase in the window is its exact sum; the rate spreads it over the window,
                // which is the range rounded up to whole minutes (the minutes it reads).
                double seconds = RangeReader.wholeMinutes(sel.rangeMillis()) / 1000.0;
                in = map(in, v -> v / seconds);
            }
            case PRESENT -> in = map(in, v -> 1);
            case ABSENT -> {
                return absent(in, sel);
            }
            default -> {}
        }
        return new Value.Vector(unique(dropName(in), name));
    }

    /**
     * A range function over a subquery's points: the inner expression is evaluated at every multiple of the step
     * that lies in some window {@code [t - range, t]} (both ends included, as in Prometheus 2.42), a bare selector
     * inside answering the average over the step; then each window's points are the function's samples.
     */
    private Value overSubquery(Expr.OverSubquery o) throws PromQlException {
        Expr.Subquery sq = o.subquery();
        long step = sq.step();
        long range = sq.rangeMillis();
        java.util.TreeSet<Long> sub = new java.util.TreeSet<>();
        for (long t : times) {
            for (long x = Math.ceilDiv(t - range, step) * step; x <= t; x += step) {
                sub.add(x);
                if (sub.size() > MAX_SUBQUERY_STEPS) {
                    throw new PromQlException(
                            PromQlException.Type.BAD_DATA,
                            "the subquery at position " + (sq.pos() + 1)
                                    + " would be evaluated at more than " + MAX_SUBQUERY_STEPS + " times: use a longer"
                                    + " subquery step or a shorter range");
                }
            }
        }
        long[] subTimes = sub.stream().mapToLong(Long::longValue).toArray();
        Value.Vector inner =
                (Value.Vector) new Evaluator(source.at(subTimes), subTimes, step, start, end).evaluate(sq.inner());
        Expr.OverTimeFunction f = o.function();
        List<Series> out = new ArrayList<>();
        List<Series> in = inner.series();
        for (Series s : in) {
            double[] values = new double[steps];
            boolean[] present = new boolean[steps];
            for (int i = 0; i < steps; i++) {
                long from = Math.ceilDiv(times[i] - range, step) * step;
                long to = Math.floorDiv(times[i], step) * step;
                if (from > to) {
                    continue; // a range shorter than the step may hold no evaluation time
                }
                int lo = Arrays.binarySearch(subTimes, from);
                int hi = Arrays.binarySearch(subTimes, to);
                List<Double> points = new ArrayList<>();
                long[] pointTimes = new long[hi - lo + 1];
                for (int k = lo; k <= hi; k++) {
                    if (s.present()[k]) {
                        pointTimes[points.size()] = subTimes[k];
                        points.add(s.values()[k]);
                    }
                }
                if (points.isEmpty()) {
                    continue;
                }
                if (f.timed()) {
                    if (!timedPointsSuffice(f, points.size())) {
                        continue;
                    }
                    present[i] = true;
                    values[i] = overTimedPoints(
                            f,
                            o.q(),
                            pointTimes,
                            points.stream().mapToDouble(Double::doubleValue).toArray(),
                            points.size(),
                            times[i]);
                    continue;
                }
                present[i] = true;
                values[i] = overPoints(f, o.q(), points);
            }
            Series r = new Series(s.labels(), values, present);
            if (!r.isEmpty()) {
                out.add(r);
            }
        }
        if (f == Expr.OverTimeFunction.ABSENT) {
            return absent(out, null);
        }
        if (f == Expr.OverTimeFunction.LAST) {
            return new Value.Vector(out);
        }
        return new Value.Vector(unique(dropName(out), f.promQlName()));
    }

    /** A range function over samples, as Prometheus computes it over raw samples. */
    // Most arms loop over the points before they return; a switch expression with yield reads no better.
    @SuppressWarnings("RefactorSwitch")
    private static double overPoints(Expr.OverTimeFunction f, double q, List<Double> points) {
        int n = points.size();
        switch (f) {
            case COUNT, PRESENT, ABSENT -> {
                return f == Expr.OverTimeFunction.COUNT ? n : 1;
            }
            case LAST -> {
                return points.get(n - 1);
            }
            case QUANTILE -> {
                double[] v = new double[n];
                for (int k = 0; k < n; k++) {
                    v[k] = points.get(k);
                }
                return quantile(q, v);
            }
            case STDDEV, STDVAR -> {
                double mean = 0;
                double aux = 0;
                int count = 0;
                for (double v : points) {
                    count++;
                    double delta = v - mean;
                    mean += delta / count;
                    aux += delta * (v - mean);
                }
                return f == Expr.OverTimeFunction.STDVAR ? aux / count : Math.sqrt(aux / count);
            }
            default -> {
                double acc = points.get(0);
                for (int k = 1; k < n; k++) {
                    double v = points.get(k);
                    acc = switch (f) {
                        case SUM, AVG -> acc + v;
                        case MIN -> Double.isNaN(acc) || v < acc ? v : acc;
                        case MAX -> Double.isNaN(acc) || v > acc ? v : acc;
                        default -> throw new IllegalStateException(f.name());
                    };
                }
                return f == Expr.OverTimeFunction.AVG ? acc / n : acc;
            }
        }
    }

    private interface DoubleOp {
        double apply(double v);
    }

    private static List<Series> map(List<Series> in, DoubleOp f) {
        List<Series> out = new ArrayList<>(in.size());
        for (Series s : in) {
            double[] v = new double[s.values().length];
            for (int i = 0; i < v.length; i++) {
                if (s.present()[i]) {
                    v[i] = f.apply(s.values()[i]);
                }
            }
            out.add(new Series(s.labels(), v, s.present()));
        }
        return out;
    }

    /**
     * The functions that need the order of the data in each window, from each minute's summary: a minute's value is
     * the average of its datapoints (its sum for irate, over delta data the increase within the minute).
     */
    private List<Series> perMinute(Expr.OverTime o) throws PromQlException {
        Expr.Selector sel = o.selector();
        long range = RangeReader.wholeMinutes(sel.rangeMillis());
        List<Series> out = new ArrayList<>();
        boolean counters = o.function() == Expr.OverTimeFunction.IRATE || o.function() == Expr.OverTimeFunction.RESETS;
        for (Minutes m :
                counters ? source.counterMinutes(sel, sel.rangeMillis()) : source.minutes(sel, sel.rangeMillis())) {
            double[] values = new double[steps];
            boolean[] present = new boolean[steps];
            for (int i = 0; i < steps; i++) {
                long end = Math.floorDiv(sel.readTime(times[i], start, this.end), MINUTE) * MINUTE;
                int lo = (int) Math.max(0, (end - range - m.first()) / MINUTE);
                int hi = (int) Math.min(m.count().length, (end - m.first()) / MINUTE);
                int last = -1;
                int previous = -1;
                int first = -1;
                int n = 0;
                double mean = 0;
                double aux = 0;
                for (int k = lo; k < hi; k++) {
                    if (m.count()[k] <= 0) {
                        continue;
                    }
                    if (first < 0) {
                        first = k;
                    }
                    previous = last;
                    last = k;
                    // As Prometheus' stdvar_over_time: Welford's running mean and sum of squared differences.
                    double v = m.sum()[k] / m.count()[k];
                    n++;
                    double delta = v - mean;
                    mean += delta / n;
                    aux += delta * (v - mean);
                }
                if (last < 0) {
                    continue;
                }
                if (m.counter() != null) {
                    // A cumulative counter: irate and resets from its samples, not from per-minute averages.
                    double c = overCounter(o.function(), m.counter(), lo, hi);
                    if (!Double.isNaN(c)) {
                        values[i] = c;
                        present[i] = true;
                    }
                    continue;
                }
                double v;
                switch (o.function()) {
                    case LAST -> v = avg(m, last);
                    case STDVAR -> v = aux / n;
                    case STDDEV -> v = Math.sqrt(aux / n);
                    case CHANGES, RESETS, DERIV, PREDICT_LINEAR -> {
                        if (!timedPointsSuffice(o.function(), n)) {
                            continue;
                        }
                        long[] t = new long[n];
                        double[] y = new double[n];
                        int j = 0;
                        for (int k = first; k <= last; k++) {
                            if (m.count()[k] > 0) {
                                t[j] = sampleTime(m, k);
                                y[j++] = avg(m, k);
                            }
                        }
                        // predict_linear's intercept at the evaluation time, as Prometheus' (also under @, which fixes
                        // only the window: Prometheus lists predict_linear as unsafe with @ for that reason).
                        v = overTimedPoints(o.function(), o.q(), t, y, n, times[i]);
                    }
                    case IRATE, IDELTA, DELTA -> {
                        if (previous < 0) {
                            continue; // as in Prometheus, two points are needed
                        }
                        v = switch (o.function()) {
                            case IRATE -> m.sum()[last] / ((last - previous) * 60.0);
                            case IDELTA -> avg(m, last) - avg(m, previous);
                            default -> avg(m, last) - avg(m, first);
                        };
                    }
                    default -> throw new IllegalStateException(o.function().name());
                }
                values[i] = v;
                present[i] = true;
            }
            Series s = new Series(m.labels(), values, present);
            if (!s.isEmpty()) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * irate or resets of a cumulative counter over minutes {@code [lo, hi)}, NaN when absent. {@code resets}: the resets
     * within each minute (a lower value, or a newer OTLP start time) plus each minute whose first sample is lower than the
     * last sample of the minute before with data. {@code irate}: as Prometheus, (last - previous sample) / their
     * distance, the last sample alone when it is lower (a reset), when the last minute with data holds one sample (the
     * previous one is the last of the minute before with data); when it holds several, the rate over them (its
     * reset-corrected increase from its first sample to its last over their distance), since only those two of a
     * minute's samples are stored. Absent with fewer than two samples.
     */
    static double overCounter(Expr.OverTimeFunction f, Minutes.Counters c, int lo, int hi) {
        int last = -1;
        int previous = -1;
        long resets = 0;
        for (int k = lo; k < hi; k++) {
            if (!c.has(k)) {
                continue;
            }
            resets += (long) c.resets()[k];
            if (last >= 0 && c.firstValue()[k] < c.lastValue()[last]) {
                resets++;
            }
            previous = last;
            last = k;
        }
        if (last < 0) {
            return Double.NaN;
        }
        if (f == Expr.OverTimeFunction.RESETS) {
            return resets;
        }
        if (c.lastTime()[last] > c.firstTime()[last]) {
            return c.increase()[last] / ((c.lastTime()[last] - c.firstTime()[last]) / 1000.0);
        }
        if (previous < 0) {
            return Double.NaN;
        }
        double now = c.firstValue()[last];
        double before = c.lastValue()[previous];
        double seconds = (c.firstTime()[last] - c.lastTime()[previous]) / 1000.0;
        return (now < before ? now : now - before) / seconds;
    }

    /**
     * A minute's sample time for the functions that weigh time (deriv, predict_linear): the middle of the minute,
     * where the average of datapoints spread evenly over it lies (and, with one sample a minute at second 30, the
     * sample's own time).
     */
    private static long sampleTime(Minutes m, int k) {
        return m.first() + k * MINUTE + MINUTE / 2;
    }

    /** Whether {@code n} samples give changes, resets (one), deriv or predict_linear (two, as in Prometheus) a value. */
    private static boolean timedPointsSuffice(Expr.OverTimeFunction f, int n) {
        return n >= (f == Expr.OverTimeFunction.CHANGES || f == Expr.OverTimeFunction.RESETS ? 1 : 2);
    }

    /**
     * changes, resets, deriv or predict_linear ({@code q} seconds ahead of {@code evalTime}) over the samples
     * {@code (t[j], y[j])}, {@code j < n}, in time order, as Prometheus computes them over raw samples.
     */
    // Most arms loop over the points before they return; a switch expression with yield reads no better.
    @SuppressWarnings("RefactorSwitch")
    private static double overTimedPoints(
            Expr.OverTimeFunction f, double q, long[] t, double[] y, int n, long evalTime) {
        switch (f) {
            case CHANGES, RESETS -> {
                int count = 0;
                for (int j = 1; j < n; j++) {
                    double cur = y[j];
                    double prev = y[j - 1];
                    // As Prometheus: NaN to NaN is no change; a comparison with NaN is false.
                    if (f == Expr.OverTimeFunction.CHANGES
                            ? cur != prev && !(Double.isNaN(cur) && Double.isNaN(prev))
                            : cur < prev) {
                        count++;
                    }
                }
                return count;
            }
            case DERIV -> {
                // Prometheus passes the first sample's time, near the values, for accuracy.
                return regression(t, y, n, t[0])[0];
            }
            case PREDICT_LINEAR -> {
                double[] r = regression(t, y, n, evalTime);
                return r[0] * q + r[1];
            }
            default -> throw new IllegalStateException(f.name());
        }
    }

    /**
     * Prometheus' linearRegression: least squares with Kahan summation, x in seconds from {@code interceptTime}; a
     * constant series has slope 0 (NaN for an infinite value). Returns the slope and the intercept (the value at
     * {@code interceptTime}).
     */
    private static double[] regression(long[] t, double[] y, int n, long interceptTime) {
        double[] sumX = new double[2];
        double[] sumY = new double[2];
        double[] sumXY = new double[2];
        double[] sumX2 = new double[2];
        double initY = y[0];
        boolean constY = true;
        for (int j = 0; j < n; j++) {
            if (constY && j > 0 && y[j] != initY) {
                constY = false;
            }
            double x = (t[j] - interceptTime) / 1e3;
            kahanInc(x, sumX);
            kahanInc(y[j], sumY);
            kahanInc(x * y[j], sumXY);
            kahanInc(x * x, sumX2);
        }
        if (constY) {
            return Double.isInfinite(initY) ? new double[] {Double.NaN, Double.NaN} : new double[] {0, initY};
        }
        double sx = sumX[0] + sumX[1];
        double sy = sumY[0] + sumY[1];
        double sxy = sumXY[0] + sumXY[1];
        double sx2 = sumX2[0] + sumX2[1];
        double covXY = sxy - sx * sy / n;
        double varX = sx2 - sx * sx / n;
        double slope = covXY / varX;
        return new double[] {slope, sy / n - slope * sx / n};
    }

    /** Prometheus' kahanSumInc: {@code acc[0]} the sum, {@code acc[1]} the compensation. */
    private static void kahanInc(double inc, double[] acc) {
        double sum = acc[0];
        double t = sum + inc;
        if (Double.isInfinite(t)) {
            acc[1] = 0; // as Prometheus: an infinite sum drops the compensation
        } else if (Math.abs(sum) >= Math.abs(inc)) {
            acc[1] += (sum - t) + inc;
        } else {
            acc[1] += (inc - t) + sum;
        }
        acc[0] = t;
    }

    private static double avg(Minutes m, int k) {
        return m.sum()[k] / m.count()[k];
    }

    /** 1 at every step where {@code in} has no element, labelled by the selector's equality matchers, as Prometheus. */
    // Label sets are SortedMaps throughout the query model; the call removes keys, nothing SortedMap lacks.
    @SuppressWarnings("JdkObsolete")
    private Value absent(List<Series> in, Expr.Selector sel) {
        SortedMap<String, String> labels = new TreeMap<>();
        if (sel != null) {
            Set<String> ambiguous = new HashSet<>();
            for (LabelMatcher m : sel.matchers()) {
                if (m.name().equals(LabelMatcher.NAME)) {
                    continue;
                }
                if (m.op().equals("=") && !labels.containsKey(m.name())) {
                    labels.put(m.name(), m.value());
                } else {
                    ambiguous.add(m.name());
                }
            }
            ambiguous.forEach(labels::remove);
        }
        double[] values = new double[steps];
        boolean[] present = new boolean[steps];
        for (int i = 0; i < steps; i++) {
            present[i] = true;
            values[i] = 1;
            for (Series s : in) {
                if (s.present()[i]) {
                    present[i] = false;
                    break;
                }
            }
        }
        Series s = new Series(labels, values, present);
        return new Value.Vector(s.isEmpty() ? List.of() : List.of(s));
    }

    // --- functions -------------------------------------------------------------------------------------------------

    private Value call(Expr.Call c) throws PromQlException {
        String f = c.function();
        switch (f) {
            case "time" -> {
                double[] v = new double[steps];
                for (int i = 0; i < steps; i++) {
                    v[i] = times[i] / 1000.0;
                }
                return new Value.Scalar(v);
            }
            case "vector" -> {
                boolean[] all = new boolean[steps];
                Arrays.fill(all, true);
                return new Value.Vector(List.of(
                        new Series(new TreeMap<>(), scalar(c.args().get(0)).clone(), all)));
            }
            default -> {}
        }
        if (f.equals("pi")) {
            double[] v = new double[steps];
            Arrays.fill(v, Math.PI);
            return new Value.Scalar(v);
        }
        if (DATE_FUNCTIONS.contains(f)) {
            return date(
                    f,
                    c.args().isEmpty()
                            ? null
                            : ((Value.Vector) evaluate(c.args().get(0))).series());
        }
        if (f.equals("histogram_quantile")) {
            return histogramQuantile(
                    scalar(c.args().get(0)), ((Value.Vector) evaluate(c.args().get(1))).series());
        }
        Value.Vector in = (Value.Vector) evaluate(c.args().get(0));
        List<Series> series = in.series();
        switch (f) {
            case "scalar" -> {
                double[] v = new double[steps];
                for (int i = 0; i < steps; i++) {
                    int n = 0;
                    for (Series s : series) {
                        if (s.present()[i]) {
                            v[i] = s.values()[i];
                            n++;
                        }
                    }
                    if (n != 1) {
                        v[i] = Double.NaN;
                    }
                }
                return new Value.Scalar(v);
            }
            case "absent" -> {
                return absent(series, c.args().get(0) instanceof Expr.Selector s ? s : null);
            }
            case "sort", "sort_desc" -> {
                return sorted(series, f.equals("sort_desc"));
            }
            case "label_replace" -> {
                return new Value.Vector(unique(
                        labelReplace(series, string(c, 1), string(c, 2), string(c, 3), string(c, 4)), "label_replace"));
            }
            case "label_join" -> {
                List<String> sources = new ArrayList<>();
                for (int i = 3; i < c.args().size(); i++) {
                    sources.add(string(c, i));
                }
                return new Value.Vector(unique(labelJoin(series, string(c, 1), string(c, 2), sources), "label_join"));
            }
            case "timestamp" -> {
                // Pulse keeps no raw samples: the time of a value is the evaluation time, as Prometheus answers for any
                // argument but a bare selector (docs/prometheus-api.md).
                List<Series> out = new ArrayList<>();
                for (Series s : series) {
                    double[] v = new double[steps];
                    for (int i = 0; i < steps; i++) {
                        v[i] = times[i] / 1000.0;
                    }
                    out.add(new Series(s.labels(), v, s.present()));
                }
                return new Value.Vector(unique(dropName(out), f));
            }
            default -> {}
        }
        double[] a = c.args().size() > 1 ? scalar(c.args().get(1)) : null;
        double[] b = c.args().size() > 2 ? scalar(c.args().get(2)) : null;
        List<Series> out = new ArrayList<>();
        for (Series s : series) {
            double[] v = new double[steps];
            boolean[] present = s.present().clone();
            for (int i = 0; i < steps; i++) {
                if (!present[i]) {
                    continue;
                }
                double x = s.values()[i];
                switch (f) {
                    case "abs" -> v[i] = Math.abs(x);
                    case "ceil" -> v[i] = Math.ceil(x);
                    case "floor" -> v[i] = Math.floor(x);
                    case "exp" -> v[i] = Math.exp(x);
                    case "ln" -> v[i] = Math.log(x);
                    case "log2" -> v[i] = log2(x);
                    case "log10" -> v[i] = log2(x) * LN2_OVER_LN10;
                    case "sqrt" -> v[i] = Math.sqrt(x);
                    case "sgn" -> v[i] = Math.signum(x);
                    case "sin" -> v[i] = Math.sin(x);
                    case "cos" -> v[i] = Math.cos(x);
                    case "tan" -> v[i] = Math.tan(x);
                    case "asin" -> v[i] = Math.asin(x);
                    case "acos" -> v[i] = Math.acos(x);
                    case "atan" -> v[i] = Math.atan(x);
                    case "sinh" -> v[i] = Math.sinh(x);
                    case "cosh" -> v[i] = Math.cosh(x);
                    case "tanh" -> v[i] = Math.tanh(x);
                    case "asinh" -> v[i] = asinh(x);
                    case "acosh" -> v[i] = acosh(x);
                    case "atanh" -> v[i] = atanh(x);
                    case "deg" -> v[i] = x * 180 / Math.PI;
                    case "rad" -> v[i] = x * Math.PI / 180;
                    case "round" -> {
                        double inverse = 1.0 / (a == null ? 1 : a[i]);
                        v[i] = Math.floor(x * inverse + 0.5) / inverse;
                    }
                    case "clamp" -> {
                        if (b[i] < a[i]) {
                            present[i] = false; // as Prometheus: an empty result when max < min
                        } else {
                            v[i] = Math.max(a[i], Math.min(b[i], x));
                        }
                    }
                    case "clamp_min" -> v[i] = Math.max(a[i], x);
                    case "clamp_max" -> v[i] = Math.min(a[i], x);
                    default -> throw new IllegalStateException(f);
                }
            }
            Series r = new Series(s.labels(), v, present);
            if (!r.isEmpty()) {
                out.add(r);
            }
        }
        return new Value.Vector(unique(dropName(out), f));
    }

    /**
     * Prometheus' {@code histogram_quantile} over classic buckets: the series of one histogram are those whose labels
     * agree but for {@code le} (the bucket's inclusive upper bound); each step's quantile interpolates linearly
     * within the bucket the rank falls in, as Prometheus 2.42's {@code bucketQuantile} does (sorted by bound, equal
     * bounds summed, counts made monotonic, NaN without a {@code +Inf} bucket). Series without a parsable {@code le}
     * are ignored, as Prometheus ignores them.
     */
    private Value histogramQuantile(double[] q, List<Series> series) throws PromQlException {
        Map<SortedMap<String, String>, List<Series>> histograms = new LinkedHashMap<>();
        java.util.IdentityHashMap<Series, Double> bounds = new java.util.IdentityHashMap<>();
        for (Series s : series) {
            Double bound = bucketBound(s.labels().get("le"));
            if (bound == null) {
                continue;
            }
            SortedMap<String, String> key = new TreeMap<>(s.labels());
            key.remove("le");
            histograms.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
            bounds.put(s, bound);
        }
        List<Series> out = new ArrayList<>();
        for (Map.Entry<SortedMap<String, String>, List<Series>> h : histograms.entrySet()) {
            double[] v = new double[steps];
            boolean[] present = new boolean[steps];
            List<double[]> buckets = new ArrayList<>();
            for (int i = 0; i < steps; i++) {
                buckets.clear();
                for (Series s : h.getValue()) {
                    if (s.present()[i]) {
                        buckets.add(new double[] {bounds.get(s), s.values()[i]});
                    }
                }
                if (!buckets.isEmpty()) {
                    present[i] = true;
                    v[i] = bucketQuantile(q[i], buckets);
                }
            }
            SortedMap<String, String> labels = new TreeMap<>(h.getKey());
            labels.remove(LabelMatcher.NAME);
            Series r = new Series(labels, v, present);
            if (!r.isEmpty()) {
                out.add(r);
            }
        }
        return new Value.Vector(unique(out, "histogram_quantile"));
    }

    /** Prometheus 2.42's bucketQuantile over {upper bound, cumulative count} pairs. */
    static double bucketQuantile(double q, List<double[]> in) {
        if (q < 0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (q > 1) {
            return Double.POSITIVE_INFINITY;
        }
        List<double[]> sorted = new ArrayList<>(in);
        sorted.sort(Comparator.comparingDouble(b -> b[0]));
        if (sorted.get(sorted.size() - 1)[0] != Double.POSITIVE_INFINITY) {
            return Double.NaN;
        }
        List<double[]> buckets = new ArrayList<>();
        for (double[] b : sorted) {
            double[] last = buckets.isEmpty() ? null : buckets.get(buckets.size() - 1);
            if (last != null && last[0] == b[0]) {
                last[1] += b[1];
            } else {
                buckets.add(new double[] {b[0], b[1]});
            }
        }
        double max = Double.NEGATIVE_INFINITY;
        for (double[] b : buckets) {
            if (b[1] > max) {
                max = b[1];
            } else if (b[1] < max) {
                b[1] = max;
            }
        }
        int n = buckets.size();
        if (n < 2) {
            return Double.NaN;
        }
        double observations = buckets.get(n - 1)[1];
        if (observations == 0) {
            return Double.NaN;
        }
        double rank = q * observations;
        int b = 0;
        while (b < n - 1 && !(buckets.get(b)[1] >= rank)) {
            b++;
        }
        if (b == n - 1) {
            return buckets.get(n - 2)[0];
        }
        if (b == 0 && buckets.get(0)[0] <= 0) {
            return buckets.get(0)[0];
        }
        double start = 0;
        double end = buckets.get(b)[0];
        double count = buckets.get(b)[1];
        if (b > 0) {
            start = buckets.get(b - 1)[0];
            count -= buckets.get(b - 1)[1];
            rank -= buckets.get(b - 1)[1];
        }
        return start + (end - start) * (rank / count);
    }

    private static final java.util.regex.Pattern GO_FLOAT = java.util.regex.Pattern.compile(
            "[+-]?(?:(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?|0[xX](?:[0-9a-fA-F]+\\.?[0-9a-fA-F]*|\\.[0-9a-fA-F]+)[pP][+-]?\\d+)");

    /** An {@code le} value as Go's strconv.ParseFloat reads it, or null (the series is not a bucket). */
    static Double bucketBound(String le) {
        if (le == null) {
            return null;
        }
        String t = le.toLowerCase(java.util.Locale.ROOT);
        switch (t) {
            case "inf", "+inf", "infinity", "+infinity" -> {
                return Double.POSITIVE_INFINITY;
            }
            case "-inf", "-infinity" -> {
                return Double.NEGATIVE_INFINITY;
            }
            case "nan", "+nan", "-nan" -> {
                return Double.NaN;
            }
            default -> {}
        }
        if (!GO_FLOAT.matcher(le).matches()) {
            return null;
        }
        double d = Double.parseDouble(le);
        return Double.isInfinite(d) ? null : d; // out of range: an error to Go, so not a bucket
    }

    private static final Set<String> DATE_FUNCTIONS =
            Set.of("minute", "hour", "day_of_month", "day_of_week", "day_of_year", "days_in_month", "month", "year");
    /** java.time's range of epoch seconds; Go's int64 seconds reach further, to no date a metric value means. */
    private static final double MAX_EPOCH_SECONDS = java.time.Instant.MAX.getEpochSecond();

    /**
     * The date functions: each value (or, without an argument, the evaluation time) read as Unix seconds in UTC, as
     * Prometheus reads it ({@code time.Unix(int64(v), 0).UTC()}: the fraction dropped toward zero). A value outside
     * java.time's range (about ±10^9 years) or not finite answers NaN.
     */
    private Value date(String f, List<Series> series) throws PromQlException {
        if (series == null) {
            boolean[] all = new boolean[steps];
            Arrays.fill(all, true);
            double[] now = new double[steps];
            for (int i = 0; i < steps; i++) {
                now[i] = times[i] / 1000.0;
            }
            series = List.of(new Series(new TreeMap<>(), now, all));
        }
        List<Series> out = new ArrayList<>();
        for (Series s : series) {
            double[] v = new double[steps];
            for (int i = 0; i < steps; i++) {
                if (s.present()[i]) {
                    v[i] = datePart(f, s.values()[i]);
                }
            }
            out.add(new Series(s.labels(), v, s.present().clone()));
        }
        return new Value.Vector(unique(dropName(out), f));
    }

    static double datePart(String f, double seconds) {
        if (!(Math.abs(seconds) <= MAX_EPOCH_SECONDS)) {
            return Double.NaN;
        }
        java.time.ZonedDateTime t =
                java.time.Instant.ofEpochSecond((long) seconds).atZone(java.time.ZoneOffset.UTC);
        return switch (f) {
            case "minute" -> t.getMinute();
            case "hour" -> t.getHour();
            case "day_of_month" -> t.getDayOfMonth();
            case "day_of_week" -> t.getDayOfWeek().getValue() % 7; // Sunday is 0, as Go's time.Weekday
            case "day_of_year" -> t.getDayOfYear();
            case "days_in_month" -> t.toLocalDate().lengthOfMonth();
            case "month" -> t.getMonthValue();
            case "year" -> t.getYear();
            default -> throw new IllegalStateException(f);
        };
    }

    // Go's math.Asinh, Acosh and Atanh (java.lang.Math has none), step for step so the answers agree with Prometheus'.
    @SuppressWarnings("FloatingPointLiteralPrecision") // Go's digits (math/asinh.go), to compare with its source
    private static final double LN2 = 6.93147180559945286227e-01;

    private static final double NEAR_ZERO = 1.0 / (1 << 28);
    private static final double LARGE = 1 << 28;

    static double asinh(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return x;
        }
        boolean negative = x < 0;
        double a = Math.abs(x);
        double r;
        if (a > LARGE) {
            r = Math.log(a) + LN2;
        } else if (a > 2) {
            r = Math.log(2 * a + 1 / (Math.sqrt(a * a + 1) + a));
        } else if (a < NEAR_ZERO) {
            r = a;
        } else {
            r = Math.log1p(a + a * a / (1 + Math.sqrt(1 + a * a)));
        }
        return negative ? -r : r;
    }

    static double acosh(double x) {
        if (x < 1 || Double.isNaN(x)) {
            return Double.NaN;
        }
        if (x == 1) {
            return 0;
        }
        if (x >= LARGE) {
            return Math.log(x) + LN2;
        }
        if (x > 2) {
            return Math.log(2 * x - 1 / (x + Math.sqrt(x * x - 1)));
        }
        double t = x - 1;
        return Math.log1p(t + Math.sqrt(2 * t + t * t));
    }

    static double atanh(double x) {
        if (x < -1 || x > 1 || Double.isNaN(x)) {
            return Double.NaN;
        }
        if (x == 1) {
            return Double.POSITIVE_INFINITY;
        }
        if (x == -1) {
            return Double.NEGATIVE_INFINITY;
        }
        boolean negative = x < 0;
        double a = Math.abs(x);
        double r;
        if (a < NEAR_ZERO) {
            r = a;
        } else if (a < 0.5) {
            double t = a + a;
            r = 0.5 * Math.log1p(t + t * a / (1 - a));
        } else {
            r = 0.5 * Math.log1p((a + a) / (1 - a));
        }
        return negative ? -r : r;
    }

    private static String string(Expr.Call c, int arg) {
        return ((Expr.StringLiteral) c.args().get(arg)).value();
    }

    /** Go's math.Log2: exact for powers of two (log2(8) is 3, not 2.9999999999999996). */
    static double log2(double x) {
        if (!(x > 0) || Double.isInfinite(x)) {
            return Math.log(x) / Math.log(2);
        }
        int shift = 0;
        if (x < Double.MIN_NORMAL) {
            x *= 0x1p54;
            shift = 54;
        }
        int exp = Math.getExponent(x) + 1;
        double frac = Math.scalb(x, -exp); // in [0.5, 1), as Go's Frexp
        if (frac == 0.5) {
            return exp - 1 - shift;
        }
        return Math.log(frac) * ONE_OVER_LN2 + exp - shift;
    }

    /**
     * Sorted by the value of the first step (an instant query's only one), NaN first as Prometheus' sort and
     * sort_desc put it; in a range query Prometheus ignores the order, and so does the answer.
     */
    private Value sorted(List<Series> in, boolean descending) {
        List<Series> out = new ArrayList<>(in);
        if (steps == 1) {
            Comparator<Series> byValue = Comparator.comparingDouble(s -> s.values()[0]);
            out.sort(Comparator.<Series>comparingInt(s -> Double.isNaN(s.values()[0]) ? 0 : 1)
                    .thenComparing(descending ? byValue.reversed() : byValue));
        }
        return new Value.Vector(out, steps == 1);
    }

    private static List<Series> labelReplace(
            List<Series> in, String dst, String replacement, String src, String regex) {
        Pattern re = Pattern.compile("^(?:" + regex + ")$", Pattern.DOTALL);
        List<Series> out = new ArrayList<>(in.size());
        for (Series s : in) {
            String value = s.labels().getOrDefault(src, "");
            Matcher m = re.matcher(value);
            if (!m.matches()) {
                out.add(s);
                continue;
            }
            String result = expand(m, re, replacement);
            SortedMap<String, String> labels = new TreeMap<>(s.labels());
            if (result.isEmpty()) {
                labels.remove(dst);
            } else {
                labels.put(dst, result);
            }
            out.add(new Series(labels, s.values(), s.present()));
        }
        return out;
    }

    /** Go's Regexp.Expand: {@code $1}, {@code ${1}}, {@code $name}, {@code ${name}}, {@code $$}; unknown groups are empty. */
    static String expand(Matcher m, Pattern re, String template) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c != '$') {
                out.append(c);
                i++;
                continue;
            }
            if (i + 1 < template.length() && template.charAt(i + 1) == '$') {
                out.append('$');
                i += 2;
                continue;
            }
            int j = i + 1;
            boolean brace = j < template.length() && template.charAt(j) == '{';
            if (brace) {
                j++;
            }
            int nameStart = j;
            while (j < template.length()
                    && (Character.isLetterOrDigit(template.charAt(j)) || template.charAt(j) == '_')
                    && template.charAt(j) < 128) {
                j++;
            }
            String name = template.substring(nameStart, j);
            if (name.isEmpty() || (brace && (j >= template.length() || template.charAt(j) != '}'))) {
                out.append('$'); // malformed: the $ is literal text, as in Go
                i++;
                continue;
            }
            i = brace ? j + 1 : j;
            String group = null;
            if (name.chars().allMatch(Character::isDigit)) {
                if (name.length() < 9) {
                    int n = Integer.parseInt(name);
                    group = n <= m.groupCount() ? m.group(n) : null;
                }
            } else {
                try {
                    group = m.group(name);
                } catch (IllegalArgumentException e) {
                    group = null;
                }
            }
            if (group != null) {
                out.append(group);
            }
        }
        return out.toString();
    }

    private static List<Series> labelJoin(List<Series> in, String dst, String separator, List<String> sources) {
        List<Series> out = new ArrayList<>(in.size());
        for (Series s : in) {
            StringBuilder joined = new StringBuilder();
            for (int i = 0; i < sources.size(); i++) {
                if (i > 0) {
                    joined.append(separator);
                }
                joined.append(s.labels().getOrDefault(sources.get(i), ""));
            }
            SortedMap<String, String> labels = new TreeMap<>(s.labels());
            if (joined.isEmpty()) {
                labels.remove(dst);
            } else {
                labels.put(dst, joined.toString());
            }
            out.add(new Series(labels, s.values(), s.present()));
        }
        return out;
    }

    // --- aggregations ----------------------------------------------------------------------------------------------

    private Value aggregate(Expr.Aggregation a, Value.Vector in) throws PromQlException {
        double[] param = a.param() != null && a.param().scalar() ? scalar(a.param()) : null;
        String valueLabel = a.op() == Expr.AggregationOp.COUNT_VALUES ? ((Expr.StringLiteral) a.param()).value() : null;
        Map<SortedMap<String, String>, List<Series>> groups = new LinkedHashMap<>();
        Set<String> grouping = new HashSet<>(a.grouping());
        for (Series s : in.series()) {
            SortedMap<String, String> key = new TreeMap<>();
            s.labels().forEach((k, v) -> {
                boolean keep =
                        a.without() ? !grouping.contains(k) && !k.equals(LabelMatcher.NAME) : grouping.contains(k);
                if (keep) {
                    key.put(k, v);
                }
            });
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
        }
        Builder out = new Builder(steps);
        for (Map.Entry<SortedMap<String, String>, List<Series>> g : groups.entrySet()) {
            List<Series> members = new ArrayList<>(g.getValue().size());
            for (int i = 0; i < steps; i++) {
                members.clear();
                for (Series s : g.getValue()) {
                    if (s.present()[i]) {
                        members.add(s);
                    }
                }
                if (members.isEmpty()) {
                    continue;
                }
                final int step = i;
                switch (a.op()) {
                    case TOPK, BOTTOMK -> {
                        // As Prometheus: k is truncated to an integer; NaN never beats a number.
                        double k = param[i];
                        if (!(k >= 1)) {
                            continue;
                        }
                        boolean top = a.op() == Expr.AggregationOp.TOPK;
                        Comparator<Series> byValue = Comparator.comparingDouble(s -> s.values()[step]);
                        members.sort(Comparator.<Series>comparingInt(s -> Double.isNaN(s.values()[step]) ? 1 : 0)
                                .thenComparing(top ? byValue.reversed() : byValue));
                        for (int j = 0; j < Math.min(members.size(), k); j++) {
                            out.put(members.get(j).labels(), i, members.get(j).values()[i]);
                        }
                    }
                    case COUNT_VALUES -> {
                        Map<String, Integer> counts = new LinkedHashMap<>();
                        for (Series s : members) {
                            counts.merge(
                                    dev.pulse.query.promql.PromQlService.formatValue(s.values()[i]), 1, Integer::sum);
                        }
                        for (Map.Entry<String, Integer> c : counts.entrySet()) {
                            SortedMap<String, String> labels = new TreeMap<>(g.getKey());
                            labels.put(valueLabel, c.getKey());
                            out.put(labels, i, c.getValue());
                        }
                    }
                    default -> out.put(g.getKey(), i, reduce(a.op(), members, i, param == null ? 0 : param[i]));
                }
            }
        }
        boolean ordered = steps == 1 && (a.op() == Expr.AggregationOp.TOPK || a.op() == Expr.AggregationOp.BOTTOMK);
        return new Value.Vector(out.series(), ordered);
    }

    // Most arms loop over the points before they return; a switch expression with yield reads no better.
    @SuppressWarnings("RefactorSwitch")
    private static double reduce(Expr.AggregationOp op, List<Series> members, int i, double param) {
        switch (op) {
            case COUNT -> {
                return members.size();
            }
            case GROUP -> {
                return 1;
            }
            case QUANTILE -> {
                double[] v = new double[members.size()];
                for (int j = 0; j < v.length; j++) {
                    v[j] = members.get(j).values()[i];
                }
                return quantile(param, v);
            }
            case STDDEV, STDVAR -> {
                // Welford's method, as Prometheus computes it.
                double mean = 0;
                double aux = 0;
                int n = 0;
                for (Series s : members) {
                    double v = s.values()[i];
                    n++;
                    double delta = v - mean;
                    mean += delta / n;
                    aux += delta * (v - mean);
                }
                return op == Expr.AggregationOp.STDVAR ? aux / n : Math.sqrt(aux / n);
            }
            default -> {
                double acc = 0;
                boolean first = true;
                for (Series s : members) {
                    double v = s.values()[i];
                    acc = first
                            ? v
                            : switch (op) {
                                case SUM, AVG -> acc + v;
                                // As Prometheus: a NaN is replaced by any number, a number never by NaN.
                                case MIN -> Double.isNaN(acc) || v < acc ? v : acc;
                                case MAX -> Double.isNaN(acc) || v > acc ? v : acc;
                                default -> throw new IllegalStateException(op.name());
                            };
                    first = false;
                }
                return op == Expr.AggregationOp.AVG ? acc / members.size() : acc;
            }
        }
    }

    /** Prometheus' quantile aggregation: linear interpolation between the closest ranks, NaN sorted first. */
    static double quantile(double q, double[] values) {
        if (values.length == 0 || Double.isNaN(q)) {
            return Double.NaN;
        }
        if (q < 0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (q > 1) {
            return Double.POSITIVE_INFINITY;
        }
        double[] v = values.clone();
        Arrays.sort(v); // NaN last in Java; Prometheus sorts it first
        int nans = 0;
        for (double x : v) {
            if (Double.isNaN(x)) {
                nans++;
            }
        }
        if (nans > 0) {
            double[] moved = new double[v.length];
            Arrays.fill(moved, 0, nans, Double.NaN);
            System.arraycopy(v, 0, moved, nans, v.length - nans);
            v = moved;
        }
        double n = v.length;
        double rank = q * (n - 1);
        double lower = Math.max(0, Math.floor(rank));
        double upper = Math.min(n - 1, lower + 1);
        double weight = rank - Math.floor(rank);
        return v[(int) lower] * (1 - weight) + v[(int) upper] * weight;
    }

    /** Collects (labels, step, value) into series, one per label set. */
    private static final class Builder {
        private final int steps;
        private final Map<SortedMap<String, String>, Series> series = new LinkedHashMap<>();

        Builder(int steps) {
            this.steps = steps;
        }

        /** False when the label set already has a value at this step. */
        boolean put(SortedMap<String, String> labels, int step, double value) {
            Series s = series.computeIfAbsent(labels, l -> new Series(l, new double[steps], new boolean[steps]));
            if (s.present()[step]) {
                return false;
            }
            s.values()[step] = value;
            s.present()[step] = true;
            return true;
        }

        List<Series> series() {
            return new ArrayList<>(series.values());
        }
    }

    // --- operators -------------------------------------------------------------------------------------------------

    private Value negate(Value v) throws PromQlException {
        if (v instanceof Value.Scalar s) {
            double[] out = new double[steps];
            for (int i = 0; i < steps; i++) {
                out[i] = -s.values()[i];
            }
            return new Value.Scalar(out);
        }
        return new Value.Vector(unique(dropName(map(((Value.Vector) v).series(), x -> -x)), "unary minus"));
    }

    private Value binary(Expr.Binary b, Value lhs, Value rhs) throws PromQlException {
        if (lhs instanceof Value.Scalar l && rhs instanceof Value.Scalar r) {
            double[] out = new double[steps];
            for (int i = 0; i < steps; i++) {
                out[i] = Arithmetic.apply(b.op(), l.values()[i], r.values()[i]);
            }
            return new Value.Scalar(out);
        }
        if (lhs instanceof Value.Vector l && rhs instanceof Value.Vector r) {
            return b.set() ? setOperation(b, l.series(), r.series()) : vectorMatch(b, l.series(), r.series());
        }
        boolean vectorLeft = lhs instanceof Value.Vector;
        Value.Vector vector = (Value.Vector) (vectorLeft ? lhs : rhs);
        double[] scalar = ((Value.Scalar) (vectorLeft ? rhs : lhs)).values();
        boolean dropName = dropsName(b);
        List<Series> out = new ArrayList<>();
        for (Series s : vector.series()) {
            double[] values = new double[steps];
            boolean[] present = new boolean[steps];
            for (int i = 0; i < steps; i++) {
                if (!s.present()[i]) {
                    continue;
                }
                double l = vectorLeft ? s.values()[i] : scalar[i];
                double r = vectorLeft ? scalar[i] : s.values()[i];
                if (b.comparison()) {
                    // The vector's value is the result, on whichever side it is.
                    boolean keep = Arithmetic.compare(b.op(), l, r);
                    if (b.bool()) {
                        values[i] = keep ? 1 : 0;
                    } else if (keep) {
                        values[i] = s.values()[i];
                    } else {
                        continue;
                    }
                } else {
                    values[i] = Arithmetic.apply(b.op(), l, r);
                }
                present[i] = true;
            }
            Series x = new Series(s.labels(), values, present);
            if (!x.isEmpty()) {
                out.add(x);
            }
        }
        return new Value.Vector(unique(dropName ? dropName(out) : out, "binary operator \"" + b.op() + "\""));
    }

    /** As Prometheus' shouldDropMetricName: arithmetic (but atan2) and bool comparisons drop the name. */
    private static boolean dropsName(Expr.Binary b) {
        return b.bool() || (!b.comparison() && !b.op().equals("atan2"));
    }

    /** The labels two elements are matched on: the {@code on} labels, or all but the {@code ignoring} ones and the name. */
    private static SortedMap<String, String> signature(SortedMap<String, String> labels, Expr.Matching m) {
        SortedMap<String, String> sig = new TreeMap<>();
        labels.forEach((k, v) -> {
            boolean in = m.labels().contains(k);
            if (m.on() ? in : !in && !k.equals(LabelMatcher.NAME)) {
                sig.put(k, v);
            }
        });
        return sig;
    }

    private Value setOperation(Expr.Binary b, List<Series> lhs, List<Series> rhs) {
        Expr.Matching m = b.matching();
        Builder out = new Builder(steps);
        java.util.IdentityHashMap<Series, SortedMap<String, String>> sigs = new java.util.IdentityHashMap<>();
        for (Series s : lhs) {
            sigs.put(s, signature(s.labels(), m));
        }
        for (Series s : rhs) {
            sigs.put(s, signature(s.labels(), m));
        }
        for (int i = 0; i < steps; i++) {
            Set<SortedMap<String, String>> rightSigs = new HashSet<>();
            for (Series r : rhs) {
                if (r.present()[i]) {
                    rightSigs.add(sigs.get(r));
                }
            }
            Set<SortedMap<String, String>> leftSigs = new HashSet<>();
            for (Series l : lhs) {
                if (!l.present()[i]) {
                    continue;
                }
                SortedMap<String, String> sig = sigs.get(l);
                leftSigs.add(sig);
                boolean keep = switch (b.op()) {
                    case "and" -> rightSigs.contains(sig);
                    case "unless" -> !rightSigs.contains(sig);
                    default -> true;
                };
                if (keep) {
                    out.put(l.labels(), i, l.values()[i]);
                }
            }
            if (b.op().equals("or")) {
                for (Series r : rhs) {
                    if (r.present()[i] && !leftSigs.contains(sigs.get(r))) {
                        out.put(r.labels(), i, r.values()[i]);
                    }
                }
            }
        }
        return new Value.Vector(out.series());
    }

    /** Arithmetic and comparisons between two vectors, matched as Prometheus' VectorBinop matches them. */
    private Value vectorMatch(Expr.Binary b, List<Series> lhs, List<Series> rhs) throws PromQlException {
        Expr.Matching m = b.matching();
        boolean swap = m.card() == Expr.Card.ONE_TO_MANY;
        List<Series> many = swap ? rhs : lhs;
        List<Series> one = swap ? lhs : rhs;
        boolean dropName = dropsName(b);
        Builder out = new Builder(steps);
        // A series' labels are the same at every step: its signature is computed once.
        java.util.IdentityHashMap<Series, SortedMap<String, String>> sigs = new java.util.IdentityHashMap<>();
        for (Series s : many) {
            sigs.put(s, signature(s.labels(), m));
        }
        for (Series s : one) {
            sigs.put(s, signature(s.labels(), m));
        }
        for (int i = 0; i < steps; i++) {
            Map<SortedMap<String, String>, Series> oneSide = new HashMap<>();
            for (Series r : one) {
                if (!r.present()[i]) {
                    continue;
                }
                SortedMap<String, String> sig = sigs.get(r);
                Series duplicate = oneSide.put(sig, r);
                if (duplicate != null) {
                    throw new PromQlException(
                            PromQlException.Type.EXECUTION,
                            "found duplicate series for the match group "
                                    + sig + " on the " + (swap ? "left" : "right") + " hand-side of the operation: ["
                                    + duplicate.labels() + ", " + r.labels()
                                    + "];many-to-many matching not allowed: matching"
                                    + " labels must be unique on one side");
                }
            }
            Set<SortedMap<String, String>> matched = new HashSet<>();
            for (Series l : many) {
                if (!l.present()[i]) {
                    continue;
                }
                SortedMap<String, String> sig = sigs.get(l);
                Series r = oneSide.get(sig);
                if (r == null) {
                    continue;
                }
                double vl = swap ? r.values()[i] : l.values()[i];
                double vr = swap ? l.values()[i] : r.values()[i];
                double value;
                if (b.comparison()) {
                    boolean keep = Arithmetic.compare(b.op(), vl, vr);
                    if (b.bool()) {
                        value = keep ? 1 : 0;
                    } else if (keep) {
                        value = vl;
                    } else {
                        continue;
                    }
                } else {
                    value = Arithmetic.apply(b.op(), vl, vr);
                }
                SortedMap<String, String> labels = resultLabels(l.labels(), r.labels(), m, dropName);
                if (m.card() == Expr.Card.ONE_TO_ONE) {
                    if (!matched.add(sig)) {
                        throw new PromQlException(
                                PromQlException.Type.EXECUTION,
                                "multiple matches for labels: many-to-one"
                                        + " matching must be explicit (group_left/group_right)");
                    }
                } else if (!matched.add(labels)) {
                    throw new PromQlException(
                            PromQlException.Type.EXECUTION,
                            "multiple matches for labels: grouping" + " labels must ensure unique matches");
                }
                if (!out.put(labels, i, value)) {
                    throw new PromQlException(
                            PromQlException.Type.EXECUTION,
                            "vector cannot contain metrics with the same" + " labelset: " + labels
                                    + " after binary operator \"" + b.op() + "\"");
                }
            }
        }
        return new Value.Vector(out.series());
    }

    /** Prometheus' resultMetric: the "many" side's labels, narrowed for one-to-one matching, plus the group_x labels. */
    // Label sets are SortedMaps throughout the query model; the call removes keys, nothing SortedMap lacks.
    @SuppressWarnings("JdkObsolete")
    private static SortedMap<String, String> resultLabels(
            SortedMap<String, String> many, SortedMap<String, String> one, Expr.Matching m, boolean dropName) {
        SortedMap<String, String> labels = new TreeMap<>(many);
        if (dropName) {
            labels.remove(LabelMatcher.NAME);
        }
        if (m.card() == Expr.Card.ONE_TO_ONE) {
            if (m.on()) {
                labels.keySet().retainAll(new HashSet<>(m.labels()));
            } else {
                m.labels().forEach(labels::remove);
            }
        }
        for (String l : m.include()) {
            String v = one.get(l);
            if (v == null || v.isEmpty()) {
                labels.remove(l);
            } else {
                labels.put(l, v);
            }
        }
        return labels;
    }

    /** Functions and arithmetic drop the metric name, as in Prometheus. */
    private static List<Series> dropName(List<Series> in) {
        List<Series> out = new ArrayList<>(in.size());
        for (Series s : in) {
            SortedMap<String, String> labels = new TreeMap<>(s.labels());
            labels.remove(LabelMatcher.NAME);
            out.add(new Series(labels, s.values(), s.present()));
        }
        return out;
    }

    /**
     * Two series with the same labels (different names, the same dimensions, after a function dropped the name or
     * label_replace rewrote a label) cannot both be answered at the same step.
     */
    private static List<Series> unique(List<Series> in, String where) throws PromQlException {
        Map<SortedMap<String, String>, boolean[]> seen = new HashMap<>();
        for (Series s : in) {
            boolean[] before = seen.putIfAbsent(s.labels(), s.present());
            if (before == null) {
                continue;
            }
            for (int i = 0; i < before.length; i++) {
                if (before[i] && s.present()[i]) {
                    throw new PromQlException(
                            PromQlException.Type.EXECUTION,
                            "vector cannot contain metrics with the" + " same labelset: " + s.labels() + " after "
                                    + where);
                }
            }
            // Present at different steps: one series (as Prometheus' range result would join them).
            boolean[] union = before.clone();
            for (int i = 0; i < union.length; i++) {
                union[i] |= s.present()[i];
            }
            seen.put(s.labels(), union);
        }
        if (seen.size() == in.size()) {
            return in;
        }
        Builder merged = new Builder(in.isEmpty() ? 0 : in.get(0).values().length);
        for (Series s : in) {
            for (int i = 0; i < s.values().length; i++) {
                if (s.present()[i]) {
                    merged.put(s.labels(), i, s.values()[i]);
                }
            }
        }
        return merged.series();
    }
}
