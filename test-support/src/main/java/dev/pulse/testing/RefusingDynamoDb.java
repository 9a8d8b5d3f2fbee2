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
    public void close() {
    }
}
