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
package dev.pulse.store.codec;

import dev.pulse.aggregate.Counter;
import dev.pulse.aggregate.ExactSum;
import dev.pulse.aggregate.Sketches;
import dev.pulse.aggregate.Summary;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
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
 *
 * <p>A cumulative counter's summary carries its {@link Counter} after the sketch: a flags byte ({@code 0x80} set, so
 * never 0; {@code 0x01} one sample, {@code 0x02} start times present, {@code 0x04} the one sample's value is the
 * summary's single value and is not repeated), the first sample's time (varint, epoch ms), value (8 bytes, unless
 * {@code 0x04}) and start time (varint, epoch ns, with {@code 0x02}); then, unless one sample, the last sample's time
 * less the first's (zigzag varint), its value, its start time less the first's (zigzag varint, with {@code 0x02}), the
 * resets (varint) and the increase's exact-sum partials (varint n, n doubles). A single summary ({@code s} of a partial)
 * simply ends there; a bucket list with any counter is version 2, where each bucket's summary is followed by its
 * counter or a 0 byte, and a counter after another is written against the one before: {@code 0x08}, its first time
 * as the zigzag varint from the previous counter's last time (a few bytes, not six), {@code 0x10}, its first start time
 * equal to the previous counter's last (omitted: a writer that did not restart), which keeps an hour of OTLP counter
 * minutes about 11 bytes a minute smaller. {@code 0x20}: no resets, so the increase is exactly {@code last - first}
 * (the joins telescope, and the exact sum keeps it exact): the resets and the increase are not written. Summaries without a counter (gauges, deltas) are encoded exactly as before (no byte more), and
 * everything written before decodes as it did: no trailer, bucket list version 1.
 */
public final class SummaryCodec {

    private static final byte BUCKETS_V1 = 1;
    /** A bucket list where each summary is followed by its counter or a 0 byte. */
    private static final byte BUCKETS_V2 = 2;

    private static final int COUNTER_PRESENT = 0x80;
    private static final int COUNTER_SINGLE = 0x01;
    private static final int COUNTER_STARTS = 0x02;
    private static final int COUNTER_VALUE_IS_SUMMARY = 0x04;
    private static final int COUNTER_TIME_FROM_PREVIOUS = 0x08;
    private static final int COUNTER_START_AS_PREVIOUS = 0x10;
    private static final int COUNTER_NO_RESETS = 0x20;

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

    private SummaryCodec() {}

    public static byte[] encode(Summary s) {
        Out out = new Out(64);
        write(out, s);
        Counter c = s.counter();
        if (c != null) {
            writeCounter(out, s, c, null);
        }
        return out.bytes();
    }

    /** Decodes; the sketch stays encoded ({@link Summary#withEncodedSketch}) or is left out without {@code withSketch}. */
    public static Summary decode(byte[] bytes, boolean withSketch) {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        Summary s = read(in, withSketch);
        if (in.hasRemaining()) {
            s.restoreCounter(readCounter(in, Byte.toUnsignedInt(in.get()), s, null));
        }
        return s;
    }

    /** The bucket list of a rollup, its sketches within {@link #ROLLUP_SKETCH_BYTES} together. */
    public static byte[] encodeBuckets(SortedMap<Integer, Summary> buckets) {
        Out out = new Out(64 * buckets.size() + 1);
        Map<Integer, Counter> counters = new HashMap<>();
        buckets.forEach((i, s) -> {
            Counter c = s.counter();
            if (c != null) {
                counters.put(i, c);
            }
        });
        boolean withCounters = !counters.isEmpty();
        out.b.put(withCounters ? BUCKETS_V2 : BUCKETS_V1);
        int sketchBytes = buckets.isEmpty() ? 0 : ROLLUP_SKETCH_BYTES / buckets.size();
        Counter[] previous = new Counter[1];
        buckets.forEach((i, s) -> {
            if (i < 0 || i > 255) {
                throw new IllegalArgumentException("bucket index out of range: " + i);
            }
            out.ensure(1);
            out.b.put((byte) (int) i);
            write(out, s, sketchBytes);
            if (withCounters) {
                Counter c = counters.get(i);
                if (c == null) {
                    out.ensure(1);
                    out.b.put((byte) 0);
                } else {
                    writeCounter(out, s, c, previous[0]);
                    previous[0] = c;
                }
            }
        });
        return out.bytes();
    }

