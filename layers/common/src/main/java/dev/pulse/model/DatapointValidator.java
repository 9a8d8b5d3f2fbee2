package dev.pulse.model;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * Enforces the documented datapoint limits: name 1-255 characters, at most 30 dimensions with keys and
 * values of 1-255 characters, a finite value inside DynamoDB's number range, and a timestamp inside
 * the accepted window around now.
 */
public final class DatapointValidator {

    public static final int MAX_NAME_LENGTH = 255;
    public static final int MAX_DIMENSIONS = 30;
    public static final int MAX_DIMENSION_LENGTH = 255;
    /** DynamoDB numbers hold magnitudes from 1e-130 to 1e126; sums of many values must still fit. */
    public static final double MAX_MAGNITUDE = 1e100;
    public static final double MIN_MAGNITUDE = 1e-100;

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

    /** Same as {@link #validate(Datapoint)} with a caller-supplied "now", read once per record. */
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
        double v = dp.value();
        if (!Double.isFinite(v)) {
            throw new ValidationException("value: " + v + " is not a finite number (series " + abbreviate(dp.name()) + ")");
        }
        double mag = Math.abs(v);
        if (mag != 0 && (mag > MAX_MAGNITUDE || mag < MIN_MAGNITUDE)) {
            throw new ValidationException("value: " + v + " is outside the supported magnitude range 1e-100..1e100");
        }
        long ts = dp.timestamp();
        if (ts < nowMillis - maxAgeMillis || ts > nowMillis + maxFutureMillis) {
            throw new ValidationException("ts: " + ts + " is outside the accepted window (now-" + (maxAgeMillis / 1000)
                    + "s .. now+" + (maxFutureMillis / 1000) + "s)");
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
            throw new ValidationException(field + ": " + s.length() + " characters, at most " + max + " allowed ("
                    + abbreviate(s) + ")");
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "null" : s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
