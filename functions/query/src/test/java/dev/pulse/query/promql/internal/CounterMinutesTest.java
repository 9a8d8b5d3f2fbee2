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

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** irate and resets of a cumulative counter from its per-minute first and last samples. */
class CounterMinutesTest {

    private static final double NA = Double.NaN;

    /** Minutes of {first value, first time s, last value, last time s, increase, resets}; NaN for a minute without data. */
    private static Minutes.Counters minutes(double[]... m) {
        int n = m.length;
        double[][] cols = new double[6][n];
        for (int k = 0; k < n; k++) {
            for (int c = 0; c < 6; c++) {
                cols[c][k] = m[k] == null ? NA : (c == 1 || c == 3 ? m[k][c] * 1000 : m[k][c]);
            }
        }
        return new Minutes.Counters(cols[0], cols[1], cols[2], cols[3], cols[4], cols[5]);
    }

    private static double[] one(double value, double seconds) {
        return new double[] {value, seconds, value, seconds, 0, 0};
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                // one sample a minute: (last - previous) / their distance, as Prometheus
                "steady                  | 10,30;16,90;28,150     | 0.2",
                "a reset at the last     | 10,30;16,90;4,150      | 0.06666666666666667",
                "a minute without data   | 10,30;16,90;-;40,210   | 0.2",
                "one sample only         | 10,30                  | NaN",
            })
    void irate_whenOneSampleAMinute_isPrometheusIrate(String name, String samples, double want) {
        String[] parts = samples.split(";");
        double[][] m = new double[parts.length][];
        for (int k = 0; k < parts.length; k++) {
            if (!parts[k].equals("-")) {
                String[] vt = parts[k].split(",");
                m[k] = one(Double.parseDouble(vt[0]), Double.parseDouble(vt[1]));
            }
        }

        double got = Evaluator.overCounter(Expr.OverTimeFunction.IRATE, minutes(m), 0, m.length);

        if (Double.isNaN(want)) {
            assertThat(got).isNaN();
        } else {
            assertThat(got).isEqualTo(want);
        }
    }

    @ParameterizedTest(name = "window [{0}, {1})")
    @CsvSource({"0, 4, 3", "1, 4, 1", "2, 4, 1", "3, 4, 1", "0, 1, 1", "0, 2, 2"})
    void resets_whenWithinAndBetweenMinutes_countsBoth(int lo, int hi, double want) {
        // minute 0: a reset within it; minute 1 starts below minute 0's last; minute 2 does not; minute 3 has one
        // within
        Minutes.Counters c = minutes(
                new double[] {50, 1, 8, 40, 20, 1},
                new double[] {3, 61, 9, 100, 6, 0},
                new double[] {12, 121, 15, 170, 3, 0},
                new double[] {20, 181, 2, 230, 2, 1});

        assertThat(Evaluator.overCounter(Expr.OverTimeFunction.RESETS, c, lo, hi))
                .isEqualTo(want);
    }

    @org.junit.jupiter.api.Test
    void irate_whenLastMinuteHoldsSeveralSamples_isTheRateOverThem() {
        Minutes.Counters c = minutes(one(10, 30), new double[] {20, 65, 50, 95, 30, 0});

        assertThat(Evaluator.overCounter(Expr.OverTimeFunction.IRATE, c, 0, 2)).isEqualTo(1.0);
    }
}
