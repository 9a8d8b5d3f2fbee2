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
package dev.pulse.compact;

import dev.pulse.config.AwsClients;
import dev.pulse.config.PulseConfig;
import java.time.Clock;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * How the compactor (CompactFunction) is put together: its collaborators in, the {@link CompactService} or
 * the Lambda handler out. The runtime's path ({@link CompactHandler#CompactHandler()}) and every test or benchmark
 * that runs the function in process go through these methods, so they all run the wiring that is deployed.
 */
public final class CompactFunction {

    /**
     * Builds in flight. All of an hour's builds are due in the first run after it closes (600,000 at 100,000
     * datapoints/s, docs/capacity.md); each is a Query and a PutItem, so throughput is latency-bound.
     */
    public static final int BUILD_CONCURRENCY = 32;

    private CompactFunction() {}

    /** The deployed wiring: the client built from the Lambda environment, the system clock. */
    public static CompactService service(PulseConfig config) {
        return service(config, AwsClients.dynamoDbAsync(BUILD_CONCURRENCY, true), Clock.systemUTC());
    }

    /**
     * The deployed wiring on a given client and clock. The clock decides which periods are due (closed, past the
     * grace and the settle time): a simulated day runs the builder on a clock the test or benchmark moves.
     */
    public static CompactService service(PulseConfig config, DynamoDbAsyncClient dynamo, Clock clock) {
        return new CompactService(dynamo, config.tableName(), BUILD_CONCURRENCY, settings(config), clock);
    }

    /** The compactor's settings as {@code config} gives them (grace, settle time, retention). */
    public static CompactService.Settings settings(PulseConfig config) {
        return new CompactService.Settings(
                config.compactGrace(),
                config.markSettle(),
                config.partialTtl(),
                config.hourlyTtl().toSeconds(),
                config.dailyTtl().toSeconds());
    }

    /**
     * The Lambda handler around {@code service}, as the runtime calls it: a run stops {@code safetyMarginMillis}
     * before the invocation's deadline and publishes one metrics document to {@code metrics}. No SnapStart hooks
     * are registered (only the runtime's constructor does that).
     */
    public static CompactHandler handler(CompactService service, Metrics metrics, long safetyMarginMillis) {
        return new CompactHandler(service, metrics, safetyMarginMillis);
    }

    /** {@link #handler(CompactService, Metrics, long)} over the deployed wiring on a given client and clock. */
    public static CompactHandler handler(PulseConfig config, DynamoDbAsyncClient dynamo, Clock clock, Metrics metrics) {
        return handler(service(config, dynamo, clock), metrics, config.safetyMarginMillis());
    }
}
