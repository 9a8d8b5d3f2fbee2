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
package dev.pulse.bench;

import dev.pulse.testing.emulator.LocalDynamoDb;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.metrics.MetricPublisher;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * What the benchmarks share: the repository, the run's mode, and one DynamoDB Local on 127.0.0.1 (started on
 * first use, in this process, stopped by {@link #close()}). Clients are built the way the functions build
 * theirs ({@code AwsClients}), pointed at the emulator.
 *
 * <ul>
 *   <li>{@code root}: the repository (template.yaml, events/, .aws-sam/build);
 *   <li>{@code quick}: a smoke run: every benchmark shrinks to seconds; figures are not meaningful;
 *   <li>{@code kinesisDir}: where kinesalite is installed (tools/kinesis);
 *   <li>{@code motoBin}: the moto_server executable (the local stack's SQS).
 * </ul>
 */
public final class BenchEnv implements AutoCloseable {

    private final Path root;
    private final boolean quick;
    private final Path kinesisDir;
    private final Path motoBin;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private LocalDynamoDb dynamo;

    public BenchEnv(Path root, boolean quick, Path kinesisDir, Path motoBin) {
        this.root = root;
        this.quick = quick;
        this.kinesisDir = kinesisDir;
        this.motoBin = motoBin;
    }

    public Path root() {
        return root;
    }

    public boolean quick() {
        return quick;
    }

    public Path kinesisDir() {
        return kinesisDir;
    }

    public Path motoBin() {
        return motoBin;
    }

    /** {@code full} normally, {@code smoke} in a quick run. */
    public int scale(int full, int smoke) {
        return quick ? smoke : full;
    }

    /** DynamoDB Local, in memory, started on first use. */
    public synchronized LocalDynamoDb dynamo() throws Exception {
        if (dynamo == null) {
            dynamo = LocalDynamoDb.start();
            resources.push(dynamo);
        }
        return dynamo;
    }

    /**
     * A fresh table with the template's keys and billing but no stream: nothing here reads a stream, and
     * DynamoDB Local slows every write to a table with one as it fills (ten times slower after some 30,000
     * writes), which would make each benchmark's timings depend on the ones before it.
     */
    public String newTable(String prefix) throws Exception {
        try (DynamoDbClient c = dynamo().client()) {
            return StreamlessTables.create(c, prefix);
        }
    }

    /**
     * The async client the functions use: AWS CRT HTTP, {@code maxConcurrency} connections, and no SDK retries
     * when the caller retries itself ({@code DynamoDbStore}), or the SDK's standard retries.
     */
    public DynamoDbAsyncClient dynamoAsync(int maxConcurrency, boolean sdkRetries) throws Exception {
        return dynamoAsync(maxConcurrency, sdkRetries, List.of());
    }

    /** As {@link #dynamoAsync(int, boolean)}, with {@code interceptors} on every call (the cost benchmark's meters). */
    public DynamoDbAsyncClient dynamoAsync(
            int maxConcurrency, boolean sdkRetries, List<ExecutionInterceptor> interceptors) throws Exception {
        return track(dynamoAsync(dynamo().endpoint(), maxConcurrency, sdkRetries, interceptors));
    }

    /**
     * The functions' async client on the DynamoDB Local at {@code endpoint}, not tracked: for a child JVM (a
     * probe) on its parent's emulator.
     */
    static DynamoDbAsyncClient dynamoAsync(
            URI endpoint, int maxConcurrency, boolean sdkRetries, List<ExecutionInterceptor> interceptors) {
        return dynamoAsync(endpoint, maxConcurrency, sdkRetries, interceptors, null);
    }

    /** As {@link #dynamoAsync(int, boolean)}, publishing its metrics to {@code publisher} (the client-metrics benchmark). */
    public DynamoDbAsyncClient dynamoAsync(int maxConcurrency, boolean sdkRetries, MetricPublisher publisher)
            throws Exception {
        return track(dynamoAsync(dynamo().endpoint(), maxConcurrency, sdkRetries, List.of(), publisher));
    }

    private static DynamoDbAsyncClient dynamoAsync(
            URI endpoint,
            int maxConcurrency,
            boolean sdkRetries,
            List<ExecutionInterceptor> interceptors,
            MetricPublisher publisher) {
        return DynamoDbAsyncClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(LocalDynamoDb.credentials())
                .httpClientBuilder(AwsCrtAsyncHttpClient.builder()
                        .maxConcurrency(Math.max(maxConcurrency, 8))
                        .connectionTimeout(Duration.ofSeconds(3)))
                .overrideConfiguration(o -> o.retryStrategy(
                                sdkRetries ? AwsRetryStrategy.standardRetryStrategy() : AwsRetryStrategy.doNotRetry())
                        .apiCallAttemptTimeout(Duration.ofSeconds(10))
                        .executionInterceptors(List.copyOf(interceptors))
                        .metricPublishers(publisher == null ? List.of() : List.of(publisher)))
                .build();
    }

    /** A blocking client (URL connection HTTP, standard retries): what the baselines use. */
    public DynamoDbClient dynamoSync() throws Exception {
        return track(dynamoSync(dynamo().endpoint()));
    }

    /** A blocking client of the DynamoDB Local at {@code endpoint}, not tracked (a probe's, for its checks). */
    static DynamoDbClient dynamoSync(URI endpoint) {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(LocalDynamoDb.credentials())
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build();
    }

    /** Closes {@code resource} with the environment, in reverse order of registration. */
    public synchronized <T extends AutoCloseable> T track(T resource) {
        resources.push(resource);
        return resource;
    }

    @Override
    public synchronized void close() {
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                System.err.println("bench: closing " + e);
            }
        }
    }
}
