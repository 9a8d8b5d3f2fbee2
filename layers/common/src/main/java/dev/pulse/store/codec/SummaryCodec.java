package dev.pulse.store.codec;

import dev.pulse.aggregate.ExactSum;
import dev.pulse.aggregate.Sketches;
import dev.pulse.aggregate.Summary;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The stored form of summaries: one binary value instead of six named attributes. DynamoDB bills attribute
 * names and numbers-as-decimal-text by the byte, and in a rollup they were most of the item (a 60-minute
 * hourly item with one value a minute: 6.1 KB as named attributes, about 1.3 KB here).
 *
 * <p>A summary is {@code count} (varint); then either, for a single value, that value (8 bytes: it is the min,
 * the max and the exact sum), or {@code min}, {@code max} (8 bytes each) and the exact sum's non-overlapping
 * partials (varint n, n doubles); then the sketch (varint length, sketches-java's encoding without its index
 * mapping, which every Pulse sketch shares: {@link Sketches}). All numbers little-endian. A bucket list (a
 * rollup's minutes or hours) is a version byte, then per bucket its index (one byte) and its summary.
 */
public final class SummaryCodec {

    private static final byte BUCKETS_V1 = 1;

    /** DynamoDB's limit on an item's size (attribute names and values). */
    public static final int MAX_ITEM_BYTES = 400 * 1024;

    /**
     * What the sketches of one rollup item may take together. A sketch is at most ~36 KB encoded (2 x
     * {@link Sketches#MAX_BINS} bins with counts near 2^53), so 60 worst-case minutes would be 2.1 MB; each bucket's
     * sketch gets {@code ROLLUP_SKETCH_BYTES / buckets} (6 KB of an hour's 60 minutes, 15 KB of a day's 24 hours) and
     * is collapsed to fit ({@link Sketches#serializeWithin}) only when it is larger. The rest of a rollup (keys, series,
     * per bucket count, min, max and up to 40 exact-sum partials) is under 40 KB, so every rollup fits in
     * {@link #MAX_ITEM_BYTES}.
     */
    public static final int ROLLUP_SKETCH_BYTES = 360 * 1024;

    private SummaryCodec() {
    }

    public static byte[] encode(Summary s) {
        Out out = new Out(64);
        write(out, s);
        return out.bytes();
    }

    /** Decodes; the sketch stays encoded ({@link Summary#withEncodedSketch}) or is left out without {@code withSketch}. */
    public static Summary decode(byte[] bytes, boolean withSketch) {
        return read(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN), withSketch);
    }

    /** The bucket list of a rollup, its sketches within {@link #ROLLUP_SKETCH_BYTES} together. */
    public static byte[] encodeBuckets(SortedMap<Integer, Summary> buckets) {
        Out out = new Out(64 * buckets.size() + 1);
        out.b.put(BUCKETS_V1);
        int sketchBytes = buckets.isEmpty() ? 0 : ROLLUP_SKETCH_BYTES / buckets.size();
        buckets.forEach((i, s) -> {
            if (i < 0 || i > 255) {
                throw new IllegalArgumentException("bucket index out of range: " + i);
            }
            out.ensure(1);
            out.b.put((byte) (int) i);
            write(out, s, sketchBytes);
        });
        return out.bytes();
    }

    public static SortedMap<Integer, Summary> decodeBuckets(byte[] bytes, boolean withSketch) {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        byte version = in.get();
        if (version != BUCKETS_V1) {
            throw new IllegalArgumentException("unknown bucket encoding version " + version);
        }
        SortedMap<Integer, Summary> out = new TreeMap<>();
        while (in.hasRemaining()) {
            int index = Byte.toUnsignedInt(in.get());
            out.put(index, read(in, withSketch));
        }
        return out;
    }

    private static void write(Out out, Summary s) {
        write(out, s, Integer.MAX_VALUE);
    }

    private static void write(Out out, Summary s, int maxSketchBytes) {
        out.varint(s.count());
        if (s.count() == 1) {
            out.ensure(8);
            out.b.putDouble(s.min());
        } else {
            double[] parts = s.exactSum().parts();
            out.ensure(16);
            out.b.putDouble(s.min()).putDouble(s.max());
            out.varint(parts.length);
            out.ensure(8 * parts.length);
            for (double p : parts) {
                out.b.putDouble(p);
            }
        }
        byte[] sketch = s.encodedSketch() != null ? s.encodedSketch() : Sketches.serialize(s.sketch());
        if (sketch.length > maxSketchBytes) {
            sketch = Sketches.serializeWithin(s.sketch(), maxSketchBytes);
        }
        out.varint(sketch.length);
        out.ensure(sketch.length);
        out.b.put(sketch);
    }

    private static Summary read(ByteBuffer in, boolean withSketch) {
        long count = varint(in);
        double min;
        double max;
        ExactSum sum = new ExactSum();
        if (count == 1) {
            min = in.getDouble();
            max = min;
            sum.add(min);
        } else {
            min = in.getDouble();
            max = in.getDouble();
            long n = varint(in);
            for (long i = 0; i < n; i++) {
                sum.add(in.getDouble());
            }
        }
        int length = (int) varint(in);
        if (!withSketch) {
            in.position(in.position() + length);
            return new Summary(count, sum, min, max, null);
        }
        byte[] sketch = Arrays.copyOfRange(in.array(), in.arrayOffset() + in.position(), in.arrayOffset() + in.position() + length);
        in.position(in.position() + length);
        return Summary.withEncodedSketch(count, sum, min, max, sketch);
    }

    private static long varint(ByteBuffer in) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = in.get();
            v |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                return v;
            }
        }
        throw new IllegalArgumentException("varint too long");
    }

    /** A growing little-endian buffer. */
    private static final class Out {
        ByteBuffer b;

        Out(int capacity) {
            b = ByteBuffer.allocate(Math.max(16, capacity)).order(ByteOrder.LITTLE_ENDIAN);
        }

        void ensure(int n) {
            if (b.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(b.capacity() * 2, b.position() + n)).order(ByteOrder.LITTLE_ENDIAN);
                b.flip();
                bigger.put(b);
                b = bigger;
            }
        }

        void varint(long v) {
            ensure(10);
            while ((v & ~0x7fL) != 0) {
                b.put((byte) ((v & 0x7f) | 0x80));
                v >>>= 7;
            }
            b.put((byte) v);
        }

        byte[] bytes() {
            return Arrays.copyOf(b.array(), b.position());
        }
    }
}
