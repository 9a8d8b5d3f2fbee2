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

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import software.amazon.awssdk.http.SdkHttpMethod;

/**
 * A SigV4-signing forward proxy on 127.0.0.1 for clients that cannot sign (promtool): each request is signed for
 * {@code execute-api} with the local stack's credentials and sent on to the HTTP API; the answer comes back as it
 * is. This is what a user puts in front of the deployed AWS_IAM API for such a client (for example
 * aws-sigv4-proxy), so the API under test stays exactly as deployed: no unsigned path is opened in it, not even for
 * loopback. Stopped by {@link #close()}.
 */
final class SigningProxy implements AutoCloseable {

    private static final java.util.List<String> FORWARDED =
            java.util.List.of("Content-Type", "Content-Encoding", "X-Prometheus-Remote-Write-Version");

    private final SignedApi api;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    SigningProxy(URI target) throws IOException {
        this.api = new SignedApi(target);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", this::forward);
        server.setExecutor(executor);
        server.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void forward(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body = ex.getRequestBody().readAllBytes();
            String pathAndQuery = ex.getRequestURI().getRawPath()
                    + (ex.getRequestURI().getRawQuery() == null
                            ? ""
                            : "?" + ex.getRequestURI().getRawQuery());
            // The headers that say how the body is encoded travel with it (remote write's snappy, OTLP's gzip).
            java.util.Map<String, String> headers = new java.util.HashMap<>();
            for (String name : FORWARDED) {
                String value = ex.getRequestHeaders().getFirst(name);
                if (value != null) {
                    headers.put(name, value);
                }
            }
            SignedApi.Reply reply =
                    api.send(SdkHttpMethod.fromValue(ex.getRequestMethod()), pathAndQuery, headers, body);
            if (reply.contentType() != null) {
                ex.getResponseHeaders().add("Content-Type", reply.contentType());
            }
            ex.sendResponseHeaders(reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
            if (reply.body().length > 0) {
                ex.getResponseBody().write(reply.body());
            }
        } catch (RuntimeException e) {
            ex.sendResponseHeaders(502, -1);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        api.close();
    }
}
