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

import com.datadoghq.sketch.ddsketch.DDSketch;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.pulse.aggregate.ExactSum;
import dev.pulse.aggregate.Sketches;
import dev.pulse.aggregate.Summary;
import dev.pulse.model.Datapoint;
import dev.pulse.model.MetricKind;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.DataPointFlags;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * OTLP metrics as the OpenTelemetry Collector's {@code awskinesis} exporter writes them: one
 * {@code ExportMetricsServiceRequest} per Kinesis record, {@code otlp_proto} (protobuf) or {@code otlp_json}, with
 * {@code encoding.compression} none, gzip, zlib or flate. The exporter flushes its compressor and never closes it,
 * so compressed records end without the format's trailer: they are inflated up to the end of the input, not to an
 * end-of-stream marker. The mapping to datapoints is in docs/otlp-input.md; in short:
 * <ul>
 *   <li>gauges and sums: one datapoint per data point (a cumulative sum is a sample of the running total);</li>
 *   <li>histograms and exponential histograms (delta only): one pre-aggregated datapoint with the exact count,
 *       sum, min and max and a sketch built from the buckets;</li>
 *   <li>summaries: {@code <name>.count} and {@code <name>.sum};</li>
 *   <li>dims: resource attributes (less {@link #isIgnoredResourceKey the SDK's own}) then data-point attributes,
 *       which win on a clash; an attribute with an empty value is left out.</li>
 * </ul>
 */
final class OtlpDecoder {

    /** Same bound as the CloudWatch Logs path: a 1 MB record must not inflate into unbounded memory. */
    static final int MAX_DECOMPRESSED_BYTES = DecodeLimits.MAX_DECOMPRESSED_BYTES;
    /** Protobuf is parsed whole into objects, many per byte: its own, smaller bound. */
    static final int MAX_PROTOBUF_BYTES = DecodeLimits.MAX_OTLP_PROTOBUF_BYTES;

    private static final int PEEK_BYTES = 64;
    private static final byte[] RESOURCE_METRICS =
            "\"resourceMetrics\"".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] RESOURCE_METRICS_SNAKE =
            "\"resource_metrics\"".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    enum Compression {
        NONE,
        GZIP,
        ZLIB,
        FLATE
    }

    enum Encoding {
        PROTO,
        JSON
    }

    /** How one record is packed, or null when it is not OTLP (see {@link #detect}). */
    record Format(Compression compression, Encoding encoding) {}

    /**
     * The detection rule, by content, because gzip alone does not tell CloudWatch Logs from a compressed OTLP record:
     * <ol>
     *   <li>gzip magic {@code 1f 8b}, or a zlib header ({@code CM} 8, header checksum a multiple of 31; no JSON text
     *       starts with those bytes): the first bytes are inflated and judged by the content rule below; gzip that is
     *       not OTLP stays a CloudWatch Logs payload;</li>
     *   <li>content rule: first non-blank byte <code>&#123;</code> followed by the key {@code "resourceMetrics"} is OTLP/JSON;
     *       a first byte {@code 0x0a} (field 1 of ExportMetricsServiceRequest, length-delimited) not followed only by
     *       blanks and <code>&#123;</code> or {@code [} is OTLP protobuf; when it is (NDJSON after a blank line, or protobuf
     *       whose first ResourceMetrics is 123 or 91 bytes), the whole record decides ({@link #isProtoRequest});</li>
     *   <li>anything else that does not start like JSON (<code>&#123;</code>, {@code [} or a blank) is tried as raw deflate
     *       (the exporter's {@code flate}) and judged by the content rule; what fails stays native JSON, whose decoder
     *       then names the error.</li>
     * </ol>
     */
    static Format detect(byte[] data) {
        Detection d = detect(data, DecodeBudget.forRecord());
        return d == null ? null : d.format();
    }

    /**
     * {@link #detect(byte[])} charged to {@code budget}: a compressed record whose first bytes are ambiguous is
     * inflated whole (at most {@link #MAX_PROTOBUF_BYTES}, or what the KPL aggregate's budget has left) to be judged,
     * and those bytes count as any inflation does, so a user record cannot make the detection inflate outside its
     * aggregate's {@code MAX_DECOMPRESSED_BYTES_PER_AGGREGATE}. Throws {@link LimitExceeded} (the whole aggregate) when
     * that budget runs out during the detection.
     */
    static Detection detect(byte[] data, DecodeBudget budget) {
        if (data.length >= 2 && (data[0] & 0xff) == 0x1f && (data[1] & 0xff) == 0x8b) {
            return compressed(Compression.GZIP, data, budget);
        }
        if (data.length >= 2
                && (data[0] & 0x0f) == 8
                && (data[0] & 0xf0) <= 0x70
                && (((data[0] & 0xff) << 8) | (data[1] & 0xff)) % 31 == 0) {
            return compressed(Compression.ZLIB, data, budget);
        }
        if (ambiguous(data, data.length) && isProtoRequest(data)) {
            return new Detection(new Format(Compression.NONE, Encoding.PROTO), null);
        }
        Encoding plain = content(data, data.length);
        if (plain != null) {
            return new Detection(new Format(Compression.NONE, plain), null);
        }
        int first = firstNonBlank(data, data.length);
        if (first < 0 || data[first] == '{' || data[first] == '[') {
            return null;
        }
        return compressed(Compression.FLATE, data, budget);
    }

    /**
     * What {@link #detect(byte[], DecodeBudget)} found: the format and, when it had to inflate the whole record to
     * tell, the content, which {@link #decode} then uses rather than inflating (and charging) it a second time.
     */
    record Detection(Format format, byte[] inflated) {}

    /** The content rule on the first bytes of compressed {@code data}, inflated whole (bounded) when they are ambiguous. */
    private static Detection compressed(Compression c, byte[] data, DecodeBudget budget) {
        byte[] prefix = peek(data, c);
        if (prefix == null) {
            return null;
        }
        byte[] whole = null;
        if (ambiguous(prefix, prefix.length)) {
            int limit = budget.inflateLimit(MAX_PROTOBUF_BYTES);
            try {
                whole = inflate(data, c, limit, true);
                budget.inflated(whole.length);
                if (isProtoRequest(whole)) {
                    return new Detection(new Format(c, Encoding.PROTO), whole);
                }
            } catch (TooLarge e) {
                if (budget.aggregateBound(MAX_PROTOBUF_BYTES)) {
                    throw budget.inflatedTooMuch("OTLP record", MAX_PROTOBUF_BYTES, "MAX_OTLP_PROTOBUF_BYTES");
                }
                // Larger than any protobuf request: judged by its first bytes, the inflation it cost still counted.
                budget.inflated(limit);
            } catch (DecodeException e) {
                // Corrupt: judged by its first bytes, as any other record.
            }
        }
        Encoding e = content(prefix, prefix.length);
        return e == null ? null : new Detection(new Format(c, e), whole);
    }

    /**
     * Starts {@code 0a} (protobuf field 1, length-delimited; also a newline) and its first non-blank byte is <code>&#123;</code>
     * or {@code [}: NDJSON after a blank line, or protobuf whose first ResourceMetrics is 123 or 91 bytes long (the
     * length byte is then <code>&#123;</code> or {@code [}), among others. The whole content decides ({@link #isProtoRequest}).
     */
    private static boolean ambiguous(byte[] b, int n) {
        if (n < 2 || b[0] != 0x0a) {
            return false;
        }
        int i = firstNonBlank(b, n);
        return i >= 0 && (b[i] == '{' || b[i] == '[');
    }

    /**
     * True when {@code b} holds a byte JSON text cannot (a control byte other than tab, newline and carriage return)
     * and parses as an ExportMetricsServiceRequest with at least one ResourceMetrics.
     */
    private static boolean isProtoRequest(byte[] b) {
        boolean binary = false;
        for (byte x : b) {
            if (x >= 0 && x < 0x20 && x != '\t' && x != '\n' && x != '\r') {
                binary = true;
                break;
            }
        }
        if (!binary) {
            return false;
        }
        try {
            return ExportMetricsServiceRequest.parseFrom(b).getResourceMetricsCount() > 0;
        } catch (InvalidProtocolBufferException e) {
            return false;
        }
    }

    private static Encoding content(byte[] b, int n) {
        int i = firstNonBlank(b, n);
        if (i < 0) {
            return null;
        }
        if (b[i] == '{') {
            int k = firstNonBlank(b, i + 1, n);
            return k >= 0 && (startsWith(b, k, n, RESOURCE_METRICS) || startsWith(b, k, n, RESOURCE_METRICS_SNAKE))
                    ? Encoding.JSON
                    : null;
        }
        // 0x0a is also a newline: NDJSON that starts with blank lines was caught above (its first non-blank is { or [).
        return b[i] != '[' && b[0] == 0x0a ? Encoding.PROTO : null;
    }

    /** Decodes a record {@link #detect} recognised as {@code format}. */
    Decoded decode(byte[] data, Format format) throws DecodeException {
        return decode(data, new Detection(format, null), DecodeBudget.forRecord());
    }

    /** Decodes a record {@link #detect(byte[], DecodeBudget)} recognised, with the same budget. */
    Decoded decode(byte[] data, Detection detection, DecodeBudget budget) throws DecodeException {
        Format format = detection.format();
        boolean proto = format.encoding() == Encoding.PROTO;
        int formatLimit = proto ? MAX_PROTOBUF_BYTES : MAX_DECOMPRESSED_BYTES;
        String limitName = proto ? "MAX_OTLP_PROTOBUF_BYTES" : "MAX_DECOMPRESSED_BYTES";
        byte[] payload = data;
        if (detection.inflated() != null) {
            payload = detection.inflated(); // inflated whole, within both limits, and charged by the detection
        } else if (format.compression() != Compression.NONE) {
            int limit = budget.inflateLimit(formatLimit);
            try {
                payload = inflate(data, format.compression(), limit, true);
            } catch (TooLarge e) {
                throw budget.inflatedTooMuch(
                        "OTLP " + (proto ? "protobuf" : "JSON") + " record", formatLimit, limitName);
            }
            budget.inflated(payload.length);
        } else if (payload.length > formatLimit) {
            throw new DecodeException("OTLP protobuf record of " + payload.length + " bytes, more than " + formatLimit
                    + " (" + limitName + ")");
        }
        ExportMetricsServiceRequest request;
        if (format.encoding() == Encoding.JSON) {
            request = OtlpJson.parse(payload);
        } else {
            try {
                request = ExportMetricsServiceRequest.parseFrom(payload);
            } catch (InvalidProtocolBufferException e) {
                throw new DecodeException(
                        "OTLP protobuf (" + format.compression().name().toLowerCase(java.util.Locale.ROOT) + "): "
                                + e.getMessage(),
                        e);
            }
        }
        List<Datapoint> out = budget.unit();
        for (int r = 0; r < request.getResourceMetricsCount(); r++) {
            ResourceMetrics rm = request.getResourceMetrics(r);
            Map<String, String> resourceDims = resourceDims(rm.getResource(), "resourceMetrics[" + r + "].resource");
            for (int s = 0; s < rm.getScopeMetricsCount(); s++) {
                ScopeMetrics sm = rm.getScopeMetrics(s);
                for (int m = 0; m < sm.getMetricsCount(); m++) {
                    String at = "resourceMetrics[" + r + "].scopeMetrics[" + s + "].metrics[" + m + "]";
                    metric(sm.getMetrics(m), resourceDims, at, out, budget);
                }
            }
        }
        return new Decoded(out, 0);
    }

    /**
     * The dimensions every point of a resource starts from: its attributes less {@link #isIgnoredResourceKey the SDK's
     * own}. Counted as they are read: resource attributes go into every point's dimensions, and more than a datapoint
     * may have is poison before any point's map is made.
     */
    static Map<String, String> resourceDims(Resource resource, String at) throws DecodeException {
        Map<String, String> resourceDims = new HashMap<>();
        for (KeyValue kv : resource.getAttributesList()) {
            if (!isIgnoredResourceKey(kv.getKey())) {
                putAttribute(resourceDims, kv);
                if (resourceDims.size() > DecodeLimits.MAX_DIMENSIONS) {
                    throw new DecodeException(at + ": more than " + DecodeLimits.MAX_DIMENSIONS
                            + " attributes become dimensions, at most " + DecodeLimits.MAX_DIMENSIONS
                            + " per datapoint (MAX_DIMENSIONS)");
                }
            }
        }
        return resourceDims;
    }

    /**
     * Resource attributes that describe the SDK, not the service, and {@code service.instance.id}, which SDKs draw at
     * random per process: as dims they would start a new series at every SDK upgrade or restart.
     */
    static boolean isIgnoredResourceKey(String key) {
        return key.startsWith("telemetry.sdk.")
                || key.startsWith("telemetry.distro.")
                || key.equals("telemetry.auto.version")
                || key.equals("service.instance.id");
    }

    private static void metric(
            Metric metric, Map<String, String> resourceDims, String at, List<Datapoint> out, DecodeBudget budget)
            throws DecodeException {
        String unit = checkMetric(metric, at);
        for (int i = 0, n = pointCount(metric); i < n; i++) {
            point(metric, unit, i, resourceDims, at, out, budget);
        }
    }

    /**
     * The checks that hold for a whole metric (its unit's length, delta temporality for histograms, data present);
     * returns the CloudWatch unit its datapoints carry.
     */
    static String checkMetric(Metric metric, String at) throws DecodeException {
        if (metric.getUnit().length() > DecodeLimits.MAX_UNIT_LENGTH) {
            throw new DecodeException(at + ": unit of " + metric.getUnit().length() + " characters, at most "
                    + DecodeLimits.MAX_UNIT_LENGTH + " (MAX_UNIT_LENGTH)");
        }
        switch (metric.getDataCase()) {
            case HISTOGRAM ->
                requireDelta(
                        metric.getHistogram().getAggregationTemporality(),
                        at + ".histogram",
                        "add the Collector's cumulativetodelta processor to the pipeline");
            case EXPONENTIAL_HISTOGRAM ->
                // The Collector's cumulativetodelta processor leaves exponential histograms alone: the SDK must send
                // deltas.
                requireDelta(
                        metric.getExponentialHistogram().getAggregationTemporality(),
                        at + ".exponentialHistogram",
                        "set the SDK to delta (OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=delta); cumulativetodelta does not convert them");
            case GAUGE, SUM, SUMMARY -> {
                // no metric-wide rule beyond the unit
            }
            default ->
                throw new DecodeException(
                        at + ": metric " + metric.getName() + " has no data (" + metric.getDataCase() + ")");
        }
        return unit(metric.getUnit());
    }

    /** How many data points {@code metric} holds. */
    static int pointCount(Metric metric) {
        return switch (metric.getDataCase()) {
            case GAUGE -> metric.getGauge().getDataPointsCount();
            case SUM -> metric.getSum().getDataPointsCount();
            case HISTOGRAM -> metric.getHistogram().getDataPointsCount();
            case EXPONENTIAL_HISTOGRAM -> metric.getExponentialHistogram().getDataPointsCount();
            case SUMMARY -> metric.getSummary().getDataPointsCount();
            default -> 0;
        };
    }

    /**
     * The datapoints of data point {@code i} of {@code metric} (which {@link #checkMetric} passed, giving {@code unit}),
     * added to {@code out}: none for a point without a recorded value, two for a summary.
     */
    static void point(
            Metric metric,
            String unit,
            int i,
            Map<String, String> resourceDims,
            String at,
            List<Datapoint> out,
            DecodeBudget budget)
            throws DecodeException {
        String name = metric.getName();
        int before = out.size();
        switch (metric.getDataCase()) {
            case GAUGE ->
                number(
                        name,
                        unit,
                        metric.getGauge().getDataPoints(i),
                        resourceDims,
                        at + ".gauge.dataPoints[" + i + "]",
                        out);
            case SUM -> {
                // Delta: each value is what happened in its interval. Cumulative: a sample of the running total; a
                // monotonic one keeps its start time, which says when the total last started from zero (a reset).
                boolean counter = metric.getSum().getIsMonotonic()
                        && metric.getSum().getAggregationTemporality()
                                == AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE;
                NumberDataPoint p = metric.getSum().getDataPoints(i);
                number(name, unit, p, resourceDims, at + ".sum.dataPoints[" + i + "]", out);
                // fixed64: a start past 2262 reads negative in Java and is treated as not sent.
                if (counter && out.size() > before && p.getStartTimeUnixNano() > 0) {
                    out.set(before, out.get(before).withStartNanos(p.getStartTimeUnixNano()));
                }
            }
            case HISTOGRAM -> {
                HistogramDataPoint hp = metric.getHistogram().getDataPoints(i);
                histogram(name, unit, hp, resourceDims, at + ".histogram.dataPoints[" + i + "]", out, budget);
                if (out.size() > before) {
                    // Each point's own bounds: the query API answers _bucket{le} at them.
                    out.set(
                            before,
                            out.get(before)
                                    .withKind(MetricKind.histogram(
                                            MetricKind.Temporality.DELTA,
                                            metric.getUnit(),
                                            hp.getExplicitBoundsList())));
                }
                return; // its kind is set
            }
            case EXPONENTIAL_HISTOGRAM ->
                exponential(
                        name,
                        unit,
                        metric.getExponentialHistogram().getDataPoints(i),
                        resourceDims,
                        at + ".exponentialHistogram.dataPoints[" + i + "]",
                        out,
                        budget);
            case SUMMARY -> {
                SummaryDataPoint p = metric.getSummary().getDataPoints(i);
                if (noRecordedValue(p.getFlags())) {
                    return;
                }
                String pat = at + ".summary.dataPoints[" + i + "]";
                checkCount(p.getCount(), pat);
                Map<String, String> dims = dims(resourceDims, p.getAttributesList(), pat);
                long ts = millis(p.getTimeUnixNano(), pat);
                out.add(new Datapoint(name + ".count", dims, ts, p.getCount(), null));
                out.add(new Datapoint(name + ".sum", dims, ts, p.getSum(), unit));
            }
            default ->
                throw new DecodeException(at + ": metric " + name + " has no data (" + metric.getDataCase() + ")");
        }
        for (int k = before; k < out.size(); k++) {
            Datapoint dp = out.get(k);
            out.set(k, dp.withKind(kind(metric, dp.name())));
        }
    }

    /** The type the catalog keeps for datapoint {@code pointName} of {@code metric} (a summary has two: .count, .sum). */
    static MetricKind kind(Metric metric, String pointName) {
        String unit = metric.getUnit();
        return switch (metric.getDataCase()) {
            case GAUGE -> MetricKind.of(MetricKind.Type.GAUGE, MetricKind.Temporality.NONE, unit);
            case SUM ->
                MetricKind.of(
                        metric.getSum().getIsMonotonic() ? MetricKind.Type.COUNTER : MetricKind.Type.UPDOWN,
                        metric.getSum().getAggregationTemporality()
                                        == AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE
                                ? MetricKind.Temporality.CUMULATIVE
                                : MetricKind.Temporality.DELTA,
                        unit);
            case EXPONENTIAL_HISTOGRAM ->
                MetricKind.of(MetricKind.Type.EXPONENTIAL, MetricKind.Temporality.DELTA, unit);
            case SUMMARY ->
                MetricKind.of(
                        pointName.endsWith(".count") ? MetricKind.Type.SUMMARY_COUNT : MetricKind.Type.SUMMARY_SUM,
                        MetricKind.Temporality.CUMULATIVE,
                        unit);
            default -> MetricKind.of(MetricKind.Type.HISTOGRAM, MetricKind.Temporality.DELTA, unit);
        };
    }

    private static void number(
            String name,
            String unit,
            NumberDataPoint p,
            Map<String, String> resourceDims,
            String at,
            List<Datapoint> out)
            throws DecodeException {
        if (noRecordedValue(p.getFlags())) {
            return;
        }
        double v = switch (p.getValueCase()) {
            case AS_DOUBLE -> p.getAsDouble();
            case AS_INT -> p.getAsInt();
            default -> throw new DecodeException(at + ": data point without a value");
        };
        out.add(new Datapoint(
                name, dims(resourceDims, p.getAttributesList(), at), millis(p.getTimeUnixNano(), at), v, unit));
    }

    private static void histogram(
            String name,
            String unit,
            HistogramDataPoint p,
            Map<String, String> resourceDims,
            String at,
            List<Datapoint> out,
            DecodeBudget budget)
            throws DecodeException {
        if (noRecordedValue(p.getFlags()) || p.getCount() == 0) {
            return; // nothing recorded in the interval: no values to add
        }
        budget.histogram(at);
        if (!p.hasSum()) {
            throw new DecodeException(
                    at + ": histogram " + name + " without sum (Pulse stores exact sums, it cannot invent one)");
        }
        int buckets = p.getBucketCountsCount();
        int bounds = p.getExplicitBoundsCount();
        if (buckets != 0 && buckets != bounds + 1) {
            throw new DecodeException(
                    at + ": " + buckets + " bucket counts for " + bounds + " bounds (needs bounds + 1)");
        }
        if (buckets > DecodeLimits.MAX_HISTOGRAM_BUCKETS) {
            throw new DecodeException(at + ": " + buckets + " buckets, at most " + DecodeLimits.MAX_HISTOGRAM_BUCKETS
                    + " per histogram point (MAX_HISTOGRAM_BUCKETS)");
        }
        // Bounds that are not finite and strictly increasing place values in buckets that cannot exist: the sketch,
        // min, max and percentiles built from them would be wrong, not just inexact.
        for (int i = 0; i < bounds; i++) {
            double b = p.getExplicitBounds(i);
            if (!Double.isFinite(b)) {
                throw new DecodeException(at + ": explicit bound #" + i + " is " + b + ", bounds must be finite");
            }
            if (i > 0 && !(b > p.getExplicitBounds(i - 1))) {
                throw new DecodeException(at + ": explicit bound #" + i + " (" + b + ") is not above bound #" + (i - 1)
                        + " (" + p.getExplicitBounds(i - 1) + "), bounds must be strictly increasing");
            }
        }
        checkCount(p.getCount(), at);
        long total = 0;
        for (int i = 0; i < buckets; i++) {
            total = addCount(total, p.getBucketCounts(i), "bucket count #" + i, at);
        }
        if (buckets != 0 && total != p.getCount()) {
            throw new DecodeException(at + ": bucket counts add up to " + total + ", count is " + p.getCount());
        }
        double min = p.hasMin() ? p.getMin() : Double.NaN;
        double max = p.hasMax() ? p.getMax() : Double.NaN;
        DDSketch sketch = Sketches.create();
        // Without bucket counts the point is one bucket, (-inf, +inf), holding every value: the same rules place them.
        int slots = Math.max(buckets, 1);
        int nonEmpty = 0;
        for (int i = 0; i < slots; i++) {
            nonEmpty += count(p, i) > 0 ? 1 : 0;
        }
        for (int i = 0; i < slots; i++) {
            long c = count(p, i);
            if (c == 0) {
                continue;
            }
            double lo = buckets == 0 || i == 0 ? Double.NEGATIVE_INFINITY : p.getExplicitBounds(i - 1);
            double hi = buckets == 0 || i == bounds ? Double.POSITIVE_INFINITY : p.getExplicitBounds(i);
            // Clamped to the exact min and max where sent, which closes the two open-ended buckets.
            if (!Double.isNaN(min)) {
                lo = Math.max(lo, min);
            }
            if (!Double.isNaN(max)) {
                hi = Math.min(hi, max);
            }
            double rep;
            if (!Double.isInfinite(lo) && !Double.isInfinite(hi)) {
                // The bucket's middle: off by at most half its width from every value in it. Not the mean when
                // all values share one bucket: a tail percentile there can be as far as the whole width from it.
                rep = lo + (hi - lo) / 2;
            } else if (nonEmpty == 1) {
                rep = clamp(p.getSum() / p.getCount(), lo, hi); // open-ended and alone: the mean is all we know
            } else if (Double.isInfinite(lo)) {
                rep = hi;
            } else {
                rep = lo;
            }
            sketch.accept(rep, c);
        }
        if (Double.isNaN(min)) {
            min = sketchMin(sketch);
        }
        if (Double.isNaN(max)) {
            max = sketchMax(sketch);
        }
        out.add(Datapoint.preAggregated(
                name,
                dims(resourceDims, p.getAttributesList(), at),
                millis(p.getTimeUnixNano(), at),
                unit,
                summary(p.getCount(), p.getSum(), min, max, sketch)));
    }

    private static void exponential(
            String name,
            String unit,
            ExponentialHistogramDataPoint p,
            Map<String, String> resourceDims,
            String at,
            List<Datapoint> out,
            DecodeBudget budget)
            throws DecodeException {
        if (noRecordedValue(p.getFlags()) || p.getCount() == 0) {
            return;
        }
        budget.histogram(at);
        int most =
                Math.max(p.getPositive().getBucketCountsCount(), p.getNegative().getBucketCountsCount());
        if (most > DecodeLimits.MAX_HISTOGRAM_BUCKETS) {
            throw new DecodeException(at + ": " + most + " buckets of one sign, at most "
                    + DecodeLimits.MAX_HISTOGRAM_BUCKETS + " per histogram point (MAX_HISTOGRAM_BUCKETS)");
        }
        if (!p.hasSum()) {
            throw new DecodeException(
                    at + ": exponential histogram " + name + " without sum (Pulse stores exact sums)");
        }
        if (p.getScale() < -10 || p.getScale() > 20) {
            throw new DecodeException(at + ": scale " + p.getScale() + " outside the OTLP range -10..20");
        }
        double min = p.hasMin() ? p.getMin() : Double.NaN;
        double max = p.hasMax() ? p.getMax() : Double.NaN;
        // Bucket i covers (base^i, base^(i+1)] with base = 2^(2^-scale); each bucket's values go in at its geometric
        // middle base^(i+0.5), within a relative error of sqrt(base) - 1 of every value in it.
        double log2Base = Math.scalb(1.0, -p.getScale());
        DDSketch sketch = Sketches.create();
        checkCount(p.getCount(), at);
        long total = addCount(0, p.getZeroCount(), "zero count", at);
        if (p.getZeroCount() > 0) {
            sketch.accept(0.0, p.getZeroCount());
        }
        total = addExponential(sketch, p.getPositive(), log2Base, 1, min, max, total, at + ".positive");
        total = addExponential(sketch, p.getNegative(), log2Base, -1, min, max, total, at + ".negative");
        if (total != p.getCount()) {
            throw new DecodeException(at + ": bucket counts add up to " + total + ", count is " + p.getCount());
        }
        if (Double.isNaN(min)) {
            min = sketchMin(sketch);
        }
        if (Double.isNaN(max)) {
            max = sketchMax(sketch);
        }
        out.add(Datapoint.preAggregated(
                name,
                dims(resourceDims, p.getAttributesList(), at),
                millis(p.getTimeUnixNano(), at),
                unit,
                summary(p.getCount(), p.getSum(), min, max, sketch)));
    }

    /** The values in bucket {@code i}; without bucket counts, all of them in the one bucket there is. */
    private static long count(HistogramDataPoint p, int i) {
        return p.getBucketCountsCount() == 0 ? p.getCount() : p.getBucketCounts(i);
    }

    /** Exact ranks: the sketch and the nearest-rank percentile compute ranks in doubles, exact up to 2^53. */
    static final long MAX_POINT_COUNT = DecodeLimits.MAX_POINT_COUNT;

    private static void checkCount(long count, String at) throws DecodeException {
        if (count < 0) {
            throw new DecodeException(at + ": count " + Long.toUnsignedString(count)
                    + " is more than 2^53, where counts stop being exact (MAX_POINT_COUNT)");
        }
        if (count > MAX_POINT_COUNT) {
            throw new DecodeException(
                    at + ": count " + count + " is more than 2^53, where counts stop being exact (MAX_POINT_COUNT)");
        }
    }

    /**
     * {@code total + c}, poison when {@code c} is negative (a uint64 count of 2^63 or more reads as negative) or the
     * sum overflows: a wrapped total could otherwise pass the "bucket counts add up to count" rule.
     */
    private static long addCount(long total, long c, String what, String at) throws DecodeException {
        if (c < 0) {
            throw new DecodeException(at + ": " + what + " " + Long.toUnsignedString(c)
                    + " is 2^63 or more (negative as a signed count)");
        }
        try {
            return Math.addExact(total, c);
        } catch (ArithmeticException e) {
            throw new DecodeException(at + ": bucket counts add up to more than 2^63-1 (overflow at " + what + ")");
        }
    }

    private static long addExponential(
            DDSketch sketch,
            ExponentialHistogramDataPoint.Buckets b,
            double log2Base,
            int sign,
            double min,
            double max,
            long total,
            String at)
            throws DecodeException {
        for (int k = 0; k < b.getBucketCountsCount(); k++) {
            long c = b.getBucketCounts(k);
            total = addCount(total, c, "bucket count #" + k, at);
            if (c == 0) {
                continue;
            }
            double v = sign * Math.pow(2.0, (b.getOffset() + k + 0.5) * log2Base);
            if (!Double.isFinite(v) || v == 0) {
                throw new DecodeException(
                        at + ": bucket #" + k + " at offset " + b.getOffset() + " lies outside the double range");
            }
            sketch.accept(clamp(v, min, max), c);
        }
        return total;
    }

    private static Summary summary(long count, double sum, double min, double max, DDSketch sketch) {
        ExactSum exact = new ExactSum();
        exact.add(sum);
        return new Summary(count, exact, min, max, sketch);
    }

    private static double sketchMin(DDSketch s) {
        return s.getMinValue();
    }

    private static double sketchMax(DDSketch s) {
        return s.getMaxValue();
    }

    private static double clamp(double v, double min, double max) {
        if (!Double.isNaN(min) && v < min) {
            v = min;
        }
        if (!Double.isNaN(max) && v > max) {
            v = max;
        }
        return v;
    }

    private static void requireDelta(AggregationTemporality t, String at, String fix) throws DecodeException {
        if (t != AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA) {
            // Stored as they come, cumulative histograms would add every export's running total again.
            throw new DecodeException(at + ": " + t + " histograms are not accepted, only delta; " + fix);
        }
    }

    private static boolean noRecordedValue(int flags) {
        // A staleness marker (the series went away), not a measurement.
        return (flags & DataPointFlags.DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK_VALUE) != 0;
    }

    private static long millis(long unixNanos, String at) throws DecodeException {
        if (unixNanos <= 0) {
            throw new DecodeException(at + ": time_unix_nano is missing");
        }
        return unixNanos / 1_000_000L;
    }

    /**
     * The point's dimensions: the resource's, then its own attributes (which win on a clash). Counted before the map is
     * copied: the exact count of the merge (an attribute that adds a key, or an empty one that removes a resource key),
     * worked out only when the plain sum of both could pass the limit.
     */
    static Map<String, String> dims(Map<String, String> resourceDims, List<KeyValue> attributes, String at)
            throws DecodeException {
        if (attributes.isEmpty()) {
            return resourceDims;
        }
        if (resourceDims.size() + attributes.size() > DecodeLimits.MAX_DIMENSIONS) {
            int n = resourceDims.size();
            for (int i = 0, k = attributes.size(); i < k; i++) {
                KeyValue kv = attributes.get(i);
                boolean known = resourceDims.containsKey(kv.getKey());
                boolean empty = isEmpty(kv.getValue());
                n += !empty && !known ? 1 : empty && known ? -1 : 0;
            }
            if (n > DecodeLimits.MAX_DIMENSIONS) {
                throw new DecodeException(
                        at + ": more than " + DecodeLimits.MAX_DIMENSIONS + " dimensions (" + resourceDims.size()
                                + " from resource attributes, " + attributes.size() + " point attributes), at most "
                                + DecodeLimits.MAX_DIMENSIONS + " per datapoint (MAX_DIMENSIONS)");
            }
        }
        Map<String, String> dims = new HashMap<>(resourceDims);
        for (KeyValue kv : attributes) {
            putAttribute(dims, kv);
        }
        return dims;
    }

    /** Whether {@link #text} of {@code v} is empty, without making it. */
    private static boolean isEmpty(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue().isEmpty();
            case BYTES_VALUE -> v.getBytesValue().isEmpty();
            case BOOL_VALUE, INT_VALUE, DOUBLE_VALUE, ARRAY_VALUE, KVLIST_VALUE -> false;
            default -> true;
        };
    }

    private static void putAttribute(Map<String, String> dims, KeyValue kv) {
        String v = text(kv.getValue());
        if (!v.isEmpty()) {
            dims.put(kv.getKey(), v);
        } else {
            dims.remove(kv.getKey());
        }
    }

    /**
     * An attribute value as dimension text: strings as they are, numbers and booleans as written, bytes as base64,
     * arrays and key-value lists as JSON, as OpenTelemetry asks of protocols without such values (so
     * {@code ["a,b"]} and {@code ["a","b"]} stay two series).
     */
    static String text(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case INT_VALUE -> Long.toString(v.getIntValue());
            case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
            case BYTES_VALUE ->
                Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray());
            case ARRAY_VALUE, KVLIST_VALUE -> json(new StringBuilder(), v).toString();
            default -> "";
        };
    }

    private static StringBuilder json(StringBuilder sb, AnyValue v) {
        switch (v.getValueCase()) {
            case STRING_VALUE -> quoted(sb, v.getStringValue());
            case BOOL_VALUE, INT_VALUE -> sb.append(text(v));
            case DOUBLE_VALUE -> {
                double d = v.getDoubleValue();
                if (Double.isFinite(d)) {
                    sb.append(d);
                } else {
                    quoted(sb, Double.toString(d)); // JSON has no NaN or infinities
                }
            }
            case BYTES_VALUE -> quoted(sb, text(v));
            case ARRAY_VALUE -> {
                sb.append('[');
                for (int i = 0; i < v.getArrayValue().getValuesCount(); i++) {
                    json(i == 0 ? sb : sb.append(','), v.getArrayValue().getValues(i));
                }
                sb.append(']');
            }
            case KVLIST_VALUE -> {
                sb.append('{');
                for (int i = 0; i < v.getKvlistValue().getValuesCount(); i++) {
                    KeyValue kv = v.getKvlistValue().getValues(i);
                    json(quoted(i == 0 ? sb : sb.append(','), kv.getKey()).append(':'), kv.getValue());
                }
                sb.append('}');
            }
            default -> sb.append("null");
        }
        return sb;
    }

    private static StringBuilder quoted(StringBuilder sb, String s) {
        sb.append('"');
        JsonStringEncoder.getInstance().quoteAsString(s, sb);
        return sb.append('"');
    }

    /** OTLP units are UCUM; the common ones become CloudWatch unit names, the rest are left out (no unit). */
    static String unit(String ucum) {
        return switch (ucum) {
            case "ns" -> null; // CloudWatch has no nanoseconds unit
            case "us" -> "Microseconds";
            case "ms" -> "Milliseconds";
            case "s" -> "Seconds";
            case "By" -> "Bytes";
            case "KiBy" -> "Kilobytes";
            case "MiBy" -> "Megabytes";
            case "GiBy" -> "Gigabytes";
            case "bit" -> "Bits";
            case "%" -> "Percent";
            case "1" -> "None";
            case "By/s" -> "Bytes/Second";
            default -> ucum.startsWith("{") && ucum.endsWith("}") ? "Count" : null;
        };
    }

    private static byte[] peek(byte[] data, Compression c) {
        try {
            return inflate(data, c, PEEK_BYTES, false);
        } catch (DecodeException e) {
            return null;
        }
    }

    /**
     * Inflates {@code data} up to the end of the input or {@code limit} bytes. {@code strict} decoding fails past the
     * limit and on data after the end of the stream; a peek just stops at the limit.
     */
    static byte[] inflate(byte[] data, Compression c, int limit, boolean strict) throws DecodeException {
        int start = 0;
        if (c == Compression.GZIP) {
            start = gzipHeaderLength(data);
        }
        Inflater inflater = new Inflater(c != Compression.ZLIB);
        try {
            inflater.setInput(data, start, data.length - start);
            // Filled chunk by chunk and copied once: at most about twice the content is allocated (a doubling buffer
            // and its final copy allocate three times), which the budget of a KPL aggregate's inflations relies on.
            // A strict inflation stops one byte past its limit, which tells it passed it.
            int cap = strict ? limit + 1 : limit;
            List<byte[]> full = new ArrayList<>();
            byte[] chunk = new byte[Math.min(cap, Math.max(256, data.length * 4))];
            int used = 0;
            int total = 0;
            while (!inflater.finished() && total < cap) {
                if (used == chunk.length) {
                    full.add(chunk);
                    chunk = new byte[Math.min(cap - total, Math.min(1 << 20, chunk.length * 2))];
                    used = 0;
                }
                int n = inflater.inflate(chunk, used, Math.min(chunk.length - used, cap - total));
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    break; // the exporter's flushed-but-unclosed stream ends here
                }
                used += n;
                total += n;
            }
            if (strict && total > limit) {
                throw new TooLarge("OTLP record decompresses to more than " + limit + " bytes");
            }
            // What follows the end of the stream (past gzip's 8-byte trailer) would be dropped unread: a second gzip
            // member (cat a.gz b.gz) or other bytes. The record is poison instead, so nothing is lost silently.
            int trailing =
                    strict && inflater.finished() ? inflater.getRemaining() - (c == Compression.GZIP ? 8 : 0) : 0;
            if (trailing > 0) {
                throw new DecodeException("OTLP record: " + trailing + " bytes after the end of the "
                        + c.name().toLowerCase(java.util.Locale.ROOT) + " stream (a second gzip member, or other data);"
                        + " send one compressed stream per record");
            }
            if (total == 0) {
                throw new DecodeException(
                        "OTLP record: " + c.name().toLowerCase(java.util.Locale.ROOT) + " data inflates to nothing");
            }
            if (full.isEmpty() && used == chunk.length) {
                return chunk;
            }
            byte[] out = new byte[total];
            int at = 0;
            for (byte[] f : full) {
                System.arraycopy(f, 0, out, at, f.length);
                at += f.length;
            }
            System.arraycopy(chunk, 0, out, at, used);
            return out;
        } catch (DataFormatException e) {
            throw new DecodeException(
                    "OTLP record: invalid " + c.name().toLowerCase(java.util.Locale.ROOT) + " data: " + e.getMessage(),
                    e);
        } finally {
            inflater.end();
        }
    }

    /** Inflation passed its limit: a decoder names the limit that set it. */
    static final class TooLarge extends DecodeException {
        TooLarge(String reason) {
            super(reason);
        }
    }

    /** RFC 1952 header: 10 bytes, then the optional extra field, file name, comment and header CRC its flags announce. */
    private static int gzipHeaderLength(byte[] d) throws DecodeException {
        if (d.length < 10 || d[2] != 8) {
            throw new DecodeException("invalid gzip header");
        }
        int flags = d[3] & 0xff;
        int i = 10;
        if ((flags & 4) != 0) {
            if (i + 2 > d.length) {
                throw new DecodeException("invalid gzip header");
            }
            i += 2 + ((d[i] & 0xff) | (d[i + 1] & 0xff) << 8);
        }
        for (int bit : new int[] {8, 16}) {
            if ((flags & bit) != 0) {
                while (i < d.length && d[i] != 0) {
                    i++;
                }
                i++;
            }
        }
        if ((flags & 2) != 0) {
            i += 2;
        }
        if (i > d.length) {
            throw new DecodeException("invalid gzip header");
        }
        return i;
    }

    private static int firstNonBlank(byte[] b, int n) {
        return firstNonBlank(b, 0, n);
    }

    private static int firstNonBlank(byte[] b, int from, int n) {
        for (int i = from; i < n; i++) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return i;
            }
        }
        return -1;
    }

    private static boolean startsWith(byte[] b, int at, int n, byte[] prefix) {
        if (at + prefix.length > n) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (b[at + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}
