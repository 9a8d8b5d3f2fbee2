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

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code /api/v1/format_query}: a query printed back as Prometheus 2.42 prints it ({@code parser.Prettify}): each node's
 * canonical text (Prometheus' {@code String()}: matchers sorted, durations in their shortest units, numbers as Go's
 * {@code %v}, {@code by}/{@code without} before the parentheses, {@code @} before {@code offset}); a node whose text is
 * longer than 100 bytes is split over lines, two spaces of indent a level (aggregations and calls put their arguments on
 * their own lines, a binary operation its operator between its two sides). The parentheses written are kept, as
 * Prometheus keeps them.
 */
public final class PromQlFormatter {

    /** Prometheus' {@code maxCharactersPerLine}. */
    static final int MAX_LINE = 100;

    private final PromQlParser.Syntax syntax;

    private PromQlFormatter(PromQlParser.Syntax syntax) {
        this.syntax = syntax;
    }

    /** {@code query} formatted; refused as the query endpoints refuse it when it does not parse. */
    public static String format(String query) throws PromQlParseException {
        PromQlParser.Syntax syntax = PromQlParser.parseSyntax(query);
        return new PromQlFormatter(syntax).pretty(syntax.expr(), 0);
    }

    // --- String(): one line -------------------------------------------------------------------------------------

    private String str(Expr e) {
        return parenthesized(e, bare(e));
    }

    private String parenthesized(Expr e, String s) {
        int n = syntax.parens().getOrDefault(e, 0);
        return "(".repeat(n) + s + ")".repeat(n);
    }

    private String bare(Expr e) {
        return switch (e) {
            case Expr.NumberLiteral n -> goFloat(n.value());
            case Expr.StringLiteral s -> goQuote(s.value());
            case Expr.Selector s -> selector(s);
            case Expr.OverTime o -> o.function().promQlName() + "(" + String.join(", ", strs(args(o))) + ")";
            case Expr.OverSubquery o -> o.function().promQlName() + "(" + String.join(", ", strs(args(o))) + ")";
            case Expr.Subquery q ->
                str(q.inner()) + "[" + duration(q.rangeMillis()) + ":"
                        + (q.stepMillis() == 0 ? "" : duration(q.stepMillis())) + "]";
            case Expr.Call c -> c.function() + "(" + String.join(", ", strs(c.args())) + ")";
            case Expr.Aggregation a ->
                aggregationOp(a) + "(" + (a.param() == null ? "" : str(a.param()) + ", ") + str(a.inner()) + ")";
            case Expr.Negation n -> folded(n) != null ? goFloat(folded(n)) : "-" + str(n.inner());
            case Expr.Binary b -> str(b.lhs()) + " " + operator(b) + " " + str(b.rhs());
        };
    }

    /**
     * Prometheus' parser folds a minus into the number literal it precedes ({@code - -inf} is {@code +Inf}), not into a
     * parenthesised one ({@code -(2)} stays): the number, or null when {@code e} is not such a literal.
     */
    private Double folded(Expr e) {
        if (e instanceof Expr.NumberLiteral l) {
            return l.value();
        }
        if (e instanceof Expr.Negation n && !syntax.parens().containsKey(n.inner())) {
            Double inner = folded(n.inner());
            return inner == null ? null : -inner;
        }
        return null;
    }

    private List<String> strs(List<Expr> args) {
        List<String> out = new ArrayList<>(args.size());
        for (Expr a : args) {
            out.add(str(a));
        }
        return out;
    }

    /** A range function's arguments as written: the scalar one (quantile, seconds ahead) where it takes one. */
    private List<Expr> args(Expr e) {
        Expr.OverTimeFunction f;
        double q;
        Expr range;
        if (e instanceof Expr.OverTime o) {
            f = o.function();
            q = o.q();
            range = o.selector();
        } else {
            Expr.OverSubquery o = (Expr.OverSubquery) e;
            f = o.function();
            q = o.q();
            range = o.subquery();
        }
        Expr scalar = syntax.scalarArgs().get(e);
        if (scalar == null && !Double.isNaN(q)) {
            scalar = new Expr.NumberLiteral(q, e.pos());
        }
        if (f == Expr.OverTimeFunction.QUANTILE) {
            return List.of(scalar, range);
        }
        if (f == Expr.OverTimeFunction.PREDICT_LINEAR) {
            return List.of(range, scalar);
        }
        return List.of(range);
    }

