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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Writes items with BatchWriteItem (25 per call), a bounded number of calls in flight, on the non-blocking
 * SDK v2 client. Throttling errors, server errors and UnprocessedItems are retried with full-jitter
 * exponential backoff until the deadline; then the whole write fails with {@link StoreException} and the
 * caller fails the batch. Writes are plain puts: the keys come from the data, so a repeat overwrites.
 */
public final class DynamoDbStore {

    /** DynamoDB's BatchWriteItem limit. */
    public static final int BATCH_SIZE = 25;

    private static final Set<String> THROTTLING_CODES = Set.of(
            "ProvisionedThroughputExceededException",
            "RequestLimitExceeded",
            "ThrottlingException",
            "TransactionInProgressException");

    private final DynamoDbAsyncClient client;
    private final String tableName;
    private final int concurrency;
    private final Backoff backoff;

    public DynamoDbStore(DynamoDbAsyncClient client, String tableName, int concurrency, Backoff backoff) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1");
        }
        this.client = client;
        this.tableName = tableName;
        this.concurrency = concurrency;
        this.backoff = backoff;
    }

    public String tableName() {
        return tableName;
    }

    /**
     * Writes every item. Completes normally when all were accepted, exceptionally with {@link StoreException}
     * when some could not be written before {@code deadline}; in-flight calls are awaited in both cases so no
     * write of this call lands after it completes.
     */
    // The callback handles every outcome, failures included, and completes the future returned: its stage adds nothing.
    @SuppressWarnings("FutureReturnValueIgnored")
    public CompletableFuture<WriteStats> writeAll(List<Map<String, AttributeValue>> items, Deadline deadline) {
        Run run = new Run(deadline);
        for (int i = 0; i < items.size(); i += BATCH_SIZE) {
            List<WriteRequest> chunk = new ArrayList<>(BATCH_SIZE);
            for (Map<String, AttributeValue> item : items.subList(i, Math.min(items.size(), i + BATCH_SIZE))) {
                chunk.add(WriteRequest.builder()
                        .putRequest(PutRequest.builder().item(item).build())
                        .build());
            }
            run.chunks.add(chunk);
        }
        int lanes = Math.min(concurrency, run.chunks.size());
        if (lanes == 0) {
            return CompletableFuture.completedFuture(run.stats());
        }
        CompletableFuture<WriteStats> done = new CompletableFuture<>();
        AtomicInteger open = new AtomicInteger(lanes);
        for (int i = 0; i < lanes; i++) {
            nextChunk(run).whenComplete((v, e) -> {
                if (e != null) {
                    run.fail(Bounded.unwrap(e), 0); // a lane that died unexpectedly must never read as success
                }
                if (open.decrementAndGet() == 0) {
                    Throwable failure = run.failure.get();
                    if (failure == null) {
                        done.complete(run.stats());
                    } else {
                        done.completeExceptionally(new StoreException(
                                "could not write " + run.itemsNotWritten() + " of " + items.size() + " items: "
                                        + failure.getMessage(),
                                failure,
                                run.stats()));
                    }
                }
            });
        }
        return done;
    }

    /**
     * One lane: takes chunks until none is left, the run has failed, or the deadline has passed. The next
     * chunk is taken on the pool rather than in the completing thread, so a client that completes futures
     * synchronously cannot grow the stack one frame per chunk.
     */
    private CompletableFuture<Void> nextChunk(Run run) {
        if (run.failure.get() != null) {
            return CompletableFuture.completedFuture(null);
        }
        List<WriteRequest> chunk = run.chunks.poll();
        if (chunk == null) {
            return CompletableFuture.completedFuture(null);
        }
        if (run.deadline.expired()) {
            run.fail(new IllegalStateException("deadline passed before all items were written"), chunk.size());
            return CompletableFuture.completedFuture(null);
        }
        return writeChunk(run, chunk, 0).thenComposeAsync(v -> nextChunk(run));
    }

    // handle() returns the future of the next attempt, flattened right after by thenCompose(f -> f): nothing is
    // dropped.
    @SuppressWarnings("FutureReturnValueIgnored")
    private CompletableFuture<Void> writeChunk(Run run, List<WriteRequest> chunk, int attempt) {
        // No call may outlive the deadline: the handler must still be alive to report a failure.
        Duration timeout = run.deadline.callTimeout();
        BatchWriteItemRequest request = BatchWriteItemRequest.builder()
                .requestItems(Map.of(tableName, chunk))
                .overrideConfiguration(o -> o.apiCallTimeout(timeout))
                .build();
        run.requests.increment();
        CompletableFuture<BatchWriteItemResponse> call;
        try {
            call = client.batchWriteItem(request);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        return call.handle((response, error) -> {
                    if (error == null) {
                        List<WriteRequest> unprocessed = response.hasUnprocessedItems()
                                ? response.unprocessedItems().getOrDefault(tableName, List.of())
                                : List.of();
                        run.written.add(chunk.size() - unprocessed.size());
                        if (unprocessed.isEmpty()) {
                            return CompletableFuture.<Void>completedFuture(null);
                        }
                        run.unprocessed.add(unprocessed.size());
                        return retry(run, unprocessed, attempt, null);
                    }
                    Throwable cause = Bounded.unwrap(error);
                    if (isThrottling(cause)) {
                        run.throttles.increment();
                    } else if (!isRetryable(cause)) {
                        run.fail(cause, chunk.size());
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    return retry(run, chunk, attempt, cause);
                })
                .thenCompose(f -> f);
    }

    private CompletableFuture<Void> retry(Run run, List<WriteRequest> chunk, int attempt, Throwable cause) {
        if (run.failure.get() != null) {
            run.lost.add(chunk.size()); // another lane already failed the run: stop instead of retrying
            return CompletableFuture.completedFuture(null);
        }
        long delay = backoff.delayMillis(attempt);
        if (run.deadline.remainingMillis() <= delay) {
            Throwable why = cause != null
                    ? cause
                    : new IllegalStateException(
                            chunk.size() + " items still unprocessed after " + (attempt + 1) + " attempts");
            run.fail(why, chunk.size());
            return CompletableFuture.completedFuture(null);
        }
        run.retries.increment();
        Executor later = CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS);
        return CompletableFuture.supplyAsync(() -> null, later).thenCompose(v -> writeChunk(run, chunk, attempt + 1));
    }

    static boolean isThrottling(Throwable t) {
        return t instanceof DynamoDbException e
                && e.awsErrorDetails() != null
                && THROTTLING_CODES.contains(e.awsErrorDetails().errorCode());
    }

    static boolean isRetryable(Throwable t) {
        if (t instanceof DynamoDbException e) {
            return e.statusCode() >= 500 || isThrottling(e);
        }
        if (t instanceof SdkClientException) {
            return true; // connection reset, timeout: the request may or may not have landed; a put repeats safely
        }
        return t instanceof SdkException e && e.retryable();
    }

    /** State of one writeAll call, shared by its lanes. */
    private static final class Run {
        final Deadline deadline;
        final Queue<List<WriteRequest>> chunks = new ConcurrentLinkedQueue<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final LongAdder written = new LongAdder();
        final LongAdder retries = new LongAdder();
        final LongAdder throttles = new LongAdder();
        final LongAdder unprocessed = new LongAdder();
        final LongAdder requests = new LongAdder();
        final LongAdder lost = new LongAdder();

        Run(Deadline deadline) {
            this.deadline = deadline;
        }

        void fail(Throwable cause, int items) {
            failure.compareAndSet(null, cause);
            lost.add(items);
        }

        long itemsNotWritten() {
            long left = lost.sum();
            for (List<WriteRequest> c : chunks) {
                left += c.size();
            }
            return left;
        }

        WriteStats stats() {
            return new WriteStats(written.sum(), retries.sum(), throttles.sum(), unprocessed.sum(), requests.sum());
        }
    }
}
