package dev.pulse.query.promql.internal;

import dev.pulse.query.promql.PromQlException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The request parameters of the Prometheus API: from the query string and, for POST, the form body (as Go's
 * {@code r.FormValue} reads them), repeated parameters kept apart ({@code match[]}); and its value formats:
 * timestamps as RFC 3339 or Unix seconds, durations as Prometheus durations or seconds.
 */
public final class ApiParams {

    /** 9999-12-31T23:59:59Z, as {@code POST /query} accepts. */
    static final long MAX_MILLIS = 253_402_300_799_000L;

    private final Map<String, List<String>> values;

    private ApiParams(Map<String, List<String>> values) {
        this.values = values;
    }

    /**
     * Longest {@code query} or {@code match[]} in a URL: API Gateway takes at most 10,240 bytes of request line and
     * headers, so longer expressions belong in a POST form body (up to {@link PromQlParser#MAX_LENGTH}).
     */
    public static final int MAX_URL_EXPRESSION = 2_048;

    /** Both encoded {@code k=v&k=v} strings, the body's values first (null or empty for none). */
    public static ApiParams parse(String body, String queryString) throws PromQlException {
        Map<String, List<String>> values = new LinkedHashMap<>();
        String[] sources = {body, queryString};
        for (int source = 0; source < sources.length; source++) {
            String raw = sources[source];
            boolean url = source == 1;
            if (raw == null || raw.isEmpty()) {
                continue;
            }
            for (String pair : raw.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                try {
                    String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                    String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                    if (url && (k.equals("query") || k.equals("match[]")) && v.length() > MAX_URL_EXPRESSION) {
                        throw PromQlException.invalidParameter(k, "longer than " + MAX_URL_EXPRESSION + " characters in"
                                + " the URL: send it in a POST form body");
                    }
                    values.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
                } catch (IllegalArgumentException e) {
                    throw new PromQlException(PromQlException.Type.BAD_DATA, "error parsing form values: invalid URL"
                            + " escape in " + pair.substring(0, Math.min(100, pair.length())));
                }
            }
        }
        return new ApiParams(values);
    }

    /** Longest timestamp or duration accepted (RFC 3339 with nanoseconds and an offset is 35). */
    static final int MAX_VALUE_LENGTH = 64;

    /**
     * The value of a single-valued parameter, or null. Given twice it is refused: Prometheus would take the first,
     * but two different values for one setting are a client's mistake better reported than guessed at.
     */
    public String first(String name) throws PromQlException {
        List<String> v = values.get(name);
        if (v != null && v.size() > 1) {
            throw PromQlException.invalidParameter(name, "given " + v.size() + " times, expected once");
        }
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    public List<String> all(String name) {
        return values.getOrDefault(name, List.of());
    }

    /** A required timestamp, epoch ms. */
    public long time(String name) throws PromQlException {
        String s = first(name);
        if (s == null || s.isEmpty()) {
            throw PromQlException.invalidParameter(name, "cannot parse \"\" to a valid timestamp");
        }
        return parseTime(name, s);
    }

    /** A timestamp, or {@code orElse} when absent. */
    public long time(String name, long orElse) throws PromQlException {
        String s = first(name);
        return s == null || s.isEmpty() ? orElse : parseTime(name, s);
    }

    private static long parseTime(String name, String s) throws PromQlException {
        if (s.length() > MAX_VALUE_LENGTH) {
            throw PromQlException.invalidParameter(name, "cannot parse " + quote(s) + " to a valid timestamp");
        }
        long millis;
        try {
            millis = new BigDecimal(s.trim()).movePointRight(3).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            try {
                millis = OffsetDateTime.parse(s).toInstant().toEpochMilli();
            } catch (DateTimeParseException | ArithmeticException e2) {
                throw PromQlException.invalidParameter(name, "cannot parse " + quote(s) + " to a valid timestamp");
            }
        }
        if (millis < 0 || millis > MAX_MILLIS) {
            throw PromQlException.invalidParameter(name, "timestamp " + quote(s) + " lies outside 1970-9999");
        }
        return millis;
    }

    /** A duration (Prometheus' {@code 5m} or seconds, {@code 300} or {@code 0.5}), ms, or null when absent. */
    public Long duration(String name) throws PromQlException {
        String s = first(name);
        if (s == null || s.isEmpty()) {
            return null;
        }
        if (s.length() > MAX_VALUE_LENGTH) {
            throw PromQlException.invalidParameter(name, "cannot parse " + quote(s) + " to a valid duration");
        }
        try {
            BigDecimal seconds = new BigDecimal(s.trim());
            BigDecimal millis = seconds.movePointRight(3).setScale(0, RoundingMode.CEILING);
            if (millis.compareTo(BigDecimal.valueOf(10L * 365 * 86_400_000)) > 0) {
                throw PromQlException.invalidParameter(name, "duration " + quote(s) + " is too long");
            }
            return millis.longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            try {
                return PromQlParser.parseDuration(s);
            } catch (PromQlParseException e2) {
                throw PromQlException.invalidParameter(name, "cannot parse " + quote(s) + " to a valid duration");
            }
        }
    }

    private static String quote(String s) {
        String cut = s.length() > 100 ? s.substring(0, 100) + "..." : s;
        return "\"" + cut.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
