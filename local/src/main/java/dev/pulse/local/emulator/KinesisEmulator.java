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
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;

/**
 * kinesalite (from tools/kinesis, installed by the Makefile) on 127.0.0.1 and a free port, forced onto
 * loopback by a preload script, started by the test and stopped through its own process handle (by PID).
 */
public final class KinesisEmulator implements AutoCloseable {

    private volatile LocalServer server;
    private final URI endpoint;
    private final Path dir;
    private final int port;
    private final Path store;

    private KinesisEmulator(LocalServer server, Path dir, int port, Path store) {
        this.server = server;
        this.dir = dir;
        this.port = port;
        this.store = store;
        this.endpoint = URI.create("http://127.0.0.1:" + port);
    }

    /** From {@code pulse.kinesis.dir} (default tools/kinesis) on a free port. */
    public static KinesisEmulator start() throws Exception {
        return start(Path.of(System.getProperty("pulse.kinesis.dir", "tools/kinesis")), Ports.free());
    }

    /** kinesalite installed under {@code dir} (tools/kinesis), on 127.0.0.1:{@code port}. */
    public static KinesisEmulator start(Path dir, int port) throws Exception {
        return start(dir, port, null);
    }

    /** As above; with {@code store} (a folder) the data is kept in LevelDB there and survives {@link #restart()}. */
    public static KinesisEmulator start(Path dir, int port, Path store) throws Exception {
        return new KinesisEmulator(launch(dir, port, store), dir, port, store);
    }

    /** Stops the process and starts a new one on the same port and store. */
    public void restart() throws Exception {
        server.close();
        server = launch(dir, port, store);
    }

    private static LocalServer launch(Path dir, int port, Path store) throws Exception {
        Path cli = dir.resolve("node_modules/kinesalite/cli.js");
        if (!Files.exists(cli)) {
            throw new IllegalStateException(
                    "kinesalite not found at " + cli + ": run the tests with `make test`, which installs it");
        }
        List<String> cmd = new java.util.ArrayList<>(List.of(
                "node",
                "-r",
                dir.resolve("loopback.js").toString(),
                cli.toString(),
                "--port",
                Integer.toString(port),
                "--createStreamMs",
                "50",
                "--shardLimit",
                "50"));
        if (store != null) {
            Files.createDirectories(store);
            cmd.addAll(List.of("--path", store.toString()));
        }
        return LocalServer.start("kinesalite", cmd, port, Duration.ofSeconds(30));
    }

    public URI endpoint() {
        return endpoint;
    }

    public KinesisAsyncClient client() {
        return KinesisAsyncClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(LocalDynamoDb.credentials())
                // A built client, so the Kinesis default of HTTP/2 (only needed for SubscribeToShard) does not apply.
                .httpClient(AwsCrtAsyncHttpClient.builder().maxConcurrency(64).build())
                .build();
    }

    /** Creates a stream and waits until it is ACTIVE (the SDK's waiter polls every 10 s). */
    public void createStream(String name, int shards) throws Exception {
        try (KinesisAsyncClient c = client()) {
            c.createStream(b -> b.streamName(name).shardCount(shards)).join();
            for (int i = 0; i < 200; i++) {
                if (c.describeStreamSummary(b -> b.streamName(name))
                                .join()
                                .streamDescriptionSummary()
                                .streamStatus()
                        == StreamStatus.ACTIVE) {
                    return;
                }
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("stream " + name + " did not become ACTIVE");
    }

    /** The emulator process's PID. */
    public long pid() {
        return server.pid();
    }

    @Override
    public void close() throws Exception {
        server.close();
    }
}
