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
package dev.pulse.loadgen;

import dev.pulse.metrics.MetricName;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** The figures of a load-generator run, emitted once at its end as one EMF document. */
public enum LoadGenMetric implements MetricName {
    SENT,
    ACKED,
    FAILED,
    THROTTLED,
    RETRIED,
    TARGET_RATE {
        @Override
        public MetricUnit unit() {
            return MetricUnit.COUNT_SECOND;
        }
    },
    ACHIEVED_RATE {
        @Override
        public MetricUnit unit() {
            return MetricUnit.COUNT_SECOND;
        }
    },
    PUT_LATENCY_P99_MS {
        @Override
        public MetricUnit unit() {
            return MetricUnit.MILLISECONDS;
        }
    },
    CANARY_LOST,
    CANARY_DUPLICATED,
    COLD_START
}
