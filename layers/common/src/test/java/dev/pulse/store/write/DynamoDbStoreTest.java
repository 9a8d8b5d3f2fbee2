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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * The lane and failure mechanics of {@link DynamoDbStore} with stub clients that inject faults; the writes
 * themselves are covered against DynamoDB Local by the integration tests.
 */
class DynamoDbStoreTest {

    private static List<Map<String, AttributeValue>> items(int n) {
        List<Map<String, AttributeValue>> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(Map.of("pk", AttributeValue.fromS("p" + i), "sk", AttributeValue.fromS("s")));
        }
        return out;
    }

    private static DynamoDbAsyncClient stub(
            Function<BatchWriteItemRequest, CompletableFuture<BatchWriteItemResponse>> f) {
        return new DynamoDbAsyncClient() {
            @Override
            public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
                return f.apply(request);
            }

            @Override
            public String serviceName() {
                return "dynamodb";
            }

            @Override
            public void close() {}
        };
    }

    @Test
    void writeAll_whenClientCompletesSynchronouslyForManyChunks_writesAllWithoutGrowingTheStack() throws Exception {
        AtomicLong written = new AtomicLong();
        DynamoDbStore store = new DynamoDbStore(
                stub(r -> {
                    written.addAndGet(r.requestItems().get("t").size());
                    return CompletableFuture.completedFuture(
                            BatchWriteItemResponse.builder().build());
                }),
                "t",
                1,
                new Backoff(1, 2));

        WriteStats stats =
                store.writeAll(items(100_000), Deadline.inMillis(60_000)).get(60, TimeUnit.SECONDS);

        assertThat(stats.itemsWritten()).isEqualTo(100_000);
        assertThat(written.get()).isEqualTo(100_000);
        assertThat(stats.requests()).isEqualTo(4_000);
    }

    @Test
    void writeAll_whenClientThrowsUnexpectedly_failsInsteadOfReportingSuccess() {
        AtomicInteger calls = new AtomicInteger();
        DynamoDbStore store = new DynamoDbStore(
                stub(r -> {
                    if (calls.incrementAndGet() == 3) {
                        throw new IllegalStateException("client bug");
                    }
                    return CompletableFuture.completedFuture(
                            BatchWriteItemResponse.builder().build());
                }),
                "t",
                2,
                new Backoff(1, 2));

        assertThatThrownBy(() ->
                        store.writeAll(items(250), Deadline.inMillis(10_000)).join())
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("client bug");
    }

    @Test
    void writeAll_whenValidationError_failsAtOnceWithoutRetrying() {
        AtomicInteger calls = new AtomicInteger();
        DynamoDbStore store = new DynamoDbStore(
                stub(r -> {
                    calls.incrementAndGet();
                    return CompletableFuture.failedFuture(DynamoDbException.builder()
                            .statusCode(400)
                            .awsErrorDetails(software.amazon.awssdk.awscore.exception.AwsErrorDetails.builder()
                                    .errorCode("ValidationException")
                                    .build())
                            .message("key too long")
                            .build());
                }),
                "t",
                1,
                new Backoff(1, 2));

        assertThatThrownBy(() ->
                        store.writeAll(items(100), Deadline.inMillis(10_000)).join())
                .cause()
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("key too long");
        assertThat(calls.get()).isEqualTo(1);
    }

    @Test
    void writeAll_whenDeadlineAlreadyPassed_failsWithoutCallingDynamoDb() {
        AtomicInteger calls = new AtomicInteger();
        DynamoDbStore store = new DynamoDbStore(
                stub(r -> {
                    calls.incrementAndGet();
                    return CompletableFuture.completedFuture(
                            BatchWriteItemResponse.builder().build());
                }),
                "t",
                4,
                new Backoff(1, 2));

        assertThatThrownBy(
                        () -> store.writeAll(items(100), Deadline.inMillis(-1)).join())
                .cause()
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("deadline");
        assertThat(calls.get()).isZero();
    }

    @Test
    void writeAll_whenNoItems_completesWithZeroStats() {
        DynamoDbStore store = new DynamoDbStore(
                stub(r -> {
                    throw new AssertionError("no call expected");
                }),
                "t",
                4,
                new Backoff(1, 2));

        assertThat(store.writeAll(List.of(), Deadline.inMillis(1000)).join()).isEqualTo(new WriteStats(0, 0, 0, 0, 0));
    }
}
