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

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Kinesis Producer Library's aggregated record format: magic {@code F3 89 9A C2}, a protobuf
 * {@code AggregatedRecord} ({@code partition_key_table = 1}, {@code explicit_hash_key_table = 2},
 * {@code records = 3} of {@code Record}: {@code partition_key_index = 1}, {@code explicit_hash_key_index = 2},
 * {@code data = 3}, {@code tags = 4}), then the 16-byte MD5 of the protobuf body.
 *
 * <p>Hand-written rather than the KCL's {@code AggregatorUtil}: the KCL 3.1.2 with its dependencies is 125 jars,
 * 71 MB (an older SDK, Kotlin, Kafka clients, Glue schema registry, Netty), and even its own jar plus protobuf-java
 * is 2.6 MB against this layer's 137 KB. The message is five fields; reading it needs varints and
 * length-delimited fields only (docs/design.md, "KPL aggregation"). The writer is here too, for the load
 * generator and tests; the decoder tests check both against aggregates made by the Python {@code aws-kinesis-agg}.
 */
public final class KplAggregate {

    /** The four bytes every aggregate starts with. */
    static final byte[] MAGIC = {(byte) 0xF3, (byte) 0x89, (byte) 0x9A, (byte) 0xC2};

    static final int DIGEST_BYTES = 16;
    /** Magic and digest: what an aggregate costs beyond its protobuf. */
    public static final int OVERHEAD_BYTES = MAGIC.length + DIGEST_BYTES;

    /**
     * One user record of an aggregate.
     *
     * @param subSequence  its index in the aggregate (the KCL's sub-sequence number)
     * @param partitionKey its own partition key, from the aggregate's table
     * @param data         its data
     */
    public record UserRecord(int subSequence, String partitionKey, byte[] data) {}

    private KplAggregate() {}

