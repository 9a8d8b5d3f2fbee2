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
package dev.pulse.model;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * Enforces the documented datapoint limits: name 1-255 characters, at most 30 dimensions with keys and
 * values of 1-255 characters, a unit of at most 64 characters, a finite value inside DynamoDB's number range, and a
 * timestamp inside the accepted window around now. The decoders' own limits are in {@code dev.pulse.codec.DecodeLimits}.
 */
public final class DatapointValidator {

    public static final int MAX_NAME_LENGTH = 255;
    public static final int MAX_DIMENSIONS = 30;
    public static final int MAX_DIMENSION_LENGTH = 255;
    /** DynamoDB numbers hold magnitudes from 1e-130 to 1e126; sums of many values must still fit. */
    public static final double MAX_MAGNITUDE = 1e100;

    public static final double MIN_MAGNITUDE = 1e-100;
    /** The series key is the catalog's sort key, and DynamoDB caps a sort key at 1024 bytes. */
    public static final int MAX_SERIES_KEY_BYTES = 1024;
    /**
     * A unit is stored in every partial of its series: CloudWatch's longest unit name has 16 characters and UCUM
     * units are short too, so 64 refuses only what cannot be a unit.
     */
    public static final int MAX_UNIT_LENGTH = 64;

    private final Clock clock;
    private final long maxAgeMillis;
    private final long maxFutureMillis;

    public DatapointValidator(Clock clock, Duration maxAge, Duration maxFuture) {
        this.clock = clock;
        this.maxAgeMillis = maxAge.toMillis();
        this.maxFutureMillis = maxFuture.toMillis();
    }

    /** The defaults from the design: now minus 14 days to now plus 2 hours. */
    public static DatapointValidator create() {
        return new DatapointValidator(Clock.systemUTC(), Duration.ofDays(14), Duration.ofHours(2));
    }

    /** Throws when {@code dp} breaks a limit; the message says which. */
    public void validate(Datapoint dp) throws ValidationException {
        validate(dp, clock.millis());
    }

    /**
     * Same as {@link #validate(Datapoint)} with the timestamp window centred on {@code nowMillis}. The ingest
     * path passes the record's arrival time, not the clock: a retried batch must accept and reject exactly
     * the records the failed attempt did, or partial keys stop lining up (see docs/design.md).
     */
    public void validate(Datapoint dp, long nowMillis) throws ValidationException {
        checkText("name", dp.name(), MAX_NAME_LENGTH);
        Map<String, String> dims = dp.dims();
        if (dims.size() > MAX_DIMENSIONS) {
            throw new ValidationException("dims: " + dims.size() + " dimensions, at most " + MAX_DIMENSIONS
                    + " allowed (series " + abbreviate(dp.name()) + ")");
        }
        for (Map.Entry<String, String> e : dims.entrySet()) {
            checkText("dimension key", e.getKey(), MAX_DIMENSION_LENGTH);
            checkText("dimension value of " + abbreviate(e.getKey()), e.getValue(), MAX_DIMENSION_LENGTH);
        }
        checkSeriesKeyLength(dp);
        if (dp.unit() != null) {
            checkText("unit", dp.unit(), MAX_UNIT_LENGTH);
        }
        checkNumber("value", dp.value(), dp.name());
        if (dp.summary() != null) {
            // A pre-aggregated datapoint (OTLP histogram): its sum, min and max are stored like values are.
            if (dp.summary().count() < 1) {
                throw new ValidationException("count: " + dp.summary().count()
                        + ", a summary needs at least one value (series " + abbreviate(dp.name()) + ")");
            }
            checkNumber("min", dp.summary().min(), dp.name());
            checkNumber("max", dp.summary().max(), dp.name());
            if (dp.summary().min() > dp.summary().max()) {
                throw new ValidationException("min: " + dp.summary().min() + " is above max "
                        + dp.summary().max());
            }
        }
        long ts = dp.timestamp();
        if (ts < nowMillis - maxAgeMillis || ts > nowMillis + maxFutureMillis) {
            throw new ValidationException("ts: " + ts + " is outside the accepted window (now-" + (maxAgeMillis / 1000)
                    + "s .. now+" + (maxFutureMillis / 1000) + "s)");
        }
    }

    private static void checkNumber(String field, double v, String name) throws ValidationException {
        if (!Double.isFinite(v)) {
            throw new ValidationException(
                    field + ": " + v + " is not a finite number (series " + abbreviate(name) + ")");
        }
        double mag = Math.abs(v);
        if (mag != 0 && (mag > MAX_MAGNITUDE || mag < MIN_MAGNITUDE)) {
            throw new ValidationException(field + ": " + v + " is outside the supported magnitude range 1e-100..1e100");
        }
    }

    public long nowMillis() {
        return clock.millis();
    }

    private static void checkText(String field, String s, int max) throws ValidationException {
        if (s == null || s.isEmpty()) {
            throw new ValidationException(field + ": must not be empty");
        }
        if (s.length() > max) {
            throw new ValidationException(
                    field + ": " + s.length() + " characters, at most " + max + " allowed (" + abbreviate(s) + ")");
        }
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    throw new ValidationException(field + ": contains an unpaired surrogate (not valid Unicode)");
                }
            }
        }
    }

    private static void checkSeriesKeyLength(Datapoint dp) throws ValidationException {
        // Cheap upper bound first: every char escaped (x2) and 3 UTF-8 bytes per char, plus separators.
        long chars = dp.name().length() + 2L;
        for (Map.Entry<String, String> e : dp.dims().entrySet()) {
            chars += e.getKey().length() + e.getValue().length() + 2L;
        }
        if (chars * 6 <= MAX_SERIES_KEY_BYTES) {
            return;
        }
        int bytes = SeriesKey.of(dp.name(), dp.dims()).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > MAX_SERIES_KEY_BYTES) {
            throw new ValidationException("series key: " + bytes + " bytes in UTF-8, at most " + MAX_SERIES_KEY_BYTES
                    + " allowed (name, dimension keys and values together; series " + abbreviate(dp.name()) + ")");
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "null" : s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
