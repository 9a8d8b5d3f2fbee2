package dev.pulse.query.promql.internal;

import dev.pulse.query.Stat;
import dev.pulse.query.promql.PromQlException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Evaluates a parsed expression at every step of a query. Selectors and range functions are answered by a
 * {@link Source} (the stored summaries, one statistic per window); aggregations and arithmetic are computed here,
 * step by step.
 */
public final class Evaluator {

    /** Where windows of stored data come from. */
    public interface Source {
        /**
         * The series {@code selector} matches, each with {@code stat} of its data in the window of length
         * {@code rangeMillis} ending at every step (absent where the window holds no data). Labels include
         * {@code __name__}.
         */
        List<Series> windows(Expr.Selector selector, long rangeMillis, Stat stat) throws PromQlException;
    }

    private final Source source;
    private final int steps;
    private final long bareRangeMillis;

    /**
     * @param bareRangeMillis the window of a bare selector (which answers the average over it): the step of a range
     *                        query, the lookback of an instant query
     */
    public Evaluator(Source source, int steps, long bareRangeMillis) {
        this.source = source;
        this.steps = steps;
        this.bareRangeMillis = bareRangeMillis;
    }

    public Value evaluate(Expr e) throws PromQlException {
        return switch (e) {
            case Expr.NumberLiteral n -> {
                double[] v = new double[steps];
                Arrays.fill(v, n.value());
                yield new Value.Scalar(v);
            }
            case Expr.Selector s -> new Value.Vector(source.windows(s, bareRangeMillis, Stat.parse("avg")));
            case Expr.OverTime o -> new Value.Vector(unique(dropName(source.windows(o.selector(),
                    o.selector().rangeMillis(), stat(o))), o.function().promQlName()));
            case Expr.Aggregation a -> aggregate(a, (Value.Vector) evaluate(a.inner()));
            case Expr.Negation n -> negate(evaluate(n.inner()));
            case Expr.Binary b -> binary(b, evaluate(b.lhs()), evaluate(b.rhs()));
        };
    }

    /** The statistic a range function reads from each window's merged summary. */
    static Stat stat(Expr.OverTime o) {
        return switch (o.function()) {
            case COUNT -> Stat.parse("count");
            case SUM -> Stat.parse("sum");
            case AVG -> Stat.parse("avg");
            case MIN -> Stat.parse("min");
            case MAX -> Stat.parse("max");
            // The 0-quantile is the minimum, exactly (a sketch percentile needs a positive rank).
            case QUANTILE -> o.q() == 0 ? Stat.parse("min")
                    : new Stat("p" + BigDecimal.valueOf(o.q()).movePointRight(2).stripTrailingZeros().toPlainString(),
                            Stat.Kind.PERCENTILE, o.q());
        };
    }

    private Value aggregate(Expr.Aggregation a, Value.Vector in) throws PromQlException {
        Map<SortedMap<String, String>, List<Series>> groups = new LinkedHashMap<>();
        Set<String> grouping = new HashSet<>(a.grouping());
        for (Series s : in.series()) {
            SortedMap<String, String> key = new TreeMap<>();
            s.labels().forEach((k, v) -> {
                boolean keep = a.without() ? !grouping.contains(k) && !k.equals(LabelMatcher.NAME) : grouping.contains(k);
                if (keep) {
                    key.put(k, v);
                }
            });
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
        }
        List<Series> out = new ArrayList<>();
        for (Map.Entry<SortedMap<String, String>, List<Series>> g : groups.entrySet()) {
            double[] values = new double[steps];
            boolean[] present = new boolean[steps];
            for (int i = 0; i < steps; i++) {
                double acc = 0;
                int n = 0;
                for (Series s : g.getValue()) {
                    if (!s.present()[i]) {
                        continue;
                    }
                    double v = s.values()[i];
                    acc = n == 0 ? first(a.op(), v) : combine(a.op(), acc, v);
                    n++;
                }
                if (n > 0) {
                    present[i] = true;
                    values[i] = a.op() == Expr.AggregationOp.AVG ? acc / n : acc;
                }
            }
            Series s = new Series(g.getKey(), values, present);
            if (!s.isEmpty()) {
                out.add(s);
            }
        }
        return new Value.Vector(out);
    }

    private static double first(Expr.AggregationOp op, double v) {
        return op == Expr.AggregationOp.COUNT ? 1 : v;
    }

    private static double combine(Expr.AggregationOp op, double acc, double v) {
        return switch (op) {
            case SUM, AVG -> acc + v;
            case COUNT -> acc + 1;
            // As Prometheus: a NaN is replaced by any number, a number never by NaN.
            case MIN -> Double.isNaN(acc) || v < acc ? v : acc;
            case MAX -> Double.isNaN(acc) || v > acc ? v : acc;
        };
    }

    private Value negate(Value v) throws PromQlException {
        if (v instanceof Value.Scalar s) {
            double[] out = new double[steps];
            for (int i = 0; i < steps; i++) {
                out[i] = -s.values()[i];
            }
            return new Value.Scalar(out);
        }
        List<Series> out = new ArrayList<>();
        for (Series s : ((Value.Vector) v).series()) {
            double[] values = new double[steps];
            for (int i = 0; i < steps; i++) {
                values[i] = -s.values()[i];
            }
            out.add(new Series(s.labels(), values, s.present()));
        }
        return new Value.Vector(unique(dropName(out), "unary minus"));
    }

    private Value binary(Expr.Binary b, Value lhs, Value rhs) throws PromQlException {
        if (lhs instanceof Value.Scalar l && rhs instanceof Value.Scalar r) {
            double[] out = new double[steps];
            for (int i = 0; i < steps; i++) {
                out[i] = Arithmetic.apply(b.op(), l.values()[i], r.values()[i]);
            }
            return new Value.Scalar(out);
        }
        boolean vectorLeft = lhs instanceof Value.Vector;
        Value.Vector vector = (Value.Vector) (vectorLeft ? lhs : rhs);
        double[] scalar = ((Value.Scalar) (vectorLeft ? rhs : lhs)).values();
        List<Series> out = new ArrayList<>();
        for (Series s : vector.series()) {
            double[] values = new double[steps];
            for (int i = 0; i < steps; i++) {
                if (s.present()[i]) {
                    values[i] = vectorLeft ? Arithmetic.apply(b.op(), s.values()[i], scalar[i])
                            : Arithmetic.apply(b.op(), scalar[i], s.values()[i]);
                }
            }
            out.add(new Series(s.labels(), values, s.present()));
        }
        return new Value.Vector(unique(dropName(out), "binary operator \"" + b.op() + "\""));
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

    /** Two series left with the same labels (different names, the same dimensions) cannot both be answered. */
    private static List<Series> unique(List<Series> in, String where) throws PromQlException {
        Set<SortedMap<String, String>> seen = new HashSet<>();
        for (Series s : in) {
            if (!seen.add(s.labels())) {
                throw new PromQlException(PromQlException.Type.EXECUTION, "vector cannot contain metrics with the same"
                        + " labelset: " + s.labels() + " after " + where + " dropped the metric name");
            }
        }
        return in;
    }
}
