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
package dev.pulse.loadgen;

/**
 * When each record is meant to be sent, as an offset from the start of the run. The sender follows it no
 * matter how slowly the target answers (an open model), and measures latency from these intended times, so
 * a stalled target shows up in the percentiles instead of silently lowering the offered rate.
 */
public interface Schedule {

    /** Intended send time of record {@code i} (0-based), in nanoseconds after the start. */
    long offsetNanos(long i);

    /**
     * Fixed rate with a linear ramp from 0: the rate at time t is {@code rate * t / ramp} during the ramp,
     * then {@code rate}. The number of records due by t is the integral, so record i is due at
     * {@code sqrt(2 * ramp * i / rate)} during the ramp and {@code ramp + (i - rate * ramp / 2) / rate} after it.
     */
    static Schedule rate(double perSecond, double rampSeconds) {
        if (!(perSecond > 0)) {
            throw new IllegalArgumentException("rate must be positive");
        }
        double rampRecords = perSecond * rampSeconds / 2;
        return i -> {
            double seconds = i < rampRecords
                    ? Math.sqrt(2 * rampSeconds * i / perSecond)
                    : rampSeconds + (i - rampRecords) / perSecond;
            return (long) (seconds * 1e9);
        };
    }

    /**
     * The recorded inter-arrival times, divided by {@code speed}, looping over the recording: {@code offsets}
     * are the records' recorded times relative to the first, ascending; one loop lasts the recording's span
     * plus one mean gap, so the loop seam keeps the average rate.
     */
    static Schedule recorded(long[] offsetsMillis, double speed) {
        if (offsetsMillis.length == 0 || !(speed > 0)) {
            throw new IllegalArgumentException("a recording and a positive speed are needed");
        }
        int n = offsetsMillis.length;
        double span = offsetsMillis[n - 1] + (n > 1 ? (double) offsetsMillis[n - 1] / (n - 1) : 1000.0);
        return i -> {
            long loop = i / n;
            double millis = loop * span + offsetsMillis[(int) (i % n)];
            return (long) (millis / speed * 1e6);
        };
    }
}
