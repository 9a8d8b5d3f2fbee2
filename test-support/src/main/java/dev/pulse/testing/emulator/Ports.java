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
package dev.pulse.testing.emulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free loopback ports for the servers a test starts. */
public final class Ports {

    private Ports() {}

    /**
     * A port held until {@link #close()}: a port picked free and bound only later (after the function
     * environments are configured with it) could meanwhile be taken by a server the stack starts on an ephemeral
     * port of its own (LocalStack's DynamoDB Local and kinesis-mock do), and its bind would fail.
     */
    public static final class Reservation implements AutoCloseable {
        private final int port;
        private final ServerSocket held;

        private Reservation(int port, ServerSocket held) {
            this.port = port;
            this.held = held;
        }

        public int port() {
            return port;
        }

        /** Frees the port for its server, which binds it next. */
        @Override
        public void close() {
            if (held != null) {
                try {
                    held.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    /** {@code port}, or a free one held until the reservation is closed when {@code port} is 0. */
    public static Reservation reserve(int port) {
        if (port != 0) {
            return new Reservation(port, null);
        }
        try {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
            return new Reservation(s.getLocalPort(), s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static int free() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