    public static SortedMap<Integer, Summary> decodeBuckets(byte[] bytes, boolean withSketch) {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        byte version = in.get();
        if (version != BUCKETS_V1 && version != BUCKETS_V2) {
            throw new IllegalArgumentException("unknown bucket encoding version " + version);
        }
        SortedMap<Integer, Summary> out = new TreeMap<>();
        Counter previous = null;
        while (in.hasRemaining()) {
            int index = Byte.toUnsignedInt(in.get());
            Summary s = read(in, withSketch);
            if (version == BUCKETS_V2) {
                int flags = Byte.toUnsignedInt(in.get());
                if (flags != 0) {
                    previous = readCounter(in, flags, s, previous);
                    s.restoreCounter(previous);
                }
            }
            out.put(index, s);
        }
        return out;
    }

    /** {@code previous}: the counter written before in the same bucket list, or null. */
    private static void writeCounter(Out out, Summary s, Counter c, Counter previous) {
        boolean single = c.isSingleSample();
        boolean starts = c.firstStart() != 0 || c.lastStart() != 0;
        boolean valueIsSummary = single && s.count() == 1 && Double.compare(s.min(), c.firstValue()) == 0;
        boolean startAsPrevious = starts && previous != null && c.firstStart() == previous.lastStart();
        boolean noResets = !single && c.resets() == 0;
        int flags = COUNTER_PRESENT
                | (single ? COUNTER_SINGLE : 0)
                | (starts ? COUNTER_STARTS : 0)
                | (noResets ? COUNTER_NO_RESETS : 0)
                | (valueIsSummary ? COUNTER_VALUE_IS_SUMMARY : 0)
                | (previous != null ? COUNTER_TIME_FROM_PREVIOUS : 0)
                | (startAsPrevious ? COUNTER_START_AS_PREVIOUS : 0);
        out.ensure(1);
        out.b.put((byte) flags);
        out.varint(previous != null ? zigzag(c.firstTime() - previous.lastTime()) : c.firstTime());
        if (!valueIsSummary) {
            out.ensure(8);
            out.b.putDouble(c.firstValue());
        }
        if (starts && !startAsPrevious) {
            out.varint(c.firstStart());
        }
        if (single) {
            return;
        }
        out.varint(zigzag(c.lastTime() - c.firstTime()));
        out.ensure(8);
        out.b.putDouble(c.lastValue());
        if (starts) {
            out.varint(zigzag(c.lastStart() - c.firstStart()));
        }
        if (noResets) {
            return;
        }
        out.varint(c.resets());
        double[] parts = c.exactIncrease().parts();
        out.varint(parts.length);
        out.ensure(8 * parts.length);
        for (double p : parts) {
            out.b.putDouble(p);
        }
    }

    private static Counter readCounter(ByteBuffer in, int flags, Summary s, Counter previous) {
        if ((flags & COUNTER_PRESENT) == 0) {
            throw new IllegalArgumentException("not a counter: flags " + flags);
        }
        boolean relative = (flags & COUNTER_TIME_FROM_PREVIOUS) != 0;
        if ((flags & (COUNTER_TIME_FROM_PREVIOUS | COUNTER_START_AS_PREVIOUS)) != 0 && previous == null) {
            throw new IllegalArgumentException("a counter relative to none before it");
        }
        long firstTime = relative ? previous.lastTime() + unzigzag(varint(in)) : varint(in);
        double firstValue = (flags & COUNTER_VALUE_IS_SUMMARY) != 0 ? s.min() : in.getDouble();
        boolean starts = (flags & COUNTER_STARTS) != 0;
        long firstStart = !starts ? 0 : (flags & COUNTER_START_AS_PREVIOUS) != 0 ? previous.lastStart() : varint(in);
        if ((flags & COUNTER_SINGLE) != 0) {
            return Counter.of(firstTime, firstStart, firstValue, firstTime, firstStart, firstValue, new ExactSum(), 0);
        }
        long lastTime = firstTime + unzigzag(varint(in));
        double lastValue = in.getDouble();
        long lastStart = starts ? firstStart + unzigzag(varint(in)) : 0;
        if ((flags & COUNTER_NO_RESETS) != 0) {
            ExactSum inc = new ExactSum();
            inc.add(lastValue);
            inc.add(-firstValue);
            return Counter.of(firstTime, firstStart, firstValue, lastTime, lastStart, lastValue, inc, 0);
        }
        long resets = varint(in);
        long n = varint(in);
        ExactSum inc = new ExactSum();
        for (long i = 0; i < n; i++) {
            inc.add(in.getDouble());
        }
        return Counter.of(firstTime, firstStart, firstValue, lastTime, lastStart, lastValue, inc, resets);
    }

    private static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    private static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
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
        byte[] sketch = Arrays.copyOfRange(
                in.array(), in.arrayOffset() + in.position(), in.arrayOffset() + in.position() + length);
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
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(b.capacity() * 2, b.position() + n))
                        .order(ByteOrder.LITTLE_ENDIAN);
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
