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
package dev.pulse.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.pulse.local.internal.LoopbackHttp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A DynamoDB endpoint on 127.0.0.1 in front of DynamoDB Local that misbehaves the way DynamoDB does under
 * load: a share of ingest's writes is refused with {@code ProvisionedThroughputExceededException}: its partials and
 * series catalog ({@code BatchWriteItem}), and its compaction marks and shard checkpoints ({@code UpdateItem}). Another
 * share of {@code BatchWriteItem} calls is only half applied, the rest handed back as {@code UnprocessedItems}.
 * Everything else passes through unchanged (DynamoDB Local does not check signatures, so a rewritten body needs no
 * re-signing).
 */
final class DynamoDbFaultProxy implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> HOP_BY_HOP =
            Set.of("connection", "content-length", "host", "expect", "upgrade", "transfer-encoding", "keep-alive");

    private final URI target;
    private final double throttleRate;
    private final double unprocessedRate;
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpServer server;
    final AtomicLong throttled = new AtomicLong();
    final AtomicLong unprocessedCalls = new AtomicLong();
    final AtomicLong unprocessedItems = new AtomicLong();
    final AtomicLong forwarded = new AtomicLong();
    /**
     * Requests forwarded, by operation ({@code PutItem}: the compactor's writes; {@code BatchWriteItem}: ingest's
     * partials and catalog), except ingest's shard checkpoint claims and commits, counted as {@value #CHECKPOINT}.
     */
    final Map<String, AtomicLong> calls = new java.util.concurrent.ConcurrentHashMap<>();

    /** The key in {@link #calls} of ingest's UpdateItem calls on a shard checkpoint ({@code W#<stream>#<shard>}). */
    static final String CHECKPOINT = "UpdateItem(checkpoint)";

    DynamoDbFaultProxy(URI target, double throttleRate, double unprocessedRate) throws IOException {
        this.target = target;
        this.throttleRate = throttleRate;
        this.unprocessedRate = unprocessedRate;
        this.server = LoopbackHttp.start(0, 128, this::handle, executor);
    }

    /** Requests of operation {@code op} forwarded so far. */
    long calls(String op) {
        AtomicLong n = calls.get(op);
        return n == null ? 0 : n.get();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body = LoopbackHttp.body(ex);
            String op = String.valueOf(ex.getRequestHeaders().getFirst("X-Amz-Target"));
            boolean batchWrite = op.endsWith(".BatchWriteItem");
            String counted = op.substring(op.lastIndexOf('.') + 1);
            if (op.endsWith(".UpdateItem")
                    && JSON.readTree(body)
                            .path("Key")
                            .path("pk")
                            .path("S")
                            .asText()
                            .startsWith("W#")) {
                counted = CHECKPOINT;
            }
            // Ingest's writes: its partials and catalog (BatchWriteItem), its compaction marks and checkpoints
            // (UpdateItem).
            boolean ingestWrite = batchWrite || op.endsWith(".UpdateItem");
            double dice = ThreadLocalRandom.current().nextDouble();
            if (ingestWrite && dice < throttleRate) {
                throttled.incrementAndGet();
                reply(
                        ex,
                        400,
                        Map.of(),
                        ("{\"__type\":\"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException\","
                                        + "\"message\":\"The level of configured provisioned throughput for the table was exceeded (injected)\"}")
                                .getBytes(StandardCharsets.UTF_8));
                return;
            }
            ObjectNode held = null;
            if (batchWrite && dice < throttleRate + unprocessedRate) {
                // Apply the first half of each table's items; hand the rest back as unprocessed.
                ObjectNode request = (ObjectNode) JSON.readTree(body);
                held = JSON.createObjectNode();
                for (Iterator<Map.Entry<String, JsonNode>> it =
                                request.path("RequestItems").properties().iterator();
                        it.hasNext(); ) {
                    Map.Entry<String, JsonNode> table = it.next();
                    ArrayNode items = (ArrayNode) table.getValue();
                    int keep = items.size() / 2;
                    ArrayNode back = held.putArray(table.getKey());
                    while (items.size() > keep) {
                        back.add(items.remove(keep));
                    }
                    unprocessedItems.addAndGet(back.size());
                    if (items.isEmpty()) {
                        it.remove();
                    }
                }
                unprocessedCalls.incrementAndGet();
                if (request.path("RequestItems").isEmpty()) {
                    reply(
                            ex,
                            200,
                            Map.of(),
                            JSON.writeValueAsBytes(JSON.createObjectNode().set("UnprocessedItems", held)));
                    return;
                }
                body = JSON.writeValueAsBytes(request);
            }
            HttpRequest.Builder b = HttpRequest.newBuilder(
                            target.resolve(ex.getRequestURI().getRawPath()))
                    .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
            ex.getRequestHeaders().forEach((k, v) -> {
                if (!HOP_BY_HOP.contains(k.toLowerCase())) {
                    v.forEach(x -> b.header(k, x));
                }
            });
            HttpResponse<byte[]> r;
            try {
                r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reply(ex, 503, Map.of(), new byte[0]);
                return;
            }
            forwarded.incrementAndGet();
            calls.computeIfAbsent(counted, k -> new AtomicLong()).incrementAndGet();
            byte[] out = r.body();
            if (held != null && r.statusCode() == 200) {
                ObjectNode resp = (ObjectNode) JSON.readTree(out);
                ObjectNode unprocessed = resp.with("UnprocessedItems");
                held.properties().forEach(e -> {
                    ArrayNode arr = unprocessed.withArray(e.getKey());
                    e.getValue().forEach(arr::add);
                });
                out = JSON.writeValueAsBytes(resp);
            }
            Map<String, String> headers = new java.util.HashMap<>();
            r.headers().map().forEach((k, v) -> {
                // The body may have changed, so its CRC32 would no longer match.
                if (!HOP_BY_HOP.contains(k.toLowerCase()) && !k.equalsIgnoreCase("x-amz-crc32") && !k.startsWith(":")) {
                    headers.put(k, v.get(0));
                }
            });
            reply(ex, r.statusCode(), headers, out);
        }
    }

    private static void reply(HttpExchange ex, int status, Map<String, String> headers, byte[] body)
            throws IOException {
        headers.forEach((k, v) -> ex.getResponseHeaders().add(k, v));
        if (!headers.containsKey("Content-Type") && !headers.containsKey("content-type")) {
            ex.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
        }
        LoopbackHttp.write(ex, status, body);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
