package dev.pulse.compact;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.TestContext;
import java.time.Duration;
import software.amazon.lambda.powertools.metrics.MetricsBuilder;

/** Builds a CompactHandler (its collaborator constructor is package-private) on a pipeline's table. */
public final class CompactHandlerAccess {

    private CompactHandlerAccess() {
    }

    public static StreamsEventResponse handle(Pipeline pipeline, DynamodbEvent event) {
        CompactHandler handler = new CompactHandler(new CompactService(Emulators.dynamo().asyncClient(), pipeline.table, 4,
                Duration.ofDays(400).toSeconds(), Duration.ofDays(3650).toSeconds(), pipeline.clock()),
                MetricsBuilder.builder().withNamespace("PulseTest").withService("compact").build(), 3_000);
        return handler.handleRequest(event, new TestContext("compact-fixture", 60_000, 1024));
    }
}
