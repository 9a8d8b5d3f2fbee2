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

import com.amazonaws.services.lambda.runtime.Context;
import java.time.Instant;
import java.util.function.Consumer;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.model.MetricResolution;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * Metrics switched off: every call does nothing. What a handler costs without metrics (stricter than Powertools'
 * {@code POWERTOOLS_METRICS_DISABLED}, which still collects and only skips the flush), and what a fuzzed handler
 * publishes to instead of printing an EMF document per input. Subclasses keep what they need.
 */
public class NoMetrics implements Metrics {

    @Override
    public void addMetric(String name, double value, MetricUnit unit, MetricResolution resolution) {}

    @Override
    public void addDimension(DimensionSet dimensionSet) {}

    @Override
    public void setTimestamp(Instant timestamp) {}

    @Override
    public void addMetadata(String key, Object value) {}

    @Override
    public void setDefaultDimensions(DimensionSet dimensionSet) {}

    @Override
    public DimensionSet getDefaultDimensions() {
        return new DimensionSet();
    }

    @Override
    public void setNamespace(String namespace) {}

    @Override
    public void setRaiseOnEmptyMetrics(boolean raiseOnEmptyMetrics) {}

    @Override
    public void clearDefaultDimensions() {}

    @Override
    public void flush() {}

    @Override
    public void captureColdStartMetric(Context context, DimensionSet dimensions) {}

    @Override
    public void captureColdStartMetric(DimensionSet dimensions) {}

    @Override
    public void flushMetrics(Consumer<Metrics> metricsConsumer) {}
}
