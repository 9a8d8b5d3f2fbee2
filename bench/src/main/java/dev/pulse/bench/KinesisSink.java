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
package dev.pulse.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Kinesis endpoint that accepts everything as fast as it can: PutRecords and PutRecord over the JSON 1.1
 * protocol on 127.0.0.1, every record acknowledged with a sequence number, nothing stored. It reads each request
 * far enough to count its records, so a benchmark can check that what the sender calls acknowledged is what
 * arrived. kinesalite would be the bottleneck of any sender measured against it; this is not.
 */
final class KinesisSink implements AutoCloseable {

    static final String TARGET_PREFIX = "Kinesis_20131202.";
    static final String JSON_CONTENT_TYPE = "application/x-amz-json-1.1";
    /** PutRecords' limit in Kinesis: a sender that exceeds it must fail here as it would there. */
    static final int MAX_RECORDS_PER_CALL = 500;

    private static final JsonFactory JSON = new JsonFactory();
    private static final String SHARD = "shardId-000000000000";
    /** 56 digits, like a real sequence number; only the last digits change. */
    private static final String SEQUENCE_PREFIX = "4959033827149025660855969253836157109592157598";

    private final HttpServer server;
    private final ExecutorService executor;
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong sequence = new AtomicLong();

    private KinesisSink(int threadCount) throws IOException {
        AtomicInteger n = new AtomicInteger();
        // Platform threads we can name and ask for their CPU time, so the report can say what the sink cost.
        executor = Executors.newFixedThreadPool(threadCount, r -> {
            Thread t = new Thread(r, "kinesis-sink-" + n.incrementAndGet());
            t.setDaemon(true);
            threads.add(t);
            return t;
        });
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    /** Starts a sink on a free port of 127.0.0.1, handling requests on {@code threads} threads. */
    static KinesisSink start(int threads) throws IOException {
        return new KinesisSink(threads);
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Records acknowledged so far (PutRecords entries and PutRecord calls). */
    long records() {
        return records.get();
    }

    /** Requests answered with success so far. */
    long calls() {
        return calls.get();
    }

    /** Requests refused (unknown operation, not JSON, over the record limit). */
    long rejected() {
        return rejected.get();
    }

    /** CPU time the sink's handler threads have used, in nanoseconds (the HTTP server's dispatcher excluded). */
    long cpuNanos() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread t : threads) {
            long ns = mx.getThreadCpuTime(t.threadId());
            if (ns > 0) {
                sum += ns;
            }
        }
        return sum;
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
                body = in.readAllBytes();
            }
            String target = ex.getRequestHeaders().getFirst("X-Amz-Target");
            String contentType = ex.getRequestHeaders().getFirst("Content-Type");
            int count;
            try {
                count = count(target, contentType, body);
            } catch (IllegalArgumentException e) {
                rejected.incrementAndGet();
                send(ex, 400, error(e.getMessage()));
                return;
            }
            long first = sequence.getAndAdd(count);
            byte[] answer =
                    "PutRecord".equals(operation(target)) ? putRecordResponse(first) : putRecordsResponse(count, first);
            records.addAndGet(count);
            calls.incrementAndGet();
            send(ex, 200, answer);
        }
    }

    private static void send(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.getResponseHeaders().add("Content-Type", JSON_CONTENT_TYPE);
        ex.sendResponseHeaders(status, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    private static String operation(String target) {
        return target != null && target.startsWith(TARGET_PREFIX) ? target.substring(TARGET_PREFIX.length()) : "";
    }

    /**
     * The records a request carries: the entries of a PutRecords' {@code Records}, or 1 for a PutRecord.
     *
     * @throws IllegalArgumentException for anything Kinesis would refuse, with the error type first
     */
    static int count(String target, String contentType, byte[] body) {
        if (contentType == null || !contentType.startsWith(JSON_CONTENT_TYPE)) {
            // The SDK speaks CBOR to Kinesis unless told otherwise (aws.cborEnabled=false).
            throw new IllegalArgumentException(
                    "SerializationException: expected " + JSON_CONTENT_TYPE + ", got " + contentType);
        }
        try {
            return switch (operation(target)) {
                case "PutRecords" -> {
                    int n = countRecords(body);
                    if (n < 1 || n > MAX_RECORDS_PER_CALL) {
                        throw new IllegalArgumentException(
                                "ValidationException: " + n + " records, must be 1 to " + MAX_RECORDS_PER_CALL);
                    }
                    yield n;
                }
                case "PutRecord" -> {
                    requireField(body, "Data");
                    yield 1;
                }
                default -> throw new IllegalArgumentException("UnknownOperationException: " + target);
            };
        } catch (IOException e) {
            throw new IllegalArgumentException("SerializationException: " + e.getMessage());
        }
    }

    /** The number of elements of the top-level {@code Records} array, each skipped without being built. */
    static int countRecords(byte[] body) throws IOException {
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("the request is not a JSON object");
            }
            int count = -1;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if ("Records".equals(field)) {
                    if (value != JsonToken.START_ARRAY) {
                        throw new IOException("Records is not an array");
                    }
                    count = 0;
                    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                        if (t != JsonToken.START_OBJECT) {
                            throw new IOException("a record is not an object");
                        }
                        p.skipChildren();
                        count++;
                    }
                } else {
                    p.skipChildren();
                }
            }
            if (count < 0) {
                throw new IOException("no Records");
            }
            return count;
        }
    }

    private static void requireField(byte[] body, String name) throws IOException {
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("the request is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                if (name.equals(p.currentName())) {
                    return;
                }
                p.nextToken();
                p.skipChildren();
            }
        }
        throw new IOException("no " + name);
    }

    /** One successful result entry per record, in order, as Kinesis answers. */
    static byte[] putRecordsResponse(int count, long firstSequence) {
        StringBuilder sb = new StringBuilder(32 + count * 100);
        sb.append("{\"FailedRecordCount\":0,\"Records\":[");
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append("{\"SequenceNumber\":\"")
                    .append(sequenceNumber(firstSequence + i))
                    .append("\",\"ShardId\":\"")
                    .append(SHARD)
                    .append("\"}");
        }
        return sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] putRecordResponse(long sequence) {
        return ("{\"SequenceNumber\":\"" + sequenceNumber(sequence) + "\",\"ShardId\":\"" + SHARD + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String sequenceNumber(long n) {
        String digits = Long.toString(n);
        return SEQUENCE_PREFIX + "0".repeat(Math.max(0, 10 - digits.length())) + digits;
    }

    private static byte[] error(String message) {
        int colon = message.indexOf(':');
        String type = colon > 0 ? message.substring(0, colon) : "ValidationException";
        String text = colon > 0 ? message.substring(colon + 1).strip() : message;
        return ("{\"__type\":\"" + type + "\",\"message\":\""
                        + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** Stops accepting, then stops the handler threads. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
