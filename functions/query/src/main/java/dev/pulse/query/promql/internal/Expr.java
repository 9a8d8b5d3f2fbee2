package dev.pulse.query.promql.internal;

import java.util.List;

/**
 * A parsed expression of the supported PromQL subset. Whether a node is a scalar or an instant vector is known
 * when it is parsed, so every construct outside the subset is refused with its position before anything is read.
 */
public sealed interface Expr {

    /** Position (0-based offset in the query) where the node starts, for error messages. */
    int pos();

    /** True for a scalar (numbers and arithmetic on them only), false for an instant vector. */
    boolean scalar();

    /** A number literal. */
    record NumberLiteral(double value, int pos) implements Expr {
        @Override
        public boolean scalar() {
            return true;
        }
    }

    /**
     * A series selector: matchers (the metric name as a {@code __name__} matcher), and {@code rangeMillis} above 0
     * for a range selector {@code [5m]} (only valid inside an {@code *_over_time} function).
     */
    record Selector(List<LabelMatcher> matchers, long rangeMillis, int pos) implements Expr {
        @Override
        public boolean scalar() {
            return false;
        }

        Selector withRange(long millis) {
            return new Selector(matchers, millis, pos);
        }
    }

    /** {@code <function>_over_time([q,] selector[range])}. {@code q} is NaN except for quantile_over_time. */
    record OverTime(OverTimeFunction function, double q, Selector selector, int pos) implements Expr {
        @Override
        public boolean scalar() {
            return false;
        }
    }

    /** {@code sum|min|max|avg|count [by|without (labels)] (expr)}. */
    record Aggregation(AggregationOp op, boolean without, List<String> grouping, Expr inner, int pos) implements Expr {
        @Override
        public boolean scalar() {
            return false;
        }
    }

    /** Arithmetic with at least one scalar side: {@code + - * / % ^}. */
    record Binary(char op, Expr lhs, Expr rhs, int pos) implements Expr {
        @Override
        public boolean scalar() {
            return lhs.scalar() && rhs.scalar();
        }
    }

    /** Unary minus. */
    record Negation(Expr inner, int pos) implements Expr {
        @Override
        public boolean scalar() {
            return inner.scalar();
        }
    }

    /** The supported range functions. */
    enum OverTimeFunction {
        COUNT("count_over_time"), SUM("sum_over_time"), AVG("avg_over_time"), MIN("min_over_time"),
        MAX("max_over_time"), QUANTILE("quantile_over_time");

        private final String promQlName;

        OverTimeFunction(String promQlName) {
            this.promQlName = promQlName;
        }

        public String promQlName() {
            return promQlName;
        }

        static OverTimeFunction named(String name) {
            for (OverTimeFunction f : values()) {
                if (f.promQlName.equals(name)) {
                    return f;
                }
            }
            return null;
        }
    }

    /** The supported aggregation operators. */
    enum AggregationOp {
        SUM, MIN, MAX, AVG, COUNT;

        static AggregationOp named(String name) {
            for (AggregationOp a : values()) {
                if (a.name().toLowerCase(java.util.Locale.ROOT).equals(name)) {
                    return a;
                }
            }
            return null;
        }
    }
}
