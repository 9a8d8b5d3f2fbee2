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
package dev.pulse.snapstart;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.cloudwatchlogs.emf.environment.Environment;
import software.amazon.cloudwatchlogs.emf.environment.EnvironmentProvider;
import software.amazon.cloudwatchlogs.emf.model.MetricsContext;
import software.amazon.cloudwatchlogs.emf.sinks.ISink;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.internal.EmfMetricsLogger;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;

/**
 * Powertools' EMF metrics logger (the one {@code PulseMetrics} builds) writing to a sink that serialises each
 * document, as the Lambda sink does before printing it, and drops it: priming runs the EMF path and emits nothing.
 * A separate instance, so the function's own metrics (and its cold-start state) are untouched.
 */
public final class ThrowawayMetrics {

    private ThrowawayMetrics() {}

    /** A metrics instance named like {@code PulseMetrics.create(service)}; {@code bytes} counts what it serialised. */
    public static Metrics create(String service, AtomicLong bytes) {
        ISink sink = new ISink() {
            @Override
            public void accept(MetricsContext context) {
                try {
                    for (String document : context.serialize()) {
                        bytes.addAndGet(document.length());
                    }
                } catch (Exception e) {
                    throw new IllegalStateException("EMF serialisation failed", e);
                }
            }

            @Override
            public CompletableFuture<Void> shutdown() {
                return CompletableFuture.completedFuture(null);
            }
        };
        Environment environment = new Environment() {
            @Override
            public boolean probe() {
                return true;
            }

            @Override
            public String getName() {
                return "priming";
            }

            @Override
            public String getType() {
                return "AWS::Lambda::Function";
            }

            @Override
            public String getLogGroupName() {
                return "priming";
            }

            @Override
            public void configureContext(MetricsContext context) {}

            @Override
            public ISink getSink() {
                return sink;
            }
        };
        EnvironmentProvider provider = new EnvironmentProvider() {
            @Override
            public CompletableFuture<Environment> resolveEnvironment() {
                return CompletableFuture.completedFuture(environment);
            }

            @Override
            public Environment getDefaultEnvironment() {
                return environment;
            }
        };
        Metrics metrics = new EmfMetricsLogger(provider, new MetricsContext());
        metrics.setNamespace(System.getenv().getOrDefault("POWERTOOLS_METRICS_NAMESPACE", "Pulse"));
        metrics.setDefaultDimensions(DimensionSet.of("Service", service));
        return metrics;
    }
}
