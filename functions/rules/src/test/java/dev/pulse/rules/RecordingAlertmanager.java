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
package dev.pulse.rules;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An HTTP server on 127.0.0.1 standing in for Alertmanager's {@code /api/v2/alerts} where a test needs to refuse,
 * stall or inspect requests (fault injection; AlertmanagerIT checks the real one): records each request's
 * {@code Authorization} header and body, answers {@link #status} after {@link #delayMillis}. Stopped by {@link #close()}.
 */
final class RecordingAlertmanager implements AutoCloseable {

    record Request(String method, String path, String contentType, String authorization, String body) {}

    final List<Request> requests = new CopyOnWriteArrayList<>();
    volatile int status = 200;
    volatile long delayMillis;
    private final HttpServer server;

    RecordingAlertmanager() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            try (exchange) {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                requests.add(new Request(
                        exchange.getRequestMethod(),
                        exchange.getRequestURI().getPath(),
                        exchange.getRequestHeaders().getFirst("Content-Type"),
                        exchange.getRequestHeaders().getFirst("Authorization"),
                        body));
                if (delayMillis > 0) {
                    try {
                        Thread.sleep(delayMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                byte[] answer = (status == 200 ? "" : "bad alert").getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(status, answer.length == 0 ? -1 : answer.length);
                if (answer.length > 0) {
                    exchange.getResponseBody().write(answer);
                }
            } catch (IOException e) {
                // the client gave up (a timeout test): nothing to answer
            }
        });
        server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
