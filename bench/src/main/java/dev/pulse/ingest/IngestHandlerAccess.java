package dev.pulse.ingest;

import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * The benchmarks' way to the handler's package-private constructor: the real {@link IngestHandler} over an
 * {@link IngestService} wired to DynamoDB Local, where the public constructor would build its clients from the
 * Lambda environment. Lives in the handler's package on the bench class path only; never deployed.
 */
public final class IngestHandlerAccess {

    private IngestHandlerAccess() {
    }

    /** {@code new IngestHandler(service, metrics, safetyMarginMillis)}. */
    public static IngestHandler handler(IngestService service, Metrics metrics, long safetyMarginMillis) {
        return new IngestHandler(service, metrics, safetyMarginMillis);
    }
}
