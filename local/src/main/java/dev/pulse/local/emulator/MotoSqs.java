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
package dev.pulse.local.emulator;

import dev.pulse.testing.emulator.LocalDynamoDb;
import dev.pulse.testing.emulator.Ports;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * A real SQS endpoint for tests: moto server (installed into .venv by the Makefile) on 127.0.0.1 and a free
 * port, started by the test and stopped through its own process handle (by PID), never by name.
 */
public final class MotoSqs implements AutoCloseable {

    private final LocalServer server;
    private final URI endpoint;
    private final SqsClient client;

    private MotoSqs(LocalServer server, int port) {
        this.server = server;
        this.endpoint = URI.create("http://127.0.0.1:" + port);
        this.client = SqsClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(LocalDynamoDb.credentials())
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build();
    }

    /** From {@code pulse.moto.bin} on a free port. */
    public static MotoSqs start() throws Exception {
        return start(System.getProperty("pulse.moto.bin", ""), Ports.free());
    }

    /** moto_server at {@code bin} (installed into .venv by the Makefile), on 127.0.0.1:{@code port}. */
    public static MotoSqs start(String bin, int port) throws Exception {
        if (bin.isEmpty() || !Files.isExecutable(Path.of(bin))) {
            throw new IllegalStateException("moto_server not found at '" + bin
                    + "': run the tests with `make test`, which installs it into .venv");
        }
        LocalServer server = LocalServer.start(
                "moto", List.of(bin, "-H", "127.0.0.1", "-p", Integer.toString(port)), port, Duration.ofSeconds(60));
        return new MotoSqs(server, port);
    }

    public URI endpoint() {
        return endpoint;
    }

    public SqsClient client() {
        return client;
    }

    public String createQueue(String name) {
        return client.createQueue(b -> b.queueName(name)).queueUrl();
    }

    /** Every message currently in the queue (received with a long visibility timeout, so each once). */
    public List<Message> drain(String queueUrl) {
        List<Message> all = new java.util.ArrayList<>();
        while (true) {
            List<Message> batch = client.receiveMessage(b -> b.queueUrl(queueUrl)
                            .maxNumberOfMessages(10)
                            .visibilityTimeout(600)
                            .waitTimeSeconds(0)
                            .messageAttributeNames("All")
                            .messageSystemAttributeNames(
                                    software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName.ALL))
                    .messages();
            if (batch.isEmpty()) {
                return all;
            }
            all.addAll(batch);
        }
    }

    public int approximateDepth(String queueUrl) {
        return Integer.parseInt(client.getQueueAttributes(
                        b -> b.queueUrl(queueUrl).attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                .attributes()
                .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
    }

    /** The emulator process's PID. */
    public long pid() {
        return server.pid();
    }

    @Override
    public void close() throws Exception {
        client.close();
        server.close();
    }
}
