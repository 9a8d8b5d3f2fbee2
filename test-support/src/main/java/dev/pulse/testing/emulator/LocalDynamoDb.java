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
package dev.pulse.testing.emulator;

import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.lang.reflect.Field;
import java.net.URI;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * DynamoDB Local (the official emulator) as an in-memory HTTP server on 127.0.0.1, so the code under test
 * talks to it through the real SDK v2 async client and CRT HTTP client. DynamoDB Local has no host flag and
 * binds 0.0.0.0, so the Jetty connectors are pointed at loopback before the server starts.
 */
public final class LocalDynamoDb implements AutoCloseable {

    private final DynamoDBProxyServer server;
    private final URI endpoint;

    private LocalDynamoDb(DynamoDBProxyServer server, int port) {
        this.server = server;
        this.endpoint = URI.create("http://127.0.0.1:" + port);
    }

    /** On a free port. */
    public static LocalDynamoDb start() throws Exception {
        return start(Ports.free());
    }

    /** On 127.0.0.1:{@code port}, in memory. */
    public static LocalDynamoDb start(int port) throws Exception {
        DynamoDBProxyServer server = ServerRunner.createServerFromCommandLineArgs(
                new String[] {"-inMemory", "-port", Integer.toString(port), "-disableTelemetry"});
        bindLoopback(server);
        server.start();
        return new LocalDynamoDb(server, port);
    }

    /** Points a DynamoDB Local server's Jetty connectors at 127.0.0.1 (it has no host option); call before start. */
    public static void bindLoopback(DynamoDBProxyServer server) throws ReflectiveOperationException {
        Field f = DynamoDBProxyServer.class.getDeclaredField("server");
        f.setAccessible(true);
        Server jetty = (Server) f.get(server);
        for (Connector c : jetty.getConnectors()) {
            ((ServerConnector) c).setHost("127.0.0.1");
        }
    }

    public URI endpoint() {
        return endpoint;
    }

    public DynamoDbAsyncClient asyncClient() {
        return DynamoDbAsyncClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(credentials())
                .httpClientBuilder(AwsCrtAsyncHttpClient.builder().maxConcurrency(32))
                .build();
    }

    public DynamoDbClient client() {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(credentials())
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build();
    }

    /** The template's table through {@code client}: pk/sk strings, on-demand, the compaction queue index. */
    public static void createTable(DynamoDbClient client, String name) {
        client.createTable(b -> {
            b.tableName(name)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(
                            AttributeDefinition.builder()
                                    .attributeName("pk")
                                    .attributeType(ScalarAttributeType.S)
                                    .build(),
                            AttributeDefinition.builder()
                                    .attributeName("sk")
                                    .attributeType(ScalarAttributeType.S)
                                    .build(),
                            AttributeDefinition.builder()
                                    .attributeName("dq")
                                    .attributeType(ScalarAttributeType.S)
                                    .build())
                    .keySchema(
                            KeySchemaElement.builder()
                                    .attributeName("pk")
                                    .keyType(KeyType.HASH)
                                    .build(),
                            KeySchemaElement.builder()
                                    .attributeName("sk")
                                    .keyType(KeyType.RANGE)
                                    .build())
                    // The compaction queue (template.yaml, index "due"): rollup items waiting for a build.
                    .globalSecondaryIndexes(g -> g.indexName("due")
                            .keySchema(
                                    KeySchemaElement.builder()
                                            .attributeName("dq")
                                            .keyType(KeyType.HASH)
                                            .build(),
                                    KeySchemaElement.builder()
                                            .attributeName("pk")
                                            .keyType(KeyType.RANGE)
                                            .build())
                            .projection(pr -> pr.projectionType(
                                            software.amazon.awssdk.services.dynamodb.model.ProjectionType.INCLUDE)
                                    .nonKeyAttributes("sk", "d")));
        });
    }

    /** Fixed credentials: the emulators accept any. */
    public static StaticCredentialsProvider credentials() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
