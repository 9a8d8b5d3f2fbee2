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
package dev.pulse.store.write;

import dev.pulse.concurrent.Bounded;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One asynchronous DynamoDB call, repeated with full-jitter backoff after throttling, server and connection
 * errors until the deadline leaves no time for the next delay. Any other error (a failed condition, a
 * validation error) ends it at once. Public so that stores outside this package (the rules evaluator's alert
 * state) retry exactly as the rest of the store does.
 */
public final class AsyncRetry {

    private AsyncRetry() {}

    public static <T> CompletableFuture<T> call(
            Supplier<CompletableFuture<T>> call, Backoff backoff, Deadline deadline) {
        return attempt(call, backoff, deadline, 0);
    }

    // handle() returns the future of the next attempt, flattened right after by thenCompose(f -> f): nothing is
    // dropped.
    @SuppressWarnings("FutureReturnValueIgnored")
    private static <T> CompletableFuture<T> attempt(
            Supplier<CompletableFuture<T>> call, Backoff backoff, Deadline deadline, int n) {
        CompletableFuture<T> started;
        try {
            started = call.get();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        return started.handle((r, e) -> {
                    if (e == null) {
                        return CompletableFuture.completedFuture(r);
                    }
                    Throwable cause = Bounded.unwrap(e);
                    long delay = backoff.delayMillis(n);
                    if (!DynamoDbStore.isRetryable(cause) || deadline.remainingMillis() <= delay) {
                        return CompletableFuture.<T>failedFuture(cause);
                    }
                    return CompletableFuture.supplyAsync(
                                    () -> null, CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS))
                            .thenCompose(x -> attempt(call, backoff, deadline, n + 1));
                })
                .thenCompose(f -> f);
    }
}
