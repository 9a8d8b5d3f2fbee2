package dev.pulse.metrics;

import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.MetricsBuilder;

/** The Powertools metrics instance of a function, named from the environment template.yaml sets. */
public final class PulseMetrics {

    private PulseMetrics() {
    }

    /** Namespace {@code POWERTOOLS_METRICS_NAMESPACE} (default Pulse), service {@code POWERTOOLS_SERVICE_NAME}. */
    public static Metrics create(String defaultService) {
        String namespace = System.getenv().getOrDefault("POWERTOOLS_METRICS_NAMESPACE", "Pulse");
        String service = System.getenv().getOrDefault("POWERTOOLS_SERVICE_NAME", defaultService);
        return MetricsBuilder.builder().withNamespace(namespace).withService(service).build();
    }
}
