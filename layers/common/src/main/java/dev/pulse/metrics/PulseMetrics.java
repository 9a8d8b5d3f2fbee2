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

import java.util.Map;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.MetricsBuilder;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.provider.EmfMetricsProvider;

/**
 * The functions' Powertools {@link Metrics}, named from the environment template.yaml sets. Every document is
 * Powertools' own: aws-embedded-metrics serialises it and prints it to stdout when the handler flushes, on the
 * handler's thread (in Lambda and with {@code AWS_EMF_ENVIRONMENT=Local}); nothing runs in the background.
 */
public final class PulseMetrics {

    static final String NAMESPACE_ENV = "POWERTOOLS_METRICS_NAMESPACE";
    static final String SERVICE_ENV = "POWERTOOLS_SERVICE_NAME";
    static final String DEFAULT_NAMESPACE = "Pulse";

    private PulseMetrics() {}

    /**
     * The function's metrics in Lambda: Powertools' singleton ({@code MetricsFactory}, configured through
     * {@link MetricsBuilder}), namespace {@code POWERTOOLS_METRICS_NAMESPACE} (default Pulse), {@code Service}
     * dimension {@code POWERTOOLS_SERVICE_NAME} (default {@code defaultService}). One handler per JVM, as in a
     * Lambda execution environment: the singleton is the process's, so a second call reconfigures the first one's.
     */
    public static Metrics create(String defaultService) {
        return create(System.getenv(), defaultService);
    }

    /** {@link #create(String)} reading the given environment (tests). */
    static Metrics create(Map<String, String> env, String defaultService) {
        String service = env.getOrDefault(SERVICE_ENV, defaultService);
        SdkClientMetrics.shared().service(service);
        return MetricsBuilder.builder()
                .withNamespace(env.getOrDefault(NAMESPACE_ENV, DEFAULT_NAMESPACE))
                .withService(service)
                .build();
    }

    /**
     * A Powertools EMF metrics logger of its own (what Powertools' provider makes for each request), for a JVM that
     * hosts several handlers at once (tests, benchmarks): each keeps its namespace and {@code Service} dimension,
     * where the singleton of {@link #create(String)} would be shared. It prints the same document.
     */
    public static Metrics create(String namespace, String service) {
        Metrics metrics = new EmfMetricsProvider().getMetricsInstance();
        metrics.setNamespace(namespace);
        metrics.setDefaultDimensions(DimensionSet.of("Service", service));
        return metrics;
    }
}
