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
package dev.pulse.codec;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import java.util.zip.ZipException;

/**
 * gzip (RFC 1952) for every reader in Pulse: the members of a file or record one after the other, in a loop. The JDK's
 * {@code GZIPInputStream} reads the next member by calling itself, one stack frame per member, so 10,000 empty
 * members (20 bytes each, 200 KB) end in a {@code StackOverflowError} whose depth depends on the thread's stack, not
 * on the bytes. Here each member costs its header and an {@link Inflater#reset}, and at most {@code maxMembers} are
 * read.
 *
 * <p>Checked as the JDK checks: the header's method (8, deflate) and reserved flags, its optional extra field, name,
 * comment and header CRC (FEXTRA, FNAME, FCOMMENT, FHCRC), and every member's CRC32 and ISIZE trailer. Bytes after a
 * member that do not start with the gzip magic end the data, as with the JDK (padding after a file is common). Errors
 * are {@link ZipException} (not gzip, corrupt) and {@link EOFException} (the data stops inside a member), as the
 * JDK's; more members than allowed is {@link TooManyMembers}.
 */
public final class Gunzip {

    private Gunzip() {}

    /** The content of {@code raw}'s gzip members, read in a loop; closing it closes {@code raw}. */
    public static InputStream stream(InputStream raw, int maxMembers) {
        return new Members(raw, maxMembers);
    }

