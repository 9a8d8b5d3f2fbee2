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
package dev.pulse.retry;

/**
 * Exponential backoff with full jitter: attempt {@code n} waits a uniformly random time in
 * {@code [0, min(cap, base * 2^n)]}. Full jitter spreads retries of many concurrent writers so they do not
 * hit a throttled partition in lockstep. Draws from {@link Jitter}: never blocks on entropy, reseeded after a
 * SnapStart restore so environments restored from one snapshot do not share their delays.
 *
 * @param baseMillis delay ceiling of the first retry
 * @param capMillis  largest delay ceiling
 */
public record Backoff(long baseMillis, long capMillis) {

    public Backoff {
        if (baseMillis < 1 || capMillis < baseMillis) {
            throw new IllegalArgumentException(
                    "need 1 <= baseMillis <= capMillis, got " + baseMillis + ", " + capMillis);
        }
    }

    /** The ceiling for attempt {@code attempt} (0-based), before jitter. */
    public long ceilingMillis(int attempt) {
        int shift = Math.max(attempt, 0);
        // Past this shift base * 2^shift no longer fits in a long: the cap applies.
        if (shift >= Long.numberOfLeadingZeros(baseMillis) - 1) {
            return capMillis;
        }
        return Math.min(capMillis, baseMillis << shift);
    }

    /** A delay for attempt {@code attempt} (0-based), uniformly drawn from {@code [0, ceiling]}. */
    public long delayMillis(int attempt) {
        long ceiling = ceilingMillis(attempt);
        return ceiling == Long.MAX_VALUE ? Jitter.nextLong() & Long.MAX_VALUE : Jitter.nextLong(ceiling + 1);
    }
}
