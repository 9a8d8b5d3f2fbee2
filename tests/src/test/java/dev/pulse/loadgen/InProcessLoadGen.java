package dev.pulse.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.ExpectedResults;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;

/**
 * The load generator's handler on a real Kinesis endpoint, its workers run on this JVM's threads instead of as
 * Lambda invocations of the same function, and replay sources read from the repository.
 */
final class InProcessLoadGen {

    private InProcessLoadGen() {
    }

    /** {@code reports} null: no report bucket, as a deployment without one. */
    static LoadGenHandler handler(KinesisAsyncClient client, String stream, LoadGenService.ReportStore reports) {
        LoadGenService[] self = new LoadGenService[1];
        self[0] = new LoadGenService(new KinesisSender(client, stream, new Backoff(20, 500), 5),
                source -> ReplaySource.load(source, ExpectedResults.repoRoot()),
                worker -> CompletableFuture.supplyAsync(() -> {
                    try {
                        return (JsonNode) self[0].run(worker, Deadline.inMillis(60_000),
                                new InvocationMetrics<>(LoadGenMetric.class));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }), null, reports);
        return new LoadGenHandler(self[0], PulseMetrics.create("PulseTest", "loadgen"));
    }
}
