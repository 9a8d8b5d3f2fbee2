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
}
