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
import java.util.regex.Pattern;

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
            for (String pair : raw.split("&", -1)) { // empty pairs are skipped below
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                try {
                    String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                    String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                    if (url && (k.equals("query") || k.equals("match[]")) && v.length() > MAX_URL_EXPRESSION) {
                        throw PromQlException.invalidParameter(
                                k,
                                "longer than " + MAX_URL_EXPRESSION + " characters in"
                                        + " the URL: send it in a POST form body");
                    }
                    values.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
                } catch (IllegalArgumentException e) {
                    throw new PromQlException(
                            PromQlException.Type.BAD_DATA,
                            "error parsing form values: invalid URL" + " escape in "
                                    + pair.substring(0, Math.min(100, pair.length())));
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

    /**
     * A non-negative count ({@code limit}), or {@code orElse} when absent. Listings take 0 as "no limit", as
     * Prometheus 3 does.
     */
    public int count(String name, int orElse) throws PromQlException {
        String s = first(name);
        if (s == null || s.isEmpty()) {
            return orElse;
        }
        try {
            int n = s.length() > MAX_VALUE_LENGTH ? -1 : Integer.parseInt(s);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw PromQlException.invalidParameter(
                name,
                "must be a non-negative integer, got "
                        + quote(s.length() > MAX_VALUE_LENGTH ? s.substring(0, MAX_VALUE_LENGTH) + "..." : s));
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
        BigDecimal seconds = seconds(s);
        long millis;
        if (seconds != null) {
            if (seconds.signum() < 0 || seconds.compareTo(MAX_SECONDS) > 0) {
                throw PromQlException.invalidParameter(name, "timestamp " + quote(s) + " lies outside 1970-9999");
            }
            millis = seconds.movePointRight(3)
                    .setScale(0, RoundingMode.HALF_EVEN)
                    .longValueExact();
        } else {
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
        BigDecimal seconds = seconds(s);
        if (seconds == null) {
            try {
                return PromQlParser.parseDuration(s);
            } catch (PromQlParseException e2) {
                throw PromQlException.invalidParameter(name, "cannot parse " + quote(s) + " to a valid duration");
            }
        }
        if (seconds.abs().compareTo(MAX_DURATION_SECONDS) > 0) {
            throw PromQlException.invalidParameter(name, "duration " + quote(s) + " is too long");
        }
        return seconds.movePointRight(3).setScale(0, RoundingMode.CEILING).longValueExact();
    }

    /** Unix seconds at 9999-12-31T23:59:59Z. */
    private static final BigDecimal MAX_SECONDS = BigDecimal.valueOf(MAX_MILLIS / 1000);
    /** Ten years, the longest duration (as the PromQL parser's). */
    private static final BigDecimal MAX_DURATION_SECONDS = BigDecimal.valueOf(10L * 365 * 86_400);
    /** A decimal number as Go's {@code strconv.ParseFloat} reads one, ASCII only: no NaN, Inf, hex or digit groups. */
    private static final Pattern DECIMAL = Pattern.compile("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?");
    /** Numbers this many orders of magnitude below one second are zero: far below the millisecond storage keeps. */
    private static final int SMALLEST_MAGNITUDE = -20;
    /** And this many above it are beyond every accepted time or duration (10^12 seconds is year 33658). */
    private static final int LARGEST_MAGNITUDE = 13;

    /**
     * {@code s} (at most {@link #MAX_VALUE_LENGTH} characters) as decimal seconds, or null when it is not a decimal
     * number. The exponent is weighed before any arithmetic: {@code 1e100000000} is 12 characters, and scaling it
     * to milliseconds would build a number of 100 million digits; beyond {@link #LARGEST_MAGNITUDE} the value is
     * out of every range and returned as a bound-breaking 10^14, below {@link #SMALLEST_MAGNITUDE} it is zero.
     */
    static BigDecimal seconds(String s) {
        String t = s.trim();
        if (!DECIMAL.matcher(t).matches()) {
            return null;
        }
        BigDecimal d;
        try {
            d = new BigDecimal(t); // at most 64 characters: its digits are few, only the exponent can be large
        } catch (NumberFormatException e) {
            return null; // an exponent beyond the int range
        }
        if (d.signum() == 0) {
            return BigDecimal.ZERO;
        }
        long magnitude = (long) d.precision() - d.scale(); // digits before the point; the value is below 10^magnitude
        if (magnitude > LARGEST_MAGNITUDE) {
            return d.signum() > 0
                    ? BigDecimal.TEN.pow(LARGEST_MAGNITUDE + 1)
                    : BigDecimal.TEN.pow(LARGEST_MAGNITUDE + 1).negate();
        }
        if (magnitude < SMALLEST_MAGNITUDE) {
            return BigDecimal.ZERO;
        }
        return d;
    }

    private static String quote(String s) {
        String cut = s.length() > 100 ? s.substring(0, 100) + "..." : s;
        return "\"" + cut.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
