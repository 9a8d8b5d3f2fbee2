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

import dev.pulse.metrics.MetricName;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** The metrics QueryFunction emits, once per invocation, as one EMF document (names in PascalCase). */
public enum QueryMetric implements MetricName {
    QUERY_LATENCY_MS {
        @Override
        public MetricUnit unit() {
            return MetricUnit.MILLISECONDS;
        }
    },
    SERIES_REQUESTED,
    ITEMS_READ,
    /** DynamoDB read capacity units the invocation consumed (as DynamoDB reports them: item sizes, not bytes sent). */
    READ_UNITS,
    CACHE_HITS,
    /** Rollups not complete (marked since their build, or not built yet) answered from the level below. */
    ROLLUP_FALLBACKS,
    UNPROCESSED,
    BAD_REQUESTS,
    COLD_START
}
