package dev.pulse.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A UTC clock that stands still until the test moves it: what a simulated day of schedules runs on (tests, and the
 * cost benchmark's simulated timeline). It moves either way: a test may step back to replay an earlier moment.
 */
public final class MutableClock extends Clock {

    private final AtomicLong millis;

    public MutableClock(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    /** Moves by {@code d}; a negative {@code d} moves back. */
    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    public void set(Instant t) {
        millis.set(t.toEpochMilli());
    }

    public void setMillis(long epochMillis) {
        millis.set(epochMillis);
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.equals(zone)) {
            throw new UnsupportedOperationException("a test clock is UTC only, not " + zone);
        }
        return this;
    }
}