    /** True when {@code data} starts with the aggregate magic (it may still be corrupt). */
    public static boolean isAggregate(byte[] data) {
        if (data == null || data.length < MAGIC.length) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (data[i] != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The user records of an aggregate, in order. Throws {@link DecodeException} naming what is wrong when the
     * digest does not match or the protobuf is malformed: the KCL passes such a record on as a plain one, but here
     * it would only become a confusing JSON error, so the reason says what it is.
     */
    public static List<UserRecord> read(byte[] data) throws DecodeException {
        if (!isAggregate(data)) {
            throw new DecodeException("KPL aggregate: missing magic bytes F3 89 9A C2");
        }
        if (data.length < OVERHEAD_BYTES) {
            throw new DecodeException("KPL aggregate: " + data.length + " bytes, shorter than its magic and MD5");
        }
        int end = data.length - DIGEST_BYTES;
        byte[] digest = md5(data, MAGIC.length, end - MAGIC.length);
        if (!Arrays.equals(digest, 0, DIGEST_BYTES, data, end, data.length)) {
            throw new DecodeException("KPL aggregate: MD5 of the protobuf body does not match its trailer");
        }
        Reader in = new Reader(data, MAGIC.length, end);
        List<String> keys = new ArrayList<>();
        List<long[]> refs = new ArrayList<>(); // per record: partition key index, or -1 when absent
        List<byte[]> datas = new ArrayList<>();
        while (in.more()) {
            long tag = in.varint();
            int field = (int) (tag >>> 3);
            int wire = (int) (tag & 7);
            if (field == 1 && wire == 2) {
                keys.add(new String(in.bytes(), StandardCharsets.UTF_8));
            } else if (field == 2 && wire == 2) {
                in.bytes(); // an explicit hash key: Kinesis routed the aggregate by it, the records need it not
            } else if (field == 3 && wire == 2) {
                int len = in.length();
                Reader r = new Reader(data, in.pos, in.pos + len);
                in.pos += len;
                long pk = -1;
                boolean hasPk = false;
                byte[] d = null;
                while (r.more()) {
                    long t = r.varint();
                    int f = (int) (t >>> 3);
                    int w = (int) (t & 7);
                    if (f == 1 && w == 0) {
                        pk = r.varint();
                        hasPk = true;
                    } else if (f == 2 && w == 0) {
                        long ehk = r.varint();
                        if (ehk < 0 || ehk >= Integer.MAX_VALUE) {
                            throw new DecodeException("KPL aggregate: record #" + refs.size()
                                    + " has an invalid explicit hash key index " + ehk);
                        }
                    } else if (f == 3 && w == 2) {
                        d = r.bytes();
                    } else {
                        r.skip(w); // tags (4) and fields added later: not needed to decode the data
                    }
                }
                if (!hasPk || d == null) {
                    throw new DecodeException("KPL aggregate: record #" + refs.size() + " lacks its required "
                            + (!hasPk ? "partition_key_index" : "data"));
                }
                refs.add(new long[] {pk});
                datas.add(d);
            } else {
                in.skip(wire);
            }
        }
        if (refs.isEmpty()) {
            throw new DecodeException("KPL aggregate: no user records");
        }
        List<UserRecord> out = new ArrayList<>(refs.size());
        for (int i = 0; i < refs.size(); i++) {
            long pk = refs.get(i)[0];
            if (pk < 0 || pk >= keys.size()) { // a uint64 index of 2^63 or more reads as negative
                throw new DecodeException("KPL aggregate: record #" + i + " names partition key #"
                        + Long.toUnsignedString(pk) + " of " + keys.size());
            }
            out.add(new UserRecord(i, keys.get((int) pk), datas.get(i)));
        }
        return out;
    }

    /**
     * Builds one aggregate of {@code records} (partition key, data), in order. The load generator's producer
     * side; explicit hash keys are not written (the aggregate goes to its first record's shard, as the KPL's
     * does when it is not told the shard map).
     */
    public static byte[] write(List<Map.Entry<String, byte[]>> records) {
        Map<String, Integer> keyIndex = new LinkedHashMap<>();
        ByteArrayOutputStream body = new ByteArrayOutputStream(records.size() * 64 + 64);
        ByteArrayOutputStream rec = new ByteArrayOutputStream(256);
        for (Map.Entry<String, byte[]> r : records) {
            keyIndex.putIfAbsent(r.getKey(), keyIndex.size());
        }
        for (String k : keyIndex.keySet()) {
            writeBytes(body, 1, k.getBytes(StandardCharsets.UTF_8));
        }
        for (Map.Entry<String, byte[]> r : records) {
            rec.reset();
            writeVarint(rec, 1 << 3);
            writeVarint(rec, keyIndex.get(r.getKey()));
            writeBytes(rec, 3, r.getValue());
            writeBytes(body, 3, rec.toByteArray());
        }
        byte[] pb = body.toByteArray();
        byte[] out = new byte[MAGIC.length + pb.length + DIGEST_BYTES];
        System.arraycopy(MAGIC, 0, out, 0, MAGIC.length);
        System.arraycopy(pb, 0, out, MAGIC.length, pb.length);
        System.arraycopy(md5(pb, 0, pb.length), 0, out, MAGIC.length + pb.length, DIGEST_BYTES);
        return out;
    }

    /**
     * What one more user record adds to an aggregate's size, at most: its {@code Record} (index, data) and, when
     * its key is new, the key's table entry. The load generator packs records by this bound.
     */
    public static int recordCost(String partitionKey, int dataLength, boolean newKey) {
        int keyLen = partitionKey.getBytes(StandardCharsets.UTF_8).length;
        int inner = 1 + varintSize(Integer.MAX_VALUE) + 1 + varintSize(dataLength) + dataLength;
        int cost = 1 + varintSize(inner) + inner;
        return newKey ? cost + 1 + varintSize(keyLen) + keyLen : cost;
    }

    private static void writeBytes(ByteArrayOutputStream out, int field, byte[] b) {
        writeVarint(out, (field << 3) | 2);
        writeVarint(out, b.length);
        out.write(b, 0, b.length);
    }

    private static void writeVarint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private static int varintSize(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private static byte[] md5(byte[] b, int off, int len) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            md.update(b, off, len);
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every JVM", e);
        }
    }

    /** Protobuf wire reading over a slice, with every length checked against the slice. */
    private static final class Reader {
        private final byte[] b;
        private final int end;
        int pos;

        Reader(byte[] b, int pos, int end) {
            this.b = b;
            this.pos = pos;
            this.end = end;
        }

        boolean more() {
            return pos < end;
        }

        long varint() throws DecodeException {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (pos >= end) {
                    throw new DecodeException("KPL aggregate: protobuf truncated inside a varint at byte " + pos);
                }
                byte x = b[pos++];
                v |= (long) (x & 0x7F) << shift;
                if (x >= 0) {
                    return v;
                }
            }
            throw new DecodeException("KPL aggregate: protobuf varint longer than 10 bytes at byte " + pos);
        }

        int length() throws DecodeException {
            long len = varint();
            if (len < 0 || len > end - pos) {
                throw new DecodeException("KPL aggregate: protobuf length " + len + " at byte " + pos
                        + " runs past the body (" + (end - pos) + " bytes left)");
            }
            return (int) len;
        }

        byte[] bytes() throws DecodeException {
            int len = length();
            byte[] out = Arrays.copyOfRange(b, pos, pos + len);
            pos += len;
            return out;
        }

        void skip(int wire) throws DecodeException {
            switch (wire) {
                case 0 -> varint();
                case 1 -> advance(8);
                case 2 -> {
                    int n = length(); // length() moves pos past the length varint first
                    pos += n;
                }
                case 5 -> advance(4);
                default ->
                    throw new DecodeException(
                            "KPL aggregate: protobuf wire type " + wire + " at byte " + pos + " is not valid here");
            }
        }

        private void advance(int n) throws DecodeException {
            if (n > end - pos) {
                throw new DecodeException("KPL aggregate: protobuf truncated at byte " + pos);
            }
            pos += n;
        }
    }
}
