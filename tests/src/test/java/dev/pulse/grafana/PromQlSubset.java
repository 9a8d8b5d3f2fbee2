package dev.pulse.grafana;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises the PromQL subset Pulse's Prometheus API answers (issue 16): selectors with {@code = != =~ !~},
 * {@code count|sum|avg|min|max_over_time(x[range])}, {@code quantile_over_time(q, x[range])}, {@code sum|min|max|avg|count}
 * with {@code by}/{@code without}, and arithmetic with a number on at least one side. Anything else ({@code rate},
 * offsets, subqueries, vector-vector operators, ...) is rejected with the position. A recogniser only, for checking the
 * documented dashboard without the API at hand: it evaluates nothing.
 */
final class PromQlSubset {

    static final Set<String> RANGE_FUNCTIONS = Set.of("count_over_time", "sum_over_time", "avg_over_time", "min_over_time",
            "max_over_time", "quantile_over_time");
    static final Set<String> AGGREGATIONS = Set.of("sum", "min", "max", "avg", "count");

    /** Thrown for an expression outside the subset. */
    static final class UnsupportedException extends IllegalArgumentException {
        UnsupportedException(String expr, int pos, String what) {
            super(what + " at position " + pos + " of: " + expr);
        }
    }

    private static final Pattern TOKEN = Pattern.compile(
            "\\s*(?:(?<num>[0-9]+(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)|(?<dur>\\[[^\\]]*\\])|(?<str>\"(?:[^\"\\\\]|\\\\.)*\")"
                    + "|(?<id>[a-zA-Z_:][a-zA-Z0-9_:]*)|(?<op>=~|!~|!=|==|<=|>=|[-+*/%^=<>(){},@]))");
    private static final Pattern DURATION = Pattern.compile("\\[([0-9]+(ms|s|m|h|d|w|y))+\\]");

    private record Token(String kind, String text, int pos) {
    }

    private final String expr;
    private final List<Token> tokens = new ArrayList<>();
    private int i;

    private PromQlSubset(String expr) {
        this.expr = expr;
        Matcher m = TOKEN.matcher(expr);
        int at = 0;
        while (at < expr.length() && !expr.substring(at).isBlank()) {
            if (!m.find(at) || m.start() != at) {
                throw new UnsupportedException(expr, at, "unexpected character");
            }
            for (String kind : List.of("num", "dur", "str", "id", "op")) {
                if (m.group(kind) != null) {
                    tokens.add(new Token(kind, m.group(kind), m.start(kind)));
                }
            }
            at = m.end();
        }
    }

    /** Throws {@link UnsupportedException} unless {@code expr} is in the subset. */
    static void check(String expr) {
        PromQlSubset p = new PromQlSubset(expr);
        p.expression();
        if (p.i < p.tokens.size()) {
            throw p.error("unexpected '" + p.peek().text() + "'");
        }
    }

    /** Kind of a parsed operand: a plain number or a vector. */
    private enum Kind { NUMBER, VECTOR }

    private Kind expression() {
        Kind left = term();
        while (at("+") || at("-")) {
            Token op = next();
            left = arithmetic(left, term(), op);
        }
        return left;
    }

    private Kind term() {
        Kind left = unary();
        while (at("*") || at("/")) {
            Token op = next();
            left = arithmetic(left, unary(), op);
        }
        return left;
    }

    private Kind arithmetic(Kind left, Kind right, Token op) {
        if (left == Kind.VECTOR && right == Kind.VECTOR) {
            throw new UnsupportedException(expr, op.pos(), "'" + op.text() + "' between two vectors (only scalar arithmetic)");
        }
        return left == Kind.NUMBER && right == Kind.NUMBER ? Kind.NUMBER : Kind.VECTOR;
    }

    private Kind unary() {
        if (at("-")) {
            next();
        }
        return primary();
    }

