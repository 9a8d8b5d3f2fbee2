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
package dev.pulse.local.emulator;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A server process a test starts on 127.0.0.1: launched, awaited until its port accepts connections, and
 * stopped through its own process handle (by PID, never by name).
 */
public final class LocalServer implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path log;
    private final boolean ownLog;

    private LocalServer(Process process, int port, Path log, boolean ownLog) {
        this.process = process;
        this.port = port;
        this.log = log;
        this.ownLog = ownLog;
    }

    /** Starts {@code command} (which must listen on {@code port}) and waits up to {@code timeout} for it. */
    public static LocalServer start(String name, List<String> command, int port, Duration timeout) throws Exception {
        return start(name, new ProcessBuilder(command), port, timeout, null);
    }

    /**
     * As above, from a prepared {@code builder} (working directory, environment); its output goes to {@code log},
     * which is kept, or (null) to a temporary file deleted on {@link #close()}.
     */
    public static LocalServer start(String name, ProcessBuilder builder, int port, Duration timeout, Path log)
            throws Exception {
        // Something already listening would pass the readiness check below while our process fails to bind:
        // the caller would then talk to a stranger (another stack, an orphan of a killed run).
        if (listening(port)) {
            throw new IllegalStateException(name + ": 127.0.0.1:" + port + " is already in use by another process");
        }
        boolean ownLog = log == null;
        Path out = ownLog ? Files.createTempFile(name + "-", ".log") : log;
        Process p =
                builder.redirectErrorStream(true).redirectOutput(out.toFile()).start();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!listening(port)) {
            if (!p.isAlive()) {
                throw new IllegalStateException(name + " exited with " + p.exitValue() + ": " + Files.readString(out));
            }
            if (System.nanoTime() > deadline) {
                stop(p);
                throw new IllegalStateException(name + " did not listen on 127.0.0.1:" + port + " within " + timeout
                        + ": " + Files.readString(out));
            }
            Thread.sleep(50);
        }
        Thread.sleep(100);
        if (!p.isAlive()) {
            throw new IllegalStateException(name + " exited with " + p.exitValue() + " while 127.0.0.1:" + port
                    + " accepted connections (another process holds it?): " + Files.readString(out));
        }
        return new LocalServer(p, port, out, ownLog);
    }

    /**
     * Stops {@code p} by its handle and then whatever it started that outlived it (a server that runs helpers,
     * as LocalStack runs DynamoDB Local and kinesis-mock, would otherwise leave them orphaned if it died first).
     */
    static void stop(Process p) throws InterruptedException {
        List<ProcessHandle> children = p.descendants().toList();
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        for (ProcessHandle c : children) {
            if (c.isAlive()) {
                c.destroy();
                try {
                    c.onExit().get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    c.destroyForcibly();
                }
            }
        }
    }

    /** The file the server's output goes to. */
    public Path log() {
        return log;
    }

    /** Whether the process is still running. */
    public boolean alive() {
        return process.isAlive();
    }

    /** The server process and everything it started, by PID. */
    public List<Long> pids() {
        List<Long> out = new java.util.ArrayList<>();
        out.add(process.pid());
        process.descendants().forEach(h -> out.add(h.pid()));
        return out;
    }

    static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public long pid() {
        return process.pid();
    }

    public int port() {
        return port;
    }

    @Override
    public void close() throws Exception {
        stop(process);
        if (ownLog) {
            Files.deleteIfExists(log);
        }
    }
}
