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

import com.google.protobuf.MessageLite;
import dev.pulse.codec.DecodeException;
import dev.pulse.codec.RecordDecoder;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits an OTLP export request into Kinesis records that ingest decodes (each record one uncompressed
 * {@code ExportMetricsServiceRequest}, the Collector's {@code awskinesis} {@code otlp_proto} format):
 * <ul>
 *   <li><b>by series.</b> A data point's series is its metric name, its resource's attributes and its own attributes
 *       (in any order). Series are hashed (FNV-1a, 64 bits) onto {@code PARTITION_KEYS} partition keys
 *       {@code push-<n>}: one series always has the same key, so it stays on one shard and its points keep their
 *       order; a request puts one record per key its series fall on, or more when a key's share is large;</li>
 *   <li><b>within Kinesis' and ingest's limits.</b> A record holds at most {@link #MAX_RECORD_BYTES} (Kinesis takes
 *       1 MiB with the partition key), {@link #MAX_SERIES_PER_RECORD} series and {@link #MAX_POINTS_PER_RECORD} data
 *       points, {@link #MAX_HISTOGRAM_POINTS_PER_RECORD} of them histograms (ingest's per-record limits are higher);
 *       one series with more points than fit is cut into consecutive pieces of at most {@link #MAX_POINTS_PER_PIECE}
 *       points;</li>
 *   <li><b>only what ingest stores.</b> Each record is decoded and validated as ingest will
 *       ({@link RecordDecoder}, against the current time where ingest uses the record's arrival, a moment later). A
 *       record that fails is checked series by series: the series that fail alone are rejected (their points counted,
 *       the first reason kept) and the others are put. Nothing put on the stream becomes a poison record.</li>
 * </ul>
 */
final class RecordPacker {

    /** Kinesis' record limit is 1 MiB for data and partition key together; this leaves room for the key. */
    static final int MAX_RECORD_BYTES = 1_000_000;
    /** Pieces are packed up to this estimate; the assembled record is then checked against the hard limit. */
    static final int PACK_BYTES = 950_000;

    static final int MAX_SERIES_PER_RECORD = 5_000;
    static final int MAX_POINTS_PER_RECORD = 20_000;
    static final int MAX_HISTOGRAM_POINTS_PER_RECORD = 1_000;
    static final int MAX_POINTS_PER_PIECE = 1_000;
    static final int MAX_PIECE_BYTES = 256 * 1024;

    /** One Kinesis record to put. */
    record StreamRecord(String partitionKey, byte[] data, int points) {}

    /** What a request becomes. */
    record Packed(List<StreamRecord> records, int series, int points, int rejected, String firstRejection) {}

    /** Points of one series (or a slice of them) with their metric's description, resource and scope by index. */
    private record Piece(int resource, int scope, Metric metric, int points, boolean histogram, int bytes) {}

    private final RecordDecoder decoder;
    private final int partitionKeys;
    private final int maxSeries;
    private final int maxPoints;

    RecordPacker(RecordDecoder decoder, int partitionKeys, int maxSeries, int maxPoints) {
        this.decoder = decoder;
        this.partitionKeys = partitionKeys;
        this.maxSeries = maxSeries;
        this.maxPoints = maxPoints;
    }

    static String partitionKey(int bucket) {
        return "push-" + bucket;
    }

    Packed pack(ExportMetricsServiceRequest request, long nowMillis) throws PushException {
        long total = 0;
        for (ResourceMetrics rm : request.getResourceMetricsList()) {
            for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                for (Metric m : sm.getMetricsList()) {
                    total += points(m).size();
                }
            }
        }
        if (total > maxPoints) {
            throw PushException.tooLarge("the request holds " + total + " data points, more than " + maxPoints
                    + " (MAX_DATAPOINTS_PER_REQUEST): send smaller batches");
        }
        List<List<Piece>> buckets = new ArrayList<>(partitionKeys);
        for (int i = 0; i < partitionKeys; i++) {
            buckets.add(new ArrayList<>());
        }
        int series = 0;
        for (int r = 0; r < request.getResourceMetricsCount(); r++) {
            ResourceMetrics rm = request.getResourceMetrics(r);
            String resourceKey = canonical(rm.getResource().getAttributesList());
            for (int s = 0; s < rm.getScopeMetricsCount(); s++) {
                for (Metric m : rm.getScopeMetrics(s).getMetricsList()) {
                    List<? extends MessageLite> pts = points(m);
                    if (pts.isEmpty()) {
                        continue;
                    }
                    Map<String, List<MessageLite>> bySeries = new LinkedHashMap<>();
                    for (MessageLite p : pts) {
                        bySeries.computeIfAbsent(canonical(attributes(p)), k -> new ArrayList<>())
                                .add(p);
                    }
                    series += bySeries.size();
                    if (series > maxSeries) {
                        throw PushException.tooLarge("the request holds more than " + maxSeries
                                + " series (MAX_SERIES_PER_REQUEST): send smaller batches");
                    }
                    boolean histogram = m.hasHistogram() || m.hasExponentialHistogram();
                    for (Map.Entry<String, List<MessageLite>> e : bySeries.entrySet()) {
                        int bucket = bucket(m.getName(), resourceKey, e.getKey());
                        slice(r, s, m, e.getValue(), histogram, buckets.get(bucket));
                    }
                }
            }
        }
        List<StreamRecord> out = new ArrayList<>();
        Rejections rejections = new Rejections();
        for (int b = 0; b < partitionKeys; b++) {
            if (!buckets.get(b).isEmpty()) {
                packBucket(request, partitionKey(b), buckets.get(b), nowMillis, true, out, rejections);
            }
        }
        int put = 0;
        for (StreamRecord rec : out) {
            put += rec.points();
        }
        return new Packed(List.copyOf(out), series, put, rejections.points, rejections.first);
    }

    private static final class Rejections {
        int points;
        String first;

        void add(Piece p, String reason) {
            points += p.points();
            if (first == null) {
                first = "metric \"" + p.metric().getName() + "\": " + reason;
            }
        }
    }

    /** Cuts one series' points into pieces of at most {@link #MAX_POINTS_PER_PIECE} points and {@link #MAX_PIECE_BYTES}. */
    private static void slice(int r, int s, Metric m, List<MessageLite> pts, boolean histogram, List<Piece> into) {
        int from = 0;
        int bytes = 0;
        for (int i = 0; i < pts.size(); i++) {
            int size = pts.get(i).getSerializedSize() + 4;
            if (i > from && (i - from == MAX_POINTS_PER_PIECE || bytes + size > MAX_PIECE_BYTES)) {
                into.add(piece(r, s, m, pts.subList(from, i), histogram));
                from = i;
                bytes = 0;
            }
            bytes += size;
        }
        into.add(piece(r, s, m, pts.subList(from, pts.size()), histogram));
    }

    private static Piece piece(int r, int s, Metric m, List<MessageLite> pts, boolean histogram) {
        Metric metric = withPoints(m, pts);
        return new Piece(r, s, metric, pts.size(), histogram, metric.getSerializedSize() + 8);
    }

    private void packBucket(
            ExportMetricsServiceRequest request,
            String key,
            List<Piece> pieces,
            long nowMillis,
            boolean validate,
            List<StreamRecord> out,
            Rejections rejections) {
        List<Piece> current = new ArrayList<>();
        List<Long> headers = new ArrayList<>();
        int bytes = 0;
        int points = 0;
        int histograms = 0;
        for (Piece p : pieces) {
            long header = ((long) p.resource() << 32) | p.scope();
            int headerBytes = headers.contains(header) ? 0 : headerBytes(request, p);
            boolean full = current.size() == MAX_SERIES_PER_RECORD
                    || bytes + p.bytes() + headerBytes > PACK_BYTES
                    || points + p.points() > MAX_POINTS_PER_RECORD
                    || (p.histogram() && histograms + p.points() > MAX_HISTOGRAM_POINTS_PER_RECORD);
            if (full && !current.isEmpty()) {
                emit(request, key, current, nowMillis, validate, out, rejections);
                current = new ArrayList<>();
                headers.clear();
                bytes = 0;
                points = 0;
                histograms = 0;
                headerBytes = headerBytes(request, p);
            }
            if (headerBytes > 0) {
                headers.add(header);
            }
            current.add(p);
            bytes += p.bytes() + headerBytes;
            points += p.points();
            histograms += p.histogram() ? p.points() : 0;
        }
        if (!current.isEmpty()) {
            emit(request, key, current, nowMillis, validate, out, rejections);
        }
    }

    private void emit(
            ExportMetricsServiceRequest request,
            String key,
            List<Piece> pieces,
            long nowMillis,
            boolean validate,
            List<StreamRecord> out,
            Rejections rejections) {
        byte[] data = assemble(request, pieces);
        String problem = data.length > MAX_RECORD_BYTES
                ? "its resource and scope with one series take " + data.length + " bytes, more than a Kinesis record's "
                        + MAX_RECORD_BYTES
                : validate ? problem(data, nowMillis) : null;
        if (problem == null) {
            int points = 0;
            for (Piece p : pieces) {
                points += p.points();
            }
            out.add(new StreamRecord(key, data, points));
            return;
        }
        if (pieces.size() == 1) {
            rejections.add(pieces.get(0), problem);
            return;
        }
        // Which series fail alone: those are rejected, the others packed again (each valid alone, so not re-checked).
        List<Piece> good = new ArrayList<>(pieces.size());
        for (Piece p : pieces) {
            byte[] alone = assemble(request, List.of(p));
            String why = alone.length > MAX_RECORD_BYTES
                    ? "its resource and scope with one series take " + alone.length
                            + " bytes, more than a Kinesis record's " + MAX_RECORD_BYTES
                    : problem(alone, nowMillis);
            if (why == null) {
                good.add(p);
            } else {
                rejections.add(p, why);
            }
        }
        if (!good.isEmpty()) {
            packBucket(request, key, good, nowMillis, false, out, rejections);
        }
    }

    private String problem(byte[] data, long nowMillis) {
        try {
            decoder.decode(data, nowMillis);
            return null;
        } catch (DecodeException e) {
            return e.getMessage();
        }
    }

    private static int headerBytes(ExportMetricsServiceRequest request, Piece p) {
        ResourceMetrics rm = request.getResourceMetrics(p.resource());
        ScopeMetrics sm = rm.getScopeMetrics(p.scope());
        return rm.getResource().getSerializedSize()
                + rm.getSchemaUrlBytes().size()
                + sm.getScope().getSerializedSize()
                + sm.getSchemaUrlBytes().size()
                + 24;
    }

    /** The pieces as one request, grouped under their resource and scope in the order they first appear. */
    private static byte[] assemble(ExportMetricsServiceRequest request, List<Piece> pieces) {
        Map<Integer, Map<Integer, ScopeMetrics.Builder>> groups = new LinkedHashMap<>();
        for (Piece p : pieces) {
            groups.computeIfAbsent(p.resource(), k -> new LinkedHashMap<>())
                    .computeIfAbsent(p.scope(), k -> {
                        ScopeMetrics sm =
                                request.getResourceMetrics(p.resource()).getScopeMetrics(k);
                        return ScopeMetrics.newBuilder().setScope(sm.getScope()).setSchemaUrl(sm.getSchemaUrl());
                    })
                    .addMetrics(p.metric());
        }
        ExportMetricsServiceRequest.Builder b = ExportMetricsServiceRequest.newBuilder();
        for (Map.Entry<Integer, Map<Integer, ScopeMetrics.Builder>> r : groups.entrySet()) {
            ResourceMetrics rm = request.getResourceMetrics(r.getKey());
            ResourceMetrics.Builder out =
                    ResourceMetrics.newBuilder().setResource(rm.getResource()).setSchemaUrl(rm.getSchemaUrl());
            for (ScopeMetrics.Builder sm : r.getValue().values()) {
                out.addScopeMetrics(sm);
            }
            b.addResourceMetrics(out);
        }
        return b.build().toByteArray();
    }

    int bucket(String name, String resourceKey, String pointKey) {
        long h = 0xcbf29ce484222325L;
        h = fnv(h, name);
        h = fnv(h, "\u0002");
        h = fnv(h, resourceKey);
        h = fnv(h, "\u0002");
        h = fnv(h, pointKey);
        return (int) Math.floorMod(h, (long) partitionKeys);
    }

    private static long fnv(long h, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            h = (h ^ (c & 0xff)) * 0x100000001b3L;
            h = (h ^ (c >>> 8)) * 0x100000001b3L;
        }
        return h;
    }

    /** Attributes in key order, so the same series in any attribute order gives the same string. */
    static String canonical(List<KeyValue> attributes) {
        if (attributes.isEmpty()) {
            return "";
        }
        List<KeyValue> sorted = new ArrayList<>(attributes);
        sorted.sort(Comparator.comparing(KeyValue::getKey));
        StringBuilder sb = new StringBuilder();
        for (KeyValue kv : sorted) {
            sb.append(kv.getKey()).append('\u0000');
            AnyValue v = kv.getValue();
            sb.append(v.hasStringValue() ? v.getStringValue() : v.toString()).append('\u0001');
        }
        return sb.toString();
    }

    static List<? extends MessageLite> points(Metric m) {
        return switch (m.getDataCase()) {
            case GAUGE -> m.getGauge().getDataPointsList();
            case SUM -> m.getSum().getDataPointsList();
            case HISTOGRAM -> m.getHistogram().getDataPointsList();
            case EXPONENTIAL_HISTOGRAM -> m.getExponentialHistogram().getDataPointsList();
            case SUMMARY -> m.getSummary().getDataPointsList();
            default -> List.of();
        };
    }

    private static List<KeyValue> attributes(MessageLite p) {
        return switch (p) {
            case NumberDataPoint n -> n.getAttributesList();
            case HistogramDataPoint h -> h.getAttributesList();
            case ExponentialHistogramDataPoint e -> e.getAttributesList();
            case SummaryDataPoint s -> s.getAttributesList();
            default -> List.of();
        };
    }

    // The points come from points(m) of the same metric, so each cast matches the metric's data case.
    @SuppressWarnings("unchecked")
    private static Metric withPoints(Metric m, List<? extends MessageLite> pts) {
        Metric.Builder b = m.toBuilder();
        switch (m.getDataCase()) {
            case GAUGE ->
                b.setGauge(m.getGauge().toBuilder().clearDataPoints().addAllDataPoints((List<NumberDataPoint>) pts));
            case SUM ->
                b.setSum(m.getSum().toBuilder().clearDataPoints().addAllDataPoints((List<NumberDataPoint>) pts));
            case HISTOGRAM ->
                b.setHistogram(
                        m.getHistogram().toBuilder().clearDataPoints().addAllDataPoints((List<HistogramDataPoint>)
                                pts));
            case EXPONENTIAL_HISTOGRAM ->
                b.setExponentialHistogram(m.getExponentialHistogram().toBuilder()
                        .clearDataPoints()
                        .addAllDataPoints((List<ExponentialHistogramDataPoint>) pts));
            case SUMMARY ->
                b.setSummary(
                        m.getSummary().toBuilder().clearDataPoints().addAllDataPoints((List<SummaryDataPoint>) pts));
            default -> {
                // points(m) is empty for any other case: no piece is made of it
            }
        }
        return b.build();
    }
}
