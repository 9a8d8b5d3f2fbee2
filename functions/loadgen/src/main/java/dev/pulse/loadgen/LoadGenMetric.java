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
