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

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * An exact sum of doubles, kept as a short list of non-overlapping partials (Shewchuk's algorithm, as in
 * Python's {@code math.fsum}). Summing the same values in any order, or merging sums of any split of
 * them, gives the same {@link #value()}: the correctly rounded exact sum. That is what lets partials,
 * hourly and daily rollups report a sum equal to a direct computation over the raw datapoints, whatever
 * order retries, bisection and rollups combine them in. The list is usually one to three doubles.
 */
public final class ExactSum {

    private double[] partials = new double[4];
    private int size;

    public void add(double x) {
        int i = 0;
        for (int j = 0; j < size; j++) {
            double y = partials[j];
            if (Math.abs(x) < Math.abs(y)) {
                double t = x;
                x = y;
                y = t;
            }
            double hi = x + y;
            double lo = y - (hi - x);
            if (lo != 0.0) {
                partials[i++] = lo;
            }
            x = hi;
        }
        if (i == partials.length) {
            partials = Arrays.copyOf(partials, i * 2);
        }
        partials[i] = x;
        size = i + 1;
    }

    /** Adds every partial of {@code other}: the result is the exact sum of both. */
    public void add(ExactSum other) {
        for (int j = 0; j < other.size; j++) {
            add(other.partials[j]);
        }
    }

    /** The exact sum rounded once to the nearest double (ties to even). */
    public double value() {
        int n = size;
        if (n == 0) {
            return 0.0;
        }
        double hi = partials[--n];
        double lo = 0.0;
        while (n > 0) {
            double x = hi;
            double y = partials[--n];
            hi = x + y;
            double yr = hi - x;
            lo = y - yr;
            if (lo != 0.0) {
                break;
            }
        }
        // Round half to even across partials: the remainder may push a tie one way.
        if (n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0))) {
            double y = lo * 2.0;
            double x = hi + y;
            double yr = x - hi;
            if (y == yr) {
                hi = x;
            }
        }
        return hi;
    }

    /** The non-overlapping partials (their exact sum is this sum), a copy. */
    public double[] parts() {
        return Arrays.copyOf(partials, size);
    }

    public byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(size * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int j = 0; j < size; j++) {
            b.putDouble(partials[j]);
        }
        return b.array();
    }

    public static ExactSum fromBytes(byte[] bytes) {
        if (bytes.length % Double.BYTES != 0) {
            throw new IllegalArgumentException("exact sum bytes must be a multiple of 8, got " + bytes.length);
        }
        ExactSum s = new ExactSum();
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            s.add(b.getDouble());
        }
        return s;
    }
}
