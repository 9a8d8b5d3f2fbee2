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
package dev.pulse.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.local.emulator.LocalStackBackend;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The localstack backend ({@code make run BACKEND=localstack}): LocalStack in host mode, installed by the
 * Makefile into tools/localstack, serving the template's stream, table with its stream and TTL, and DLQ. The
 * functions still run in the local Lambda service and reach LocalStack through {@code AWS_ENDPOINT_URL} alone.
 * A short {@code make run} path (load generator, ingest, the compactor on a compressed schedule, the canary
 * read through the HTTP API) with zero lost and zero duplicated, a poison record in the DLQ with its reason, every
 * socket of LocalStack, DynamoDB Local and kinesis-mock on 127.0.0.1 (as {@link LocalDeploymentIT} checks the
 * default backend) and every process stopped by handle; {@code make invoke} against an already running
 * LocalStack ({@code LOCALSTACK_URL}); a port in use as one line and exit 2.
 */
class LocalStackBackendIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void run_whenSampleReplayedOnLocalStack_canaryShowsNoLossPoisonReachesDlqAndEverySocketIsLoopback()
            throws Exception {
        long t0 = System.nanoTime();
        // One shard and a rollup build every 10 s: LocalStack's DynamoDB answers a Query in milliseconds, not
        // microseconds, and the compactor's queries would otherwise take the small machine's two cores.
        StackOptions options = LocalDeployments.onLocalStack("localstack-backend-it")
                .withParameters(Map.of("StreamMode", "PROVISIONED", "StreamShardCount", "1"))
                .withScheduleEvery(Duration.ofSeconds(10));
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8);
        List<Long> pids;
        JsonNode report;
        try (LocalDeployment stack = LocalDeployment.start(options, null)) {
            long ready = System.nanoTime();
            Main.printEndpoints(stack, out);
            assertThat(stack.backend()).isInstanceOf(LocalStackBackend.class);
            URI gateway = ((LocalStackBackend) stack.backend()).endpoint();
            // Every service behind the one gateway, and the functions told only that.
            assertThat(List.of(stack.dynamoDbUrl(), stack.kinesisUrl(), stack.sqsUrl()))
                    .containsOnly(gateway);
            assertThat(stack.backend().functionEnvironment()).isEqualTo(Map.of("AWS_ENDPOINT_URL", gateway.toString()));

            PipelineRun.Config config = new PipelineRun.Config(
                    "events/replay/sample.ndjson.gz",
                    "rate",
                    100,
                    60,
                    2,
                    10,
                    1,
                    "LoadGenFunction",
                    options.workDir().resolve("report.json"));
            report = new PipelineRun(stack, config, out).run();

            // A poison record put on LocalStack's stream reaches LocalStack's DLQ, with the ingest function's reason.
            String stream = stack.ref("Stream");
            String poisonAt;
            try (KinesisClient kinesis = KinesisClient.builder()
                    .endpointOverride(gateway)
                    .region(Region.US_EAST_1)
                    .credentialsProvider(LocalDeployment.CREDENTIALS)
                    .httpClientBuilder(UrlConnectionHttpClient.builder())
                    .build()) {
                var put = kinesis.putRecord(b ->
                        b.streamName(stream).partitionKey("poison").data(SdkBytes.fromUtf8String("not json at all")));
                poisonAt = put.shardId() + "/" + put.sequenceNumber();
            }
            JsonNode poison = awaitPoison(stack, poisonAt, Duration.ofSeconds(60));
            assertThat(poison).as("DLQ message for %s", poisonAt).isNotNull();
            assertThat(poison.path("reason").asText()).isNotBlank();

            pids = new ArrayList<>(stack.pids());
            List<Long> backendPids = stack.backend().pids();
            // LocalStack (Python), DynamoDB Local (Java) and kinesis-mock (Node), by handle.
            assertThat(backendPids).hasSizeGreaterThanOrEqualTo(3);
            List<Long> owners = new ArrayList<>(pids);
            owners.add(ProcessHandle.current().pid());
            List<ListeningSockets.Socket> sockets = ListeningSockets.of(owners);
            assertThat(sockets).anySatisfy(s -> assertThat(s.port()).isEqualTo(gateway.getPort()));
            assertThat(sockets.stream()
                            .map(ListeningSockets.Socket::pid)
                            .distinct()
                            .filter(backendPids::contains)
                            .count())
                    .as("LocalStack, DynamoDB Local and kinesis-mock each listen")
                    .isGreaterThanOrEqualTo(3);
            assertThat(sockets)
                    .allSatisfy(s -> assertThat(s.loopback())
                            .as("pid %d listens on %s:%d", s.pid(), s.address(), s.port())
                            .isTrue());
            System.out.printf(
                    "LocalStackBackendIT: stack ready in %.1f s, run and checks %.1f s%n",
                    (ready - t0) / 1e9, (System.nanoTime() - ready) / 1e9);
        } finally {
            System.out.print(console.toString(StandardCharsets.UTF_8));
        }
        JsonNode load = report.path("load");
        assertThat(load.path("sent").asLong()).isGreaterThan(500);
        assertThat(load.path("acked").asLong()).isEqualTo(load.path("sent").asLong());
        JsonNode ingest = report.path("mappings").path("IngestFunction.Stream");
        assertThat(ingest.path("recordsDone").asLong())
                .isEqualTo(ingest.path("recordsRead").asLong())
                .isGreaterThanOrEqualTo(load.path("sent").asLong());
        assertThat(ingest.path("functionErrors").asLong()).isZero();
        JsonNode build = report.path("schedules").path("CompactFunction.Build");
        assertThat(build.path("runs").asLong()).isPositive();
        assertThat(build.path("errors").asLong()).as(build.toString()).isZero();
        assertThat(report.path("queryLatencyMs").path("requests").asLong()).isPositive();
        JsonNode canary = load.path("canary");
        assertThat(canary.path("verified").asBoolean()).isTrue();
        // Each canary once, plus at most one copy per PutRecords call that failed after storing it (the producer's).
        assertThat(canary.path("observed").asLong())
                .isPositive()
                .isBetween(
                        canary.path("sent").asLong(),
                        canary.path("sent").asLong()
                                + canary.path("unconfirmedPuts").asLong());
        assertThat(canary.path("ok").asBoolean()).as(canary.toString()).isTrue();
        assertThat(canary.path("lost").asLong()).isZero();
        assertThat(canary.path("duplicated").asLong()).isZero();
        assertThat(report.path("passed").asBoolean()).isTrue();
        assertThat(console.toString(StandardCharsets.UTF_8))
                .contains("LocalStack      http://127.0.0.1:")
                .contains("result    PASS: zero lost, zero duplicated");
        // Stopped by handle: LocalStack, what it started, and the function JVMs.
        for (long pid : pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .as("pid %d", pid)
                    .isFalse();
        }
        // What LocalStack wrote is in the work dir: its DynamoDB Local launcher and its log.
        Path state = options.workDir().resolve("localstack");
        assertThat(state.resolve("var/lib/localstack/lib/dynamodb-local/2/DynamoDBLocal.jar"))
                .exists();
        assertThat(state.resolve("localstack.log")).content().contains("Ready.");
        System.out.printf("LocalStackBackendIT: pipeline test took %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    @Test
    void invoke_whenLocalStackUrlGiven_usesTheRunningLocalStack() throws Exception {
        // The "already running" LocalStack (as a user's in Docker would be), started apart from the stack.
        Path state = Path.of("target", "localstack-external").toAbsolutePath();
        try (LocalStackBackend running = LocalStackBackend.create(
                LocalDeployments.localStackHome(),
                LocalDeployments.root().resolve("local/target"),
                state,
                LocalDeployments.root().resolve("tools/kinesis/loopback.js"),
                0)) {
            running.start();
            String url = running.endpoint().toString();
            for (int round = 1; round <= 2; round++) {
                // Twice: the second run finds the first one's table, stream and queue and starts from fresh ones.
                MakeInvokeIT.Run r = MakeInvokeIT.cliIn(
                        "localstack-backend-it-cli",
                        "invoke",
                        "--backend",
                        "localstack",
                        "--localstack-url",
                        url,
                        "--function",
                        "IngestFunction",
                        "--event",
                        "events/ingest-kinesis-native.json");

                assertThat(r.status()).as(r.err()).isZero();
                JsonNode response = r.response("events/ingest-kinesis-native.json");
                assertThat(response.path("batchItemFailures").isArray()
                                && response.path("batchItemFailures").isEmpty())
                        .as(response.toString())
                        .isTrue();
                assertThat(r.out()).contains("\"DatapointsIn\":");
            }
            assertThat(running.pids())
                    .allMatch(pid ->
                            ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        }
    }

    @Test
    void run_whenLocalStackPortInUse_exitsTwoWithOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            MakeInvokeIT.Run r = MakeInvokeIT.cliIn(
                    "localstack-backend-it-cli",
                    "run",
                    "--backend",
                    "localstack",
                    "--localstack-port",
                    Integer.toString(taken.getLocalPort()),
                    "--duration",
                    "5");

            assertThat(r.status()).isEqualTo(2);
            assertThat(r.err().strip().lines().toList())
                    .as(r.err())
                    .singleElement()
                    .asString()
                    .startsWith("error: 127.0.0.1:" + taken.getLocalPort()
                            + ", the port of LocalStack's gateway, is in use")
                    .contains("LOCALSTACK_URL=");
        }
    }

    /** The DLQ message for the poison record at {@code shardSequence}, or null when none came within {@code max}. */
    private static JsonNode awaitPoison(LocalDeployment stack, String shardSequence, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline) {
            for (String url : stack.queueUrls()) {
                for (Message m : stack.sqs()
                        .receiveMessage(b -> b.queueUrl(url)
                                .maxNumberOfMessages(10)
                                .visibilityTimeout(600)
                                .waitTimeSeconds(1))
                        .messages()) {
                    JsonNode body = JSON.readTree(m.body());
                    if (body.path("kind").asText().equals("poison")
                            && (body.path("shardId").asText() + "/"
                                            + body.path("sequenceNumber").asText())
                                    .equals(shardSequence)) {
                        return body;
                    }
                }
            }
        }
        return null;
    }
}
