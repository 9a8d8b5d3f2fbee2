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

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.airlift.compress.MalformedInputException;
import io.airlift.compress.snappy.SnappyDecompressor;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A Prometheus remote write 1.0 request: a snappy block-compressed protobuf {@code WriteRequest}
 * (prometheus/prompb/remote.proto, types.proto), turned into the OTLP metrics ingest already decodes, so remote write
 * reaches storage through the same path as every other input. The mapping (docs/otlp-input.md, "Prometheus remote
 * write"):
 * <ul>
 *   <li>each {@code TimeSeries} becomes one OTLP metric named by its {@code __name__} label, the other labels its data
 *       point attributes (a label with an empty value is absent, as in Prometheus), each sample one data point at the
 *       sample's millisecond time;</li>
 *   <li>a series whose family the request's metadata calls a counter, or, without metadata, whose name ends in
 *       {@code _total}, is a monotonic cumulative sum (kind {@code counter}); every other series is a gauge. Either
 *       way the stored datapoints are the samples; the kind only decides the metadata the Prometheus API serves;</li>
 *   <li>a staleness marker (the NaN with bits {@code 0x7ff0000000000002}, Prometheus' end-of-series signal) is dropped;
 *       any other NaN or infinity is dropped and counted as rejected (Pulse stores finite values only);</li>
 *   <li>exemplars and native histograms are skipped (counted as rejected).</li>
 * </ul>
 * The snappy header states the decompressed length: it is checked against the limit before anything is allocated, and
 * the decompressor writes into a buffer of exactly that size, so a length that lies fails as malformed.
 */
final class RemoteWriteDecoder {

    static final long STALE_NAN_BITS = 0x7ff0000000000002L;
    /** Labels a series may have while it is read (ingest stores at most 30 dimensions): bounds the objects per byte. */
    static final int MAX_LABELS = 64;

    private static final InstrumentationScope SCOPE = InstrumentationScope.newBuilder()
            .setName("pulse.prometheus.remote_write")
            .build();

    /** What a request held: the OTLP form and what was dropped. */
    record Decoded(
            ExportMetricsServiceRequest request,
            int series,
            int samples,
            int staleMarkers,
            int rejected,
            String firstRejection) {}

    private final int maxDecompressedBytes;
    private final int maxSeries;
    private final int maxSamples;

    RemoteWriteDecoder(int maxDecompressedBytes, int maxSeries, int maxSamples) {
        this.maxDecompressedBytes = maxDecompressedBytes;
        this.maxSeries = maxSeries;
        this.maxSamples = maxSamples;
    }

    /** Checks the headers remote write 1.0 sends: snappy, protobuf. */
    static void checkHeaders(String contentType, String contentEncoding) throws PushException {
        String enc = contentEncoding == null ? "" : contentEncoding.strip().toLowerCase(Locale.ROOT);
        if (!enc.equals("snappy")) {
            throw PushException.unsupported("Content-Encoding must be snappy (Prometheus remote write 1.0), got \""
                    + (contentEncoding == null ? "" : contentEncoding) + "\"");
        }
        String media =
                contentType == null ? "" : contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        if (!media.equals("application/x-protobuf")) {
            throw PushException.unsupported(
                    "Content-Type must be application/x-protobuf (Prometheus remote write 1.0), got \""
                            + (contentType == null ? "" : contentType) + "\"");
        }
        // Remote write 2.0 names its message in a proto= parameter; its fields are not 1.0's and would be skipped as
        // unknown, every sample lost behind a 2xx. 415 is what 2.0 asks of a receiver that lacks the message, so the
        // sender can fall back to 1.0.
        for (String parameter : contentType.split(";", -1)) {
            String[] kv = parameter.strip().split("=", 2);
            if (kv.length == 2 && kv[0].strip().equalsIgnoreCase("proto")) {
                String proto = kv[1].strip().replace("\"", "");
                if (!proto.equals("prometheus.WriteRequest")) {
                    throw PushException.unsupported("Content-Type proto=" + proto
                            + " is not supported: this endpoint takes remote write 1.0 (prometheus.WriteRequest)");
                }
            }
        }
    }

    /** Refuses a request whose {@code X-Prometheus-Remote-Write-Version} is not 0.1.x (remote write 1.0). */
    static void checkVersion(String version) throws PushException {
        if (version != null && !version.isBlank() && !version.strip().startsWith("0.1.")) {
            throw PushException.unsupported("X-Prometheus-Remote-Write-Version " + version.strip()
                    + " is not supported: this endpoint takes remote write 1.0 (0.1.0)");
        }
    }

    Decoded decode(byte[] body) throws PushException {
        byte[] plain = unsnappy(body);
        return parse(plain);
    }

    /** The snappy block's content, its stated length checked against the limit before the buffer is allocated. */
    byte[] unsnappy(byte[] body) throws PushException {
        if (body.length == 0) {
            throw PushException.badRequest("empty body: a remote write request is a snappy-compressed WriteRequest");
        }
        int length;
        try {
            length = SnappyDecompressor.getUncompressedLength(body, 0);
        } catch (MalformedInputException | IndexOutOfBoundsException e) {
            throw PushException.badRequest("snappy: the block does not start with a valid length");
        }
        if (length < 0 || length > maxDecompressedBytes) {
            throw PushException.tooLarge("snappy: the block states " + Integer.toUnsignedString(length)
                    + " decompressed bytes, more than " + maxDecompressedBytes
                    + " (MAX_DECOMPRESSED_BYTES): send smaller batches (max_samples_per_send)");
        }
        byte[] out = new byte[length];
        int n;
        try {
            n = new SnappyDecompressor().decompress(body, 0, body.length, out, 0, length);
        } catch (MalformedInputException | IndexOutOfBoundsException e) {
            throw PushException.badRequest("snappy: the block is malformed or its stated length (" + length
                    + " bytes) is wrong: " + e.getMessage());
        }
        if (n != length) {
            throw PushException.badRequest("snappy: the block states " + length + " decompressed bytes but holds " + n);
        }
        return out;
    }

    /** One TimeSeries as read, before the metadata (which may come after it) decides its kind. */
    private static final class Series {
        String name;
        final List<KeyValue> labels = new ArrayList<>();
        long[] times = new long[4];
        double[] values = new double[4];
        int size;

        void add(long t, double v) {
            if (size == times.length) {
                times = java.util.Arrays.copyOf(times, size * 2);
                values = java.util.Arrays.copyOf(values, size * 2);
            }
            times[size] = t;
            values[size++] = v;
        }
    }

    Decoded parse(byte[] plain) throws PushException {
        List<Series> all = new ArrayList<>();
        Map<String, Integer> types = new HashMap<>();
        int samples = 0;
        int stale = 0;
        int rejected = 0;
        String first = null;
        try {
            CodedInputStream in = CodedInputStream.newInstance(plain);
            int tag;
            while ((tag = in.readTag()) != 0) {
                int field = WireFormat.getTagFieldNumber(tag);
                if (field == 1) {
                    expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, "WriteRequest.timeseries");
                    if (all.size() == maxSeries) {
                        throw PushException.tooLarge(
                                "more than " + maxSeries
                                        + " series in one request (MAX_SERIES_PER_REQUEST): send smaller batches (max_samples_per_send)");
                    }
                    int limit = in.pushLimit(in.readRawVarint32());
                    Series s = new Series();
                    int skipped = readSeries(in, s, all.size(), maxSamples - samples);
                    in.popLimit(limit);
                    if (skipped > 0) {
                        rejected += skipped;
                        if (first == null) {
                            first = "timeseries #" + all.size() + " (" + s.name
                                    + "): exemplars and native histograms are not stored";
                        }
                    }
                    samples += s.size;
                    all.add(s);
                } else if (field == 3) {
                    expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, "WriteRequest.metadata");
                    int limit = in.pushLimit(in.readRawVarint32());
                    readMetadata(in, types);
                    in.popLimit(limit);
                } else {
                    in.skipField(tag);
                }
            }
        } catch (IOException e) {
            throw PushException.badRequest(
                    "not a valid WriteRequest (truncated or malformed protobuf): " + e.getMessage());
        }
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder().setScope(SCOPE);
        int kept = 0;
        for (int i = 0; i < all.size(); i++) {
            Series s = all.get(i);
            if (s.name == null || s.name.isEmpty()) {
                throw PushException.badRequest("timeseries #" + i + " has no __name__ label");
            }
            List<NumberDataPoint> points = new ArrayList<>(s.size);
            for (int j = 0; j < s.size; j++) {
                double v = s.values[j];
                if (Double.doubleToRawLongBits(v) == STALE_NAN_BITS) {
                    stale++;
                    continue;
                }
                if (!Double.isFinite(v)) {
                    rejected++;
                    if (first == null) {
                        first = "timeseries #" + i + " (" + s.name + "): value " + v
                                + " is not a finite number; only finite values are stored";
                    }
                    continue;
                }
                points.add(NumberDataPoint.newBuilder()
                        .addAllAttributes(s.labels)
                        .setTimeUnixNano(s.times[j] * 1_000_000L)
                        .setAsDouble(v)
                        .build());
            }
            if (points.isEmpty()) {
                continue;
            }
            kept += points.size();
            Integer type = types.get(s.name);
            boolean counter = type != null ? type == 1 : s.name.endsWith("_total");
            Metric.Builder m = Metric.newBuilder().setName(s.name);
            if (counter) {
                m.setSum(Sum.newBuilder()
                        .setIsMonotonic(true)
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addAllDataPoints(points));
            } else {
                m.setGauge(Gauge.newBuilder().addAllDataPoints(points));
            }
            scope.addMetrics(m);
        }
        ExportMetricsServiceRequest.Builder request = ExportMetricsServiceRequest.newBuilder();
        if (scope.getMetricsCount() > 0) {
            request.addResourceMetrics(ResourceMetrics.newBuilder().addScopeMetrics(scope));
        }
        return new Decoded(request.build(), all.size(), kept, stale, rejected, first);
    }

    /** Reads one TimeSeries; returns how many exemplars and native histograms it skipped. */
    private static int readSeries(CodedInputStream in, Series s, int index, int samplesLeft)
            throws IOException, PushException {
        int skipped = 0;
        Set<String> names = new HashSet<>();
        int tag;
        while ((tag = in.readTag()) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> {
                    expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, "TimeSeries.labels");
                    int limit = in.pushLimit(in.readRawVarint32());
                    String name = "";
                    String value = "";
                    int t;
                    while ((t = in.readTag()) != 0) {
                        switch (WireFormat.getTagFieldNumber(t)) {
                            case 1 -> {
                                expect(t, WireFormat.WIRETYPE_LENGTH_DELIMITED, "Label.name");
                                name = in.readStringRequireUtf8();
                            }
                            case 2 -> {
                                expect(t, WireFormat.WIRETYPE_LENGTH_DELIMITED, "Label.value");
                                value = in.readStringRequireUtf8();
                            }
                            default -> in.skipField(t);
                        }
                    }
                    in.popLimit(limit);
                    if (name.isEmpty()) {
                        throw PushException.badRequest("timeseries #" + index + ": a label has an empty name");
                    }
                    if (names.size() == MAX_LABELS) {
                        throw PushException.badRequest("timeseries #" + index + ": more than " + MAX_LABELS
                                + " labels (Pulse stores at most 30 dimensions a series)");
                    }
                    if (!names.add(name)) {
                        throw PushException.badRequest(
                                "timeseries #" + index + ": label \"" + name + "\" appears twice");
                    }
                    if (name.equals("__name__")) {
                        s.name = value;
                    } else if (!value.isEmpty()) {
                        s.labels.add(KeyValue.newBuilder()
                                .setKey(name)
                                .setValue(AnyValue.newBuilder().setStringValue(value))
                                .build());
                    }
                }
                case 2 -> {
                    expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, "TimeSeries.samples");
                    if (s.size == samplesLeft) {
                        throw PushException.tooLarge(
                                "more samples in one request than MAX_DATAPOINTS_PER_REQUEST allows:"
                                        + " send smaller batches (max_samples_per_send)");
                    }
                    int limit = in.pushLimit(in.readRawVarint32());
                    double value = 0;
                    long ts = 0;
                    int t;
                    while ((t = in.readTag()) != 0) {
                        switch (WireFormat.getTagFieldNumber(t)) {
                            case 1 -> {
                                expect(t, WireFormat.WIRETYPE_FIXED64, "Sample.value");
                                value = in.readDouble();
                            }
                            case 2 -> {
                                expect(t, WireFormat.WIRETYPE_VARINT, "Sample.timestamp");
                                ts = in.readInt64();
                            }
                            default -> in.skipField(t);
                        }
                    }
                    in.popLimit(limit);
                    if (ts < 0 || ts > Long.MAX_VALUE / 1_000_000L) {
                        throw PushException.badRequest(
                                "timeseries #" + index + ": sample timestamp " + ts + " ms is out of range");
                    }
                    s.add(ts, value);
                }
                case 3, 4 -> {
                    skipped++;
                    in.skipField(tag);
                }
                default -> in.skipField(tag);
            }
        }
        return skipped;
    }

    private static void readMetadata(CodedInputStream in, Map<String, Integer> types)
            throws IOException, PushException {
        int type = 0;
        String family = "";
        int tag;
        while ((tag = in.readTag()) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> {
                    expect(tag, WireFormat.WIRETYPE_VARINT, "MetricMetadata.type");
                    type = in.readEnum();
                }
                case 2 -> {
                    expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, "MetricMetadata.metric_family_name");
                    family = in.readStringRequireUtf8();
                }
                default -> in.skipField(tag);
            }
        }
        if (!family.isEmpty()) {
            types.put(family, type);
        }
    }

    private static void expect(int tag, int wireType, String field) throws PushException {
        if (WireFormat.getTagWireType(tag) != wireType) {
            throw PushException.badRequest(
                    "not a valid WriteRequest: " + field + " has wire type " + WireFormat.getTagWireType(tag));
        }
    }
}
