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

import java.util.List;

/**
 * A parsed expression of the supported PromQL subset. The type of every node (scalar, instant vector, range vector,
 * string) is known when it is parsed, so every construct outside the subset is refused with its position before
 * anything is read.
 */
public sealed interface Expr {

    /** PromQL's value types. */
    enum Type {
        SCALAR,
        VECTOR,
        RANGE,
        STRING
    }

    /** Position (0-based offset in the query) where the node starts, for error messages. */
    int pos();

    Type type();

    /** True for a scalar, false for every other type. */
    default boolean scalar() {
        return type() == Type.SCALAR;
    }

    /** A number literal. */
    record NumberLiteral(double value, int pos) implements Expr {
        @Override
        public Type type() {
            return Type.SCALAR;
        }
    }

    /** A string literal (only as a function's or {@code count_values}' argument). */
    record StringLiteral(String value, int pos) implements Expr {
        @Override
        public Type type() {
            return Type.STRING;
        }
    }

    /**
     * A series selector: matchers (the metric name as a {@code __name__} matcher), {@code rangeMillis} above 0 for a
     * range selector {@code [5m]}, {@code offsetMillis} of an {@code offset} modifier (0 without), {@code atMillis}
     * of an {@code @} modifier (null without).
     */
    record Selector(List<LabelMatcher> matchers, long rangeMillis, long offsetMillis, Long atMillis, int pos)
            implements Expr {
        public Selector(List<LabelMatcher> matchers, long rangeMillis, int pos) {
            this(matchers, rangeMillis, 0, null, pos);
        }

        @Override
        public Type type() {
            return rangeMillis > 0 ? Type.RANGE : Type.VECTOR;
        }

        Selector withRange(long millis) {
            return new Selector(matchers, millis, offsetMillis, atMillis, pos);
        }

        Selector withOffset(long millis) {
            return new Selector(matchers, rangeMillis, millis, atMillis, pos);
        }

        Selector withAt(long millis) {
            return new Selector(matchers, rangeMillis, offsetMillis, millis, pos);
        }

        /** {@code @ start()}: the query's start (an instant query's time). */
        public static final long AT_START = Long.MIN_VALUE;
        /** {@code @ end()}: the query's end (an instant query's time). */
        public static final long AT_END = Long.MAX_VALUE;

        /**
         * The time the data is read for an evaluation at {@code t} of a query from {@code start} to {@code end}:
         * {@code @} replaces it, {@code offset} moves it back.
         */
        public long readTime(long t, long start, long end) {
            long at = atMillis == null ? t : atMillis == AT_START ? start : atMillis == AT_END ? end : atMillis;
            return at - offsetMillis;
        }
    }

    /**
     * {@code <range function>([q,] selector[range][, q])}. {@code q} is NaN except for quantile_over_time (the
     * quantile) and predict_linear (the seconds ahead).
     */
    record OverTime(OverTimeFunction function, double q, Selector selector, int pos) implements Expr {
        @Override
        public Type type() {
            return Type.VECTOR;
        }
    }

    /**
     * A subquery {@code expr[range:step]}: the expression evaluated at every multiple of {@code stepMillis} (0: the
     * default, one minute) in each window; only as the argument of an {@code *_over_time} function.
     */
    record Subquery(Expr inner, long rangeMillis, long stepMillis, int pos) implements Expr {
        @Override
        public Type type() {
            return Type.RANGE;
        }

        public long step() {
            return stepMillis == 0 ? 60_000L : stepMillis;
        }
    }

    /** {@code <function>_over_time([q,] expr[range:step])}: the function over the subquery's points. */
    record OverSubquery(OverTimeFunction function, double q, Subquery subquery, int pos) implements Expr {
        @Override
        public Type type() {
            return Type.VECTOR;
        }
    }

    /** A function over instant vectors and scalars ({@link #FUNCTIONS}). */
    record Call(String function, List<Expr> args, int pos) implements Expr {
        @Override
        public Type type() {
            return function.equals("time") || function.equals("scalar") || function.equals("pi")
                    ? Type.SCALAR
                    : Type.VECTOR;
        }
    }

    /** {@code op [by|without (labels)] ([param,] expr)}; {@code param} is null except for topk, bottomk, quantile, count_values. */
    record Aggregation(AggregationOp op, boolean without, List<String> grouping, Expr param, Expr inner, int pos)
            implements Expr {
        public Aggregation(AggregationOp op, boolean without, List<String> grouping, Expr inner, int pos) {
            this(op, without, grouping, null, inner, pos);
        }

        @Override
        public Type type() {
            return Type.VECTOR;
        }
    }

    /**
     * A binary operation: arithmetic ({@code + - * / % ^ atan2}), comparison ({@code == != > < >= <=}, {@code bool}
     * for 0/1 results) or set ({@code and or unless}); {@code matching} is the vector matching between two vectors
     * (null when a side is a scalar).
     */
    record Binary(String op, Expr lhs, Expr rhs, boolean bool, Matching matching, int pos) implements Expr {
        @Override
        public Type type() {
            return lhs.scalar() && rhs.scalar() ? Type.SCALAR : Type.VECTOR;
        }

        public boolean comparison() {
            return isComparison(op);
        }

        public boolean set() {
            return isSet(op);
        }
    }

    static boolean isComparison(String op) {
        return switch (op) {
            case "==", "!=", ">", "<", ">=", "<=" -> true;
            default -> false;
        };
    }

    static boolean isSet(String op) {
        return op.equals("and") || op.equals("or") || op.equals("unless");
    }

