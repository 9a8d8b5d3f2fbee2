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
package dev.pulse.query;

import dev.pulse.config.PulseConfig;
import java.time.Clock;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * How QueryFunction is put together: its collaborators in, the {@link QueryService} or the Lambda handler out.
 * The runtime's path ({@link QueryHandler#QueryHandler()}) and every test, fuzz target or benchmark that runs the
 * function in process go through these methods, so they all run the wiring that is deployed.
 */
public final class QueryFunction {

    private QueryFunction() {}

    /** A container's rollup cache at its deployed size and lifetime (each handler built here gets its own: cold). */
    public static RollupCache cache() {
        return new RollupCache(RollupCache.DEFAULT_MAX_WEIGHT, RollupCache.DEFAULT_TTL_MILLIS);
    }

    /**
     * The deployed query service on a given client, clock and cache. The clock is the function's "now": which
     * periods are closed (and cacheable), retention and the future limit follow it.
     */
    public static QueryService service(PulseConfig config, DynamoDbAsyncClient client, Clock clock, RollupCache cache) {
        return new QueryService(
                client,
                config.tableName(),
                config.writeConcurrency() * 4,
                config.compactGrace().toMillis(),
                cache,
                clock,
                new QueryService.Retention(
                        config.partialTtl().toMillis(),
                        config.hourlyTtl().toMillis(),
                        config.dailyTtl().toMillis()),
                config.acceptFuture().toMillis());
    }

    /** The deployed handler on a given client, clock and metrics sink, with a cold cache of its own. */
    public static QueryHandler handler(PulseConfig config, DynamoDbAsyncClient client, Clock clock, Metrics metrics) {
        return handler(config, client, clock, metrics, cache());
    }

    /** The deployed handler with a given cache (the memory benchmark weighs it; warm-path tests share one). */
    public static QueryHandler handler(
            PulseConfig config, DynamoDbAsyncClient client, Clock clock, Metrics metrics, RollupCache cache) {
        return handler(
                service(config, client, clock, cache),
                new CatalogService(client, config.tableName(), clock),
                metrics,
                config.safetyMarginMillis(),
                clock);
    }

    /**
     * The Lambda handler around given services, as the runtime calls it: the query budget ends
     * {@code safetyMarginMillis} before the invocation's deadline; one metrics document per invocation goes to
     * {@code metrics}. No SnapStart hooks are registered (only the runtime's constructor does that).
     */
    public static QueryHandler handler(
            QueryService queries, CatalogService catalog, Metrics metrics, long safetyMarginMillis, Clock clock) {
        return new QueryHandler(queries, catalog, metrics, safetyMarginMillis, clock);
    }
}
