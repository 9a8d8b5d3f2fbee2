package dev.pulse.bench;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the benchmark sets: the functions' "now" on a simulated timeline. Only moves forward. */
final class SimClock extends Clock {

    private volatile long millis;

    SimClock(long startMillis) {
        this.millis = startMillis;
    }

    /** Moves to {@code t}; never backwards (events at the same instant keep it). */
    void set(long t) {
        if (t < millis) {
            throw new IllegalStateException("the simulated clock cannot go back from " + Instant.ofEpochMilli(millis)
                    + " to " + Instant.ofEpochMilli(t));
        }
        millis = t;
    }

    @Override
    public long millis() {
        return millis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.equals(zone)) {
            throw new UnsupportedOperationException("the simulated clock is UTC only");
        }
        return this;
    }
}
