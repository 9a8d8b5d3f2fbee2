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
package dev.pulse.bench;

import java.util.Arrays;

/** Order statistics of a set of measurements (nearest-rank percentiles, no interpolation). */
public final class Samples {

    private final double[] sorted;

    private Samples(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        this.sorted = values.clone();
        Arrays.sort(sorted);
    }

    public static Samples of(double... values) {
        return new Samples(values);
    }

    public static Samples of(long... values) {
        return new Samples(Arrays.stream(values).asDoubleStream().toArray());
    }

    public int size() {
        return sorted.length;
    }

    /** The nearest-rank percentile {@code p} (0 < p <= 100): the smallest value with p% of the samples at or below it. */
    public double percentile(double p) {
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100]: " + p);
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    public double median() {
        return percentile(50);
    }

    public double min() {
        return sorted[0];
    }

    public double max() {
        return sorted[sorted.length - 1];
    }

    public double mean() {
        double s = 0;
        for (double v : sorted) {
            s += v;
        }
        return s / sorted.length;
    }

    /** {@code median [min .. max] over n}: how a repeated figure is reported. */
    public String spread(String format) {
        return format.formatted(median()) + " [" + format.formatted(min()) + " .. " + format.formatted(max())
                + "] over " + sorted.length;
    }
}
