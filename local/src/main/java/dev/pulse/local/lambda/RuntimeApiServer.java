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
package dev.pulse.local.lambda;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.pulse.local.internal.LoopbackHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The Lambda Runtime API (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html) for one execution
 * environment, on 127.0.0.1: the runtime interface client in the function's JVM long-polls
 * {@code /invocation/next}, then posts the response or the error. The same client the managed java21 runtime
 * uses does the deserialisation, the context and the error format, so a handler behaves as it does in Lambda.
 */
final class RuntimeApiServer implements AutoCloseable {

    private static final String PREFIX = "/2018-06-01/runtime";

    /** An invocation handed to the runtime, completed by its response or error. */
    record Invocation(
            String requestId,
            byte[] payload,
            long deadlineEpochMillis,
            String functionArn,
            String traceId,
            CompletableFuture<Outcome> outcome) {}

    /** What the runtime posted back: a response, or an error with Lambda's error JSON. */
    record Outcome(byte[] payload, boolean error) {}

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final BlockingQueue<Invocation> pending = new LinkedBlockingQueue<>();
    private final ConcurrentHashMap<String, Invocation> inFlight = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final CompletableFuture<byte[]> initError = new CompletableFuture<>();

    RuntimeApiServer() throws IOException {
        server = LoopbackHttp.start(0, 16, this::handle, executor);
    }

    /** {@code host:port} for {@code AWS_LAMBDA_RUNTIME_API}. */
    String address() {
        return "127.0.0.1:" + server.getAddress().getPort();
    }

    /** Completes when the runtime asks for its first invocation, that is when the function's init is done. */
    CompletableFuture<Void> ready() {
        return ready;
    }

    /** Completes with Lambda's error JSON if the function failed its init. */
    CompletableFuture<byte[]> initError() {
        return initError;
    }

    void submit(Invocation invocation) {
        pending.add(invocation);
    }

    private void handle(HttpExchange ex) throws IOException {
        String full = ex.getRequestURI().getPath();
        String path = full.startsWith(PREFIX) ? full.substring(PREFIX.length()) : "";
        try (ex) {
            if (path.equals("/invocation/next") && ex.getRequestMethod().equals("GET")) {
                ready.complete(null);
                Invocation inv = take();
                if (inv == null) {
                    send(ex, 503, "{\"errorMessage\":\"runtime stopped\"}".getBytes(StandardCharsets.UTF_8));
                    return;
                }
                inFlight.put(inv.requestId(), inv);
                ex.getResponseHeaders().add("Lambda-Runtime-Aws-Request-Id", inv.requestId());
                ex.getResponseHeaders().add("Lambda-Runtime-Deadline-Ms", Long.toString(inv.deadlineEpochMillis()));
                ex.getResponseHeaders().add("Lambda-Runtime-Invoked-Function-Arn", inv.functionArn());
                ex.getResponseHeaders().add("Lambda-Runtime-Trace-Id", inv.traceId());
                send(ex, 200, inv.payload());
            } else if (path.equals("/restore/next") && ex.getRequestMethod().equals("GET")) {
                // A SnapStart init (FunctionConfig.Init): the beforeCheckpoint hooks are done and Lambda would take
                // the snapshot now; answered at once, so the runtime goes on to the afterRestore hooks.
                send(ex, 200, new byte[0]);
            } else if ((path.equals("/init/error") || path.equals("/restore/error"))
                    && ex.getRequestMethod().equals("POST")) {
                initError.complete(LoopbackHttp.body(ex));
                send(ex, 202, "{\"status\":\"OK\"}".getBytes(StandardCharsets.UTF_8));
            } else if (path.startsWith("/invocation/")
                    && ex.getRequestMethod().equals("POST")
                    && (path.endsWith("/response") || path.endsWith("/error"))) {
                String id = path.substring("/invocation/".length(), path.lastIndexOf('/'));
                Invocation inv = inFlight.remove(id);
                byte[] body = LoopbackHttp.body(ex);
                if (inv == null) {
                    send(
                            ex,
                            400,
                            "{\"errorMessage\":\"unknown request id\",\"errorType\":\"InvalidRequestID\"}"
                                    .getBytes(StandardCharsets.UTF_8));
                    return;
                }
                inv.outcome().complete(new Outcome(body, path.endsWith("/error")));
                send(ex, 202, "{\"status\":\"OK\"}".getBytes(StandardCharsets.UTF_8));
            } else {
                send(ex, 404, "{\"errorMessage\":\"not found\"}".getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    private Invocation take() {
        try {
            // A long poll, as the real API does; woken by submit() or by close().
            while (!executor.isShutdown()) {
                Invocation inv = pending.poll(1, TimeUnit.SECONDS);
                if (inv != null) {
                    return inv;
                }
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static void send(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.getResponseHeaders().add("Content-Type", "application/json");
        LoopbackHttp.write(ex, status, body);
    }

    @Override
    public void close() {
        executor.shutdown();
        server.stop(0);
        executor.shutdownNow();
    }
}
