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

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.pulse.query.promql.internal.Expr.AggregationOp;
import dev.pulse.query.promql.internal.Expr.OverTimeFunction;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Parses the PromQL Pulse answers (docs/prometheus-api.md): selectors with {@code = != =~ !~} matchers,
 * {@code offset} and {@code @}; the range functions ({@code *_over_time}, {@code rate increase irate delta idelta},
 * {@code changes resets deriv predict_linear}),
 * also over subqueries for the {@code *_over_time} ones; the aggregations but {@code limitk}/{@code limit_ratio};
 * arithmetic, comparison and set operators with {@code bool}, {@code on}/{@code ignoring} and
 * {@code group_left}/{@code group_right}; the math, label, sort and time functions. The type of every node is checked
 * as Prometheus' parser checks it. Everything else is refused with its position.
 *
 * <p>Written by hand, a small recursive descent over the characters, because the subset is small and no maintained
 * Java PromQL parser fits a Lambda layer: the reference parser is Prometheus' own Go code, and the Java ports are
 * unmaintained or bring a generated grammar and its runtime for the whole language, whose errors for the
 * constructs left out here would not say "not supported". Regular expressions are compiled by re2j (linear time).
 *
 * <p>One extension: metric names may contain dots ({@code lambda.duration}), as Pulse's names do; a name with
 * other characters is written {@code {__name__="Namespace/Metric"}} or, as in Prometheus 3, {@code {"Namespace/Metric"}}.
 */
public final class PromQlParser {

    /** Longer queries are refused: no dashboard query comes near it, and it bounds parsing work. */
    public static final int MAX_LENGTH = 16_384;
    /** Nesting depth of parentheses, calls and unary operators; deeper is refused rather than risking the stack. */
    static final int MAX_DEPTH = 64;
    /**
     * Binary operators in one query. The parser recurses per right-associative {@code ^} and the evaluator per
     * operator of a chain, so an unbounded {@code 1+1+...} would overflow the stack (a 500) instead of a 400.
     */
    static final int MAX_OPERATORS = 64;
    /** Nested counted repeats may multiply to at most this, as in Go's regexp (and so Prometheus): RE2 programs grow with it. */
    static final int MAX_REPEAT = 1000;
    /**
     * Instructions the regular expressions of one query may compile to, together: Go's regexp refuses a program over
     * this ({@code maxSize}, 128 MB of 40-byte instructions, "expression too large"). re2j holds about 64 bytes per
     * instruction, so this is at most ~210 MB of heap while the query runs (the default QueryFunction has 768 MB).
     */
    static final int MAX_REGEX_PROGRAM_SIZE = (128 << 20) / 40;

    private static final Set<String> AGGREGATIONS_NOT_SUPPORTED = Set.of("limitk", "limit_ratio");
    /** Prometheus 2.42's other functions: named as not supported rather than unknown. */
    private static final Set<String> FUNCTIONS_NOT_SUPPORTED =
            Set.of("histogram_count", "histogram_fraction", "histogram_sum", "holt_winters");

    private static final Set<String> KEYWORDS = Set.of(
            "by",
            "without",
            "on",
            "ignoring",
            "group_left",
            "group_right",
            "bool",
            "offset",
            "and",
            "or",
            "unless",
            "atan2");

    private final String q;
    private int pos;
    private int depth;
    private int operators;
    /** Instructions of the query's regular expressions so far ({@link #MAX_REGEX_PROGRAM_SIZE}). */
    private long regexProgramSize;

    /**
     * What the evaluation does not need but printing the query back does ({@link PromQlFormatter}): how many parentheses
     * were written around a node, the scalar argument of quantile_over_time and predict_linear as written, and the
     * name matchers written as a bare metric name.
     */
    private final java.util.IdentityHashMap<Expr, Integer> parens = new java.util.IdentityHashMap<>();

    private final java.util.IdentityHashMap<Expr, Expr> scalarArgs = new java.util.IdentityHashMap<>();
    private final Set<LabelMatcher> bareNames = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    private PromQlParser(String query) {
        this.q = query;
    }

    /** A parsed query with the syntax {@link PromQlFormatter} prints back (see the fields above). */
    record Syntax(
            Expr expr,
            java.util.Map<Expr, Integer> parens,
            java.util.Map<Expr, Expr> scalarArgs,
            Set<LabelMatcher> bareNames) {}

    /** {@link #parse} keeping the syntax the evaluation drops. */
    static Syntax parseSyntax(String query) throws PromQlParseException {
        checkLength(query);
        PromQlParser p = new PromQlParser(query);
        Expr e = p.parseWhole();
        return new Syntax(e, p.parens, p.scalarArgs, p.bareNames);
    }

    /** Parses a whole query; the result is a scalar or an instant vector expression. */
    public static Expr parse(String query) throws PromQlParseException {
        checkLength(query);
        return new PromQlParser(query).parseWhole();
    }

    /** Every entry point bounds the text before reading it: a parse is linear, but only in a bounded input. */
    private static void checkLength(String query) throws PromQlParseException {
        if (query.length() > MAX_LENGTH) {
            throw new PromQlParseException(query, MAX_LENGTH, "query is longer than " + MAX_LENGTH + " characters");
        }
    }

    private Expr parseWhole() throws PromQlParseException {
        PromQlParser p = this;
        String query = q;
        p.skipSpace();
        if (p.pos >= query.length()) {
            throw p.error(p.pos, "no expression found in input");
        }
        Expr e = p.binary(1);
        p.skipSpace();
        if (p.pos < query.length()) {
            throw p.error(p.pos, "unexpected " + p.describeHere());
        }
        p.requireInstant(e, "the query");
        return e;
    }

    /** A whole string as a Prometheus duration ({@code 5m}, {@code 1h30m}), in ms. */
    public static long parseDuration(String s) throws PromQlParseException {
        PromQlParser p = new PromQlParser(s);
        long d = p.duration();
        if (p.pos != s.length()) {
            throw p.error(p.pos, "unexpected " + p.describeHere() + " after the duration");
        }
        return d;
    }

