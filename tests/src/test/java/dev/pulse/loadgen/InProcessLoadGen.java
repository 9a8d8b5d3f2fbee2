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
package dev.pulse.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.retry.Backoff;
import dev.pulse.testing.ExpectedResults;
import dev.pulse.testing.TestContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;

/**
 * The load generator's handler on a real Kinesis endpoint, its workers run on this JVM's threads instead of as
 * Lambda invocations of the same function, and replay sources read from the repository. A worker gets what Lambda
 * would carry: the coordinator's worker event as JSON bytes, through the handler.
 */
final class InProcessLoadGen {

    private InProcessLoadGen() {}

    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code reports} null: no report bucket, as a deployment without one. */
    static LoadGenHandler handler(KinesisAsyncClient client, String stream, LoadGenService.ReportStore reports) {
        LoadGenHandler[] self = new LoadGenHandler[1];
        LoadGenService service = new LoadGenService(
                new KinesisSender(client, stream, new Backoff(20, 500), 5),
                source -> ReplaySource.load(source, ExpectedResults.repoRoot()),
                worker -> CompletableFuture.supplyAsync(
                        () -> invoke(self[0], worker.toEvent().toString(), "worker-" + worker.worker())),
                null,
                reports);
        self[0] = LoadGenFunction.handler(service, PulseMetrics.create("PulseTest", "loadgen"));
        return self[0];
    }

    /** One invocation of {@code handler} with {@code event}, as the Lambda runtime makes it (120 s left). */
    static JsonNode invoke(LoadGenHandler handler, String event, String requestId) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            handler.handleRequest(
                    new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)),
                    out,
                    new TestContext(requestId, 120_000, 2048));
            return JSON.readTree(out.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
