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

import dev.pulse.testing.emulator.LocalDynamoDb;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * DynamoDB Local in process on 127.0.0.1 for one test class, with an async client (what the functions use) and a
 * sync one (for a test's own reads), all closed after the class:
 * {@code @RegisterExtension static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();}
 */
public final class DynamoDbLocalExtension implements BeforeAllCallback, AfterAllCallback {

    private LocalDynamoDb local;
    private DynamoDbAsyncClient async;
    private DynamoDbClient reader;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        local = LocalDynamoDb.start();
        async = local.asyncClient();
        reader = local.client();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try (LocalDynamoDb l = local;
                DynamoDbAsyncClient a = async;
                DynamoDbClient r = reader) {
            // closed in reverse order: the clients, then the server
        }
    }

    public LocalDynamoDb local() {
        return local;
    }

    public DynamoDbAsyncClient async() {
        return async;
    }

    public DynamoDbClient reader() {
        return reader;
    }
}
