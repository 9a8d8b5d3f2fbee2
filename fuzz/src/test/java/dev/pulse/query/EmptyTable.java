package dev.pulse.query;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * A table that holds nothing: a valid query is answered (200, no data) instead of failing on a missing store, so
 * that any 500 the fuzzer provokes comes from the request's handling. Every other call is unsupported and fails
 * the query, which then shows up as a finding naming it.
 */
final class EmptyTable implements DynamoDbAsyncClient {

    @Override
    public CompletableFuture<QueryResponse> query(QueryRequest request) {
        return CompletableFuture.completedFuture(QueryResponse.builder().items(List.of()).count(0).scannedCount(0).build());
    }

    @Override
    public CompletableFuture<BatchGetItemResponse> batchGetItem(BatchGetItemRequest request) {
        return CompletableFuture.completedFuture(BatchGetItemResponse.builder().responses(Map.of())
                .unprocessedKeys(Map.of()).build());
    }

    @Override
    public String serviceName() {
        return "dynamodb";
    }

    @Override
    public void close() {
    }
}
