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

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
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
        return CompletableFuture.completedFuture(QueryResponse.builder()
                .items(List.of())
                .count(0)
                .scannedCount(0)
                .build());
    }

    @Override
    public CompletableFuture<BatchGetItemResponse> batchGetItem(BatchGetItemRequest request) {
        return CompletableFuture.completedFuture(BatchGetItemResponse.builder()
                .responses(Map.of())
                .unprocessedKeys(Map.of())
                .build());
    }

    /** No item either: the catalog's version is absent, as in a table no ingest has written. */
    @Override
    public CompletableFuture<GetItemResponse> getItem(GetItemRequest request) {
        return CompletableFuture.completedFuture(GetItemResponse.builder().build());
    }

    @Override
    public String serviceName() {
        return "dynamodb";
    }

    @Override
    public void close() {}
}
