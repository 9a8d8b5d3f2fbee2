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
package dev.pulse.aggregate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What the reset-corrected increase of a cumulative counter (a running total sent by one writer: an OTLP cumulative
 * monotonic sum, a Prometheus {@code _total}) needs from a run of its samples: the first and the last sample (time,
 * OTLP start time, value), the increase between them with every reset taken out, and the number of resets.
 *
 * <p>Two runs of one series, one after the other, join as {@code A then B}: the increase is
 * {@code incA + incB + gap}, where the gap is {@code B.first - A.last}, or {@code B.first} when the counter reset
 * between them (a reset counter counts again from zero); the resets add, plus one for a reset between them. A reset is a
 * value lower than the one before, or (OTLP) a start time newer than the one before, which says the writer restarted
 * even when its new total already passed the old one. The increase is kept as an {@link ExactSum} of the sample values
 * themselves ({@code +B.first}, {@code -A.last}), so it is exact: the same in whatever grouping runs are joined
 * (partials into minutes, minutes into hours and days), and without resets exactly {@code last - first}.
 *
 * <p>Runs are joined in one order that depends only on the runs: {@link #ORDER}, by first sample (time, start time,
 * value) and then by the rest. {@link #fold} sorts before it joins, so the same runs in any order (partial slots read
 * in key order, a retried batch, minutes merged in any order) give the same counter. Runs that overlap in time (a late
 * record delivered in another batch than its neighbours, so two partials of one minute interleave) are joined as if
 * one followed the other in that order: deterministic, but the value going back at the join counts as a reset (the
 * increase may then count up to the overlap's values again); runs of different minutes never overlap, since a sample
 * lies in the minute of its timestamp.
 *
 * <p>Only finite samples make a counter: a NaN (Prometheus' stale marker) or an infinite running total says nothing
 * about an increase, and one would make every later increase of the series NaN or infinite through every rollup. Such
 * a sample still counts in the summary (count, min, max) as before. Instances are immutable.
 */
public final class Counter {

    /** The order runs are joined in: by their first sample, then by everything else, so ties are still one order. */
    public static final Comparator<Counter> ORDER = Comparator.comparingLong(Counter::firstTime)
            .thenComparingLong(Counter::firstStart)
            .thenComparing(Counter::firstValue, Double::compare)
            .thenComparingLong(Counter::lastTime)
            .thenComparingLong(Counter::lastStart)
            .thenComparing(Counter::lastValue, Double::compare)
            .thenComparingLong(Counter::resets)
            .thenComparing(Counter::increase, Double::compare);

    private final long firstTime;
    private final long firstStart;
    private final double firstValue;
    private final long lastTime;
    private final long lastStart;
    private final double lastValue;
    /** Never changed after construction: joins copy it. */
    private final ExactSum increase;

    private final long resets;

    private Counter(
            long firstTime,
            long firstStart,
            double firstValue,
            long lastTime,
            long lastStart,
            double lastValue,
            ExactSum increase,
            long resets) {
        this.firstTime = firstTime;
        this.firstStart = firstStart;
        this.firstValue = firstValue;
        this.lastTime = lastTime;
        this.lastStart = lastStart;
        this.lastValue = lastValue;
        this.increase = increase;
        this.resets = resets;
    }

    /**
     * One sample; null for a value that is not finite (see the class comment).
     *
     * @param time       epoch milliseconds
     * @param startNanos the OTLP start time in epoch nanoseconds, 0 when the writer sent none (Prometheus' counters)
     */
    public static Counter sample(long time, long startNanos, double value) {
        if (!Double.isFinite(value)) {
            return null;
        }
        return new Counter(time, startNanos, value, time, startNanos, value, new ExactSum(), 0);
    }

    /** A run as stored; {@code increase} is taken over, not copied. */
    public static Counter of(
            long firstTime,
            long firstStart,
            double firstValue,
            long lastTime,
            long lastStart,
            double lastValue,
            ExactSum increase,
            long resets) {
        return new Counter(firstTime, firstStart, firstValue, lastTime, lastStart, lastValue, increase, resets);
    }

    /** Whether the writer restarted between the last sample of {@code a} and the first of {@code b}. */
    static boolean resetBetween(Counter a, Counter b) {
        return b.firstValue < a.lastValue || (a.lastStart != 0 && b.firstStart > a.lastStart);
    }

    /** This run followed by {@code next}. */
    public Counter then(Counter next) {
        ExactSum inc = new ExactSum();
        inc.add(increase);
        inc.add(next.increase);
        inc.add(next.firstValue);
        boolean reset = resetBetween(this, next);
        if (!reset) {
            inc.add(-lastValue);
        }
        return new Counter(
                firstTime,
                firstStart,
                firstValue,
                next.lastTime,
                next.lastStart,
                next.lastValue,
                inc,
                resets + next.resets + (reset ? 1 : 0));
    }

    /** The runs joined in {@link #ORDER}, whatever order they come in; null for none. */
    public static Counter fold(List<Counter> runs) {
        if (runs.isEmpty()) {
            return null;
        }
        if (runs.size() == 1) {
            return runs.get(0);
        }
        List<Counter> sorted = new ArrayList<>(runs);
        sorted.sort(ORDER);
        Counter c = sorted.get(0);
        for (int i = 1; i < sorted.size(); i++) {
            c = c.then(sorted.get(i));
        }
        return c;
    }

    /** Epoch ms of the first sample. */
    public long firstTime() {
        return firstTime;
    }

    /** The first sample's OTLP start time, epoch ns, 0 for none. */
    public long firstStart() {
        return firstStart;
    }

    public double firstValue() {
        return firstValue;
    }

    /** Epoch ms of the last sample. */
    public long lastTime() {
        return lastTime;
    }

    /** The last sample's OTLP start time, epoch ns, 0 for none. */
    public long lastStart() {
        return lastStart;
    }

    public double lastValue() {
        return lastValue;
    }

    /** The reset-corrected increase from the first sample to the last, rounded once. */
    public double increase() {
        return increase.value();
    }

    /** The increase as its exact partials (for storage). */
    public ExactSum exactIncrease() {
        ExactSum copy = new ExactSum();
        copy.add(increase);
        return copy;
    }

    /** Resets between the first sample and the last. */
    public long resets() {
        return resets;
    }

    /** Whether this is one sample (nothing between a first and a last). */
    public boolean isSingleSample() {
        return firstTime == lastTime
                && firstStart == lastStart
                && Double.compare(firstValue, lastValue) == 0
                && resets == 0
                && increase.parts().length == 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Counter c
                && firstTime == c.firstTime
                && firstStart == c.firstStart
                && Double.compare(firstValue, c.firstValue) == 0
                && lastTime == c.lastTime
                && lastStart == c.lastStart
                && Double.compare(lastValue, c.lastValue) == 0
                && resets == c.resets
                && Double.compare(increase(), c.increase()) == 0;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(
                firstTime, firstStart, firstValue, lastTime, lastStart, lastValue, resets, increase());
    }

    @Override
    public String toString() {
        return "Counter[" + firstTime + "/" + firstStart + "=" + firstValue + " .. " + lastTime + "/" + lastStart + "="
                + lastValue + ", increase " + increase() + ", resets " + resets + "]";
    }
}
