package dev.pulse.bench.internal;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stands in for the Lambda log pipe while handlers run in process: what they print (EMF documents, JSON log
 * lines) is counted and dropped, except the last EMF document, which the benchmarks check. Installed for the
 * whole measurement so that printing still costs what it costs; {@link #close()} restores System.out.
 */
public final class StdoutCapture implements AutoCloseable {

    private final PrintStream previous;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong emfDocuments = new AtomicLong();
    private final AtomicLong emfBytes = new AtomicLong();
    private volatile String lastEmf;

    private StdoutCapture() {
        this.previous = System.out;
    }

    public static StdoutCapture install() {
        StdoutCapture c = new StdoutCapture();
        System.setOut(new PrintStream(new LineSink(c), true, StandardCharsets.UTF_8));
        return c;
    }

    public long bytes() {
        return bytes.get();
    }

    /** Lines that were EMF documents (they carry the {@code "_aws"} metadata key). */
    public long emfDocuments() {
        return emfDocuments.get();
    }

    /** Bytes of the EMF lines (newline included); the rest of {@link #bytes()} is log lines. */
    public long emfBytes() {
        return emfBytes.get();
    }

    public String lastEmf() {
        return lastEmf;
    }

    @Override
    public void close() {
        System.out.flush();
        System.setOut(previous);
    }

    /** Splits the byte stream into lines without keeping them (only EMF lines are looked at). */
    private static final class LineSink extends OutputStream {
        private final StdoutCapture owner;
        private final StringBuilder line = new StringBuilder();

        LineSink(StdoutCapture owner) {
            this.owner = owner;
        }

        @Override
        public synchronized void write(int b) {
            owner.bytes.incrementAndGet();
            if (b == '\n') {
                endLine();
            } else if (line.length() < 64 * 1024) {
                line.append((char) b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            owner.bytes.addAndGet(len);
            for (int i = off; i < off + len; i++) {
                if (b[i] == '\n') {
                    endLine();
                } else if (line.length() < 64 * 1024) {
                    line.append((char) (b[i] & 0xff));
                }
            }
        }

        private void endLine() {
            if (line.indexOf("\"_aws\"") >= 0) {
                owner.emfDocuments.incrementAndGet();
                owner.emfBytes.addAndGet(line.length() + 1L);
                owner.lastEmf = line.toString();
            }
            line.setLength(0);
        }
    }
}