    // --- operators ---------------------------------------------------------------------------------------------

    /** Precedence climbing over Prometheus' binary operators (low to high: or, and/unless, comparisons, + -, * / % atan2, ^). */
    private Expr binary(int minPrecedence) throws PromQlParseException {
        Expr lhs = unary();
        while (true) {
            skipSpace();
            int at = pos;
            String op = peekOperator();
            if (op == null) {
                return lhs;
            }
            int prec = precedence(op);
            if (prec < minPrecedence) {
                return lhs;
            }
            pos += op.length();
            if (++operators > MAX_OPERATORS) {
                throw error(at, "more than " + MAX_OPERATORS + " binary operators in one query");
            }
            skipSpace();
            boolean bool = false;
            if ("bool".equals(peekWord())) {
                if (!Expr.isComparison(op)) {
                    throw error(pos, "bool modifier can only be used on comparison operators");
                }
                bool = true;
                pos += 4;
                skipSpace();
            }
            int matchingAt = pos;
            Expr.Matching matching = matching(op);
            Expr rhs = binary(op.equals("^") ? prec : prec + 1);
            requireInstant(lhs, "binary expression");
            requireInstant(rhs, "binary expression");
            boolean scalars = lhs.scalar() || rhs.scalar();
            if (Expr.isSet(op) && scalars) {
                throw error(at, "set operator \"" + op + "\" not allowed in binary scalar expression");
            }
            if (matching != null && scalars) {
                throw error(matchingAt, "vector matching only allowed between instant vectors");
            }
            if (Expr.isComparison(op) && !bool && lhs.scalar() && rhs.scalar()) {
                throw error(at, "comparisons between scalars must use BOOL modifier");
            }
            if (!scalars && matching == null) {
                matching = Expr.Matching.defaultFor(op);
            }
            lhs = new Expr.Binary(op, lhs, rhs, bool, matching, at);
        }
    }

    /** {@code on(...)}/{@code ignoring(...)} and {@code group_left(...)}/{@code group_right(...)}, or null. */
    private Expr.Matching matching(String op) throws PromQlParseException {
        String w = peekWord();
        if (!"on".equals(w) && !"ignoring".equals(w)) {
            if ("group_left".equals(w) || "group_right".equals(w)) {
                throw error(pos, "unexpected \"" + w + "\": " + w + " needs on(...) or ignoring(...) before it");
            }
            return null;
        }
        pos += w.length();
        boolean on = w.equals("on");
        List<String> labels = labelList();
        skipSpace();
        Expr.Card card = Expr.isSet(op) ? Expr.Card.MANY_TO_MANY : Expr.Card.ONE_TO_ONE;
        List<String> include = List.of();
        String g = peekWord();
        if ("group_left".equals(g) || "group_right".equals(g)) {
            if (Expr.isSet(op)) {
                throw error(pos, "no grouping allowed for \"" + op + "\" operation");
            }
            pos += g.length();
            card = g.equals("group_left") ? Expr.Card.MANY_TO_ONE : Expr.Card.ONE_TO_MANY;
            skipSpace();
            if (pos < q.length() && q.charAt(pos) == '(') {
                int listAt = pos;
                include = labelList();
                for (String l : include) {
                    if (on && labels.contains(l)) {
                        throw error(listAt, "label \"" + l + "\" must not occur in ON and GROUP clause at once");
                    }
                }
            }
        }
        return new Expr.Matching(card, on, labels, include);
    }

    private String peekOperator() {
        if (pos >= q.length()) {
            return null;
        }
        for (String op : new String[] {"==", "!=", ">=", "<=", "+", "-", "*", "/", "%", "^", ">", "<"}) {
            if (q.startsWith(op, pos)) {
                return op;
            }
        }
        String w = peekWord();
        return w != null && Set.of("and", "or", "unless", "atan2").contains(w) ? w : null;
    }

    private static int precedence(String op) {
        return switch (op) {
            case "or" -> 1;
            case "and", "unless" -> 2;
            case "==", "!=", ">=", "<=", ">", "<" -> 3;
            case "+", "-" -> 4;
            case "*", "/", "%", "atan2" -> 5;
            default -> 6; // ^
        };
    }

    private Expr unary() throws PromQlParseException {
        skipSpace();
        if (pos < q.length() && (q.charAt(pos) == '-' || q.charAt(pos) == '+')) {
            int at = pos;
            boolean minus = q.charAt(pos) == '-';
            pos++;
            enter(at);
            // Binds looser than ^ as in Prometheus: -2^2 is -4.
            Expr inner = binary(6);
            depth--;
            requireInstant(inner, "unary expression");
            return minus ? new Expr.Negation(inner, at) : inner;
        }
        boolean parenthesized = pos < q.length() && q.charAt(pos) == '(';
        return postfix(primary(), parenthesized);
    }

