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
package dev.pulse.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Wraps the real async client and injects the failures DynamoDB produces under load, and the death of the
 * function mid-batch. Only the fault decisions are simulated; every write that "succeeds" is a real write to
 * DynamoDB Local.
 * <ul>
 *   <li>Throttling errors, drawn for every data write: the {@code BatchWriteItem} calls that carry the partials
 *       (keyed by the attempt's generation) and new catalog entries.</li>
 *   <li>UnprocessedItems (part of a call written, the rest handed back), drawn for the same
 *       {@code BatchWriteItem} calls.</li>
 *   <li>A crash after {@code n} more successful writes of the attempt, counting every write call
 *       ({@code BatchWriteItem}, and the {@code UpdateItem} calls: the shard claim, the compaction marks, the commit):
 *       from then on nothing gets through, reads included, like a process that died.</li>
 * </ul>
 */
public final class FaultInjectingDynamoDb extends DelegatingDynamoDb {

    private final Random random;
    private volatile double throttleRate;
    private volatile double unprocessedRate;
    /** After this many more successful write calls, every call fails until re-armed; negative: disarmed. */
    private final AtomicInteger crashAfterCalls = new AtomicInteger(-1);

    private final AtomicBoolean crashed = new AtomicBoolean();

    public final AtomicLong throttlesInjected = new AtomicLong();
    public final AtomicLong unprocessedInjected = new AtomicLong();
    public final AtomicLong crashesInjected = new AtomicLong();

    public FaultInjectingDynamoDb(DynamoDbAsyncClient delegate, long seed) {
        super(delegate);
        this.random = new Random(seed);
    }

    public void rates(double throttleRate, double unprocessedRate) {
        this.throttleRate = throttleRate;
        this.unprocessedRate = unprocessedRate;
    }

    /** The attempt dies after {@code calls} more successful write calls: the rest of it fails like a dead process. */
    public void crashAfter(int calls) {
        crashed.set(false);
        crashAfterCalls.set(calls);
    }

    public void disarmCrash() {
        crashAfterCalls.set(-1);
        crashed.set(false);
    }

    public boolean crashed() {
        return crashed.get();
    }

    @Override
    public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
        double r = draw();
        CompletableFuture<BatchWriteItemResponse> fault = fault(r < throttleRate);
        if (fault != null) {
            return fault;
        }
        if (r < throttleRate + unprocessedRate) {
            Map.Entry<String, List<WriteRequest>> e =
                    request.requestItems().entrySet().iterator().next();
            List<WriteRequest> all = e.getValue();
            if (all.size() > 1) {
                int keep;
                synchronized (random) {
                    keep = 1 + random.nextInt(all.size() - 1);
                }
                List<WriteRequest> written = new ArrayList<>(all.subList(0, keep));
                List<WriteRequest> back = new ArrayList<>(all.subList(keep, all.size()));
                unprocessedInjected.addAndGet(back.size());
                return delegate.batchWriteItem(request.toBuilder()
                                .requestItems(Map.of(e.getKey(), written))
                                .build())
                        .thenApply(resp -> resp.toBuilder()
                                .unprocessedItems(Map.of(e.getKey(), back))
                                .build());
            }
        }
        return delegate.batchWriteItem(request);
    }

    @Override
    public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
        CompletableFuture<UpdateItemResponse> fault = fault(false);
        return fault != null ? fault : delegate.updateItem(request);
    }

    @Override
    public CompletableFuture<GetItemResponse> getItem(GetItemRequest request) {
        return crashed.get()
                ? CompletableFuture.failedFuture(new SimulatedCrashException())
                : delegate.getItem(request);
    }

    private double draw() {
        synchronized (random) {
            return random.nextDouble();
        }
    }

    /**
     * The fault for the next write call, or null to let it through: a crash once crashed (or when this call is
     * the one the crash was armed for), else a throttle when {@code throttle} (drawn for data writes only).
     */
    private <T> CompletableFuture<T> fault(boolean throttle) {
        if (crashed.get()) {
            return CompletableFuture.failedFuture(new SimulatedCrashException());
        }
        if (throttle) {
            throttlesInjected.incrementAndGet();
            return CompletableFuture.failedFuture(DynamoDbException.builder()
                    .statusCode(400)
                    .awsErrorDetails(AwsErrorDetails.builder()
                            .errorCode("ProvisionedThroughputExceededException")
                            .errorMessage("injected throttle")
                            .build())
                    .message("injected throttle")
                    .build());
        }
        if (crashAfterCalls.get() >= 0 && crashAfterCalls.getAndDecrement() == 0) {
            crashed.set(true);
            crashesInjected.incrementAndGet();
            return CompletableFuture.failedFuture(new SimulatedCrashException());
        }
        return null;
    }

    /** What a process that died mid-invocation looks like to the caller: not retryable, not a DynamoDB error. */
    public static final class SimulatedCrashException extends RuntimeException {
        public SimulatedCrashException() {
            super("simulated crash of the function mid-batch", null, false, false);
        }
    }
}
