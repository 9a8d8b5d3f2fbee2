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

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.pulse.codec.Decoded;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@link SdkClientMetrics} under a real SDK v2 DynamoDB client (CRT HTTP, the functions' client) whose endpoint is a
 * loopback server of the test's own: it answers throttling errors on demand (fault injection: DynamoDB Local never
 * throttles) and empty successes otherwise, so the SDK reports its real metrics for real calls and retries.
 */
class SdkClientMetricsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String THROTTLED = "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
            + "ProvisionedThroughputExceededException\",\"message\":\"The level of configured provisioned throughput for"
            + " the table was exceeded.\"}";

    private HttpServer server;
    private final AtomicInteger throttleNext = new AtomicInteger();
    private SdkClientMetrics metrics;
    private DynamoDbAsyncClient client;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            boolean throttle = throttleNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
            byte[] body = (throttle ? THROTTLED : "{}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
            exchange.sendResponseHeaders(throttle ? 400 : 200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        metrics = new SdkClientMetrics();
        metrics.service("checkout");
        client = client(metrics);
    }

    /** The functions' kind of client (CRT HTTP, 16 connections) on the test's server, publishing to {@code publisher}. */
    private DynamoDbAsyncClient client(software.amazon.awssdk.metrics.MetricPublisher publisher) {
        return DynamoDbAsyncClient.builder()
                .region(Region.US_EAST_1)
                .endpointOverride(
                        URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClientBuilder(AwsCrtAsyncHttpClient.builder().maxConcurrency(16))
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(4)
                                .backoffStrategy(BackoffStrategy.fixedDelay(Duration.ofMillis(1)))
                                .throttlingBackoffStrategy(BackoffStrategy.fixedDelay(Duration.ofMillis(1)))
                                .build())
                        .addMetricPublisher(publisher))
                .build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.stop(0);
    }

    private void put() {
        client.putItem(b -> b.tableName("orders").item(Map.of("pk", AttributeValue.fromS("a"))))
                .join();
    }

    /**
     * The SDK's clients publish in a {@code whenComplete} stage of the call, and the future they return is that stage's:
     * the call is in the aggregate once its future completes. The poll only guards against a change of that order.
     */
    private Map<SdkClientMetrics.Operation, SdkClientMetrics.Snapshot> drainAfter(long calls) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        Map<SdkClientMetrics.Operation, SdkClientMetrics.Snapshot> out = Map.of();
        long total = 0;
        java.util.Map<SdkClientMetrics.Operation, SdkClientMetrics.Snapshot> all = new java.util.HashMap<>();
        while (total < calls && System.nanoTime() < deadline) {
            out = metrics.drain();
            for (var e : out.entrySet()) {
                all.merge(e.getKey(), e.getValue(), SdkClientMetricsTest::merge);
                total += e.getValue().calls();
            }
            if (total < calls) {
                Thread.sleep(5);
            }
        }
        return all;
    }

    private static SdkClientMetrics.Snapshot merge(SdkClientMetrics.Snapshot a, SdkClientMetrics.Snapshot b) {
        double[] d = java.util.stream.DoubleStream.concat(
                        java.util.Arrays.stream(a.durations()), java.util.Arrays.stream(b.durations()))
                .toArray();
        double[] q = java.util.stream.DoubleStream.concat(
                        java.util.Arrays.stream(a.acquireDurations()), java.util.Arrays.stream(b.acquireDurations()))
                .toArray();
        return new SdkClientMetrics.Snapshot(
                a.calls() + b.calls(),
                a.failures() + b.failures(),
                a.retries() + b.retries(),
                a.throttles() + b.throttles(),
                d,
                q,
                Math.max(a.leasedMax(), b.leasedMax()),
                Math.max(a.pendingMax(), b.pendingMax()),
                Math.max(a.maxConcurrency(), b.maxConcurrency()));
    }

    @Test
    void publish_whenThrottledTwiceThenStored_countsOneCallTwoRetriesTwoThrottles() throws Exception {
        throttleNext.set(2);

        put();

        var drained = drainAfter(1);
        assertThat(drained).containsOnlyKeys(new SdkClientMetrics.Operation("DynamoDB", "PutItem"));
        SdkClientMetrics.Snapshot s = drained.values().iterator().next();
        assertThat(s.calls()).isEqualTo(1);
        assertThat(s.failures()).isZero();
        assertThat(s.retries()).isEqualTo(2);
        assertThat(s.throttles()).isEqualTo(2);
        assertThat(s.durations()).hasSize(1);
        assertThat(s.durations()[0]).isPositive();
        assertThat(s.acquireDurations()).hasSize(3);
        assertThat(java.util.Arrays.stream(s.acquireDurations()).min().orElseThrow())
                .isNotNegative();
        assertThat(s.maxConcurrency()).isEqualTo(16);
        assertThat(s.leasedMax()).isBetween(1L, 16L);
    }

    @Test
    void publish_whenThrottledOnEveryAttempt_countsTheFailedCall() throws Exception {
        throttleNext.set(100);

        assertThat(CompletableFuture.runAsync(this::put)).failsWithin(Duration.ofSeconds(10));

        SdkClientMetrics.Snapshot s = drainAfter(1).values().iterator().next();
        assertThat(s.calls()).isEqualTo(1);
        assertThat(s.failures()).isEqualTo(1);
        assertThat(s.retries()).isEqualTo(3);
        assertThat(s.throttles()).isEqualTo(4);
    }

    @Test
    void drain_whenMoreCallsThanEmfTakes_keepsHundredValuesAndExactCounts() throws Exception {
        for (int i = 0; i < 250; i++) {
            put();
        }

        SdkClientMetrics.Snapshot s = drainAfter(250).values().iterator().next();
        assertThat(s.calls()).isEqualTo(250);
        assertThat(s.durations()).hasSize(SdkClientMetrics.MAX_VALUES);
        assertThat(s.acquireDurations()).hasSize(SdkClientMetrics.MAX_VALUES);
        assertThat(s.retries()).isZero();
        assertThat(metrics.drain())
                .as("drained: the next flush starts from zero")
                .isEmpty();
    }

    @Test
    void flush_whenDecodedAsCloudWatchLogsSubscription_givesOneSeriesPerMetricAndOperation() throws Exception {
        throttleNext.set(1);
        put();
        client.getItem(b -> b.tableName("orders").key(Map.of("pk", AttributeValue.fromS("a"))))
                .join();
        Thread.sleep(50);

        List<String> lines = printed(metrics::flush);

        assertThat(lines).hasSize(2).allSatisfy(l -> assertThat(l).startsWith("{\"_aws\""));
        long now = System.currentTimeMillis();
        Decoded d = new RecordDecoder(
                        new DatapointValidator(Clock.systemUTC(), Duration.ofDays(14), Duration.ofHours(2)))
                .decode(logs("/aws/lambda/checkout", lines, now), now);
        Map<String, String> putDims =
                Map.of("Service", "checkout", "ServiceId", "DynamoDB", "OperationName", "PutItem");
        assertThat(d.datapoints())
                .filteredOn(p -> p.dims().equals(putDims))
                .extracting(Datapoint::name, Datapoint::value)
                .contains(
                        org.assertj.core.groups.Tuple.tuple("AwsSdk/JavaSdk2/ApiCallCount", 1.0),
                        org.assertj.core.groups.Tuple.tuple("AwsSdk/JavaSdk2/RetryCount", 1.0),
                        org.assertj.core.groups.Tuple.tuple("AwsSdk/JavaSdk2/ThrottleCount", 1.0),
                        org.assertj.core.groups.Tuple.tuple("AwsSdk/JavaSdk2/MaxConcurrency", 16.0));
        assertThat(d.datapoints())
                .extracting(Datapoint::name)
                .contains(
                        "AwsSdk/JavaSdk2/ApiCallDuration",
                        "AwsSdk/JavaSdk2/ConcurrencyAcquireDuration",
                        "AwsSdk/JavaSdk2/LeasedConcurrency",
                        "AwsSdk/JavaSdk2/PendingConcurrencyAcquires",
                        "AwsSdk/JavaSdk2/ApiCallFailures");
        assertThat(d.datapoints())
                .filteredOn(p -> p.name().equals("AwsSdk/JavaSdk2/ApiCallCount"))
                .extracting(p -> p.dims().get("OperationName"))
                .containsExactlyInAnyOrder("PutItem", "GetItem");
        assertThat(printed(metrics::flush)).as("nothing called since").isEmpty();
    }

    enum TestMetric implements MetricName {
        RECORDS_IN
    }

    /**
     * The functions' shape: the handler's own document, then the client metrics of the calls its body made, both
     * printed by {@link InvocationMetrics#measure} on the handler's thread when the invocation ends.
     */
    @Test
    void measure_whenBodyCalledTheSharedClients_printsTheFunctionsDocumentThenOnePerOperation() {
        SdkClientMetrics.shared().flush();
        SdkClientMetrics.shared().service("checkout");
        DynamoDbAsyncClient shared = client(SdkClientMetrics.shared());
        software.amazon.lambda.powertools.metrics.Metrics sink = PulseMetrics.create("PulseTest", "checkout");
        try {
            List<String> lines = printed(() -> InvocationMetrics.measure(TestMetric.class, sink, counters -> {
                shared.putItem(b -> b.tableName("orders").item(Map.of("pk", AttributeValue.fromS("a"))))
                        .join();
                counters.increment(TestMetric.RECORDS_IN);
                return null;
            }));

            assertThat(lines).hasSize(2);
            assertThat(lines.get(0)).contains("\"Namespace\":\"PulseTest\"").contains("\"RecordsIn\":1");
            assertThat(lines.get(1))
                    .contains("\"Namespace\":\"AwsSdk/JavaSdk2\"")
                    .contains("\"OperationName\":\"PutItem\"")
                    .contains("\"Service\":\"checkout\"");
        } finally {
            shared.close();
        }
    }

    private static List<String> printed(Runnable body) {
        PrintStream previous = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setOut(previous);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        return text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }

    /** A CloudWatch Logs subscription payload (gzip JSON) carrying {@code messages} as log events. */
    static byte[] logs(String logGroup, List<String> messages, long timestamp) throws Exception {
        ObjectNode root = JSON.createObjectNode()
                .put("messageType", "DATA_MESSAGE")
                .put("owner", "123456789012")
                .put("logGroup", logGroup)
                .put("logStream", "2026/11/29/[$LATEST]0123456789abcdef");
        root.putArray("subscriptionFilters").add("pulse");
        var events = root.putArray("logEvents");
        int id = 0;
        for (String m : messages) {
            events.addObject()
                    .put("id", Integer.toString(id++))
                    .put("timestamp", timestamp)
                    .put("message", m);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(root.toString().getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }
}
