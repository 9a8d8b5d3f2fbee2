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

import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * A DynamoDB client that answers no call: every operation throws the SDK interface's
 * {@link UnsupportedOperationException}. For code paths that must decide before any read (a 400 for bad
 * parameters) or must report a failed read, without a table behind them.
 */
public final class RefusingDynamoDb implements DynamoDbAsyncClient {

    @Override
    public String serviceName() {
        return "dynamodb";
    }

    @Override
    public void close() {}
}
