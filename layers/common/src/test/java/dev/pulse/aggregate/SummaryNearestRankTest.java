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

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link Summary#quantile} against an exact nearest-rank computation for every percentile the API allows
 * (p0.001 to p100 in steps of 0.001), counts 1 to 10, negative values, zeros, mixes and duplicates, and summaries
 * built directly, restored from an encoded sketch and merged from encoded one-value parts.
 */
class SummaryNearestRankTest {

    private static final int STEPS = 100_000; // thousandths of a percent

    /** The quantile for p(thousandths / 1000), as {@code Stat.parse} computes it. */
    private static double q(int thousandths) {
        return new BigDecimal(BigInteger.valueOf(thousandths), 3)
                .movePointLeft(2)
                .doubleValue();
    }

    /** ceil(thousandths x n / 100,000), at least 1, in integers. */
    private static long exactRank(int thousandths, long n) {
        return Math.max(1, Math.ceilDiv(thousandths * n, STEPS));
    }

    private static Summary direct(double[] values) {
        Summary s = new Summary();
        for (double v : values) {
            s.add(v);
        }
        return s;
    }

    private static Summary encodedWhole(double[] values) {
        Summary s = direct(values);
        return Summary.withEncodedSketch(s.count(), s.exactSum(), s.min(), s.max(), Sketches.serialize(s.sketch()));
    }

    private static Summary mergedFromEncodedParts(double[] values) {
        Summary total = new Summary();
        for (double v : values) {
            Summary part = direct(new double[] {v});
            total.merge(Summary.withEncodedSketch(
                    part.count(), part.exactSum(), part.min(), part.max(), Sketches.serialize(part.sketch())));
        }
        return total;
    }

    /** Every allowed percentile; exact at the first and last rank, else within 1% (exactly 0 for a zero). */
    private static List<String> mismatches(double[] values, Summary s) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        List<String> out = new ArrayList<>();
        for (int t = 1; t <= STEPS; t++) {
            long rank = exactRank(t, n);
            double expected = sorted[(int) rank - 1];
            double got = s.quantile(q(t));
            boolean ok = rank == 1 || rank == n || expected == 0
                    ? got == expected
                    : Math.abs(got - expected) <= 0.01 * Math.abs(expected) * (1 + 1e-9);
            if (!ok) {
                out.add("n=" + n + " t=" + t + " rank=" + rank + " expected=" + expected + " got=" + got);
            }
        }
        return out;
    }

    @Test
    void quantile_forEveryAllowedPercentileAndOneToTenValues_isTheNearestRankWhateverTheSignsAndRepeats() {
        // Neighbouring distinct values differ by far more than 2%, so answering a neighbouring rank cannot pass.
        double[][] bases = {
            {1, 3, 9, 27, 81, 243, 729, 2187, 6561, 19683},
            {-1, -3, -9, -27, -81, -243, -729, -2187, -6561, -19683},
            {0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
            {-5, 0, 7, -50, 0, 70, -500, 0, 700, 0},
            {2, 2, 5, 5, 5, 2, 9, 9, 2, 5},
            {-2, -2, 0, 0, 3, 3, -2, 0, 3, 3},
        };
        List<Function<double[], Summary>> builds = List.of(
                SummaryNearestRankTest::direct,
                SummaryNearestRankTest::encodedWhole,
                SummaryNearestRankTest::mergedFromEncodedParts);
        List<String> failures = new ArrayList<>();
        for (double[] base : bases) {
            for (int n = 1; n <= base.length; n++) {
                double[] values = Arrays.copyOf(base, n);
                for (Function<double[], Summary> build : builds) {
                    mismatches(values, build.apply(values)).stream()
                            .limit(3)
                            .forEach(m -> failures.add(Arrays.toString(values) + " " + m));
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void quantile_whenQTimesCountIsWhole_staysOnThatRank_andJustAboveMovesToTheNext() {
        Summary ten = direct(new double[] {10, 20, 30, 40, 50, 60, 70, 80, 90, 100});
        assertThat(ten.quantile(q(90_000))).isCloseTo(90, org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(ten.quantile(q(90_001))).isEqualTo(100); // rank 10: the max, exactly
        assertThat(ten.quantile(q(70_000))).isCloseTo(70, org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(ten.quantile(q(70_001))).isCloseTo(80, org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(ten.quantile(q(10_000))).isEqualTo(10); // rank 1: the min, exactly
        assertThat(ten.quantile(q(10_001))).isCloseTo(20, org.assertj.core.data.Percentage.withPercentage(1));

        Summary thousand = new Summary();
        for (int i = 1; i <= 1000; i++) {
            thousand.add(i < 999 ? 1 : i == 999 ? 500 : 1000);
        }
        assertThat(thousand.quantile(q(99_900))).isCloseTo(500, org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(thousand.quantile(q(99_901))).isEqualTo(1000);
        assertThat(thousand.quantile(q(99_800))).isCloseTo(1, org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(thousand.quantile(q(99_801))).isCloseTo(500, org.assertj.core.data.Percentage.withPercentage(1));
    }

    @Test
    void nearestRank_forEveryAllowedPercentileAndCountsUpToAMillion_isExact() {
        for (long n : new long[] {1, 2, 3, 7, 10, 999, 1000, 1001, 99_999, 100_000, 100_001, 999_999, 1_000_000}) {
            for (int t = 1; t <= STEPS; t++) {
                if (Summary.nearestRank(q(t), n) != exactRank(t, n)) {
                    assertThat(Summary.nearestRank(q(t), n))
                            .as("n=%d t=%d", n, t)
                            .isEqualTo(exactRank(t, n));
                }
            }
        }
    }
}
