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
import dev.pulse.codec.OtlpPoints;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import dev.pulse.model.SeriesKey;
import dev.pulse.model.ValidationException;
import dev.pulse.store.write.ShardCheckpoints;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits an OTLP export request into Kinesis records that ingest decodes (each record one uncompressed
 * {@code ExportMetricsServiceRequest}, the Collector's {@code awskinesis} {@code otlp_proto} format):
 * <ul>
 *   <li><b>by series as stored.</b> A data point's series is the one ingest stores it in: its metric name and the
 *       dimensions ingest makes of its resource's and its own attributes ({@link OtlpPoints}: the SDK's own resource
 *       attributes and {@code service.instance.id} left out, values as text, so an int {@code 200} and a string
 *       {@code "200"} are one series), as its {@link SeriesKey}. Series are hashed (FNV-1a, 64 bits) onto
 *       {@code PARTITION_KEYS} partition keys {@code push-<n>}: one stored series always has the same key, so it stays
 *       on one shard and its points keep their order, across SDK restarts too; a request puts one record per key its
 *       series fall on, or more when a key's share is large;</li>
 *   <li><b>within Kinesis' and ingest's limits.</b> A record holds at most {@link #MAX_RECORD_BYTES} (Kinesis takes
 *       1 MiB with the partition key), {@link #MAX_SERIES_PER_RECORD} series and {@link #MAX_POINTS_PER_RECORD} data
 *       points, {@link #MAX_HISTOGRAM_POINTS_PER_RECORD} of them histograms (ingest's per-record limits are higher);
 *       one series with more points than fit is cut into consecutive pieces of at most {@link #MAX_POINTS_PER_PIECE}
 *       points;</li>
 *   <li><b>only what ingest stores, point by point.</b> Each data point is mapped and validated as ingest will
 *       ({@link OtlpPoints}, {@link DatapointValidator} with push's window, narrower than ingest's by
 *       {@link PushConfig#WINDOW_EDGE_MARGIN} because ingest checks against the record's later arrival): a point ingest
 *       would refuse is rejected alone (counted, the first reason kept) and the other points of its series are put.
 *       Each record is then decoded and validated whole ({@link RecordDecoder}) as a last check: a record that still
 *       fails is checked series by series, and the series that fail alone are rejected. Nothing put on the stream
 *       becomes a poison record.</li>
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
    private final DatapointValidator validator;
    private final int partitionKeys;
    private final int maxSeries;
    private final int maxPoints;

    /**
     * {@code decoder} and {@code validator} check as ingest will; both should use push's window
     * ({@link PushConfig#pushAcceptPast()}, {@link PushConfig#pushAcceptFuture()}), narrower than ingest's.
     */
    RecordPacker(RecordDecoder decoder, DatapointValidator validator, int partitionKeys, int maxSeries, int maxPoints) {
        this.decoder = decoder;
        this.validator = validator;
        this.partitionKeys = partitionKeys;
        this.maxSeries = maxSeries;
        this.maxPoints = maxPoints;
    }

    /** Ingest recognises these keys: a pushed record sent again is stored once ({@link ShardCheckpoints#isPushed}). */
    static String partitionKey(int bucket) {
        return ShardCheckpoints.PUSHED_PARTITION_KEY_PREFIX + bucket;
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
        Rejections rejections = new Rejections();
        int series = 0;
        for (int r = 0; r < request.getResourceMetricsCount(); r++) {
            ResourceMetrics rm = request.getResourceMetrics(r);
            Map<String, String> resourceDims = Map.of();
            String resourceProblem = null;
            try {
                resourceDims = OtlpPoints.resourceDims(rm.getResource(), "resourceMetrics[" + r + "].resource");
            } catch (DecodeException e) {
                resourceProblem = e.getMessage();
            }
            for (int s = 0; s < rm.getScopeMetricsCount(); s++) {
                ScopeMetrics sm = rm.getScopeMetrics(s);
                for (int mi = 0; mi < sm.getMetricsCount(); mi++) {
                    Metric m = sm.getMetrics(mi);
                    List<? extends MessageLite> pts = points(m);
                    if (pts.isEmpty()) {
                        continue;
                    }
                    Map<String, List<MessageLite>> bySeries =
                            bySeries(m, pts, resourceDims, resourceProblem, r, s, mi, nowMillis, rejections);
                    series += bySeries.size();
                    if (series > maxSeries) {
                        throw PushException.tooLarge("the request holds more than " + maxSeries
                                + " series (MAX_SERIES_PER_REQUEST): send smaller batches");
                    }
                    boolean histogram = m.hasHistogram() || m.hasExponentialHistogram();
                    for (Map.Entry<String, List<MessageLite>> e : bySeries.entrySet()) {
                        slice(r, s, m, e.getValue(), histogram, buckets.get(bucket(e.getKey())));
                    }
                }
            }
        }
        List<StreamRecord> out = new ArrayList<>();
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

        void add(String metric, int n, String reason) {
            points += n;
            if (first == null) {
                first = "metric \"" + metric + "\": " + reason;
            }
        }

        void add(Piece p, String reason) {
            add(p.metric().getName(), p.points(), reason);
        }
    }

    /**
     * The points of {@code m} that ingest will store, by the series ingest stores them in ({@link SeriesKey} of the
     * name and the dimensions ingest makes of the attributes), in the order sent; each point ingest would refuse is
     * rejected alone (counted, the first reason kept): a non-finite value, a time outside push's window, dimensions
     * over the limits; a problem of the whole metric or its resource rejects its points.
     */
    private Map<String, List<MessageLite>> bySeries(
            Metric m,
            List<? extends MessageLite> pts,
            Map<String, String> resourceDims,
            String resourceProblem,
            int r,
            int s,
            int mi,
            long nowMillis,
            Rejections rejections) {
        Map<String, List<MessageLite>> bySeries = new LinkedHashMap<>();
        String at = "resourceMetrics[" + r + "].scopeMetrics[" + s + "].metrics[" + mi + "]";
        OtlpPoints.Points checked;
        try {
            if (resourceProblem != null) {
                throw new DecodeException(resourceProblem);
            }
            checked = OtlpPoints.of(m, at);
        } catch (DecodeException e) {
            rejections.add(m.getName(), pts.size(), e.getMessage());
            return bySeries;
        }
        for (int i = 0; i < pts.size(); i++) {
            MessageLite p = pts.get(i);
            String key;
            try {
                List<Datapoint> dps = checked.datapoints(i, resourceDims);
                String why = invalid(dps, nowMillis);
                if (why != null) {
                    rejections.add(m.getName(), 1, at + ".dataPoints[" + i + "]: " + why);
                    continue;
                }
                // The dims of the point's datapoints; a point without a recorded value has none, so they are made.
                Map<String, String> dims = dps.isEmpty()
                        ? OtlpPoints.dims(resourceDims, attributes(p), at + ".dataPoints[" + i + "]")
                        : dps.get(0).dims();
                key = SeriesKey.of(m.getName(), dims);
            } catch (DecodeException e) {
                rejections.add(m.getName(), 1, e.getMessage());
                continue;
            }
            bySeries.computeIfAbsent(key, k -> new ArrayList<>()).add(p);
        }
        return bySeries;
    }

    /** Why ingest would refuse one of {@code dps}, or null. */
    private String invalid(List<Datapoint> dps, long nowMillis) {
        for (Datapoint dp : dps) {
            try {
                validator.validate(dp, nowMillis);
            } catch (ValidationException e) {
                return e.getMessage();
            }
        }
        return null;
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

    /** The partition key index of a series, by its stored identity ({@link SeriesKey}). */
    int bucket(String seriesKey) {
        return (int) Math.floorMod(fnv(0xcbf29ce484222325L, seriesKey), (long) partitionKeys);
    }

    private static long fnv(long h, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            h = (h ^ (c & 0xff)) * 0x100000001b3L;
            h = (h ^ (c >>> 8)) * 0x100000001b3L;
        }
        return h;
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