    private String selector(Expr.Selector s) {
        String name = "";
        List<String> matchers = new ArrayList<>();
        for (LabelMatcher m : s.matchers()) {
            if (syntax.bareNames().contains(m)) {
                name = m.value();
                continue;
            }
            matchers.add(m.name() + m.op() + goQuote(m.value()));
        }
        matchers.sort(null);
        StringBuilder sb = new StringBuilder(name);
        if (!matchers.isEmpty()) {
            sb.append('{').append(String.join(",", matchers)).append('}');
        }
        if (s.rangeMillis() > 0) {
            sb.append('[').append(duration(s.rangeMillis())).append(']');
        }
        if (s.atMillis() != null) {
            long at = s.atMillis();
            sb.append(
                    at == Expr.Selector.AT_START
                            ? " @ start()"
                            : at == Expr.Selector.AT_END
                                    ? " @ end()"
                                    : " @ " + BigDecimal.valueOf(at, 3).toPlainString());
        }
        if (s.offsetMillis() > 0) {
            sb.append(" offset ").append(duration(s.offsetMillis()));
        } else if (s.offsetMillis() < 0) {
            sb.append(" offset -").append(duration(-s.offsetMillis()));
        }
        return sb.toString();
    }

    /** {@code sum}, {@code sum by (a, b) }, {@code sum without (a) }: Prometheus' {@code getAggOpStr}. */
    private static String aggregationOp(Expr.Aggregation a) {
        String op = a.op().promQlName();
        if (a.without()) {
            return op + " without (" + String.join(", ", a.grouping()) + ") ";
        }
        if (!a.grouping().isEmpty()) {
            return op + " by (" + String.join(", ", a.grouping()) + ") ";
        }
        return op;
    }

    /** The operator with {@code bool} and the vector matching, as Prometheus 2.42 prints them. */
    private static String operator(Expr.Binary b) {
        StringBuilder sb = new StringBuilder(b.op());
        if (b.bool()) {
            sb.append(" bool");
        }
        Expr.Matching m = b.matching();
        // As 2.42's getMatchingStr: nothing at all without on(...) or ignoring labels, even a group_left.
        if (m != null && (!m.labels().isEmpty() || m.on())) {
            sb.append(m.on() ? " on (" : " ignoring (")
                    .append(String.join(", ", m.labels()))
                    .append(')');
            if (m.card() == Expr.Card.MANY_TO_ONE || m.card() == Expr.Card.ONE_TO_MANY) {
                sb.append(m.card() == Expr.Card.MANY_TO_ONE ? " group_left (" : " group_right (")
                        .append(String.join(", ", m.include()))
                        .append(')');
            }
        }
        return sb.toString();
    }

    // --- Pretty(level): split past 100 bytes ---------------------------------------------------------------------

    private static String indent(int level) {
        return "  ".repeat(level);
    }

    private boolean needsSplit(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length > MAX_LINE;
    }

    private String pretty(Expr e, int level) {
        return pretty(e, level, syntax.parens().getOrDefault(e, 0));
    }

