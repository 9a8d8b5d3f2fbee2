package dev.pulse.local.emulator;

import java.io.IOException;
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

    private LocalServer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts {@code command} (which must listen on {@code port}) and waits up to {@code timeout} for it. */
    public static LocalServer start(String name, List<String> command, int port, Duration timeout) throws Exception {
        // Something already listening would pass the readiness check below while our process fails to bind:
        // the caller would then talk to a stranger (another stack, an orphan of a killed run).
        if (listening(port)) {
            throw new IllegalStateException(name + ": 127.0.0.1:" + port + " is already in use by another process");
        }
        Path log = Files.createTempFile(name + "-", ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!listening(port)) {
            if (!p.isAlive()) {
                throw new IllegalStateException(name + " exited with " + p.exitValue() + ": " + Files.readString(log));
            }
            if (System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IllegalStateException(name + " did not listen on 127.0.0.1:" + port + " within " + timeout
                        + ": " + Files.readString(log));
            }
            Thread.sleep(50);
        }
        Thread.sleep(100);
        if (!p.isAlive()) {
            throw new IllegalStateException(name + " exited with " + p.exitValue() + " while 127.0.0.1:" + port
                    + " accepted connections (another process holds it?): " + Files.readString(log));
        }
        return new LocalServer(p, port, log);
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
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
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(log);
    }
}
