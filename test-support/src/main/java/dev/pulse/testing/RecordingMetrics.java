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
package dev.pulse.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.model.MetricResolution;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * A metrics sink that keeps what a handler publishes instead of printing EMF: one map per flushed document
 * (one per invocation), metric name to value.
 */
public final class RecordingMetrics extends NoMetrics {

    private final Map<String, Double> current = new HashMap<>();
    private final List<Map<String, Double>> documents = new ArrayList<>();

    @Override
    public synchronized void addMetric(String key, double value, MetricUnit unit, MetricResolution resolution) {
        current.merge(key, value, Double::sum);
    }

    @Override
    public synchronized void flush() {
        documents.add(Map.copyOf(current));
        current.clear();
    }

    /** The last invocation's metrics. */
    public synchronized Map<String, Double> last() {
        if (documents.isEmpty()) {
            throw new IllegalStateException("nothing flushed yet");
        }
        return documents.get(documents.size() - 1);
    }

    /** {@code name} in the last invocation's document, as a count. */
    public long last(String name) {
        Double v = last().get(name);
        if (v == null) {
            throw new IllegalArgumentException("no metric " + name + " in " + last().keySet());
        }
        return v.longValue();
    }

    public synchronized List<Map<String, Double>> documents() {
        return List.copyOf(documents);
    }

    @Override
    public void flushMetrics(Consumer<Metrics> metricsConsumer) {
        metricsConsumer.accept(this);
    }
}