    /** {@code e} inside {@code parens} parentheses (each a ParenExpr to Prometheus). */
    private String pretty(Expr e, int level, int parens) {
        if (parens > 0) {
            String text = "(".repeat(parens) + bare(e) + ")".repeat(parens);
            if (!needsSplit(text)) {
                return indent(level) + text;
            }
            return indent(level) + "(\n" + pretty(e, level + 1, parens - 1) + "\n" + indent(level) + ")";
        }
        String text = bare(e);
        if (e instanceof Expr.Negation n && folded(n) == null) {
            return indent(level) + "-" + pretty(n.inner(), level).strip();
        }
        if (e instanceof Expr.Subquery q) {
            if (!needsSplit(text)) {
                return indent(level) + text;
            }
            return pretty(q.inner(), level) + text.substring(str(q.inner()).length());
        }
        if (!needsSplit(text)) {
            return indent(level) + text;
        }
        return switch (e) {
            case Expr.Aggregation a ->
                indent(level) + aggregationOp(a) + "(\n"
                        + (a.param() == null ? "" : pretty(a.param(), level + 1) + ",\n")
                        + pretty(a.inner(), level + 1) + "\n" + indent(level) + ")";
            case Expr.Binary b ->
                pretty(b.lhs(), level + 1) + "\n" + indent(level) + operator(b) + "\n" + pretty(b.rhs(), level + 1);
            case Expr.Call c ->
                indent(level) + c.function() + "(\n" + prettyArgs(c.args(), level + 1) + "\n" + indent(level) + ")";
            case Expr.OverTime o ->
                indent(level) + o.function().promQlName() + "(\n" + prettyArgs(args(o), level + 1) + "\n"
                        + indent(level) + ")";
            case Expr.OverSubquery o ->
                indent(level) + o.function().promQlName() + "(\n" + prettyArgs(args(o), level + 1) + "\n"
                        + indent(level) + ")";
            default -> indent(level) + text; // selectors and literals are never split
        };
    }

    private String prettyArgs(List<Expr> args, int level) {
        List<String> out = new ArrayList<>(args.size());
        for (Expr a : args) {
            out.add(pretty(a, level));
        }
        return String.join(",\n", out);
    }

    // --- Go's and Prometheus' text of values ---------------------------------------------------------------------

    /** Prometheus' {@code model.Duration.String()}: years and weeks only when exact, then d h m s ms. */
    static String duration(long millis) {
        if (millis == 0) {
            return "0s";
        }
        long ms = millis;
        StringBuilder sb = new StringBuilder();
        long[] mult = {365L * 24 * 3600_000, 7L * 24 * 3600_000, 24L * 3600_000, 3600_000, 60_000, 1000, 1};
        String[] unit = {"y", "w", "d", "h", "m", "s", "ms"};
        for (int i = 0; i < mult.length; i++) {
            if (i < 2 && ms % mult[i] != 0) {
                continue;
            }
            long v = ms / mult[i];
            if (v > 0) {
                sb.append(v).append(unit[i]);
                ms -= v * mult[i];
            }
        }
        return sb.toString();
    }

    /** Go's {@code fmt.Sprint(float64)}: the shortest digits, with an exponent below 1e-4 and from 1e6 on. */
    static String goFloat(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == 0) {
            return 1 / v < 0 ? "-0" : "0";
        }
        BigDecimal d = new BigDecimal(Double.toString(Math.abs(v))).stripTrailingZeros();
        String digits = d.unscaledValue().toString();
        int exp = digits.length() - d.scale() - 1;
        String sign = v < 0 ? "-" : "";
        if (exp < -4 || exp >= 6) {
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            String e = Integer.toString(Math.abs(exp));
            return sign + mantissa + "e" + (exp < 0 ? "-" : "+") + (e.length() < 2 ? "0" + e : e);
        }
        return sign + d.toPlainString();
    }

    /** Go's {@code strconv.Quote}: double quotes, backslash escapes, control and invisible characters escaped as hex. */
    static String goQuote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case 7 -> sb.append("\\a");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case 11 -> sb.append("\\v");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\x%02x", c));
                    } else if (Character.isISOControl(c)
                            || !Character.isDefined(c)
                            || Character.getType(c) == Character.FORMAT
                            || Character.getType(c) == Character.SURROGATE
                            || (Character.isSpaceChar(c) && c != ' ')) {
                        sb.append(c < 0x10000 ? String.format("\\u%04x", c) : String.format("\\U%08x", c));
                    } else {
                        sb.appendCodePoint(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
