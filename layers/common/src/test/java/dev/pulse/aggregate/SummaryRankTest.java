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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link Summary#rank}: a histogram bucket's cumulative count, as Prometheus' {@code _bucket{le}} holds it. */
class SummaryRankTest {

    private static Summary of(double... values) {
        Summary s = new Summary();
        for (double v : values) {
            s.add(v);
        }
        return s;
    }

    @ParameterizedTest(name = "le {0} -> {1}")
    @CsvSource({
        "-1, 0",
        "0.05, 1",
        "0.1, 2",
        "0.3, 3",
        "0.5, 4",
        "1, 5",
        "2.5, 6",
        "1e9, 6",
        "-Infinity, 0",
        "Infinity, 6",
        "0, 0"
    })
    void rank_whenBoundBetweenValues_countsTheValuesAtMostTheBound(double bound, double want) {
        // Values clear of the bounds by more than the sketch's 1% relative accuracy.
        Summary s = of(0.02, 0.07, 0.2, 0.4, 0.8, 2.0);
        assertThat(s.rank(bound)).isEqualTo(want);
    }

    @Test
    void rank_whenNegativeAndZeroValues_countsThemInOrder() {
        Summary s = of(-5, -0.5, 0, 0, 3);
        assertThat(s.rank(-1)).isEqualTo(1);
        assertThat(s.rank(-0.1)).isEqualTo(2);
        assertThat(s.rank(0)).isEqualTo(4);
        assertThat(s.rank(2.9)).isEqualTo(4);
        assertThat(s.rank(3)).isEqualTo(5);
    }

    @Test
    void rank_whenMerged_isTheSumOfThePartsRanks() {
        Summary a = of(0.02, 0.2, 2.0);
        Summary b = of(0.07, 0.4, 0.8, 5.0);
        double want = a.rank(0.5) + b.rank(0.5);
        a.merge(b);
        assertThat(a.rank(0.5)).isEqualTo(want).isEqualTo(4);
    }

    @Test
    void rank_whenNaNBoundOrEmpty_isZero() {
        assertThat(of(1, 2).rank(Double.NaN)).isZero();
        assertThat(new Summary().rank(1)).isZero();
    }

