package dev.pulse.metrics;

import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * The Powertools metrics instance of a function, named from the environment template.yaml sets. It is an
 * {@link EmfMetrics}: the Powertools API, with the end-of-invocation document printed from a per-container
 * template once Powertools has printed the first one.
 */
public final class PulseMetrics {

    private PulseMetrics() {
    }

    /** Namespace {@code POWERTOOLS_METRICS_NAMESPACE} (default Pulse), service {@code POWERTOOLS_SERVICE_NAME}. */
    public static Metrics create(String defaultService) {
        String namespace = System.getenv().getOrDefault("POWERTOOLS_METRICS_NAMESPACE", "Pulse");
        String service = System.getenv().getOrDefault("POWERTOOLS_SERVICE_NAME", defaultService);
        return create(namespace, service);
    }

    /** A given namespace and {@code Service} dimension (tests and benchmarks). */
    public static Metrics create(String namespace, String service) {
        return EmfMetrics.create(namespace, service);
    }
}
