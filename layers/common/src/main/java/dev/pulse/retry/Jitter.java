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

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The random numbers of the backoff's jitter: one generator per thread, each seeded from a shared seeder, and all
 * of them replaced by {@link #reseed()}. Why not {@link java.util.concurrent.ThreadLocalRandom}: its seeder is fixed
 * when the class loads, so under SnapStart every environment restored from one snapshot would draw the same delays
 * and retry a throttled partition in lockstep, which full jitter exists to prevent. The SnapStart hook
 * ({@code dev.pulse.snapstart.Priming#afterRestore}) reseeds. Drawing never blocks on entropy: the seed comes from
 * the non-blocking generator once per reseed, never on a request path.
 */
public final class Jitter {

    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;
    private static final AtomicLong SEEDER = new AtomicLong(freshSeed());
    /** Bumped by every reseed: a thread whose generator is older makes a new one from the new seeder. */
    private static final AtomicInteger EPOCH = new AtomicInteger();

    private static final ThreadLocal<Local> LOCAL = ThreadLocal.withInitial(Local::new);

    private Jitter() {}

    private static final class Local {
        int epoch = -1;
        SplittableRandom random;
    }

    private static SplittableRandom current() {
        Local l = LOCAL.get();
        int e = EPOCH.get();
        if (l.epoch != e) {
            l.random = new SplittableRandom(SEEDER.getAndAdd(GOLDEN_GAMMA));
            l.epoch = e;
        }
        return l.random;
    }

    /** Uniform in {@code [0, bound)}; {@code bound} must be positive. */
    public static long nextLong(long bound) {
        return current().nextLong(bound);
    }

    /** Uniform over all longs. */
    public static long nextLong() {
        return current().nextLong();
    }

    /** A new seeder from fresh entropy; every thread's next draw comes from a generator made from it. */
    public static void reseed() {
        SEEDER.set(freshSeed());
        EPOCH.incrementAndGet();
    }

    /** The seeder's current value (tests: a reseed must change it). */
    static long seeder() {
        return SEEDER.get();
    }

    /** The state a snapshot would hold: the seeder at {@code value}, every thread's generator to be made again (tests). */
    static void restoreSeederForTest(long value) {
        SEEDER.set(value);
        EPOCH.incrementAndGet();
    }

    /**
     * 64 bits from the non-blocking system generator (/dev/urandom), mixed with the clock in case it is
     * unavailable. Never the blocking one: the field lesson of threads stuck in {@code SecureRandom}.
     */
    static long freshSeed() {
        long clock = System.nanoTime()
                ^ Long.rotateLeft(System.currentTimeMillis(), 32)
                ^ ProcessHandle.current().pid();
        try {
            return SecureRandom.getInstance("NativePRNGNonBlocking").nextLong() ^ clock;
        } catch (NoSuchAlgorithmException e) {
            return new SplittableRandom(clock).nextLong();
        }
    }
}