    /** Vector matching cardinality, as Prometheus names it. */
    enum Card {
        ONE_TO_ONE,
        MANY_TO_ONE,
        ONE_TO_MANY,
        MANY_TO_MANY
    }

    /**
     * How two vectors' elements are paired: by the {@code on} labels, or by all labels but the {@code ignoring} ones
     * (and the metric name); {@code include} are the {@code group_left}/{@code group_right} labels copied from the
     * "one" side.
     */
    record Matching(Card card, boolean on, List<String> labels, List<String> include) {
        static Matching defaultFor(String op) {
            return new Matching(isSet(op) ? Card.MANY_TO_MANY : Card.ONE_TO_ONE, false, List.of(), List.of());
        }
    }

    /** Unary minus. */
    record Negation(Expr inner, int pos) implements Expr {
        @Override
        public Type type() {
            return inner.type();
        }
    }

    /** Instant-vector and scalar functions: name, argument types (a trailing {@code ...} repeats the last). */
    List<String[]> FUNCTIONS = List.of(
            new String[] {"abs", "v"},
            new String[] {"ceil", "v"},
            new String[] {"floor", "v"},
            new String[] {"exp", "v"},
            new String[] {"ln", "v"},
            new String[] {"log2", "v"},
            new String[] {"log10", "v"},
            new String[] {"sqrt", "v"},
            new String[] {"sgn", "v"},
            new String[] {"round", "v", "s?"},
            new String[] {"clamp", "v", "s", "s"},
            new String[] {"clamp_min", "v", "s"},
            new String[] {"clamp_max", "v", "s"},
            new String[] {"sort", "v"},
            new String[] {"sort_desc", "v"},
            new String[] {"timestamp", "v"},
            new String[] {"absent", "v"},
            new String[] {"vector", "s"},
            new String[] {"scalar", "v"},
            new String[] {"time"},
            new String[] {"histogram_quantile", "s", "v"},
            new String[] {"sin", "v"},
            new String[] {"cos", "v"},
            new String[] {"tan", "v"},
            new String[] {"asin", "v"},
            new String[] {"acos", "v"},
            new String[] {"atan", "v"},
            new String[] {"sinh", "v"},
            new String[] {"cosh", "v"},
            new String[] {"tanh", "v"},
            new String[] {"asinh", "v"},
            new String[] {"acosh", "v"},
            new String[] {"atanh", "v"},
            new String[] {"deg", "v"},
            new String[] {"rad", "v"},
            new String[] {"pi"},
            new String[] {"minute", "v?"},
            new String[] {"hour", "v?"},
            new String[] {"day_of_month", "v?"},
            new String[] {"day_of_week", "v?"},
            new String[] {"day_of_year", "v?"},
            new String[] {"days_in_month", "v?"},
            new String[] {"month", "v?"},
            new String[] {"year", "v?"},
            new String[] {"label_replace", "v", "t", "t", "t", "t"},
            new String[] {"label_join", "v", "t", "t", "t..."});

    static String[] function(String name) {
        for (String[] f : FUNCTIONS) {
            if (f[0].equals(name)) {
                return f;
            }
        }
        return null;
    }

    /** The supported range functions. */
    enum OverTimeFunction {
        COUNT("count_over_time"),
        SUM("sum_over_time"),
        AVG("avg_over_time"),
        MIN("min_over_time"),
        MAX("max_over_time"),
        QUANTILE("quantile_over_time"),
        RATE("rate"),
        INCREASE("increase"),
        IRATE("irate"),
        DELTA("delta"),
        IDELTA("idelta"),
        LAST("last_over_time"),
        PRESENT("present_over_time"),
        ABSENT("absent_over_time"),
        STDDEV("stddev_over_time"),
        STDVAR("stdvar_over_time"),
        CHANGES("changes"),
        RESETS("resets"),
        DERIV("deriv"),
        PREDICT_LINEAR("predict_linear");

        private final String promQlName;

        OverTimeFunction(String promQlName) {
            this.promQlName = promQlName;
        }

        public String promQlName() {
            return promQlName;
        }

        /** The functions that take a subquery: they need only the points, not the counter semantics. */
        boolean overPoints() {
            return switch (this) {
                case RATE, INCREASE, IRATE, DELTA, IDELTA -> false;
                default -> true;
            };
        }

        /** Over samples and their times, as Prometheus: changes, resets, deriv, predict_linear. */
        boolean timed() {
            return switch (this) {
                case CHANGES, RESETS, DERIV, PREDICT_LINEAR -> true;
                default -> false;
            };
        }

        /** Answered from each minute's summary in the window rather than the window's merged summary. */
        boolean perMinute() {
            return switch (this) {
                case IRATE, DELTA, IDELTA, LAST, STDDEV, STDVAR, CHANGES, RESETS, DERIV, PREDICT_LINEAR -> true;
                default -> false;
            };
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
        SUM,
        MIN,
        MAX,
        AVG,
        COUNT,
        GROUP,
        STDDEV,
        STDVAR,
        TOPK,
        BOTTOMK,
        QUANTILE,
        COUNT_VALUES;

        String promQlName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The parameter's type, or null when the aggregation takes none. */
        Type paramType() {
            return switch (this) {
                case TOPK, BOTTOMK, QUANTILE -> Type.SCALAR;
                case COUNT_VALUES -> Type.STRING;
                default -> null;
            };
        }

        static AggregationOp named(String name) {
            for (AggregationOp a : values()) {
                if (a.promQlName().equals(name)) {
                    return a;
                }
            }
            return null;
        }
    }
}
