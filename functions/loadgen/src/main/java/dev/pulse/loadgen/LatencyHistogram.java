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
package dev.pulse.loadgen;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * Put latencies in microseconds (HdrHistogram, 3 significant digits, up to one hour), with the compressed
 * form workers return to the coordinator. Merging histograms gives exactly the histogram of the pooled
 * samples, so merged percentiles are the percentiles of all workers' samples at HdrHistogram's precision.
 */
public final class LatencyHistogram {

    private static final long MAX_MICROS = 3_600_000_000L;
    private final Histogram histogram;

    public LatencyHistogram() {
        this(new Histogram(1, MAX_MICROS, 3));
    }

    /**
     * A small histogram for one second of a run's report (2 significant digits, up to ten minutes): about 20 KB
     * instead of the full one's 180 KB, so a 15-minute run's per-second percentiles stay a few MB.
     */
    public static LatencyHistogram coarse() {
        return new LatencyHistogram(new Histogram(1, 600_000_000L, 2));
    }

    private LatencyHistogram(Histogram histogram) {
        this.histogram = histogram;
    }

    public synchronized void recordMicros(long micros) {
        histogram.recordValue(Math.max(1, Math.min(histogram.getHighestTrackableValue(), micros)));
    }

    public synchronized void merge(LatencyHistogram other) {
        histogram.add(other.histogram);
    }

    public synchronized long count() {
        return histogram.getTotalCount();
    }

    /** The value at percentile {@code p} (0-100), in milliseconds; 0 when empty. */
    public synchronized double percentileMillis(double p) {
        return histogram.getTotalCount() == 0 ? 0 : histogram.getValueAtPercentile(p) / 1000.0;
    }

    public synchronized double maxMillis() {
        return histogram.getTotalCount() == 0 ? 0 : histogram.getMaxValue() / 1000.0;
    }

    /** Compressed and base64-encoded, for a worker's response. */
    public synchronized String encode() {
        ByteBuffer buf = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int n = histogram.encodeIntoCompressedByteBuffer(buf);
        byte[] bytes = new byte[n];
        buf.flip();
        buf.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    public static LatencyHistogram decode(String encoded) {
        try {
            return new LatencyHistogram(Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(Base64.getDecoder().decode(encoded)), 1));
        } catch (DataFormatException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not an encoded latency histogram", e);
        }
    }
}
