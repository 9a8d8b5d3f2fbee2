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
import dev.pulse.local.esm.InvokeResult;
import dev.pulse.local.internal.LoopbackHttp;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The Lambda {@code Invoke} API on 127.0.0.1 ({@code POST /2015-03-31/functions/{name}/invocations}), so SDK
 * clients pointed at it with {@code AWS_ENDPOINT_URL_LAMBDA} (the load generator's workers, {@code aws lambda
 * invoke --endpoint-url}) reach the local functions. RequestResponse and Event invocations; errors in the
 * service's format.
 */
public final class LambdaApiServer implements AutoCloseable {

    private static final String PREFIX = "/2015-03-31/functions/";
    private static final System.Logger LOG = System.getLogger(LambdaApiServer.class.getName());

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final LocalLambda lambda;

    public LambdaApiServer(LocalLambda lambda, int port) throws IOException {
        this.lambda = lambda;
        server = LoopbackHttp.start(port, 64, this::handle, executor);
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getRawPath();
            if (!path.startsWith(PREFIX)
                    || !path.endsWith("/invocations")
                    || !ex.getRequestMethod().equals("POST")) {
                error(ex, 404, "UnknownOperationException", "only Invoke is served locally");
                return;
            }
            String name = URLDecoder.decode(
                    path.substring(PREFIX.length(), path.length() - "/invocations".length()), StandardCharsets.UTF_8);
            if (!lambda.has(name)) {
                error(ex, 404, "ResourceNotFoundException", "Function not found: " + name);
                return;
            }
            byte[] payload = LoopbackHttp.body(ex);
            if (payload.length == 0) {
                payload = "{}".getBytes(StandardCharsets.UTF_8);
            }
            String type = ex.getRequestHeaders().getFirst("X-Amz-Invocation-Type");
            if ("DryRun".equals(type)) {
                ex.sendResponseHeaders(204, -1);
                return;
            }
            if ("Event".equals(type)) {
                byte[] event = payload;
                Thread.ofVirtual().start(() -> {
                    try {
                        lambda.invoke(name, event);
                    } catch (Exception e) {
                        LOG.log(System.Logger.Level.WARNING, "asynchronous invocation of " + name + " failed", e);
                    }
                });
                ex.sendResponseHeaders(202, -1);
                return;
            }
            InvokeResult r;
            try {
                r = lambda.invoke(name, payload);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                error(ex, 500, "ServiceException", "interrupted");
                return;
            } catch (RuntimeException e) {
                error(ex, 500, "ServiceException", String.valueOf(e.getMessage()));
                return;
            }
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.getResponseHeaders().add("X-Amz-Executed-Version", "$LATEST");
            ex.getResponseHeaders().add("x-amzn-RequestId", r.requestId());
            if (r.failed()) {
                ex.getResponseHeaders().add("X-Amz-Function-Error", r.functionError());
            }
            LoopbackHttp.write(ex, 200, r.payload());
        }
    }

    private static void error(HttpExchange ex, int status, String type, String message) throws IOException {
        ex.getResponseHeaders().add("x-amzn-ErrorType", type);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        String body = "{\"Type\":\"" + (status >= 500 ? "Service" : "User") + "\",\"Message\":"
                + com.fasterxml.jackson.databind.node.TextNode.valueOf(message) + "}";
        LoopbackHttp.write(ex, status, body.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
