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
package dev.pulse.local.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;

/** The local stack's HTTP servers: bound to 127.0.0.1 only, with the few exchange helpers they share. */
public final class LoopbackHttp {

    static {
        // The JDK's server writes a response's headers and body separately; without TCP_NODELAY the body waits
        // for the client's delayed ACK (about 40 ms a call on Linux) on every Runtime API and HTTP API exchange.
        // Read once, when the process's first server starts: set before any.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private LoopbackHttp() {}

    /** Starts a server on 127.0.0.1:{@code port} (0: a free port) serving every path with {@code handler}. */
    public static HttpServer start(int port, int backlog, HttpHandler handler, ExecutorService executor)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), backlog);
        server.createContext("/", handler);
        server.setExecutor(executor);
        server.start();
        return server;
    }

    public static byte[] body(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            return in.readAllBytes();
        }
    }

    /** Sends the status and body (no body when empty); headers must be set before. */
    public static void write(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
