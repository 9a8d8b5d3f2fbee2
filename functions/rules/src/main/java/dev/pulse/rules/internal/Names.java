package dev.pulse.rules.internal;

import java.util.regex.Pattern;

/** Prometheus' name rules: label names {@code [a-zA-Z_][a-zA-Z0-9_]*}, metric names the same with colons. */
public final class Names {

    private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern METRIC = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    private Names() {
    }

    public static boolean validLabelName(String s) {
        return !s.isEmpty() && s.length() <= 1_024 && LABEL.matcher(s).matches();
    }

    public static boolean validMetricName(String s) {
        return !s.isEmpty() && s.length() <= 1_024 && METRIC.matcher(s).matches();
    }
}
