package dev.pulse.query.promql.internal;

import com.google.re2j.Pattern;

/**
 * One label matcher of a selector. Regular expressions are compiled with re2j, a linear-time RE2 engine, and must
 * match the whole value (Prometheus anchors them): no expression a caller sends can make the match backtrack.
 *
 * @param name  the label ({@code __name__} for the metric name)
 * @param op    {@code =}, {@code !=}, {@code =~} or {@code !~}
 * @param value the literal or the regular expression's source
 */
public record LabelMatcher(String name, String op, String value, Pattern regex) {

    public static final String NAME = "__name__";

    /** Whether a label value matches; an absent label is the empty string, as in Prometheus. */
    public boolean matches(String labelValue) {
        String v = labelValue == null ? "" : labelValue;
        return switch (op) {
            case "=" -> v.equals(value);
            case "!=" -> !v.equals(value);
            case "=~" -> regex.matches(v);
            case "!~" -> !regex.matches(v);
            default -> throw new IllegalStateException(op);
        };
    }

    /** An equality matcher on the metric name: the catalog can be read for that one name. */
    public boolean isNameEquality() {
        return name.equals(NAME) && op.equals("=");
    }
}
