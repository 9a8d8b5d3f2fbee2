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
package dev.pulse.query;

import java.util.List;
import java.util.Map;

/**
 * The answer to a query: one shared time axis, values per series and stat (NaN for an empty bucket, written as
 * null), the
 * series not served within the time budget, and a token for the series beyond the point limit.
 */
public record NativeResult(
        List<Long> timestamps,
        long periodSeconds,
        List<SeriesValues> series,
        List<Unprocessed> unprocessed,
        String nextToken) {

    /**
     * Values of one series: stat label -> one value per timestamp, NaN where the bucket is empty; and, where a
     * cached bucket has it, the value already as JSON text (else null), which the response writes as it is.
     */
    public record SeriesValues(SeriesSpec series, Map<String, double[]> values, Map<String, String[]> texts) {}

    /** A series that was not served, and why. */
    public record Unprocessed(SeriesSpec series, String reason) {}
}
