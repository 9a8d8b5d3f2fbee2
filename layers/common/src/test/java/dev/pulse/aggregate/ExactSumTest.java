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

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ExactSumTest {

    static Stream<Arguments> hardCases() {
        double two53 = Math.pow(2, 53);
        return Stream.of(
                // Catastrophic cancellation: a naive sum returns 0.
                Arguments.of(new double[] {1e100, 1.0, -1e100}, 1.0),
                Arguments.of(new double[] {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 1.0),
                // Half-even rounding across partials (CPython's fsum test vectors).
                Arguments.of(new double[] {two53, -0.5, -Math.pow(2, -54)}, two53 - 1.0),
                Arguments.of(new double[] {two53, 1.0, Math.pow(2, -100)}, two53 + 2.0),
                Arguments.of(new double[] {two53 + 10.0, 1.0, Math.pow(2, -100)}, two53 + 12.0),
                Arguments.of(new double[] {two53 - 4.0, 0.5, Math.pow(2, -54)}, two53 - 3.0),
                Arguments.of(new double[] {}, 0.0));
    }

    @ParameterizedTest
    @MethodSource("hardCases")
    void value_whenHardCase_isCorrectlyRoundedExactSum(double[] values, double expected) {
        ExactSum s = new ExactSum();
        for (double v : values) {
            s.add(v);
        }
        assertThat(s.value()).isEqualTo(expected);
    }

    @Test
    void value_whenRandomValuesOverManyMagnitudes_equalsBigDecimalSumRoundedOnce() {
        Random r = new Random(1);
        for (int run = 0; run < 200; run++) {
            List<Double> values = randomValues(r, 1 + r.nextInt(500));
            ExactSum s = new ExactSum();
            values.forEach(s::add);
            assertThat(s.value()).as("run " + run).isEqualTo(exact(values));
        }
    }

    @Test
    void add_whenSplitAnywhereAndMergedInAnyOrder_givesSameValue() {
        Random r = new Random(2);
        List<Double> values = randomValues(r, 2000);
        double whole = exact(values);
        for (int run = 0; run < 50; run++) {
            Collections.shuffle(values, r);
            int cut = r.nextInt(values.size());
            ExactSum a = new ExactSum();
            ExactSum b = new ExactSum();
            values.subList(0, cut).forEach(a::add);
            values.subList(cut, values.size()).forEach(b::add);
            ExactSum merged = ExactSum.fromBytes(b.toBytes());
            merged.add(ExactSum.fromBytes(a.toBytes()));
            assertThat(merged.value()).isEqualTo(whole);
        }
    }

    @Test
    void toBytes_whenRoundTripped_keepsValueAndStaysSmall() {
        ExactSum s = new ExactSum();
        randomValues(new Random(3), 10_000).forEach(s::add);
        byte[] bytes = s.toBytes();
        assertThat(ExactSum.fromBytes(bytes).value()).isEqualTo(s.value());
        assertThat(bytes.length).isLessThanOrEqualTo(8 * 40);
    }

    @Test
    void fromBytes_whenLengthNotMultipleOfEight_throws() {
        assertThatThrownBy(() -> ExactSum.fromBytes(new byte[7]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("multiple of 8");
    }

    private static List<Double> randomValues(Random r, int n) {
        List<Double> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            double magnitude = Math.exp(r.nextDouble() * 30 - 10); // ~4.5e-5 .. 2.2e8
            values.add(r.nextBoolean() ? magnitude : -magnitude);
        }
        return values;
    }

    private static double exact(List<Double> values) {
        BigDecimal sum = BigDecimal.ZERO;
        for (double v : values) {
            sum = sum.add(new BigDecimal(v));
        }
        return sum.doubleValue();
    }
}
