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
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Wraps the real async client and injects the failures DynamoDB produces under load: throttling errors,
 * UnprocessedItems (part of a call written, the rest handed back), and a crash after some calls of the
 * current attempt succeeded. Only the fault decisions are simulated; every write that "succeeds" is a real
 * write to DynamoDB Local. Faults are drawn for {@code BatchWriteItem} (the partials); other calls (the build
 * marks' {@code UpdateItem}) pass through, except after a crash, when nothing gets through.
 */
public final class FaultInjectingDynamoDb extends DelegatingDynamoDb {

    private final Random random;
    private volatile double throttleRate;
    private volatile double unprocessedRate;
    /** After this many more successful calls, every call fails until re-armed; negative: disarmed. */
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

    /** The attempt dies after {@code calls} more successful calls: the rest of it fails like a dead process. */
    public void crashAfter(int calls) {
        crashed.set(false);
        crashAfterCalls.set(calls);
    }

    public void disarmCrash() {
        crashAfterCalls.set(-1);
        crashed.set(false);
    }

    @Override
    public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
        if (crashed.get()) {
            return CompletableFuture.failedFuture(new SimulatedCrashException());
        }
        double r;
        synchronized (random) {
            r = random.nextDouble();
        }
        if (r < throttleRate) {
            throttlesInjected.incrementAndGet();
            return CompletableFuture.failedFuture(DynamoDbException.builder()
                    .statusCode(400)
                    .awsErrorDetails(AwsErrorDetails.builder()
                            .errorCode("ProvisionedThroughputExceededException")
                            .errorMessage("injected throttle").build())
                    .message("injected throttle").build());
        }
        if (crashAfterCalls.get() >= 0 && crashAfterCalls.getAndDecrement() == 0) {
            crashed.set(true);
            crashesInjected.incrementAndGet();
            return CompletableFuture.failedFuture(new SimulatedCrashException());
        }
        if (r < throttleRate + unprocessedRate) {
            Map.Entry<String, List<WriteRequest>> e = request.requestItems().entrySet().iterator().next();
            List<WriteRequest> all = e.getValue();
            if (all.size() > 1) {
                int keep;
                synchronized (random) {
                    keep = 1 + random.nextInt(all.size() - 1);
                }
                List<WriteRequest> written = new ArrayList<>(all.subList(0, keep));
                List<WriteRequest> back = new ArrayList<>(all.subList(keep, all.size()));
                unprocessedInjected.addAndGet(back.size());
                return delegate.batchWriteItem(request.toBuilder().requestItems(Map.of(e.getKey(), written)).build())
                        .thenApply(resp -> resp.toBuilder().unprocessedItems(Map.of(e.getKey(), back)).build());
            }
        }
        return delegate.batchWriteItem(request);
    }

    @Override
    public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
        return crashed.get() ? CompletableFuture.failedFuture(new SimulatedCrashException()) : delegate.updateItem(request);
    }

    /** What a process that died mid-invocation looks like to the caller: not retryable, not a DynamoDB error. */
    public static final class SimulatedCrashException extends RuntimeException {
        public SimulatedCrashException() {
            super("simulated crash of the function mid-batch", null, false, false);
        }
    }
}
