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
package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.retry.Backoff;
import dev.pulse.testing.TestContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;

/**
 * Hostile replay sources through the function's handler, in a heap no larger than the function's (this module's
 * tests run with -Xmx768m): each is answered as a field error on {@code source} naming the source, the line and the
 * limit, in bounded time, and nothing reaches Kinesis or a worker.
 */
class LoadGenHandlerReplayLimitsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long GIB_AND_A_HALF = 3L << 29;

    @TempDir
    static Path root;

    @BeforeAll
    static void writeSources() throws IOException {
        // 1 KB native datapoints, gzip members of 64 MiB each repeated to 1.5 GiB: about 1.5 MB on disk.
        String line = "{\"name\":\"bomb\",\"ts\":1,\"value\":1,\"pad\":\"";
        line = line + "x".repeat(1023 - line.length() - 2) + "\"}\n";
        writeGzipBomb("bomb.ndjson.gz", line.getBytes(StandardCharsets.UTF_8));
        // The same size as a single line: what ran the function out of memory.
        writeGzipBomb("line-bomb.ndjson.gz", "x".repeat(1024).getBytes(StandardCharsets.UTF_8));
        // A plain file whose second line is 100 MB.
        try (OutputStream out = Files.newOutputStream(root.resolve("long-line.ndjson"))) {
            out.write("{\"name\":\"a\",\"ts\":1,\"value\":1}\n{\"name\":\"a\",\"pad\":\""
                    .getBytes(StandardCharsets.UTF_8));
            byte[] x = new byte[1 << 20];
            Arrays.fill(x, (byte) 'x');
            for (int i = 0; i < 100; i++) {
                out.write(x);
            }
            out.write("\"}\n".getBytes(StandardCharsets.UTF_8));
        }
        // Millions of tiny lines, each a record: 24 MB, past the record limit.
        try (OutputStream out =
                new GZIPOutputStream(Files.newOutputStream(root.resolve("tiny-lines.ndjson.gz")), 1 << 16)) {
            byte[] tiny = "{\"name\":\"a\",\"ts\":1}\n".getBytes(StandardCharsets.UTF_8);
            byte[] block = new byte[tiny.length * 10_000];
            for (int i = 0; i < 10_000; i++) {
                System.arraycopy(tiny, 0, block, i * tiny.length, tiny.length);
            }
            for (int i = 0; i < 120; i++) {
                out.write(block);
            }
        }
        String ok = "{\"name\":\"a\",\"ts\":1,\"value\":1}\n";
        Files.writeString(
                root.resolve("bad-base64.ndjson"),
                ok + ok + "{\"data\":\"@@not base64@@\",\"partitionKey\":\"k\",\"arrival\":1}\n");
        Files.writeString(root.resolve("bad-json.ndjson"), ok + "{\"name\":\"a\",\"ts\":1,\"value\":\n" + ok);
        Files.writeString(
                root.resolve("big-record.ndjson"),
                ok + "{\"data\":\"" + Base64.getEncoder().encodeToString(new byte[ReplaySource.MAX_RECORD_BYTES])
                        + "\",\"partitionKey\":\"k\"}\n");
        Files.writeString(
                root.resolve("long-key.ndjson"),
                ok + ok + ok + "{\"data\":\"AAAA\",\"partitionKey\":\"" + "k".repeat(257) + "\"}\n");
    }

    private static void writeGzipBomb(String name, byte[] pattern) throws IOException {
        ByteArrayOutputStream member = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(member, 1 << 16) {
            {
                def.setLevel(java.util.zip.Deflater.BEST_COMPRESSION);
            }
        }) {
            byte[] block = new byte[pattern.length * 1024];
            for (int i = 0; i < 1024; i++) {
                System.arraycopy(pattern, 0, block, i * pattern.length, pattern.length);
            }
            for (long written = 0; written < 64L << 20; written += block.length) {
                gz.write(block);
            }
        }
        // GZIPInputStream reads concatenated members as one stream, as gunzip does.
        try (OutputStream out = Files.newOutputStream(root.resolve(name))) {
            for (long inflated = 0; inflated < GIB_AND_A_HALF; inflated += 64L << 20) {
                member.writeTo(out);
            }
        }
    }

    @ParameterizedTest(name = "{0} with {1} worker(s)")
    @CsvSource(
            delimiter = '|',
            value = {
                "bomb.ndjson.gz|1|line 131073: the source passes MAX_DECOMPRESSED_BYTES 134217728 bytes after decompression",
                "bomb.ndjson.gz|4|line 131073: the source passes MAX_DECOMPRESSED_BYTES 134217728 bytes after decompression",
                "line-bomb.ndjson.gz|1|line 1: longer than MAX_LINE_BYTES 2097152 bytes",
                "long-line.ndjson|2|line 2: longer than MAX_LINE_BYTES 2097152 bytes",
                "tiny-lines.ndjson.gz|1|line 1000001: the source passes MAX_RECORDS 1000000 records",
                "bad-base64.ndjson|1|line 3: field data is not base64",
                "bad-base64.ndjson|3|line 3: field data is not base64",
                "bad-json.ndjson|1|line 2: not JSON",
                "big-record.ndjson|1|line 2: a record of 1048577 bytes (data and partition key), over Kinesis' MAX_RECORD_BYTES 1048576",
                "long-key.ndjson|1|line 4: field partitionKey has 257 characters; a partition key has 1 to MAX_PARTITION_KEY_CHARS 256",
            })
    void handleRequest_whenTheReplaySourceIsHostile_answersAFieldErrorNamingTheLineAndLimit(
            String source, int workers, String why) throws Exception {
        AtomicInteger kinesisCalls = new AtomicInteger();
        AtomicInteger workerCalls = new AtomicInteger();
        KinesisAsyncClient kinesis = (KinesisAsyncClient) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {KinesisAsyncClient.class}, (proxy, method, args) -> {
                    kinesisCalls.incrementAndGet();
                    return CompletableFuture.failedFuture(new IllegalStateException("nothing may be sent"));
                });
        LoadGenService service = new LoadGenService(
                new KinesisSender(kinesis, "pulse", new Backoff(1, 1), 1),
                s -> ReplaySource.load(s, root),
                w -> {
                    workerCalls.incrementAndGet();
                    return CompletableFuture.failedFuture(new IllegalStateException("no worker may start"));
                },
                null);
        LoadGenHandler handler = new LoadGenHandler(service, PulseMetrics.create("PulseTest", "loadgen"));
        String event = "{\"source\":\"" + source + "\",\"rate\":100,\"durationSeconds\":5,\"workers\":" + workers + "}";
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        long started = System.nanoTime();
        handler.handleRequest(
                new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)),
                out,
                new TestContext("loadgen", "hostile", 900_000, 2048));
        long millis = (System.nanoTime() - started) / 1_000_000;

        JsonNode answer = JSON.readTree(out.toByteArray());
        assertThat(answer.path("error").path("field").asText())
                .as(answer.toString())
                .isEqualTo("source");
        assertThat(answer.path("error").path("message").asText()).startsWith("source: " + source + " " + why);
        assertThat(kinesisCalls).hasValue(0);
        assertThat(workerCalls).hasValue(0);
        // Two shared cores: a generous bound that an unbounded read (1.5 GiB inflated, parsed) would pass.
        assertThat(millis).isLessThan(30_000);
    }
}