    @Test
    void rank_whenReadWithoutSketch_refuses() {
        assertThatThrownBy(() -> Summary.withoutSketch().rank(1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void rank_whenBoundOnOrNearABinsEdgeOrValue_equalsTheCountByEveryBinsValue() {
        // The rank finds the bins below the bound by index; the definition compares every bin's value. Bounds on the
        // edges and values of the bins (and one ulp either side) are where the two could part.
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(7);
        var mapping = new Summary().sketch().getIndexMapping();
        int checked = 0;
        for (int round = 0; round < 100; round++) {
            Summary s = new Summary();
            int n = 1 + rnd.nextInt(60);
            for (int i = 0; i < n; i++) {
                double v = Math.pow(10, rnd.nextDouble(-6, 8));
                s.add(rnd.nextInt(5) == 0 ? -v : rnd.nextInt(20) == 0 ? 0 : v);
            }
            for (int k = 0; k < 20; k++) {
                double v = Math.pow(10, rnd.nextDouble(-6, 8));
                int index = mapping.index(v);
                for (double edge :
                        new double[] {v, mapping.value(index), mapping.lowerBound(index), mapping.upperBound(index)}) {
                    for (double bound : new double[] {edge, Math.nextUp(edge), Math.nextDown(edge)}) {
                        for (double signed : new double[] {bound, -bound}) {
                            assertThat(s.rank(signed)).as("rank at %s", signed).isEqualTo(s.rankByBinValues(signed));
                            checked++;
                        }
                    }
                }
            }
        }
        assertThat(checked).isEqualTo(100 * 20 * 4 * 3 * 2);
    }

    @Test
    void ranks_whenManyBoundsAtOnce_equalsEachBoundsRank() {
        // Every kind of bound in one call: below the minimum, at or above the maximum, NaN, infinities, zero, negative,
        // bin edges and values, and bounds beyond what the mapping can index (answered from every bin's value).
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
        var mapping = new Summary().sketch().getIndexMapping();
        for (int round = 0; round < 200; round++) {
            Summary s = new Summary();
            int n = rnd.nextInt(40);
            for (int i = 0; i < n; i++) {
                double v = Math.pow(10, rnd.nextDouble(-6, 8));
                s.add(rnd.nextInt(5) == 0 ? -v : rnd.nextInt(20) == 0 ? 0 : v);
            }
            double[] bounds = new double[24];
            for (int k = 0; k < bounds.length; k++) {
                double v = Math.pow(10, rnd.nextDouble(-7, 9));
                double edge = rnd.nextBoolean() ? v : mapping.upperBound(mapping.index(v));
                bounds[k] = rnd.nextInt(4) == 0 ? -edge : edge;
            }
            bounds[0] = Double.NaN;
            bounds[1] = Double.NEGATIVE_INFINITY;
            bounds[2] = Double.POSITIVE_INFINITY;
            bounds[3] = 0;
            bounds[4] = Double.MIN_VALUE;
            bounds[5] = Double.MAX_VALUE;
            bounds[6] = -Double.MAX_VALUE;

            double[] got = s.ranks(bounds);

            for (int k = 0; k < bounds.length; k++) {
                assertThat(got[k]).as("rank at %s of %s values", bounds[k], n).isEqualTo(s.rank(bounds[k]));
            }
        }
        assertThat(of(1, 2).ranks(new double[0])).isEmpty();
    }

    @Test
    void ranks_whenMergedEncodedSketchAndBoundsAtBinEdges_equalsEachBoundsRank() {
        // Summaries as a period's merge reads them (several merged, then stored encoded), bounds one ulp either side
        // of bin edges and bin values, zeros of both signs, subnormals, and bounds repeated within one call.
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(29);
        var mapping = new Summary().sketch().getIndexMapping();
        int checked = 0;
        for (int round = 0; round < 300; round++) {
            Summary merged = new Summary();
            for (int part = 0; part < 1 + rnd.nextInt(4); part++) {
                Summary p = new Summary();
                int n = 1 + rnd.nextInt(30);
                for (int i = 0; i < n; i++) {
                    double v = Math.pow(10, rnd.nextDouble(-9, 9));
                    p.add(rnd.nextInt(4) == 0 ? -v : rnd.nextInt(15) == 0 ? (rnd.nextBoolean() ? 0.0 : -0.0) : v);
                }
                merged.merge(p);
            }
            Summary encoded = Summary.withEncodedSketch(
                    merged.count(), merged.exactSum(), merged.min(), merged.max(), Sketches.serialize(merged.sketch()));
            double[] bounds = new double[40];
            for (int k = 0; k < bounds.length; k++) {
                double v = Math.pow(10, rnd.nextDouble(-10, 10));
                int idx = mapping.index(v);
                double edge = switch (rnd.nextInt(5)) {
                    case 0 -> mapping.upperBound(idx);
                    case 1 -> Math.nextUp(mapping.upperBound(idx));
                    case 2 -> Math.nextDown(mapping.lowerBound(idx));
                    case 3 -> mapping.value(idx);
                    default -> Math.nextUp(mapping.value(idx));
                };
                bounds[k] = rnd.nextInt(3) == 0 ? -edge : edge;
            }
            bounds[0] = -0.0;
            bounds[1] = 0.0;
            bounds[2] = Double.MIN_NORMAL;
            bounds[3] = -Double.MIN_VALUE;
            bounds[4] = merged.min();
            bounds[5] = merged.max();
            bounds[6] = Math.nextDown(merged.max());
            bounds[7] = bounds[8];
            for (Summary s : List.of(merged, encoded)) {
                double[] got = s.ranks(bounds);
                for (int k = 0; k < bounds.length; k++) {
                    assertThat(got[k]).as("rank at %s", bounds[k]).isEqualTo(s.rank(bounds[k]));
                    checked++;
                }
            }
        }
        assertThat(checked).isEqualTo(300 * 2 * 40);
    }
}
