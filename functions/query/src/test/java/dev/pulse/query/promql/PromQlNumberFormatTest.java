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
package dev.pulse.query.promql;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How the Prometheus API writes a sample: the time in Unix seconds and the value as Go's shortest decimal. */
class PromQlNumberFormatTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "100.0, 100",
        "-5.0, -5",
        "0.001, 0.001",
        "1234567.25, 1234567.25",
        "12345678.0, 12345678",
        "1.0E-4, 0.0001",
        "1.5E10, 15000000000",
        "0.0, 0",
        "-0.0, -0",
        "NaN, NaN",
        "Infinity, +Inf",
        "-Infinity, -Inf"
    })
    void formatValue_whenValueGiven_writesTheShortestPlainDecimal(double value, String want) {
        assertThat(PromQlService.formatValue(value)).isEqualTo(want);
    }

    @Test
    void formatValue_whenAnyFiniteValue_equalsTheShortestDecimalStrippedAndPlain() {
        // The fast path (no BigDecimal for a plain Double.toString) against the definition, over every magnitude.
        SplittableRandom rnd = new SplittableRandom(11);
        for (int i = 0; i < 200_000; i++) {
            double v = i % 2 == 0
                    ? Double.longBitsToDouble(rnd.nextLong())
                    : Math.rint(rnd.nextDouble(-1e8, 1e8)) / (1 << rnd.nextInt(12));
            if (!Double.isFinite(v) || v == 0) {
                continue;
            }
            String want =
                    new BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
            assertThat(PromQlService.formatValue(v)).as("%s", v).isEqualTo(want);
        }
    }

    @ParameterizedTest(name = "{0} ms -> {1}")
    @CsvSource({
        "1700000000000, 1700000000",
        "1700000000500, 1700000000.5",
        "1700000000123, 1700000000.123",
        "0, 0",
        "-5000, -5",
        "-1500, -1.5"
    })
    void seconds_whenMillisGiven_writesUnixSecondsWithTheMillisOnlyWhenSome(long millis, String want) {
        assertThat(PromQlService.seconds(millis)).isEqualTo(want);
    }
}
