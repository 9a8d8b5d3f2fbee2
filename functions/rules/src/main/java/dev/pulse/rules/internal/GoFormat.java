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
package dev.pulse.rules.internal;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Go's formatting of numbers as Prometheus' templates print them: {@code %v} (strconv's shortest {@code 'g'}),
 * {@code %.Ng}, {@code %.Nf}, {@code %e}, {@code %d}, {@code %s}, {@code %q}, and the {@code humanize*} functions
 * of Prometheus 2.42's template package. Rounding is Go's: the exact binary value, halves to even.
 */
public final class GoFormat {

    /** Width and precision above this are refused: a format must not turn into a megabyte of padding. */
    public static final int MAX_WIDTH = 200;

    private GoFormat() {}

    /**
     * {@code fmt.Sprint(float64)}: the shortest digits that read back, in exponent form below 1e-4 and from 1e6 on
     * (strconv's {@code 'g'} with the shortest precision decides at 6 digits: 123456 but 1.234567e+06).
     */
    public static String shortest(double v) {
        if (!Double.isFinite(v) || v == 0) {
            return special(v);
        }
        BigDecimal d = new BigDecimal(Double.toString(v)).stripTrailingZeros();
        int exp = d.precision() - d.scale() - 1;
        return exp < -4 || exp >= 6 ? exponent(d, false) : d.toPlainString();
    }

    /**
     * {@code strconv.FormatFloat(v, 'e', -1, 64)}: the shortest digits that read back, always in exponent form
     * ({@code 1e+00}, {@code 1.2345e+03}); how Prometheus' API prints an alert's value.
     */
    public static String exponent(double v) {
        if (!Double.isFinite(v)) {
            return special(v);
        }
        if (v == 0) {
            return (1 / v < 0 ? "-" : "") + "0e+00";
        }
        return exponent(new BigDecimal(Double.toString(v)).stripTrailingZeros(), false);
    }

    /** {@code fmt.Sprintf("%.<p>g", v)}. */
    public static String g(double v, int precision) {
        if (!Double.isFinite(v) || v == 0) {
            return special(v);
        }
        int p = Math.max(1, precision);
        BigDecimal d = new BigDecimal(v)
                .round(new MathContext(p, RoundingMode.HALF_EVEN))
                .stripTrailingZeros();
        int exp = d.precision() - d.scale() - 1;
        return exp < -4 || exp >= p ? exponent(d, false) : d.toPlainString();
    }

    /** {@code fmt.Sprintf("%.<p>f", v)}. */
    public static String f(double v, int precision) {
        if (!Double.isFinite(v)) {
            return special(v);
        }
        String s = new BigDecimal(v).setScale(precision, RoundingMode.HALF_EVEN).toPlainString();
        return negativeZero(v, s);
    }

    /** {@code fmt.Sprintf("%.<p>e", v)}. */
    public static String e(double v, int precision) {
        if (!Double.isFinite(v)) {
            return special(v);
        }
        if (v == 0) {
            return (1 / v < 0 ? "-" : "") + "0" + (precision > 0 ? "." + "0".repeat(precision) : "") + "e+00";
        }
        BigDecimal d = new BigDecimal(v).round(new MathContext(precision + 1, RoundingMode.HALF_EVEN));
        return exponent(d, true, precision);
    }

    private static String negativeZero(double v, String s) {
        // Go keeps the sign of a negative number rounded to zero ("-0.00"); BigDecimal drops it.
        return (v < 0 || (v == 0 && 1 / v < 0)) && !s.startsWith("-") ? "-" + s : s;
    }

    private static String special(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        return 1 / v < 0 ? "-0" : "0";
    }

    private static String exponent(BigDecimal d, boolean fixedDigits) {
        return exponent(d, fixedDigits, -1);
    }

    /** {@code d} as {@code [-]D.DDDe±XX}: all its digits, or exactly {@code decimals} after the point. */
    private static String exponent(BigDecimal d, boolean fixedDigits, int decimals) {
        String digits = d.unscaledValue().abs().toString();
        int exp = d.precision() - d.scale() - 1;
        if (fixedDigits) {
            while (digits.length() < decimals + 1) {
                digits = digits + "0";
            }
            digits = digits.substring(0, decimals + 1);
        } else {
            digits = digits.replaceAll("0+$", "");
            if (digits.isEmpty()) {
                digits = "0";
            }
        }
        StringBuilder b = new StringBuilder();
        if (d.signum() < 0) {
            b.append('-');
        }
        b.append(digits.charAt(0));
        if (digits.length() > 1) {
            b.append('.').append(digits, 1, digits.length());
        }
        b.append('e').append(exp < 0 ? '-' : '+');
        int a = Math.abs(exp);
        if (a < 10) {
            b.append('0');
        }
        return b.append(a).toString();
    }

    // --- Prometheus' humanize functions (template/template.go, 2.42) ----------------------------------------------

    private static final String[] BIG = {"k", "M", "G", "T", "P", "E", "Z", "Y"};
    private static final String[] BIG_1024 = {"ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};
    private static final String[] SMALL = {"m", "u", "n", "p", "f", "a", "z", "y"};

    public static String humanize(double v) {
        if (v == 0 || !Double.isFinite(v)) {
            return g(v, 4);
        }
        if (Math.abs(v) >= 1) {
            String prefix = "";
            for (String p : BIG) {
                if (Math.abs(v) < 1000) {
                    break;
                }
                prefix = p;
                v /= 1000;
            }
            return g(v, 4) + prefix;
        }
        String prefix = "";
        for (String p : SMALL) {
            if (Math.abs(v) >= 1) {
                break;
            }
            prefix = p;
            v *= 1000;
        }
        return g(v, 4) + prefix;
    }

    public static String humanize1024(double v) {
        if (Math.abs(v) <= 1 || !Double.isFinite(v)) {
            return g(v, 4);
        }
        String prefix = "";
        for (String p : BIG_1024) {
            if (Math.abs(v) < 1024) {
                break;
            }
            prefix = p;
            v /= 1024;
        }
        return g(v, 4) + prefix;
    }

    public static String humanizeDuration(double v) {
        if (!Double.isFinite(v)) {
            return g(v, 4);
        }
        if (v == 0) {
            return g(v, 4) + "s";
        }
        if (Math.abs(v) >= 1) {
            String sign = "";
            if (v < 0) {
                sign = "-";
                v = -v;
            }
            // Go's int64(v) on amd64 (CVTTSD2SI) is the minimum int64 for a value past the range, where Java's cast
            // saturates at the maximum: Prometheus prints "-106751991167300d -15h -30m -8s" for 1e300.
            long duration = v >= 0x1p63 ? Long.MIN_VALUE : (long) v;
            long seconds = duration % 60;
            long minutes = (duration / 60) % 60;
            long hours = (duration / 60 / 60) % 24;
            long days = duration / 60 / 60 / 24;
            if (days != 0) {
                return String.format(Locale.ROOT, "%s%dd %dh %dm %ds", sign, days, hours, minutes, seconds);
            }
            if (hours != 0) {
                return String.format(Locale.ROOT, "%s%dh %dm %ds", sign, hours, minutes, seconds);
            }
            if (minutes != 0) {
                return String.format(Locale.ROOT, "%s%dm %ds", sign, minutes, seconds);
            }
            return sign + g(v, 4) + "s";
        }
        String prefix = "";
        for (String p : SMALL) {
            if (Math.abs(v) >= 1) {
                break;
            }
            prefix = p;
            v *= 1000;
        }
        return g(v, 4) + prefix + "s";
    }

    public static String humanizePercentage(double v) {
        return g(v * 100, 4) + "%";
    }

    // --- printf -------------------------------------------------------------------------------------------------

    /**
     * {@code fmt.Sprintf} for the verbs templates use: {@code %s %v %q %d %f %g %e %%} with optional flags
     * {@code -+ 0}, width and precision. Anything else is refused with the verb named.
     */
    // The body steps past a verb's flags, width and precision; the header past the verb itself.
    @SuppressWarnings("IncrementInForLoopAndHeader")
    public static String printf(String format, List<Object> args) throws TemplateException {
        StringBuilder out = new StringBuilder();
        int arg = 0;
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%') {
                out.append(c);
                continue;
            }
            i++;
            if (i >= format.length()) {
                out.append("%!(NOVERB)");
                break;
            }
            boolean minus = false;
            boolean plus = false;
            boolean zero = false;
            for (; i < format.length(); i++) {
                char fl = format.charAt(i);
                if (fl == '-') {
                    minus = true;
                } else if (fl == '+') {
                    plus = true;
                } else if (fl == '0') {
                    zero = true;
                } else if (fl == ' ' || fl == '#') {
                    throw new TemplateException("printf: the flag '" + fl + "' is not supported");
                } else {
                    break;
                }
            }
            int width = -1;
            int start = i;
            while (i < format.length() && Character.isDigit(format.charAt(i))) {
                i++;
            }
            if (i > start) {
                width = boundedInt(format.substring(start, i));
            }
            int precision = -1;
            if (i < format.length() && format.charAt(i) == '.') {
                i++;
                start = i;
                while (i < format.length() && Character.isDigit(format.charAt(i))) {
                    i++;
                }
                precision = i > start ? boundedInt(format.substring(start, i)) : 0;
            }
            if (i >= format.length()) {
                out.append("%!(NOVERB)");
                break;
            }
            char verb = format.charAt(i);
            if (verb == '%') {
                out.append('%');
                continue;
            }
            if (arg >= args.size()) {
                out.append("%!").append(verb).append("(MISSING)");
                continue;
            }
            Object a = args.get(arg++);
            String s = switch (verb) {
                case 's', 'v' ->
                    precision >= 0 && a instanceof String str
                            ? str.substring(0, Math.min(str.length(), precision))
                            : precision >= 0 && a instanceof Double dv ? g(dv, precision) : Values.print(a);
                case 'q' -> quote(Values.print(a));
                // Template values are float64: Go refuses %d for them whatever the value.
                case 'd' -> "%!d(" + typeName(a) + "=" + Values.print(a) + ")";
                case 'f', 'F' ->
                    a instanceof Double dv
                            ? f(dv, precision < 0 ? 6 : precision)
                            : "%!f(" + typeName(a) + "=" + Values.print(a) + ")";
                case 'g' ->
                    a instanceof Double dv
                            ? (precision < 0 ? shortest(dv) : g(dv, precision))
                            : "%!g(" + typeName(a) + "=" + Values.print(a) + ")";
                case 'e' ->
                    a instanceof Double dv
                            ? e(dv, precision < 0 ? 6 : precision)
                            : "%!e(" + typeName(a) + "=" + Values.print(a) + ")";
                default ->
                    throw new TemplateException("printf: the verb %" + verb + " is not supported (supported: "
                            + "%s %v %q %d %f %g %e %%)");
            };
            if (plus && a instanceof Double dv && dv >= 0 && !s.startsWith("+")) {
                s = "+" + s;
            }
            if (width > s.length()) {
                int pad = width - s.length();
                if (minus) {
                    s = s + " ".repeat(pad);
                } else if (zero && a instanceof Double d && Double.isFinite(d)) {
                    int signLen = s.startsWith("-") || s.startsWith("+") ? 1 : 0;
                    s = s.substring(0, signLen) + "0".repeat(pad) + s.substring(signLen);
                } else {
                    s = " ".repeat(pad) + s;
                }
            }
            out.append(s);
        }
        if (arg < args.size()) {
            out.append("%!(EXTRA ");
            for (int k = arg; k < args.size(); k++) {
                if (k > arg) {
                    out.append(", ");
                }
                out.append(typeName(args.get(k))).append('=').append(Values.print(args.get(k)));
            }
            out.append(')');
        }
        return out.toString();
    }

    private static int boundedInt(String digits) throws TemplateException {
        if (digits.length() > 4 || Integer.parseInt(digits) > MAX_WIDTH) {
            throw new TemplateException("printf: width or precision " + digits + " is above " + MAX_WIDTH);
        }
        return Integer.parseInt(digits);
    }

    static String typeName(Object a) {
        if (a instanceof Double) {
            return "float64";
        }
        if (a instanceof String) {
            return "string";
        }
        if (a instanceof Map) {
            return "map[string]string";
        }
        return "<nil>";
    }

    /** Go's {@code strconv.Quote} for the characters labels hold. */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                case '\r' -> b.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        b.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
