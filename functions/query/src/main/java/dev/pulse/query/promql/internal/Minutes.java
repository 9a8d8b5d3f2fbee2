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

import java.util.SortedMap;

/**
 * One series' per-minute summaries over the minutes {@code [first, first + sum.length * 1 min)}: the sum and count of
 * each minute's datapoints (count 0 where a minute holds none). The functions that need the order of the data in a
 * window (irate, delta, last_over_time, ...) are answered from these.
 *
 * @param counter a cumulative counter's samples per minute, when they were asked for and the series has them, else null
 */
public record Minutes(SortedMap<String, String> labels, long first, double[] sum, double[] count, Counters counter) {

    public Minutes(SortedMap<String, String> labels, long first, double[] sum, double[] count) {
        this(labels, first, sum, count, null);
    }

    /**
     * Per minute, a cumulative counter's first and last sample (value, epoch ms), its reset-corrected increase from the
     * first to the last and its resets; NaN where the minute holds no counter sample.
     */
    public record Counters(
            double[] firstValue,
            double[] firstTime,
            double[] lastValue,
            double[] lastTime,
            double[] increase,
            double[] resets) {

        /** Whether minute {@code k} holds a counter sample. */
        boolean has(int k) {
            return !Double.isNaN(firstTime[k]);
        }
    }
}
