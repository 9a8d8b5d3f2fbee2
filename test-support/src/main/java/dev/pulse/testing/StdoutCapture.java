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
package dev.pulse.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Stands in for the Lambda log pipe while handlers run in process: everything printed to System.out (EMF documents,
 * JSON log lines) is counted, the last EMF document kept, and with {@link #keepingText()} the whole text too.
 * {@link #close()} restores System.out. The benchmarks install the counting one for a whole measurement, so that
 * printing still costs what it costs without the output piling up in memory.
 */
public final class StdoutCapture implements AutoCloseable {

    /** Longest line looked at for EMF; a longer one still counts its bytes. */
    private static final int MAX_LINE = 64 * 1024;

    private final PrintStream previous;
    private final ByteArrayOutputStream text;
    private final Set<Thread> writers = new LinkedHashSet<>();
    private long bytes;
    private long emfDocuments;
    private long emfBytes;
    private String lastEmf;

    private StdoutCapture(boolean keepText) {
        this.previous = System.out;
        this.text = keepText ? new ByteArrayOutputStream() : null;
    }

    /** Counts what is printed from now on, keeping only the last EMF document. */
    public static StdoutCapture install() {
        return install(new StdoutCapture(false));
    }

    /** As {@link #install()}, and keeps everything printed for {@link #text()} and {@link #lines()}. */
    public static StdoutCapture keepingText() {
        return install(new StdoutCapture(true));
    }

    /** The lines {@code body} printed to System.out (none: an empty list). */
    public static List<String> lines(Runnable body) {
        try (StdoutCapture capture = keepingText()) {
            body.run();
            return capture.lines();
        }
    }

    private static StdoutCapture install(StdoutCapture c) {
        System.setOut(new PrintStream(c.new LineSink(), true, StandardCharsets.UTF_8));
        return c;
    }

    public synchronized long bytes() {
        return bytes;
    }

    /** Lines that were EMF documents (they carry the {@code "_aws"} metadata key). */
    public synchronized long emfDocuments() {
        return emfDocuments;
    }

    /** Bytes of the EMF lines (newline included); the rest of {@link #bytes()} is log lines. */
    public synchronized long emfBytes() {
        return emfBytes;
    }

    public synchronized String lastEmf() {
        return lastEmf;
    }

    /** Everything printed so far, as UTF-8. */
    public synchronized String text() {
        if (text == null) {
            throw new IllegalStateException("this capture counts only: use StdoutCapture.keepingText()");
        }
        return text.toString(StandardCharsets.UTF_8);
    }

    /** Every thread that printed (kept with the text only: {@link #keepingText()}). */
    public synchronized Set<Thread> writers() {
        text();
        return Set.copyOf(writers);
    }

    /** {@link #text()} split into lines, without the line ends. */
    public List<String> lines() {
        String all = text();
        return all.isEmpty() ? List.of() : List.of(all.split("\n"));
    }

    @Override
    public void close() {
        System.out.flush();
        System.setOut(previous);
    }

    /** Splits the byte stream into lines, holding only the current one (to tell EMF from log lines). */
    private final class LineSink extends OutputStream {
        private final StringBuilder line = new StringBuilder();

        @Override
        public void write(int b) {
            synchronized (StdoutCapture.this) {
                bytes++;
                accept(b);
                if (text != null) {
                    text.write(b);
                    writers.add(Thread.currentThread());
                }
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            synchronized (StdoutCapture.this) {
                bytes += len;
                for (int i = off; i < off + len; i++) {
                    accept(b[i] & 0xff);
                }
                if (text != null) {
                    text.write(b, off, len);
                    writers.add(Thread.currentThread());
                }
            }
        }

        /** One byte as one char: only the ASCII key {@code "_aws"} is looked for. */
        private void accept(int b) {
            if (b == '\n') {
                endLine();
            } else if (line.length() < MAX_LINE) {
                line.append((char) b);
            }
        }

        private void endLine() {
            if (line.indexOf("\"_aws\"") >= 0) {
                emfDocuments++;
                emfBytes += line.length() + 1L;
                lastEmf = line.toString();
            }
            line.setLength(0);
        }
    }
}