    private Expr postfix(Expr e, boolean parenthesized) throws PromQlParseException {
        while (true) {
            skipSpace();
            if (pos >= q.length()) {
                return e;
            }
            char c = q.charAt(pos);
            if (c == '[') {
                int at = pos;
                pos++;
                skipSpace();
                long range = duration();
                skipSpace();
                if (pos < q.length() && q.charAt(pos) == ':') {
                    pos++;
                    skipSpace();
                    long step = pos < q.length() && q.charAt(pos) == ']' ? 0 : duration();
                    expect(']');
                    requireInstant(e, "subquery");
                    if (e.scalar()) {
                        throw error(e.pos(), "subquery is only allowed on instant vector, got scalar");
                    }
                    e = new Expr.Subquery(e, range, step, e.pos());
                    continue;
                }
                expect(']');
                if (parenthesized
                        || !(e instanceof Expr.Selector s)
                        || s.rangeMillis() > 0
                        || s.offsetMillis() != 0
                        || s.atMillis() != null) {
                    throw error(at, "ranges only allowed for vector selectors");
                }
                e = s.withRange(range);
                continue;
            }
            if (c == '@') {
                int at = pos;
                if (e instanceof Expr.Subquery) {
                    throw error(at, "the @ modifier on a subquery is not supported (put it on the selectors inside)");
                }
                if (parenthesized || !(e instanceof Expr.Selector s)) {
                    throw error(
                            at,
                            "@ modifier must be preceded by an instant vector selector or range vector"
                                    + " selector or a subquery");
                }
                if (s.atMillis() != null) {
                    throw error(at, "@ <timestamp> may not be set multiple times");
                }
                pos++;
                skipSpace();
                int tAt = pos;
                String anchor = peekWord();
                if ("start".equals(anchor) || "end".equals(anchor)) {
                    pos += anchor.length();
                    skipSpace();
                    expect('(');
                    expect(')');
                    e = s.withAt(anchor.equals("start") ? Expr.Selector.AT_START : Expr.Selector.AT_END);
                    continue;
                }
                boolean negative = pos < q.length() && q.charAt(pos) == '-';
                if (negative || (pos < q.length() && q.charAt(pos) == '+')) {
                    pos++;
                }
                if (pos >= q.length() || !(isDigit(q.charAt(pos)) || q.charAt(pos) == '.')) {
                    throw error(tAt, "unexpected " + describeHere() + ", expected a timestamp after @");
                }
                double seconds = number() * (negative ? -1 : 1);
                if (!Double.isFinite(seconds) || Math.abs(seconds) > 1e13) {
                    throw error(tAt, "timestamp out of bounds for @ modifier: " + seconds);
                }
                e = s.withAt(Math.round(seconds * 1000));
                continue;
            }
            if ("offset".equals(peekWord())) {
                int at = pos;
                if (e instanceof Expr.Subquery) {
                    throw error(
                            at, "the offset modifier on a subquery is not supported (put it on the selectors inside)");
                }
                if (parenthesized || !(e instanceof Expr.Selector s)) {
                    throw error(
                            at,
                            "offset modifier must be preceded by an instant vector selector or range vector"
                                    + " selector or a subquery");
                }
                if (s.offsetMillis() != 0) {
                    throw error(at, "offset may not be set multiple times");
                }
                pos += 6;
                skipSpace();
                boolean negative = pos < q.length() && q.charAt(pos) == '-';
                if (negative) {
                    pos++;
                }
                e = s.withOffset(negative ? -duration() : duration());
                continue;
            }
            return e;
        }
    }

    // --- primary expressions -----------------------------------------------------------------------------------

    private Expr primary() throws PromQlParseException {
        skipSpace();
        if (pos >= q.length()) {
            throw error(pos, "unexpected end of input");
        }
        int at = pos;
        char c = q.charAt(pos);
        if (c == '(') {
            pos++;
            enter(at);
            Expr inner = binary(1);
            expect(')');
            depth--;
            requireInstant(inner, "parenthesized expression");
            parens.merge(inner, 1, Integer::sum);
            return inner;
        }
        if (c == '{') {
            return selector(null, at);
        }
        if (c == '"' || c == '\'' || c == '`') {
            return new Expr.StringLiteral(string(), at);
        }
        if (isDigit(c) || (c == '.' && pos + 1 < q.length() && isDigit(q.charAt(pos + 1)))) {
            return new Expr.NumberLiteral(number(), at);
        }
        if (!isIdentStart(c)) {
            throw error(at, "unexpected " + describeHere());
        }
        String word = identifier(true);
        String lower = word.toLowerCase(Locale.ROOT);
        skipSpace();
        boolean call = pos < q.length() && q.charAt(pos) == '(';
        String next = peekWord();
        boolean groupingFollows = "by".equals(next) || "without".equals(next);
        if ((lower.equals("inf") || lower.equals("nan")) && !call && (pos >= q.length() || q.charAt(pos) != '{')) {
            return new Expr.NumberLiteral(lower.equals("inf") ? Double.POSITIVE_INFINITY : Double.NaN, at);
        }
        AggregationOp agg = AggregationOp.named(word);
        if (agg != null && (call || groupingFollows)) {
            return aggregation(agg, at);
        }
        if (AGGREGATIONS_NOT_SUPPORTED.contains(word) && (call || groupingFollows)) {
            throw error(at, "aggregation \"" + word + "\" is not supported");
        }
        if (agg != null || AGGREGATIONS_NOT_SUPPORTED.contains(word)) {
            // Aggregation names are keywords in PromQL: a metric of that name is written {__name__="sum"}.
            throw error(at, "unexpected aggregation \"" + word + "\" without its (expression)");
        }
        if (call) {
            OverTimeFunction f = OverTimeFunction.named(word);
            if (f != null) {
                return overTime(f, at);
            }
            String[] signature = Expr.function(word);
            if (signature != null) {
                return call(signature, at);
            }
            if (FUNCTIONS_NOT_SUPPORTED.contains(word)) {
                throw error(at, "function \"" + word + "\" is not supported");
            }
            throw error(at, "unknown function with name \"" + word + "\"");
        }
        if (KEYWORDS.contains(word)) {
            throw error(at, "unexpected keyword \"" + word + "\"");
        }
        return selector(word, at);
    }

