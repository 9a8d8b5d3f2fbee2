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

import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The real async client, call for call, for the operations the functions use (the SDK's paginators and
 * builder-style overloads end in these). Test doubles override only what they change.
 */
public class DelegatingDynamoDb implements DynamoDbAsyncClient {

    protected final DynamoDbAsyncClient delegate;

    public DelegatingDynamoDb(DynamoDbAsyncClient delegate) {
        this.delegate = delegate;
    }

    @Override
    public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
        return delegate.batchWriteItem(request);
    }

    @Override
    public CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
        return delegate.putItem(request);
    }

    @Override
    public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
        return delegate.updateItem(request);
    }

    @Override
    public CompletableFuture<QueryResponse> query(QueryRequest request) {
        return delegate.query(request);
    }

    @Override
    public CompletableFuture<BatchGetItemResponse> batchGetItem(BatchGetItemRequest request) {
        return delegate.batchGetItem(request);
    }

    @Override
    public CompletableFuture<GetItemResponse> getItem(GetItemRequest request) {
        return delegate.getItem(request);
    }

    @Override
    public String serviceName() {
        return delegate.serviceName();
    }

    /** The delegate is shared (one client per emulator): closing a wrapper leaves it open. */
    @Override
    public void close() {}
}
