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

import static dev.pulse.codec.Payloads.NOW_MS;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The reproductions of the decoders' limits: small records that expand to far more than they look, built with the
 * producers' own encoders (the OpenTelemetry protobuf classes, gzip and zlib as CloudWatch Logs and the Collector's
 * exporter write them). Streamed into the compressor, so building them costs no more memory than the record.
 */
final class HostileRecords {

    static final long NOW_NS = NOW_MS * 1_000_000L;
    static final String LAMBDA_GROUP = "/aws/lambda/checkout-api";

    private HostileRecords() {}

    /** gzip of what {@code body} writes, streamed. */
    static byte[] gzipOf(Consumer<Appender> body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(bytes, 1 << 16)) {
            body.accept(new Appender(out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** zlib (the exporter's {@code zlib}, closed) of what {@code body} writes, streamed. */
    static byte[] zlibOf(Consumer<Appender> body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream out = new DeflaterOutputStream(bytes, new java.util.zip.Deflater(9), 1 << 16)) {
            body.accept(new Appender(out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Writes text into a compressor. */
    static final class Appender {
        private final OutputStream out;

        Appender(OutputStream out) {
            this.out = out;
        }

        Appender text(String s) {
            try {
                out.write(s.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        Appender bytes(byte[] b) {
            try {
                out.write(b);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }
    }

    /**
     * A CloudWatch Logs subscription record of one EMF log event whose directive lists {@code metrics} metrics in
     * {@code sets} dimension sets, all naming the same member of {@code values} values and the same dimension: the
     * array is written once, so the record compresses to a few hundred bytes whatever it expands to. The message is
     * JSON-escaped as CloudWatch Logs sends it.
     */
    static byte[] emfAmplification(int metrics, int sets, int values) {
        return gzipOf(a -> {
            a.text("{\"messageType\":\"DATA_MESSAGE\",\"logGroup\":\"" + LAMBDA_GROUP
                    + "\",\"logStream\":\"s\",\"logEvents\":[{\"id\":\"1\",\"timestamp\":" + NOW_MS
                    + ",\"message\":\"");
            a.text("{\\\"_aws\\\":{\\\"Timestamp\\\":" + NOW_MS
                    + ",\\\"CloudWatchMetrics\\\":[{\\\"Namespace\\\":\\\"ns\\\",\\\"Dimensions\\\":[");
            for (int s = 0; s < sets; s++) {
                a.text((s == 0 ? "" : ",") + "[\\\"d\\\"]");
            }
            a.text("],\\\"Metrics\\\":[");
            for (int m = 0; m < metrics; m++) {
                a.text((m == 0 ? "" : ",") + "{\\\"Name\\\":\\\"m\\\"}");
            }
            a.text("]}]},\\\"d\\\":\\\"v\\\",\\\"m\\\":[");
            StringBuilder array = new StringBuilder(values * 2);
            for (int v = 0; v < values; v++) {
                array.append(v == 0 ? "" : ",").append('1');
            }
            a.text(array.toString()).text("]}\"}]}");
        });
    }

    /** A CloudWatch Logs record of one EMF log event whose one metric has {@code unit} as its Unit. */
    static byte[] emfWithUnit(String unit) {
        String doc = "{\"_aws\":{\"Timestamp\":" + NOW_MS
                + ",\"CloudWatchMetrics\":[{\"Namespace\":\"ns\",\"Dimensions\":[[]],"
                + "\"Metrics\":[{\"Name\":\"latency\",\"Unit\":\"" + unit + "\"}]}]},\"latency\":12}";
        return Payloads.logs(LAMBDA_GROUP, new Payloads.LogEvent(NOW_MS, doc));
    }

    static KeyValue kv(String k, String v) {
        return KeyValue.newBuilder()
                .setKey(k)
                .setValue(AnyValue.newBuilder().setStringValue(v))
                .build();
    }

    static NumberDataPoint.Builder point(double v) {
        return NumberDataPoint.newBuilder().setTimeUnixNano(NOW_NS).setAsDouble(v);
    }

    static ExportMetricsServiceRequest request(Resource resource, Metric... metrics) {
        ScopeMetrics.Builder sm = ScopeMetrics.newBuilder();
        for (Metric m : metrics) {
            sm.addMetrics(m);
        }
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(
                        ResourceMetrics.newBuilder().setResource(resource).addScopeMetrics(sm))
                .build();
    }

    /** OTLP protobuf: {@code attributes} resource attributes and one gauge of {@code points} points. */
    static byte[] otlpManyResourceAttributes(int attributes, int points) {
        Resource.Builder r = Resource.newBuilder();
        for (int i = 0; i < attributes; i++) {
            r.addAttributes(kv("attribute." + i, "value-" + i));
        }
        Gauge.Builder g = Gauge.newBuilder();
        for (int i = 0; i < points; i++) {
            g.addDataPoints(point(i));
        }
        return request(r.build(), Metric.newBuilder().setName("cpu").setGauge(g).build())
                .toByteArray();
    }

    /** OTLP protobuf: one gauge of {@code points} points, each its own series (attribute {@code i}). */
    static byte[] otlpGauge(String name, int points, boolean distinctSeries) {
        Gauge.Builder g = Gauge.newBuilder();
        for (int i = 0; i < points; i++) {
            NumberDataPoint.Builder p = point(i);
            if (distinctSeries) {
                p.addAttributes(kv("i", Integer.toString(i)));
            }
            g.addDataPoints(p);
        }
        return request(
                        Resource.getDefaultInstance(),
                        Metric.newBuilder().setName(name).setGauge(g).build())
                .toByteArray();
    }

    /** OTLP/JSON, zlib: a request of {@code objects} empty ResourceMetrics objects (about 3 bytes each). */
    static byte[] otlpJsonEmptyObjects(int objects) {
        return zlibOf(a -> {
            a.text("{\"resourceMetrics\":[{}");
            StringBuilder chunk = new StringBuilder(3 * 10_000);
            for (int i = 0; i < 10_000; i++) {
                chunk.append(",{}");
            }
            String c = chunk.toString();
            for (int i = 1; i < objects; i += 10_000) {
                a.text(c);
            }
            a.text("]}");
        });
    }

    /** A delta histogram point with {@code bounds} and one value in each bucket. */
    static byte[] otlpHistogram(double... bounds) {
        HistogramDataPoint.Builder p = HistogramDataPoint.newBuilder()
                .setTimeUnixNano(NOW_NS)
                .setCount(bounds.length + 1)
                .setSum(100.0 * (bounds.length + 1))
                .setMin(1)
                .setMax(1000);
        for (double b : bounds) {
            p.addExplicitBounds(b);
        }
        for (int i = 0; i <= bounds.length; i++) {
            p.addBucketCounts(1);
        }
        Metric m = Metric.newBuilder()
                .setName("latency")
                .setUnit("ms")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(p))
                .build();
        return request(Resource.getDefaultInstance(), m).toByteArray();
    }

    /** An OTLP summary point whose count is {@code count} as the uint64 wire value. */
    static byte[] otlpSummaryCount(long count) {
        Metric m = Metric.newBuilder()
                .setName("rpc")
                .setSummary(Summary.newBuilder()
                        .addDataPoints(SummaryDataPoint.newBuilder()
                                .setTimeUnixNano(NOW_NS)
                                .setCount(count)
                                .setSum(5)))
                .build();
        return request(Resource.getDefaultInstance(), m).toByteArray();
    }

    /**
     * gzip of an OTLP protobuf request whose one gauge holds {@code bytes / 2} empty data points (two bytes each on the
     * wire): the most objects protobuf builds per byte.
     */
    static byte[] otlpProtobufOfEmptyPoints(int bytes) {
        int points = bytes / 2;
        int gaugeLen = points * 2;
        return gzipOf(a -> {
            // ExportMetricsServiceRequest.resource_metrics(1) > ResourceMetrics.scope_metrics(2) >
            // ScopeMetrics.metrics(2)
            // > Metric.gauge(5) > Gauge.data_points(1) x points, each an empty message.
            byte[] gaugeHeader = tagLen(5, gaugeLen);
            int metricLen = gaugeHeader.length + gaugeLen;
            byte[] metricHeader = tagLen(2, metricLen);
            int smLen = metricHeader.length + metricLen;
            byte[] smHeader = tagLen(2, smLen);
            int rmLen = smHeader.length + smLen;
            a.bytes(tagLen(1, rmLen)).bytes(smHeader).bytes(metricHeader).bytes(gaugeHeader);
            byte[] chunk = new byte[2 * 8192];
            for (int i = 0; i < chunk.length; i += 2) {
                chunk[i] = 0x0a;
            }
            for (int i = 0; i < points; i += 8192) {
                a.bytes(i + 8192 <= points ? chunk : java.util.Arrays.copyOf(chunk, 2 * (points - i)));
            }
        });
    }

    private static byte[] tagLen(int field, int len) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.write(field << 3 | 2);
        long v = len;
        while ((v & ~0x7fL) != 0) {
            o.write((int) (v & 0x7f | 0x80));
            v >>>= 7;
        }
        o.write((int) v);
        return o.toByteArray();
    }

    /** Native JSON: {@code series} datapoints, each its own series. */
    static byte[] nativeDistinctSeries(int series, int repeats) {
        StringBuilder sb = new StringBuilder(series * repeats * 60);
        sb.append('[');
        for (int r = 0; r < repeats; r++) {
            for (int i = 0; i < series; i++) {
                sb.append(sb.length() == 1 ? "" : ",")
                        .append("{\"name\":\"s\",\"dims\":{\"i\":\"")
                        .append(i)
                        .append("\"},\"ts\":")
                        .append(NOW_MS)
                        .append(",\"value\":1}");
            }
        }
        return sb.append(']').toString().getBytes(StandardCharsets.UTF_8);
    }
}
