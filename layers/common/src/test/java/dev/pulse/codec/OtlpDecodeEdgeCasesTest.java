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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
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
import io.opentelemetry.proto.resource.v1.Resource;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * OTLP detection and decoding at the edges of the format: records whose first bytes look like another format, strict
 * OTLP/JSON (signed and unsigned 64-bit strings, int32 range, nothing after the request), histogram counts that
 * overflow, a zip bomb, and a gzip record of several members. Each either decodes exactly or is poison with a reason
 * (docs/otlp-input.md, "Detection" and "Histogram accuracy"); none fails the batch.
 */
class OtlpDecodeEdgeCasesTest {

    static final long NOW_MS = 1_795_262_400_000L;
    static final long NOW_NS = NOW_MS * 1_000_000L;
    static final RecordDecoder DECODER = new RecordDecoder(new DatapointValidator(
            Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2)));

    static KeyValue kv(String k, String v) {
        return KeyValue.newBuilder()
                .setKey(k)
                .setValue(AnyValue.newBuilder().setStringValue(v))
                .build();
    }

    static Metric gauge(String name, double v, KeyValue... attrs) {
        NumberDataPoint.Builder p =
                NumberDataPoint.newBuilder().setTimeUnixNano(NOW_NS).setAsDouble(v);
        for (KeyValue a : attrs) {
            p.addAttributes(a);
        }
        return Metric.newBuilder()
                .setName(name)
                .setGauge(Gauge.newBuilder().addDataPoints(p))
                .build();
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

    /** A one-gauge request whose single ResourceMetrics is exactly {@code rmLen} bytes (pads the service name). */
    static byte[] requestWithResourceMetricsOf(int rmLen) {
        for (int pad = 0; pad < 200; pad++) {
            ExportMetricsServiceRequest r = request(
                    Resource.newBuilder()
                            .addAttributes(kv("service.name", "s" + "x".repeat(pad)))
                            .build(),
                    gauge("g", 1.0));
            if (r.getResourceMetrics(0).getSerializedSize() == rmLen) {
                return r.toByteArray();
            }
        }
        throw new AssertionError("no padding gives " + rmLen);
    }

    static byte[] gzip(byte[] b) throws Exception {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bos)) {
            gz.write(b);
        }
        return bos.toByteArray();
    }

    // ---------------------------------------------------------------- detection

    /**
     * An otlp_proto record whose first ResourceMetrics is 123 (or 91) bytes long starts 0a 7b (0a 5b), which also
     * reads as NDJSON after a blank line: the whole record decides, so it is decoded as OTLP, not sent to the native
     * (or, gzipped, the CloudWatch Logs) decoder as poison.
     */
    @Test
    void detect_whenProtobufResourceMetricsIs123or91Bytes_isProtoAndDecodes() throws Exception {
        for (int len : new int[] {123, 91}) {
            byte[] pb = requestWithResourceMetricsOf(len);
            assertThat(pb[0]).isEqualTo((byte) 0x0a);
            assertThat(pb[1]).isEqualTo((byte) len);
            assertThat(OtlpDecoder.detect(pb))
                    .as("uncompressed, RM length %d", len)
                    .isEqualTo(new OtlpDecoder.Format(OtlpDecoder.Compression.NONE, OtlpDecoder.Encoding.PROTO));
            assertThat(DECODER.decode(pb).datapoints())
                    .singleElement()
                    .satisfies(d -> assertThat(d.name()).isEqualTo("g"));
            byte[] gz = gzip(pb);
            assertThat(OtlpDecoder.detect(gz))
                    .as("gzip, RM length %d", len)
                    .isEqualTo(new OtlpDecoder.Format(OtlpDecoder.Compression.GZIP, OtlpDecoder.Encoding.PROTO));
            assertThat(DECODER.decode(gz).datapoints())
                    .singleElement()
                    .satisfies(d -> assertThat(d.name()).isEqualTo("g"));
        }
        // Control: one byte more or less is decoded.
        assertThat(DECODER.decode(requestWithResourceMetricsOf(122)).datapoints())
                .hasSize(1);
        assertThat(DECODER.decode(requestWithResourceMetricsOf(124)).datapoints())
                .hasSize(1);
    }

    @Test
    void detect_whenGzippedNdjsonWithLeadingNewline_isNotOtlp() throws Exception {
        String line = "{\"name\":\"n\",\"value\":1,\"ts\":" + NOW_MS + "}";
        byte[] gz = gzip(("\n" + line + "\n" + line).getBytes(StandardCharsets.UTF_8));
        assertThat(OtlpDecoder.detect(gz)).isNull();
    }

    @Test
    void detect_whenNdjsonWithLeadingNewline_isNative() throws Exception {
        String line = "{\"name\":\"n\",\"value\":1,\"ts\":" + NOW_MS + "}";
        for (String s : new String[] {
            "\n" + line, "\n\n" + line + "\n" + line, "\r\n" + line, " \t\n[" + line + "]", "\n[" + line + "]"
        }) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            assertThat(OtlpDecoder.detect(b)).as(s).isNull();
        }
    }

    // ---------------------------------------------------------------- OTLP/JSON

    /** OTLP/JSON writes 64-bit integers as numbers or strings: int64 fields (asInt, intValue) are signed either way. */
    @Test
    void decode_whenJsonNegativeInt64AsString_readsSigned() throws Exception {
        String tmpl =
                "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"s\"}}]},"
                        + "\"scopeMetrics\":[{\"metrics\":[{\"name\":\"g\",\"gauge\":{\"dataPoints\":[{\"timeUnixNano\":\""
                        + NOW_NS + "\","
                        + "\"asInt\":%s,\"attributes\":[{\"key\":\"a\",\"value\":{\"intValue\":%s}}]}]}}]}]}]}";
        byte[] asNumber = String.format(tmpl, "-5", "-3").getBytes(StandardCharsets.UTF_8);
        Datapoint dp = DECODER.decode(asNumber).datapoints().get(0);
        assertThat(dp.value()).isEqualTo(-5.0);
        assertThat(dp.dims()).containsEntry("a", "-3");
        byte[] asString = String.format(tmpl, "\"-5\"", "\"-3\"").getBytes(StandardCharsets.UTF_8);
        Datapoint ds = DECODER.decode(asString).datapoints().get(0);
        assertThat(ds.value()).isEqualTo(-5.0);
        assertThat(ds.dims()).containsEntry("a", "-3");
        // uint64 stays unsigned: a negative timeUnixNano string is not a number there.
        byte[] negTime = String.format(tmpl, "1", "1")
                .replace("\"" + NOW_NS + "\"", "\"-1\"")
                .getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> DECODER.decode(negTime))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("timeUnixNano");
    }

    /** What follows the request's JSON value (a second request, garbage) makes the record poison, never dropped. */
    @Test
    void decode_whenJsonTrailingContent_isPoison() throws Exception {
        String one =
                "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"g\",\"gauge\":{\"dataPoints\":[{\"timeUnixNano\":\""
                        + NOW_NS + "\",\"asDouble\":1}]}}]}]}]}";
        byte[] two = (one + "\n" + one.replace("\"g\"", "\"h\"")).getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> DECODER.decode(two))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("OTLP/JSON");
        byte[] garbage = (one + "}]garbage").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> DECODER.decode(garbage))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("OTLP/JSON");
        // Trailing blanks are fine.
        assertThat(DECODER.decode((one + " \n\r\n").getBytes(StandardCharsets.UTF_8))
                        .datapoints())
                .hasSize(1);
    }

    /** An out-of-range JSON number in an int32 field (scale) is poison: wrapped (4294967299 -> 3) it would be wrong. */
    @Test
    void decode_whenJsonInt32OutOfRange_isPoison() throws Exception {
        String j =
                "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"e\",\"exponentialHistogram\":{\"aggregationTemporality\":1,"
                        + "\"dataPoints\":[{\"timeUnixNano\":\"" + NOW_NS
                        + "\",\"count\":\"2\",\"sum\":3.0,\"scale\":4294967299,"
                        + "\"positive\":{\"offset\":0,\"bucketCounts\":[\"2\"]}}]}}]}]}]}";
        assertThatThrownBy(() -> DECODER.decode(j.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("scale")
                .hasMessageContaining("out of the int32 range");
        assertThatThrownBy(() ->
                        DECODER.decode(j.replace("4294967299", "\"4294967299\"").getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("scale");
        assertThat(DECODER.decode(j.replace("4294967299", "3").getBytes(StandardCharsets.UTF_8))
                        .datapoints())
                .hasSize(1);
    }

    // ---------------------------------------------------------------- histogram arithmetic

    /** Bucket counts that overflow a long when added ({Long.MAX, Long.MAX, 3} wraps to 1) cannot pass the count check. */
    @Test
    void decode_whenBucketCountsOverflow_isPoison() throws Exception {
        HistogramDataPoint p = HistogramDataPoint.newBuilder()
                .setTimeUnixNano(NOW_NS)
                .setCount(1)
                .setSum(5)
                .setMin(5)
                .setMax(5)
                .addExplicitBounds(1)
                .addExplicitBounds(10)
                .addBucketCounts(Long.MAX_VALUE)
                .addBucketCounts(Long.MAX_VALUE)
                .addBucketCounts(3)
                .build();
        Metric m = Metric.newBuilder()
                .setName("h")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(p))
                .build();
        assertThatThrownBy(() ->
                        DECODER.decode(request(Resource.getDefaultInstance(), m).toByteArray()))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("overflow");
    }

    @Test
    void decode_whenNegativeBucketCount_isPoisonWithReason() {
        HistogramDataPoint p = HistogramDataPoint.newBuilder()
                .setTimeUnixNano(NOW_NS)
                .setCount(3)
                .setSum(5)
                .addExplicitBounds(1)
                .addBucketCounts(5)
                .addBucketCounts(-2)
                .build();
        Metric m = Metric.newBuilder()
                .setName("h")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(p))
                .build();
        assertThatThrownBy(() ->
                        DECODER.decode(request(Resource.getDefaultInstance(), m).toByteArray()))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("bucket count #1")
                .hasMessageContaining("2^63 or more");
    }

    // ---------------------------------------------------------------- compression

    @Test
    void decode_whenZipBomb_isPoisonAndBounded() throws Exception {
        byte[] huge = request(Resource.getDefaultInstance(), gauge("g", 1.0)).toByteArray();
        // A valid OTLP prefix followed by 64 MB of zeros, raw deflate, flushed not finished.
        Deflater d = new Deflater(9, true);
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        d.setInput(huge);
        int n;
        while ((n = d.deflate(buf, 0, buf.length, Deflater.NO_FLUSH)) > 0) {
            bos.write(buf, 0, n);
        }
        byte[] zeros = new byte[1 << 20];
        for (int i = 0; i < 64; i++) {
            d.setInput(zeros);
            while ((n = d.deflate(buf, 0, buf.length, Deflater.NO_FLUSH)) > 0) {
                bos.write(buf, 0, n);
            }
        }
        while ((n = d.deflate(buf, 0, buf.length, Deflater.SYNC_FLUSH)) > 0) {
            bos.write(buf, 0, n);
            if (n < buf.length) {
                break;
            }
        }
        byte[] bomb = bos.toByteArray();
        assertThat(bomb.length).isLessThan(1 << 20);
        assertThat(OtlpDecoder.detect(bomb)).isNotNull();
        assertThatThrownBy(() -> DECODER.decode(bomb))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("decompresses to more than");
    }

    /**
     * A gzip OTLP record of several members (concatenated gzip, e.g. {@code cat a.gz b.gz}) is poison naming the bytes
     * after the first member: read to the end of the first only, the rest would be lost without a reason. The
     * awskinesis exporter writes one flushed, unclosed member per record, so its records are never refused this way.
     */
    @Test
    void decode_whenGzipOtlpRecordHasSeveralMembers_isPoisonNamingTheTrailingBytes() throws Exception {
        byte[] a = request(Resource.getDefaultInstance(), gauge("g", 1.0)).toByteArray();
        byte[] b = request(Resource.getDefaultInstance(), gauge("h", 2.0)).toByteArray();
        byte[] ga = gzip(a);
        byte[] gb = gzip(b);
        byte[] both = new byte[ga.length + gb.length];
        System.arraycopy(ga, 0, both, 0, ga.length);
        System.arraycopy(gb, 0, both, ga.length, gb.length);

        assertThatThrownBy(() -> DECODER.decode(both))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining(gb.length + " bytes after the end of the gzip stream");
        assertThat(DECODER.decode(ga).datapoints()).extracting(Datapoint::name).containsExactly("g");
    }

    /** Bytes after a closed zlib stream (past its Adler-32) are poison too; a flushed, unclosed stream reads whole. */
    @Test
    void decode_whenBytesFollowAClosedZlibStream_isPoison() throws Exception {
        byte[] a = request(Resource.getDefaultInstance(), gauge("g", 1.0)).toByteArray();
        java.io.ByteArrayOutputStream z = new java.io.ByteArrayOutputStream();
        try (java.util.zip.DeflaterOutputStream out = new java.util.zip.DeflaterOutputStream(z)) {
            out.write(a);
        }
        byte[] closed = z.toByteArray();
        assertThat(DECODER.decode(closed).datapoints())
                .extracting(Datapoint::name)
                .containsExactly("g");
        byte[] extra = java.util.Arrays.copyOf(closed, closed.length + 3);

        assertThatThrownBy(() -> DECODER.decode(extra))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("3 bytes after the end of the zlib stream");
    }
}