    private Expr aggregation(AggregationOp op, int at) throws PromQlParseException {
        enter(at);
        List<String> grouping = null;
        boolean without = false;
        String w = peekWord();
        if ("by".equals(w) || "without".equals(w)) {
            pos += w.length();
            without = w.equals("without");
            grouping = labelList();
            skipSpace();
        }
        expect('(');
        Expr param = null;
        if (op.paramType() != null) {
            skipSpace();
            int pAt = pos;
            param = binary(1);
            if (param.type() != op.paramType()) {
                throw error(
                        pAt,
                        "expected type " + typeName(op.paramType()) + " in aggregation parameter, found "
                                + typeName(param.type()));
            }
            if (op == AggregationOp.COUNT_VALUES && !isLabelName(((Expr.StringLiteral) param).value())) {
                throw error(pAt, "invalid label name " + quote(((Expr.StringLiteral) param).value()));
            }
            skipSpace();
            if (pos >= q.length() || q.charAt(pos) != ',') {
                throw error(
                        pos,
                        "unexpected " + describeHere() + ", expected \",\": aggregation \"" + op.promQlName()
                                + "\" takes a parameter and an expression");
            }
            pos++;
        }
        Expr inner = binary(1);
        skipSpace();
        if (pos < q.length() && q.charAt(pos) == ',') {
            throw error(
                    pos,
                    "aggregation \"" + op.promQlName() + "\" takes "
                            + (param == null ? "one argument" : "two arguments"));
        }
        expect(')');
        requireInstant(inner, "aggregation expression");
        if (inner.scalar()) {
            throw error(inner.pos(), "expected type instant vector in aggregation expression, found scalar");
        }
        skipSpace();
        w = peekWord();
        if ("by".equals(w) || "without".equals(w)) {
            if (grouping != null) {
                throw error(pos, "grouping given twice");
            }
            pos += w.length();
            without = w.equals("without");
            grouping = labelList();
        }
        depth--;
        return new Expr.Aggregation(op, without, grouping == null ? List.of() : grouping, param, inner, at);
    }

    private Expr overTime(OverTimeFunction f, int at) throws PromQlParseException {
        enter(at);
        expect('(');
        double quantile = Double.NaN;
        Expr scalarArg = null;
        if (f == OverTimeFunction.QUANTILE) {
            skipSpace();
            int qAt = pos;
            Expr qe = binary(1);
            if (!qe.scalar()) {
                throw error(qAt, "expected type scalar in call to function \"quantile_over_time\" (the quantile)");
            }
            if (!constant(qe)) {
                throw error(qAt, "the quantile of quantile_over_time must be a number (an expression of numbers)");
            }
            quantile = fold(qe);
            scalarArg = qe;
            if (!(quantile >= 0 && quantile <= 1)) {
                throw error(qAt, "quantile must be between 0 and 1, got " + quantile);
            }
            skipSpace();
            if (pos >= q.length() || q.charAt(pos) != ',') {
                throw error(pos, "expected 2 arguments in call to \"quantile_over_time\"");
            }
            pos++;
        }
        skipSpace();
        int argAt = pos;
        Expr arg = binary(1);
        if (arg instanceof Expr.Subquery) {
            if (!f.overPoints()) {
                throw error(
                        at,
                        "function \"" + f.promQlName() + "\" over a subquery is not supported (supported: the"
                                + " *_over_time functions)");
            }
        } else if (!(arg instanceof Expr.Selector s) || s.rangeMillis() == 0) {
            throw error(
                    argAt,
                    "expected type range vector (a selector with [range]) in call to function \"" + f.promQlName()
                            + "\"");
        }
        skipSpace();
        if (f == OverTimeFunction.PREDICT_LINEAR) {
            if (pos >= q.length() || q.charAt(pos) != ',') {
                throw error(pos, "expected 2 arguments in call to \"predict_linear\"");
            }
            pos++;
            skipSpace();
            int tAt = pos;
            Expr te = binary(1);
            if (!te.scalar()) {
                throw error(tAt, "expected type scalar in call to function \"predict_linear\" (the seconds ahead)");
            }
            // Prometheus takes any scalar expression; a number (an expression of numbers) is what rules use.
            if (!constant(te)) {
                throw error(tAt, "the seconds ahead of predict_linear must be a number (an expression of numbers)");
            }
            quantile = fold(te);
            scalarArg = te;
            skipSpace();
        }
        if (pos < q.length() && q.charAt(pos) == ',') {
            throw error(pos, "too many arguments in call to \"" + f.promQlName() + "\"");
        }
        expect(')');
        depth--;
        Expr node = arg instanceof Expr.Subquery sq
                ? new Expr.OverSubquery(f, quantile, sq, at)
                : new Expr.OverTime(f, quantile, (Expr.Selector) arg, at);
        if (scalarArg != null) {
            scalarArgs.put(node, scalarArg);
        }
        return node;
    }

    /** A function over instant vectors, scalars and strings, its arguments checked against its signature. */
    private Expr call(String[] signature, int at) throws PromQlParseException {
        String name = signature[0];
        enter(at);
        expect('(');
        List<Expr> args = new ArrayList<>();
        skipSpace();
        if (pos < q.length() && q.charAt(pos) == ')') {
            pos++;
        } else {
            while (true) {
                skipSpace();
                int argAt = pos;
                Expr arg = binary(1);
                int i = args.size() + 1;
                if (i >= signature.length && !signature[signature.length - 1].endsWith("...")) {
                    throw error(
                            argAt,
                            "expected at most " + (signature.length - 1) + " argument(s) in call to \"" + name
                                    + "\", got " + i);
                }
                String kind = signature[Math.min(i, signature.length - 1)];
                Expr.Type want = switch (kind.charAt(0)) {
                    case 'v' -> Expr.Type.VECTOR;
                    case 's' -> Expr.Type.SCALAR;
                    default -> Expr.Type.STRING;
                };
                if (arg.type() != want) {
                    throw error(
                            argAt,
                            "expected type " + typeName(want) + " in call to function \"" + name + "\", found "
                                    + typeName(arg.type()));
                }
                args.add(arg);
                skipSpace();
                if (pos < q.length() && q.charAt(pos) == ',') {
                    pos++;
                    continue;
                }
                expect(')');
                break;
            }
        }
        int required = 0;
        for (int i = 1; i < signature.length; i++) {
            if (!signature[i].endsWith("?")) {
                required++;
            }
        }
        if (args.size() < required) {
            throw error(at, "expected " + required + " argument(s) in call to \"" + name + "\", got " + args.size());
        }
        if (name.equals("label_replace") || name.equals("label_join")) {
            String dst = ((Expr.StringLiteral) args.get(1)).value();
            if (!isLabelName(dst)) {
                throw error(args.get(1).pos(), "invalid destination label name in " + name + "(): " + quote(dst));
            }
            if (name.equals("label_replace")) {
                String src = ((Expr.StringLiteral) args.get(4)).value();
                try {
                    checkRepeats(src, args.get(4).pos());
                    Pattern.compile("^(?:" + src + ")$", Pattern.DOTALL);
                } catch (PatternSyntaxException e) {
                    throw error(
                            args.get(4).pos(),
                            "invalid regular expression in label_replace(): " + quote(src) + ": " + e.getDescription());
                }
            } else {
                for (int i = 3; i < args.size(); i++) {
                    String src = ((Expr.StringLiteral) args.get(i)).value();
                    if (!isLabelName(src)) {
                        throw error(args.get(i).pos(), "invalid source label name in label_join(): " + quote(src));
                    }
                }
            }
        }
        depth--;
        return new Expr.Call(name, List.copyOf(args), at);
    }

