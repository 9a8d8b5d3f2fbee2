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
package dev.pulse.metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * Counters for one invocation, safe to bump from SDK callback threads, published as one EMF document by
 * {@link #publishTo(Metrics)} at the end of the invocation. Nothing is sent anywhere during the invocation:
 * the EMF line is written to stdout and CloudWatch Logs extracts the metrics asynchronously.
 *
 * @param <M> the function's metric names
 */
public final class InvocationMetrics<M extends Enum<M> & MetricName> {

    private static final Logger LOG = LoggerFactory.getLogger(InvocationMetrics.class);

    /** Each enum's CloudWatch names by ordinal, made once: the same strings every invocation. */
    private static final ClassValue<String[]> NAMES = new ClassValue<>() {
        @Override
        protected String[] computeValue(Class<?> type) {
            Object[] constants = type.getEnumConstants();
            String[] names = new String[constants.length];
            for (int i = 0; i < constants.length; i++) {
                names[i] = ((MetricName) constants[i]).metricName();
            }
            return names;
        }
    };

    private final Map<M, LongAdder> counters;
    private final Map<M, Double> gauges;
    private final String[] names;

    public InvocationMetrics(Class<M> names) {
        this.names = NAMES.get(names);
        this.counters = new EnumMap<>(names);
        this.gauges = new EnumMap<>(names);
        for (M m : names.getEnumConstants()) {
            counters.put(m, new LongAdder());
        }
    }

    public void add(M metric, long delta) {
        counters.get(metric).add(delta);
    }

    public void increment(M metric) {
        counters.get(metric).increment();
    }

    /** A value that is set rather than summed (a lag, a duration); the last one set wins. */
    public synchronized void set(M metric, double value) {
        gauges.put(metric, value);
    }

    public long count(M metric) {
        return counters.get(metric).sum();
    }

    /**
     * Runs {@code body} with fresh counters and publishes them to {@code sink} as one EMF document when it
     * ends, normally or not: the shape of every handler's invocation. The sink is flushed even when publishing
     * fails, so nothing this invocation added is left in it for the next one; then the SDK clients' metrics of the
     * invocation ({@link SdkClientMetrics}), on this thread too.
     */
    public static <M extends Enum<M> & MetricName, R> R measure(
            Class<M> names, Metrics sink, java.util.function.Function<InvocationMetrics<M>, R> body) {
        InvocationMetrics<M> counters = new InvocationMetrics<>(names);
        try {
            return body.apply(counters);
        } finally {
            try {
                counters.publishTo(sink);
            } finally {
                try {
                    sink.flush();
                } finally {
                    SdkClientMetrics.shared().flush();
                }
            }
        }
    }

    /**
     * Adds every metric to {@code metrics}; the caller flushes it in its {@code finally}. A gauge set to NaN or
     * an infinity is left out (EMF has no such value, and {@code addMetric} would throw and lose the metrics
     * after it), with one warning per call naming the gauges left out.
     */
    // names is indexed by ordinal, filled from the same enum's values() in the constructor: a lookup without a map.
    @SuppressWarnings("EnumOrdinal")
    public synchronized void publishTo(Metrics metrics) {
        String skipped = null;
        for (Map.Entry<M, LongAdder> e : counters.entrySet()) {
            M m = e.getKey();
            Double g = gauges.get(m);
            if (g != null && !Double.isFinite(g)) {
                String name = names[m.ordinal()] + "=" + g;
                skipped = skipped == null ? name : skipped + ", " + name;
                continue;
            }
            metrics.addMetric(names[m.ordinal()], g != null ? g : e.getValue().sum(), m.unit());
        }
        if (skipped != null) {
            LOG.warn("Metrics not published, their value is not finite: {}", skipped);
        }
    }
}
