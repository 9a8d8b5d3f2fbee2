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
package dev.pulse.query.promql.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The functions java.lang.Math lacks, and the date functions, case by case (PromQlDifferentialIT compares with Prometheus). */
class MathAndDateFunctionsTest {

    @ParameterizedTest(name = "{0}({1}) = {2}")
    @CsvSource({
        "asinh, 0, 0",
        "asinh, -1, -0.881373587019543",
        "asinh, 1e-10, 1e-10",
        "asinh, 1e10, 23.7189981105004",
        "asinh, Infinity, Infinity",
        "acosh, 1, 0",
        "acosh, 1.5, 0.9624236501192069",
        "acosh, 0.5, NaN",
        "acosh, 1e10, 23.7189981105004",
        "atanh, 0.5, 0.5493061443340549",
        "atanh, -0.25, -0.25541281188299536",
        "atanh, 1, Infinity",
        "atanh, -1, -Infinity",
        "atanh, 1.5, NaN",
    })
    void hyperbolic_whenValue_answersAsGosMath(String f, double x, double expected) {
        double got = switch (f) {
            case "asinh" -> Evaluator.asinh(x);
            case "acosh" -> Evaluator.acosh(x);
            default -> Evaluator.atanh(x);
        };
        if (Double.isNaN(expected) || Double.isInfinite(expected) || expected == 0) {
            assertThat(got).isEqualTo(Double.valueOf(expected));
        } else {
            assertThat(got).isCloseTo(expected, within(Math.abs(expected) * 1e-15));
        }
    }

    @ParameterizedTest(name = "{0}({1}) = {2}")
    @CsvSource({
        // 1970-01-01 was a Thursday; Sunday is 0
        "day_of_week, 0, 4",
        "day_of_week, 259200, 0",
        // 2024-02-10T13:45:00Z: a leap February
        "days_in_month, 1707572700, 29",
        "day_of_year, 1707572700, 41",
        "hour, 1707572700, 13",
        "minute, 1707572700, 45",
        "month, 1707572700, 2",
        "year, 1707572700, 2024",
        "day_of_month, 1707572700, 10",
        // the fraction drops toward zero: -0.5 s is 1970-01-01T00:00:00Z, -1.5 s the last second of 1969
        "year, -0.5, 1970",
        "year, -1.5, 1969",
        "minute, -1.5, 59",
        // beyond any date java.time holds, or not a number
        "year, 1e20, NaN",
        "hour, NaN, NaN",
        "hour, Infinity, NaN",
    })
    void datePart_whenUnixSeconds_readsTheUtcDate(String f, double seconds, double expected) {
        assertThat(Evaluator.datePart(f, seconds)).isEqualTo(Double.valueOf(expected));
    }
}
