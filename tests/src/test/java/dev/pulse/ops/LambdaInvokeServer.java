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
package dev.pulse.ops;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.serialization.PojoSerializer;
import com.amazonaws.services.lambda.runtime.serialization.events.LambdaEventSerializers;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The one Lambda API route the redrive needs, {@code POST /2015-03-31/functions/{name}/invocations}
 * (RequestResponse), on 127.0.0.1 at an ephemeral port, calling a Kinesis handler in this JVM. The event is read
 * with the runtime's own serializers (as the java21 runtime reads it: {@code approximateArrivalTimestamp} in epoch
 * seconds, {@code data} base64); an exception becomes what Lambda answers: status 200, header
 * {@code X-Amz-Function-Error: Unhandled} and an {@code errorMessage}/{@code errorType} body.
 *
 * <p>The local stack's {@code LambdaApiServer} serves the same route, but runs each function in its own JVM from
 * the built artifacts, wired to its own emulators; the redrive test needs the handler on its own table.
 */
final class LambdaInvokeServer implements AutoCloseable {

    private static final String PREFIX = "/2015-03-31/functions/";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PojoSerializer<KinesisEvent> EVENTS =
            LambdaEventSerializers.serializerFor(KinesisEvent.class, LambdaInvokeServer.class.getClassLoader());

    /** One invocation as the handler saw it. */
    record Invocation(String function, KinesisEvent event, String functionError, String response) {}

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, RequestHandler<KinesisEvent, StreamsEventResponse>> functions = new ConcurrentHashMap<>();
    private final Supplier<Context> contexts;
    final List<Invocation> invocations = new CopyOnWriteArrayList<>();

    private LambdaInvokeServer(Supplier<Context> contexts) throws IOException {
        this.contexts = contexts;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    /** A server with no function yet; {@code contexts} gives each invocation its context. */
    static LambdaInvokeServer start(Supplier<Context> contexts) throws IOException {
        return new LambdaInvokeServer(contexts);
    }

    /** Serves {@code handler} as {@code name} (replacing any earlier one). */
    void function(String name, RequestHandler<KinesisEvent, StreamsEventResponse> handler) {
        functions.put(name, handler);
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getRawPath();
            if (!path.startsWith(PREFIX) || !path.endsWith("/invocations") || !"POST".equals(ex.getRequestMethod())) {
                error(ex, 404, "UnknownOperationException", "only Invoke is served");
                return;
            }
            String name = URLDecoder.decode(
                    path.substring(PREFIX.length(), path.length() - "/invocations".length()), StandardCharsets.UTF_8);
            RequestHandler<KinesisEvent, StreamsEventResponse> handler = functions.get(name);
            if (handler == null) {
                error(ex, 404, "ResourceNotFoundException", "Function not found: " + name);
                return;
            }
            String type = ex.getRequestHeaders().getFirst("X-Amz-Invocation-Type");
            if (type != null && !"RequestResponse".equals(type)) {
                error(ex, 400, "InvalidParameterValueException", "only RequestResponse is served, not " + type);
                return;
            }
            byte[] payload = ex.getRequestBody().readAllBytes();
            KinesisEvent event = null;
            byte[] body;
            String functionError = null;
            try {
                event = EVENTS.fromJson(new ByteArrayInputStream(payload));
                body = JSON.writeValueAsBytes(handler.handleRequest(event, contexts.get()));
            } catch (RuntimeException e) {
                functionError = "Unhandled";
                ObjectNode err = JSON.createObjectNode();
                err.put("errorMessage", e.getMessage());
                err.put("errorType", e.getClass().getName());
                err.putArray("stackTrace");
                body = JSON.writeValueAsBytes(err);
            }
            invocations.add(new Invocation(name, event, functionError, new String(body, StandardCharsets.UTF_8)));
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.getResponseHeaders().add("X-Amz-Executed-Version", "$LATEST");
            ex.getResponseHeaders().add("x-amzn-RequestId", UUID.randomUUID().toString());
            if (functionError != null) {
                ex.getResponseHeaders().add("X-Amz-Function-Error", functionError);
            }
            write(ex, 200, body);
        }
    }

    private static void error(HttpExchange ex, int status, String type, String message) throws IOException {
        ex.getResponseHeaders().add("x-amzn-ErrorType", type);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ObjectNode body = JSON.createObjectNode();
        body.put("Type", "User");
        body.put("Message", message);
        write(ex, status, JSON.writeValueAsBytes(body));
    }

    private static void write(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.sendResponseHeaders(status, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
