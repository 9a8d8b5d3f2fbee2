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

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Prometheus' classic-bucket quantile, case by case; the engine as a whole is compared with Prometheus in PromQlDifferentialIT. */
class HistogramQuantileTest {

    /** "bound:count bound:count ..." as {upper bound, cumulative count} pairs. */
    private static List<double[]> buckets(String spec) {
        List<double[]> out = new ArrayList<>();
        for (String b : spec.trim().split("\\s+")) {
            String[] p = b.split(":");
            out.add(new double[] {Evaluator.bucketBound(p[0]), Double.parseDouble(p[1])});
        }
        return out;
    }

    @ParameterizedTest(name = "q={0} {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                // linear within the bucket the rank falls in: rank 5 of 10 is half-way through (0.5, 1]
                "0.5  | 0.5:2 1:8 +Inf:10        | 0.75",
                // the lowest bucket starts at 0
                "0.1  | 0.5:2 1:8 +Inf:10        | 0.25",
                // a rank in the +Inf bucket answers the highest finite bound
                "0.95 | 0.5:2 1:8 +Inf:10        | 1",
                // the lowest bucket with a bound at or below 0 answers its bound
                "0.1  | -1:5 1:8 +Inf:10         | -1",
                // q outside [0, 1]
                "-0.5 | 0.5:2 1:8 +Inf:10        | -Infinity",
                "1.5  | 0.5:2 1:8 +Inf:10        | Infinity",
                // no +Inf bucket, no observations, a single bucket
                "0.5  | 0.5:2 1:8                | NaN",
                "0.5  | 0.5:0 1:0 +Inf:0         | NaN",
                "0.5  | +Inf:10                  | NaN",
                // unsorted input, equal bounds added together, counts made monotonic
                "0.5  | +Inf:10 1:8 0.5:2        | 0.75",
                "0.5  | 0.5:1 0.5:1 1:8 +Inf:10  | 0.75",
                "0.5  | 0.5:6 1:4 +Inf:10        | 0.4166666666666667",
            })
    void bucketQuantile_whenBuckets_answersAsPrometheus(double q, String spec, double expected) {
        assertThat(Evaluator.bucketQuantile(q, buckets(spec))).isEqualTo(Double.valueOf(expected));
    }

    @ParameterizedTest(name = "le={0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "1       | 1.0",
                "1.0     | 1.0",
                "+Inf    | Infinity",
                "inf     | Infinity",
                "-Inf    | -Infinity",
                "1e3     | 1000.0",
                ".5      | 0.5",
                "0x1p-2  | 0.25",
            })
    void bucketBound_whenGoParsesIt_isTheBound(String le, double expected) {
        assertThat(Evaluator.bucketBound(le)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "le={0}")
    @CsvSource(
            delimiter = '|',
            value = {"abc", "1d", "1f", "0x10", "1e400", "' 1'", "''", "1,5"})
    void bucketBound_whenGoRefusesIt_isNotABucket(String le) {
        assertThat(Evaluator.bucketBound(le)).isNull();
    }
}