    static boolean isLabelName(String s) {
        if (s.isEmpty() || !isLabelStart(s.charAt(0))) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            if (!isLabelStart(s.charAt(i)) && !isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static String typeName(Expr.Type t) {
        return switch (t) {
            case SCALAR -> "scalar";
            case VECTOR -> "instant vector";
            case RANGE -> "range vector";
            case STRING -> "string";
        };
    }

    /** A selector: the metric name (or null) and the matchers in braces, if any. */
    private Expr selector(String name, int at) throws PromQlParseException {
        List<LabelMatcher> matchers = new ArrayList<>();
        if (name != null) {
            LabelMatcher bare = new LabelMatcher(LabelMatcher.NAME, "=", name, null);
            bareNames.add(bare);
            matchers.add(bare);
        }
        skipSpace();
        if (pos < q.length() && q.charAt(pos) == '{') {
            pos++;
            while (true) {
                skipSpace();
                if (pos < q.length() && q.charAt(pos) == '}') {
                    pos++;
                    break;
                }
                int mAt = pos;
                String label;
                if (pos < q.length() && (q.charAt(pos) == '"' || q.charAt(pos) == '\'' || q.charAt(pos) == '`')) {
                    label = string();
                    skipSpace();
                    if (pos < q.length() && (q.charAt(pos) == ',' || q.charAt(pos) == '}')) {
                        // Prometheus 3's quoted metric name: {"lambda.duration", function="f"}.
                        addName(matchers, name, label, mAt);
                        name = label;
                        if (q.charAt(pos) == ',') {
                            pos++;
                        }
                        continue;
                    }
                } else if (pos < q.length() && isLabelStart(q.charAt(pos))) {
                    label = identifier(false);
                } else {
                    throw error(mAt, "unexpected " + describeHere() + " in label matching, expected label name");
                }
                skipSpace();
                String op;
                if (q.startsWith("=~", pos) || q.startsWith("!~", pos) || q.startsWith("!=", pos)) {
                    op = q.substring(pos, pos + 2);
                } else if (q.startsWith("=", pos)) {
                    op = "=";
                } else {
                    throw error(pos, "unexpected " + describeHere() + " in label matching, expected one of = != =~ !~");
                }
                pos += op.length();
                skipSpace();
                int vAt = pos;
                if (pos >= q.length() || (q.charAt(pos) != '"' && q.charAt(pos) != '\'' && q.charAt(pos) != '`')) {
                    throw error(pos, "unexpected " + describeHere() + " in label matching, expected a quoted string");
                }
                String value = string();
                Pattern regex = null;
                if (op.endsWith("~")) {
                    try {
                        // Anchored like Prometheus (^(?:re)$); matches() in LabelMatcher also needs the whole value.
                        checkRepeats(value, vAt);
                        regex = Pattern.compile("^(?:" + value + ")$", Pattern.DOTALL);
                    } catch (PatternSyntaxException e) {
                        throw error(vAt, "invalid regular expression " + quote(value) + ": " + e.getDescription());
                    }
                }
                if (label.equals(LabelMatcher.NAME) && !op.equals("=") && name != null) {
                    throw error(mAt, "metric name must not be set twice: " + quote(name) + " and a " + op + " matcher");
                }
                if (label.equals(LabelMatcher.NAME) && op.equals("=")) {
                    addName(matchers, name, value, mAt);
                    name = value;
                } else {
                    matchers.add(new LabelMatcher(label, op, value, regex));
                }
                skipSpace();
                if (pos < q.length() && q.charAt(pos) == ',') {
                    pos++;
                } else if (pos < q.length() && q.charAt(pos) == '}') {
                    pos++;
                    break;
                } else {
                    throw error(pos, "unexpected " + describeHere() + " in label matching, expected \",\" or \"}\"");
                }
            }
        }
        if (matchers.stream().allMatch(m -> m.matches(""))) {
            throw error(at, "vector selector must contain at least one non-empty matcher");
        }
        return new Expr.Selector(List.copyOf(matchers), 0, at);
    }

    private void addName(List<LabelMatcher> matchers, String existing, String name, int at)
            throws PromQlParseException {
        if (existing != null) {
            throw error(at, "metric name must not be set twice: " + quote(existing) + " or " + quote(name));
        }
        matchers.add(0, new LabelMatcher(LabelMatcher.NAME, "=", name, null));
    }

    private List<String> labelList() throws PromQlParseException {
        skipSpace();
        expect('(');
        List<String> labels = new ArrayList<>();
        while (true) {
            skipSpace();
            if (pos < q.length() && q.charAt(pos) == ')') {
                pos++;
                return labels;
            }
            if (pos < q.length() && (q.charAt(pos) == '"' || q.charAt(pos) == '\'')) {
                labels.add(string());
            } else if (pos < q.length() && isLabelStart(q.charAt(pos))) {
                labels.add(identifier(false));
            } else {
                throw error(pos, "unexpected " + describeHere() + " in grouping opts, expected label");
            }
            skipSpace();
            if (pos < q.length() && q.charAt(pos) == ',') {
                pos++;
            } else if (pos >= q.length() || q.charAt(pos) != ')') {
                throw error(pos, "unexpected " + describeHere() + " in grouping opts, expected \",\" or \")\"");
            }
        }
    }

    // --- tokens ------------------------------------------------------------------------------------------------

    /** A metric name may contain dots (Pulse's names do); a label name may not. */
    private String identifier(boolean metricName) {
        int start = pos;
        while (pos < q.length()) {
            char c = q.charAt(pos);
            if ((metricName ? isIdentStart(c) : isLabelStart(c))
                    || isDigit(c)
                    || (metricName
                            && c == '.'
                            && pos + 1 < q.length()
                            && (isIdentStart(q.charAt(pos + 1)) || isDigit(q.charAt(pos + 1))))) {
                pos++;
            } else {
                break;
            }
        }
        return q.substring(start, pos);
    }

    private double number() throws PromQlParseException {
        int start = pos;
        if (q.startsWith("0x", pos) || q.startsWith("0X", pos)) {
            pos += 2;
            while (pos < q.length() && (isDigit(q.charAt(pos)) || "abcdefABCDEF".indexOf(q.charAt(pos)) >= 0)) {
                pos++;
            }
            try {
                return Long.parseLong(q.substring(start + 2, pos), 16);
            } catch (NumberFormatException e) {
                throw error(start, "bad number " + quote(q.substring(start, pos)));
            }
        }
        while (pos < q.length() && isDigit(q.charAt(pos))) {
            pos++;
        }
        if (pos < q.length() && q.charAt(pos) == '.') {
            pos++;
            while (pos < q.length() && isDigit(q.charAt(pos))) {
                pos++;
            }
        }
        if (pos < q.length() && (q.charAt(pos) == 'e' || q.charAt(pos) == 'E')) {
            int e = pos + 1;
            if (e < q.length() && (q.charAt(e) == '+' || q.charAt(e) == '-')) {
                e++;
            }
            if (e < q.length() && isDigit(q.charAt(e))) {
                pos = e;
                while (pos < q.length() && isDigit(q.charAt(pos))) {
                    pos++;
                }
            }
        }
        if (pos < q.length() && isIdentStart(q.charAt(pos))) {
            throw error(
                    start,
                    "bad number or duration syntax: " + quote(q.substring(start, Math.min(q.length(), pos + 1)))
                            + " (durations are only allowed in [range])");
        }
        double v = Double.parseDouble(q.substring(start, pos));
        if (Double.isInfinite(v)) {
            throw error(start, "error parsing number " + quote(q.substring(start, pos)) + ": value out of range");
        }
        return v;
    }

    /**
     * A Prometheus duration ({@code 5m}, {@code 1h30m}, {@code 90s}, {@code 500ms}): units y w d h m s ms, each at
     * most once, largest first. Returns milliseconds.
     */
    private long duration() throws PromQlParseException {
        int start = pos;
        String[] units = {"y", "w", "d", "h", "m", "s", "ms"};
        long[] millis = {365L * 86_400_000, 7L * 86_400_000, 86_400_000, 3_600_000, 60_000, 1_000, 1};
        int lastUnit = -1;
        long total = 0;
        while (pos < q.length() && isDigit(q.charAt(pos))) {
            int digits = pos;
            while (pos < q.length() && isDigit(q.charAt(pos))) {
                pos++;
            }
            if (pos - digits > 12) {
                throw error(start, "duration out of range");
            }
            long n = Long.parseLong(q.substring(digits, pos));
            int unit = -1;
            if (q.startsWith("ms", pos)) {
                unit = 6;
            } else if (pos < q.length()) {
                for (int i = 0; i < 6; i++) {
                    if (q.charAt(pos) == units[i].charAt(0)) {
                        unit = i;
                    }
                }
            }
            if (unit < 0 || unit <= lastUnit) {
                throw error(
                        start,
                        "bad duration " + quote(q.substring(start, Math.min(q.length(), pos + 1)))
                                + ": expected a number and a unit (ms s m h d w y), largest unit first");
            }
            pos += units[unit].length();
            lastUnit = unit;
            total = Math.addExact(total, Math.multiplyExact(n, millis[unit]));
            if (total > 10L * 365 * 86_400_000) {
                throw error(start, "duration out of range");
            }
        }
        if (pos == start) {
            throw error(start, "unexpected " + describeHere() + ", expected a duration such as 5m");
        }
        if (pos < q.length()
                && (Character.isLetterOrDigit(q.charAt(pos)) || q.charAt(pos) == '_' || q.charAt(pos) == '.')) {
            throw error(start, "bad duration " + quote(q.substring(start, pos + 1)));
        }
        if (total == 0) {
            throw error(start, "duration must be greater than 0");
        }
        return total;
    }

    /** A quoted string with Go's escapes ("..." and '...'), or a raw one (`...`). */
    private String string() throws PromQlParseException {
        int start = pos;
        char quote = q.charAt(pos++);
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= q.length()) {
                throw error(start, "unterminated quoted string");
            }
            char c = q.charAt(pos++);
            if (c == quote) {
                return sb.toString();
            }
            if (quote == '`') {
                sb.append(c);
                continue;
            }
            if (c == '\n') {
                throw error(start, "unterminated quoted string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= q.length()) {
                throw error(start, "unterminated quoted string");
            }
            int escAt = pos - 1;
            char e = q.charAt(pos++);
            switch (e) {
                case 'a' -> sb.append('\u0007');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'v' -> sb.append('\u000b');
                case '\\' -> sb.append('\\');
                case '"', '\'' -> {
                    if (e != quote) {
                        throw error(escAt, "unknown escape sequence");
                    }
                    sb.append(e);
                }
                case 'x' -> sb.appendCodePoint(hex(escAt, 2));
                case 'u' -> sb.appendCodePoint(hex(escAt, 4));
                case 'U' -> sb.appendCodePoint(hex(escAt, 8));
                default -> {
                    if (e >= '0' && e <= '7') {
                        pos--;
                        int v = 0;
                        for (int i = 0; i < 3; i++) {
                            if (pos >= q.length() || q.charAt(pos) < '0' || q.charAt(pos) > '7') {
                                throw error(escAt, "invalid octal escape");
                            }
                            v = v * 8 + (q.charAt(pos++) - '0');
                        }
                        if (v > 255) {
                            throw error(escAt, "octal escape value > 255");
                        }
                        sb.append((char) v);
                    } else {
                        throw error(escAt, "unknown escape sequence");
                    }
                }
            }
        }
    }

    private int hex(int escAt, int digits) throws PromQlParseException {
        if (pos + digits > q.length()) {
            throw error(escAt, "invalid escape sequence");
        }
        int v = 0;
        for (int i = 0; i < digits; i++) {
            int d = Character.digit(q.charAt(pos++), 16);
            if (d < 0) {
                throw error(escAt, "invalid escape sequence");
            }
            v = v * 16 + d;
        }
        if (!Character.isValidCodePoint(v) || (v >= 0xD800 && v <= 0xDFFF)) {
            throw error(escAt, "escape sequence is an invalid Unicode code point");
        }
        return v;
    }

    // --- helpers -----------------------------------------------------------------------------------------------

    /** Range vectors are only valid as a range function's argument, strings only as a function's argument. */
    private void requireInstant(Expr e, String where) throws PromQlParseException {
        if (e.type() == Expr.Type.RANGE) {
            throw error(
                    e.pos(),
                    "expected type instant vector in " + where + ", found range vector (a [range] selector"
                            + " is only allowed inside a range function such as rate or sum_over_time)");
        }
        if (e.type() == Expr.Type.STRING) {
            throw error(
                    e.pos(),
                    "expected type instant vector in " + where + ", found string (string literals are"
                            + " only allowed as function arguments)");
        }
    }

    private static boolean constant(Expr e) {
        return switch (e) {
            case Expr.NumberLiteral n -> true;
            case Expr.Negation n -> constant(n.inner());
            case Expr.Binary b -> constant(b.lhs()) && constant(b.rhs());
            default -> false;
        };
    }

    private static double fold(Expr e) {
        return switch (e) {
            case Expr.NumberLiteral n -> n.value();
            case Expr.Negation n -> -fold(n.inner());
            case Expr.Binary b -> Arithmetic.apply(b.op(), fold(b.lhs()), fold(b.rhs()));
            default -> throw new IllegalStateException("not a scalar: " + e);
        };
    }

    private void enter(int at) throws PromQlParseException {
        if (++depth > MAX_DEPTH) {
            throw error(at, "expression nests more than " + MAX_DEPTH + " levels deep");
        }
    }

    private void expect(char c) throws PromQlParseException {
        skipSpace();
        if (pos >= q.length() || q.charAt(pos) != c) {
            throw error(pos, "unexpected " + describeHere() + ", expected \"" + c + "\"");
        }
        pos++;
    }

    /** The next word, if the input continues with an identifier (not consumed). */
    private String peekWord() {
        if (pos >= q.length() || !isIdentStart(q.charAt(pos))) {
            return null;
        }
        int end = pos;
        while (end < q.length() && (isIdentStart(q.charAt(end)) || isDigit(q.charAt(end)))) {
            end++;
        }
        return q.substring(pos, end);
    }

    private void skipSpace() {
        while (pos < q.length()) {
            char c = q.charAt(pos);
            if (c == '#') {
                while (pos < q.length() && q.charAt(pos) != '\n') {
                    pos++;
                }
            } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                pos++;
            } else {
                return;
            }
        }
    }