    /**
     * The content of the gzip {@code data}, at most {@code limit} bytes: past it, {@link TooLarge} before more than
     * {@code limit} bytes are held.
     */
    public static byte[] bytes(byte[] data, int limit, int maxMembers) throws IOException {
        try (InputStream in = stream(new ByteArrayInputStream(data), maxMembers)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(limit, Math.max(1024, data.length * 8)));
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                if (out.size() + n > limit) {
                    throw new TooLarge(limit);
                }
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        }
    }

    /** More gzip members than the reader allows. */
    public static final class TooManyMembers extends ZipException {
        private final int limit;

        TooManyMembers(int limit) {
            super("more than " + limit + " gzip members");
            this.limit = limit;
        }

        public int limit() {
            return limit;
        }
    }

    /** The content is longer than {@link #bytes}' limit. */
    public static final class TooLarge extends IOException {
        TooLarge(int limit) {
            super("gzip data inflates to more than " + limit + " bytes");
        }
    }

    private static final class Members extends InputStream {
        private static final int FHCRC = 2;
        private static final int FEXTRA = 4;
        private static final int FNAME = 8;
        private static final int FCOMMENT = 16;
        private static final int RESERVED = 0xe0;

        private final InputStream in;
        private final int maxMembers;
        private final byte[] buf = new byte[8192];
        private int pos;
        private int lim;
        private final Inflater inflater = new Inflater(true);
        private final CRC32 crc = new CRC32();
        private final CRC32 headerCrc = new CRC32();
        private int members;
        private long memberBytes;
        private boolean inMember;
        private boolean done;
        private boolean closed;
        private final byte[] one = new byte[1];

        Members(InputStream in, int maxMembers) {
            this.in = in;
            this.maxMembers = maxMembers;
        }

        @Override
        public int read() throws IOException {
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (closed) {
                throw new IOException("stream closed");
            }
            if (len == 0) {
                return 0;
            }
            // One pass per step (a member's start, a block of content, its trailer): a loop, never a nested call.
            while (!done) {
                if (!inMember) {
                    if (!startMember()) {
                        done = true;
                        break;
                    }
                    continue;
                }
                int n;
                try {
                    n = inflater.inflate(b, off, len);
                } catch (DataFormatException e) {
                    throw new ZipException("invalid deflate data: " + e.getMessage());
                }
                if (n > 0) {
                    crc.update(b, off, n);
                    memberBytes += n;
                    return n;
                }
                if (inflater.finished()) {
                    pos = lim - inflater.getRemaining();
                    trailer();
                    inMember = false;
                } else if (inflater.needsDictionary()) {
                    throw new ZipException("invalid deflate data: a preset dictionary");
                } else if (inflater.needsInput()) {
                    if (!fill()) {
                        throw new EOFException("the gzip data ends inside a member");
                    }
                    inflater.setInput(buf, pos, lim - pos);
                    pos = lim;
                }
            }
            return -1;
        }

        /** Reads the next member's header; false at the end of the data (or bytes that are not a member). */
        private boolean startMember() throws IOException {
            if (members > 0) {
                if (!available(1)) {
                    return false;
                }
                if ((buf[pos] & 0xff) != 0x1f || !available(2) || (buf[pos + 1] & 0xff) != 0x8b) {
                    return false; // not a member: the data ends here, as the JDK reads it
                }
            }
            headerCrc.reset();
            if (headerByte() != 0x1f || headerByte() != 0x8b) {
                throw new ZipException("Not in GZIP format");
            }
            if (++members > maxMembers) {
                throw new TooManyMembers(maxMembers);
            }
            if (headerByte() != 8) {
                throw new ZipException("Unsupported compression method");
            }
            int flags = headerByte();
            if ((flags & RESERVED) != 0) {
                throw new ZipException("reserved gzip header flags set");
            }
            for (int i = 0; i < 6; i++) {
                headerByte(); // MTIME, XFL, OS
            }
            if ((flags & FEXTRA) != 0) {
                int xlen = headerByte() | headerByte() << 8;
                for (int i = 0; i < xlen; i++) {
                    headerByte();
                }
            }
            if ((flags & FNAME) != 0) {
                while (headerByte() != 0) {
                    // the file name, up to its zero byte
                }
            }
            if ((flags & FCOMMENT) != 0) {
                while (headerByte() != 0) {
                    // the comment, up to its zero byte
                }
            }
            if ((flags & FHCRC) != 0) {
                int expected = (int) (headerCrc.getValue() & 0xffff);
                int crc16 = nextByte() | nextByte() << 8;
                if (crc16 != expected) {
                    throw new ZipException("Corrupt GZIP header");
                }
            }
            inflater.reset();
            crc.reset();
            memberBytes = 0;
            inflater.setInput(buf, pos, lim - pos);
            pos = lim;
            inMember = true;
            return true;
        }

        private void trailer() throws IOException {
            long crc32 = nextByte() | (long) nextByte() << 8 | (long) nextByte() << 16 | (long) nextByte() << 24;
            long isize = nextByte() | (long) nextByte() << 8 | (long) nextByte() << 16 | (long) nextByte() << 24;
            if (crc32 != crc.getValue()) {
                throw new ZipException("Corrupt GZIP trailer (CRC32)");
            }
            if (isize != (memberBytes & 0xffffffffL)) {
                throw new ZipException("Corrupt GZIP trailer (ISIZE)");
            }
        }

        private int headerByte() throws IOException {
            int b = nextByte();
            headerCrc.update(b);
            return b;
        }

        private int nextByte() throws IOException {
            if (pos >= lim && !fill()) {
                throw new EOFException("the gzip data ends inside a member");
            }
            return buf[pos++] & 0xff;
        }

        /** Whether {@code n} (1 or 2) unread bytes are in the buffer, reading more (keeping the unread ones) if needed. */
        private boolean available(int n) throws IOException {
            if (lim - pos >= n) {
                return true;
            }
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            lim -= pos;
            pos = 0;
            while (lim < n) {
                int r = in.read(buf, lim, buf.length - lim);
                if (r < 0) {
                    return false;
                }
                lim += r;
            }
            return true;
        }

        /** Reads more input into the empty buffer; false at the end of the input. */
        private boolean fill() throws IOException {
            int r;
            do {
                r = in.read(buf, 0, buf.length);
            } while (r == 0);
            if (r < 0) {
                pos = lim = 0;
                return false;
            }
            pos = 0;
            lim = r;
            return true;
        }

        @Override
        public void close() throws IOException {
            if (!closed) {
                closed = true;
                inflater.end();
                in.close();
            }
        }
    }
}