    private Kind primary() {
        Token t = peek();
        if (t == null) {
            throw error("expression ends early");
        }
        if (t.kind().equals("num")) {
            next();
            return Kind.NUMBER;
        }
        if (at("(")) {
            next();
            Kind k = expression();
            expect(")");
            return k;
        }
        if (at("{")) {
            selector();
            return Kind.VECTOR;
        }
        if (!t.kind().equals("id")) {
            throw error("unexpected '" + t.text() + "'");
        }
        next();
        if (AGGREGATIONS.contains(t.text())) {
            boolean grouped = grouping();
            expect("(");
            expression();
            expect(")");
            if (!grouped) {
                grouping();
            }
            return Kind.VECTOR;
        }
        if (RANGE_FUNCTIONS.contains(t.text())) {
            expect("(");
            if (t.text().equals("quantile_over_time")) {
                if (peek() == null || !peek().kind().equals("num")) {
                    throw error("quantile_over_time needs a number first");
                }
                next();
                expect(",");
            }
            selector();
            Token range = peek();
            if (range == null || !range.kind().equals("dur") || !DURATION.matcher(range.text()).matches()) {
                throw error(t.text() + " needs a [range] after its selector");
            }
            next();
            expect(")");
            return Kind.VECTOR;
        }
        if (at("(")) {
            throw new UnsupportedException(expr, t.pos(), "function " + t.text() + " not supported");
        }
        if (Set.of("by", "without", "offset", "bool", "on", "ignoring", "group_left", "group_right", "and", "or", "unless")
                .contains(t.text())) {
            throw new UnsupportedException(expr, t.pos(), "'" + t.text() + "' not supported here");
        }
        i--;
        selector();
        return Kind.VECTOR;
    }

    /** {@code metric}, {@code metric{matchers}} or {@code {matchers}}. */
    private void selector() {
        if (peek() != null && peek().kind().equals("id")) {
            next();
        }
        if (at("{")) {
            next();
            while (!at("}")) {
                Token label = next();
                if (label == null || !label.kind().equals("id")) {
                    throw error("label name expected");
                }
                Token op = next();
                if (op == null || !Set.of("=", "!=", "=~", "!~").contains(op.text())) {
                    throw error("matcher =, !=, =~ or !~ expected");
                }
                Token value = next();
                if (value == null || !value.kind().equals("str")) {
                    throw error("quoted label value expected");
                }
                if (at(",")) {
                    next();
                } else if (!at("}")) {
                    throw error("',' or '}' expected");
                }
            }
            next();
        }
        if (peek() != null && peek().kind().equals("dur")) {
            Token t = peek();
            if (t.text().contains(":")) {
                throw new UnsupportedException(expr, t.pos(), "subquery not supported");
            }
        }
        if (peek() != null && (peek().text().equals("offset") || peek().text().equals("@"))) {
            throw new UnsupportedException(expr, peek().pos(), "'" + peek().text() + "' not supported");
        }
    }

    /** An optional {@code by (labels)} or {@code without (labels)}; whether one was there. */
    private boolean grouping() {
        if (!at("by") && !at("without")) {
            return false;
        }
        next();
        expect("(");
        while (!at(")")) {
            Token label = next();
            if (label == null || !label.kind().equals("id")) {
                throw error("label name expected in grouping");
            }
            if (at(",")) {
                next();
            }
        }
        next();
        return true;
    }

    private boolean at(String text) {
        return peek() != null && peek().text().equals(text) && !peek().kind().equals("str");
    }

    private Token peek() {
        return i < tokens.size() ? tokens.get(i) : null;
    }

    private Token next() {
        return i < tokens.size() ? tokens.get(i++) : null;
    }

    private void expect(String text) {
        if (!at(text)) {
            throw error("'" + text + "' expected");
        }
        next();
    }

    private UnsupportedException error(String what) {
        return new UnsupportedException(expr, peek() == null ? expr.length() : peek().pos(), what);
    }
}