    private String describeHere() {
        if (pos >= q.length()) {
            return "end of input";
        }
        int cp = q.codePointAt(pos);
        return "character " + quote(new String(Character.toChars(cp)));
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        s.codePoints().limit(100).forEach(cp -> {
            if (cp == '"' || cp == '\\') {
                sb.append('\\').appendCodePoint(cp);
            } else if (cp < 0x20) {
                sb.append(String.format("\\x%02x", cp));
            } else {
                sb.appendCodePoint(cp);
            }
        });
        return sb.append('"').toString();
    }

    private PromQlParseException error(int at, String message) {
        return new PromQlParseException(q, at, message);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isIdentStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    }

    /** Label names, unlike metric names, have no colons. */
    private static boolean isLabelStart(char c) {
        return c != ':' && isIdentStart(c);
    }

    /**
     * Refuses a regular expression Go's regexp (and so Prometheus) refuses for its size, before re2j compiles it: re2j
     * has neither of Go's limits, and {@code ((a{1000}){1000}){1000}} or {@code (<4,000 literals>){1000}} would compile
     * programs of a billion or four million instructions (about 64 bytes of heap each in re2j).
     * <ul>
     *   <li>nested counted repeats may multiply to at most {@link #MAX_REPEAT} ("invalid repeat count");</li>
     *   <li>the program's size, weighed as Go's parser does ({@code calcSize}: a literal character 1, a group the sum
     *       of its contents (a capture 2 more), an alternation the sum of its branches and one per {@code |},
     *       {@code x*} 2 + x, {@code x+} and {@code x?} 1 + x, {@code x{n,m}} m times x plus m - n, {@code x{n,}}
     *       1 + n times x), may be at most {@link #MAX_REGEX_PROGRAM_SIZE} instructions, for all regular expressions
     *       of the query together ("expression too large").</li>
     * </ul>
     */
    // Several branches look ahead at the next characters, not only at c: a switch on c would split them.
    @SuppressWarnings("IfChainToSwitch")
    private void checkRepeats(String re, int at) throws PromQlParseException {
        java.util.ArrayDeque<RegexGroup> groups = new java.util.ArrayDeque<>();
        RegexGroup top = new RegexGroup(false);
        int i = 0;
        while (i < re.length()) {
            char c = re.charAt(i);
            if (c == '\\') {
                if (re.startsWith("\\Q", i)) {
                    int end = re.indexOf("\\E", i + 2);
                    int stop = end < 0 ? re.length() : end;
                    // A quoted run is that many literals; a quantifier after it applies to its last one.
                    top.atoms(stop - (i + 2));
                    i = end < 0 ? re.length() : end + 2;
                } else if (i + 2 < re.length() && "xpP".indexOf(re.charAt(i + 1)) >= 0 && re.charAt(i + 2) == '{') {
                    int close = re.indexOf('}', i + 2);
                    i = close < 0 ? re.length() : close + 1;
                    top.atom(1, 1);
                } else {
                    i += 2;
                    top.atom(1, 1);
                }
            } else if (c == '[') {
                i++;
                if (i < re.length() && re.charAt(i) == '^') {
                    i++;
                }
                if (i < re.length() && re.charAt(i) == ']') {
                    i++;
                }
                while (i < re.length() && re.charAt(i) != ']') {
                    i += re.charAt(i) == '\\' ? 2 : 1;
                }
                i++;
                top.atom(1, 1);
            } else if (c == '(') {
                i++;
                boolean capture = true;
                if (i < re.length() && re.charAt(i) == '?') {
                    // (?flags) sets flags and is no group; (?flags:re) does not capture; (?P<name>re), (?<name>re) do.
                    int j = i + 1;
                    while (j < re.length() && re.charAt(j) != ':' && re.charAt(j) != ')' && re.charAt(j) != '>') {
                        j++;
                    }
                    if (j < re.length() && re.charAt(j) == ')') {
                        i = j + 1;
                        continue;
                    }
                    capture = j < re.length() && re.charAt(j) == '>';
                    i = Math.min(re.length(), j + 1);
                }
                groups.push(top);
                top = new RegexGroup(capture);
            } else if (c == ')') {
                RegexGroup inner = top;
                top = groups.isEmpty() ? new RegexGroup(false) : groups.pop();
                top.maxProduct = Math.max(top.maxProduct, inner.maxProduct);
                top.atom(inner.size(), inner.maxProduct);
                i++;
            } else if (c == '|') {
                top.alternative();
                i++;
            } else if (c == '*' || c == '+' || c == '?') {
                if (c == '?' && top.lastQuantified) {
                    top.lastQuantified = false; // x*? x+? x?? x{n}?: the non-greedy form, not a second quantifier
                } else {
                    top.quantify(c == '*' ? 2 + top.lastSize : 1 + top.lastSize, top.lastProduct);
                }
                i++;
            } else if (c == '{') {
                int close = re.indexOf('}', i);
                String body = close < 0 ? "" : re.substring(i + 1, close);
                if (body.matches("\\d+(,\\d*)?")) {
                    String[] nm = body.split(",", -1);
                    // More digits than a long holds is past every limit: weighed by length, not parsed.
                    long min = Math.min(nm[0].length() > 12 ? Long.MAX_VALUE : Long.parseLong(nm[0]), MAX_REPEAT + 1L);
                    long max = nm.length == 1
                            ? min
                            : nm[1].isEmpty()
                                    ? -1
                                    : Math.min(
                                            nm[1].length() > 12 ? Long.MAX_VALUE : Long.parseLong(nm[1]),
                                            MAX_REPEAT + 1L);
                    long count = max < 0 ? min : max;
                    long product = count * top.lastProduct;
                    if (product > MAX_REPEAT) {
                        throw error(
                                at,
                                "invalid regular expression " + quote(re) + ": invalid repeat count (nested"
                                        + " counted repeats multiply past " + MAX_REPEAT + ")");
                    }
                    top.maxProduct = Math.max(top.maxProduct, product);
                    long w = top.lastSize;
                    long size = max < 0 ? (min == 0 ? 2 + w : 1 + min * w) : max * w + Math.max(0, max - min);
                    top.quantify(size, product);
                    i = close + 1;
                } else {
                    i++;
                    top.atom(1, 1);
                }
            } else {
                top.atom(1, 1);
                i++;
            }
            if (top.size() > MAX_REGEX_PROGRAM_SIZE) {
                break; // the sizes only grow from here (at most 1,000 times, so no overflow either)
            }
        }
        while (!groups.isEmpty()) {
            RegexGroup inner = top;
            top = groups.pop();
            top.atom(inner.size(), inner.maxProduct);
        }
        long size = top.size();
        if (size > MAX_REGEX_PROGRAM_SIZE) {
            throw error(
                    at,
                    "invalid regular expression " + quote(re) + ": expression too large (its program would have"
                            + " more than " + MAX_REGEX_PROGRAM_SIZE + " instructions, MAX_REGEX_PROGRAM_SIZE)");
        }
        regexProgramSize += size;
        if (regexProgramSize > MAX_REGEX_PROGRAM_SIZE) {
            throw error(
                    at,
                    "invalid regular expression " + quote(re) + ": expression too large (the query's regular"
                            + " expressions would have more than " + MAX_REGEX_PROGRAM_SIZE
                            + " instructions together, MAX_REGEX_PROGRAM_SIZE)");
        }
    }

    /**
     * One open group of a regular expression while it is weighed: its program size so far (finished branches and the
     * current one) and the last atom, which a quantifier replaces by its repetition.
     */
    private static final class RegexGroup {
        final boolean capture;
        long branches;
        int bars;
        long concat;
        long lastSize;
        long lastProduct = 1;
        boolean lastQuantified;
        long maxProduct = 1;

        RegexGroup(boolean capture) {
            this.capture = capture;
        }

        void atom(long size, long product) {
            concat += size;
            lastSize = size;
            lastProduct = product;
            lastQuantified = false;
        }

        /** {@code n} literals in a row (a quoted run): the last one is the atom a quantifier would repeat. */
        void atoms(long n) {
            if (n > 0) {
                concat += n - 1;
                atom(1, 1);
            }
        }

        void quantify(long size, long product) {
            concat += size - lastSize;
            lastSize = size;
            lastProduct = product;
            lastQuantified = true;
        }

        void alternative() {
            branches += concat;
            bars++;
            concat = 0;
            lastSize = 0;
            lastProduct = 1;
            lastQuantified = false;
        }

        long size() {
            return Math.max(1, branches + concat + bars + (capture ? 2 : 0));
        }
    }
}
