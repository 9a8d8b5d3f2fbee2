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

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SummaryTest {

    private static Summary of(Random random, int n) {
        Summary s = new Summary();
        for (int i = 0; i < n; i++) {
            s.add(Math.pow(10, -2 + 6 * random.nextDouble()));
        }
        return s;
    }

    private static Summary encoded(Summary s) {
        return Summary.withEncodedSketch(s.count(), s.exactSum(), s.min(), s.max(), Sketches.serialize(s.sketch()));
    }

    @Test
    void merge_whenOtherSketchIsEncoded_equalsMergingTheDecodedSketch() {
        Random random = new Random(5);
        Summary a = of(random, 200);
        Summary b = of(random, 300);
        Summary viaDecoded = new Summary();
        viaDecoded.merge(a);
        viaDecoded.merge(b);
        Summary viaEncoded = new Summary();
        viaEncoded.merge(encoded(a));
        viaEncoded.merge(encoded(b));

        assertThat(viaEncoded.count()).isEqualTo(500);
        assertThat(viaEncoded.sum()).isEqualTo(viaDecoded.sum());
        for (double q : new double[] {0.01, 0.5, 0.9, 0.99, 1}) {
            assertThat(viaEncoded.quantile(q)).as("q" + q).isEqualTo(viaDecoded.quantile(q));
        }
        assertThat(Sketches.serialize(viaEncoded.sketch())).isEqualTo(Sketches.serialize(viaDecoded.sketch()));
    }

    @Test
    void reading_whenSketchIsEncoded_leavesTheSummaryUnchanged() {
        Summary source = of(new Random(6), 50);
        byte[] bytes = Sketches.serialize(source.sketch());
        Summary cached = encoded(source);

        assertThat(cached.hasSketch()).isTrue();
        assertThat(cached.quantile(0.99)).isEqualTo(source.quantile(0.99));
        Summary reader = new Summary();
        reader.merge(cached);
        cached.sketch().accept(1e6);

        assertThat(cached.encodedSketch()).isEqualTo(bytes);
        assertThat(cached.quantile(1)).isEqualTo(source.quantile(1));
    }

    @Test
    void add_whenSketchIsEncoded_decodesItFirstAndKeepsEveryValue() {
        Random random = new Random(7);
        Summary source = of(random, 100);
        Summary restored = encoded(source);

        restored.add(1e5);
        source.add(1e5);

        assertThat(restored.encodedSketch()).isNull();
        assertThat(restored.count()).isEqualTo(101);
        assertThat(restored.quantile(1)).isEqualTo(source.quantile(1));
        assertThat(restored.quantile(0.5)).isEqualTo(source.quantile(0.5));
    }

    private static final double[] PERCENTILES = {0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 100};

    /** The nearest-rank value: rank ceil(p/100 x n) of the sorted values, exactly, with BigDecimal-free integers. */
    private static double nearestRank(List<Double> sorted, double percentile) {
        long thousandths = Math.round(percentile * 1000); // the API allows three decimals
        long rank = Math.max(1, (thousandths * sorted.size() + 100_000 - 1) / 100_000);
        return sorted.get((int) rank - 1);
    }

    @Test
    void quantile_whenFewValues_answersTheValueAtTheNearestRankLikeCloudWatch() {
        Summary s = new Summary();
        for (double v : new double[] {1, 2, 3, 4, 5, 10, 20}) {
            s.add(v);
        }

        assertThat(s.quantile(0.99)).isEqualTo(20.0); // rank ceil(6.93) = 7: the max, exactly
        assertThat(s.quantile(0.5)).isCloseTo(4.0, Percentage.withPercentage(1)); // rank ceil(3.5) = 4
        assertThat(s.quantile(0.01)).isEqualTo(1.0); // rank 1: the min, exactly
        assertThat(s.quantile(0.9)).isCloseTo(20.0, Percentage.withPercentage(1)); // rank ceil(6.3) = 7
        assertThat(s.quantile(0.85)).isCloseTo(10.0, Percentage.withPercentage(1)); // rank ceil(5.95) = 6
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void quantile_whenOneToTenValues_everyPercentileIsTheNearestRankWithinOnePercent(int n) {
        Random random = new Random(n);
        List<Double> values = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            values.add(Math.pow(10, -1 + 4 * random.nextDouble()));
        }
        Summary s = new Summary();
        values.forEach(s::add);
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);

        for (double p : PERCENTILES) {
            assertThat(s.quantile(p / 100))
                    .as("n=%d p%s", n, p)
                    .isCloseTo(nearestRank(sorted, p), Percentage.withPercentage(1.0001));
        }
    }

    @Test
    void quantile_whenManyValuesMergedFromParts_everyPercentileIsTheNearestRankWithinOnePercent() {
        Random random = new Random(11);
        List<Double> values = new ArrayList<>();
        Summary total = new Summary();
        for (int part = 0; part < 100; part++) {
            Summary s = new Summary();
            for (int i = 0; i < 1_000 + part; i++) {
                double v = Math.pow(10, -2 + 8 * random.nextDouble());
                values.add(v);
                s.add(v);
            }
            total.merge(s);
        }
        Collections.sort(values);

        for (double p : PERCENTILES) {
            assertThat(total.quantile(p / 100))
                    .as("p%s", p)
                    .isCloseTo(nearestRank(values, p), Percentage.withPercentage(1.0001));
        }
        assertThat(total.quantile(1.0)).isEqualTo(values.get(values.size() - 1));
    }

    @Test
    void nearestRank_whenProductIsWholeButRoundsUp_staysOnThatRank() {
        assertThat(Summary.nearestRank(0.9, 10)).isEqualTo(9); // 0.9 x 10 = 9.000000000000002 in doubles
        assertThat(Summary.nearestRank(0.07, 100)).isEqualTo(7);
        assertThat(Summary.nearestRank(0.99, 7)).isEqualTo(7);
        assertThat(Summary.nearestRank(0.0001, 7)).isEqualTo(1);
        assertThat(Summary.nearestRank(0.5, 1)).isEqualTo(1);
        assertThat(Summary.nearestRank(0.999, 1_000_000_000_000L)).isEqualTo(999_000_000_000L);
        // 0.99999 x 9,999,999 = 9,999,899.00001: not whole, so the next rank (a relative nudge once lost it).
        assertThat(Summary.nearestRank(
                        new java.math.BigDecimal("99.999").movePointLeft(2).doubleValue(), 9_999_999L))
                .isEqualTo(9_999_900L);
        assertThat(Summary.nearestRank(
                        new java.math.BigDecimal("50.545").movePointLeft(2).doubleValue(), 123_456_789L))
                .isEqualTo(Math.ceilDiv(50_545L * 123_456_789L, 100_000L));
    }
}
