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
package dev.pulse.push;

import com.google.protobuf.CodedOutputStream;
import io.airlift.compress.snappy.SnappyCompressor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Prometheus remote write requests for tests, encoded by hand per prompb/remote.proto and types.proto. */
final class WriteRequests {

    record Sample(double value, long timestampMillis) {}

    record Series(Map<String, String> labels, List<Sample> samples) {}

    record Metadata(int type, String family) {}

    private WriteRequests() {}

    static byte[] encode(List<Series> series, List<Metadata> metadata) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            CodedOutputStream w = CodedOutputStream.newInstance(out);
            for (Series s : series) {
                w.writeByteArray(1, timeSeries(s));
            }
            for (Metadata m : metadata) {
                ByteArrayOutputStream mo = new ByteArrayOutputStream();
                CodedOutputStream mw = CodedOutputStream.newInstance(mo);
                mw.writeEnum(1, m.type());
                mw.writeString(2, m.family());
                mw.flush();
                w.writeByteArray(3, mo.toByteArray());
            }
            w.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] timeSeries(Series s) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodedOutputStream w = CodedOutputStream.newInstance(out);
        for (Map.Entry<String, String> l : s.labels().entrySet()) {
            ByteArrayOutputStream lo = new ByteArrayOutputStream();
            CodedOutputStream lw = CodedOutputStream.newInstance(lo);
            lw.writeString(1, l.getKey());
            lw.writeString(2, l.getValue());
            lw.flush();
            w.writeByteArray(1, lo.toByteArray());
        }
        for (Sample x : s.samples()) {
            ByteArrayOutputStream so = new ByteArrayOutputStream();
            CodedOutputStream sw = CodedOutputStream.newInstance(so);
            sw.writeDouble(1, x.value());
            sw.writeInt64(2, x.timestampMillis());
            sw.flush();
            w.writeByteArray(2, so.toByteArray());
        }
        w.flush();
        return out.toByteArray();
    }

    static byte[] snappy(byte[] plain) {
        SnappyCompressor c = new SnappyCompressor();
        byte[] out = new byte[c.maxCompressedLength(plain.length)];
        int n = c.compress(plain, 0, plain.length, out, 0, out.length);
        return Arrays.copyOf(out, n);
    }

    static Series series(String name, Map<String, String> labels, long ts, double... values) {
        Map<String, String> all = new java.util.LinkedHashMap<>();
        all.put("__name__", name);
        all.putAll(labels);
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            samples.add(new Sample(values[i], ts + i * 1000L));
        }
        return new Series(all, samples);
    }
}
