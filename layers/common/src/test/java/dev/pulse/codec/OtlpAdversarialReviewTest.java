package dev.pulse.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
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
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review (wt-review3) of OTLP detection and decoding. Tests named {@code defect*} assert the CURRENT
 * (wrong) behaviour, so they pass today and must be flipped when the defect is fixed; {@code held*} assert documented
 * behaviour that held up.
 */
class OtlpAdversarialReviewTest {

    static final long NOW_MS = 1_795_262_400_000L;
    static final long NOW_NS = NOW_MS * 1_000_000L;
    static final RecordDecoder DECODER = new RecordDecoder(new DatapointValidator(
            Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2)));

    static KeyValue kv(String k, String v) {
        return KeyValue.newBuilder().setKey(k).setValue(AnyValue.newBuilder().setStringValue(v)).build();
    }

    static Metric gauge(String name, double v, KeyValue... attrs) {
        NumberDataPoint.Builder p = NumberDataPoint.newBuilder().setTimeUnixNano(NOW_NS).setAsDouble(v);
        for (KeyValue a : attrs) {
            p.addAttributes(a);
        }
        return Metric.newBuilder().setName(name).setGauge(Gauge.newBuilder().addDataPoints(p)).build();
    }

    static ExportMetricsServiceRequest request(Resource resource, Metric... metrics) {
        ScopeMetrics.Builder sm = ScopeMetrics.newBuilder();
        for (Metric m : metrics) {
            sm.addMetrics(m);
        }
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder().setResource(resource).addScopeMetrics(sm)).build();
    }

    /** A one-gauge request whose single ResourceMetrics is exactly {@code rmLen} bytes (pads the service name). */
    static byte[] requestWithResourceMetricsOf(int rmLen) {
        for (int pad = 0; pad < 200; pad++) {
            ExportMetricsServiceRequest r = request(Resource.newBuilder().addAttributes(kv("service.name", "s" + "x".repeat(pad))).build(),
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
     * DEFECT (high): an otlp_proto record whose first ResourceMetrics is 123 bytes long starts 0a 7b: the second byte is
     * '{', so the content rule asks for a "resourceMetrics" key, finds none, and the record is native JSON -> poison.
     * Same for 91 bytes ('['). Valid exporter output, deterministic, so redrive cannot fix it.
     */
    @Test
    void defectProtobufWithResourceMetricsOf123or91BytesIsMisroutedToNativeJson() throws Exception {
        for (int len : new int[] {123, 91}) {
            byte[] pb = requestWithResourceMetricsOf(len);
            assertThat(pb[0]).isEqualTo((byte) 0x0a);
            assertThat(pb[1]).isEqualTo((byte) len);
            // The protobuf itself is fine:
            assertThat(ExportMetricsServiceRequest.parseFrom(pb).getResourceMetrics(0).getScopeMetrics(0).getMetrics(0).getName()).isEqualTo("g");
            assertThat(OtlpDecoder.detect(pb)).as("uncompressed, RM length %d", len).isNull();
            assertThatThrownBy(() -> DECODER.decode(pb)).isInstanceOf(DecodeException.class);
            // gzip'd: judged not OTLP by the peek, so it goes to the CloudWatch Logs decoder and is poison there.
            byte[] gz = gzip(pb);
            assertThat(OtlpDecoder.detect(gz)).as("gzip, RM length %d", len).isNull();
            assertThatThrownBy(() -> DECODER.decode(gz)).isInstanceOf(DecodeException.class);
        }
        // Control: one byte more or less is decoded.
        assertThat(DECODER.decode(requestWithResourceMetricsOf(122)).datapoints()).hasSize(1);
        assertThat(DECODER.decode(requestWithResourceMetricsOf(124)).datapoints()).hasSize(1);
    }

    @Test
    void heldNdjsonWithLeadingNewlineIsNative() throws Exception {
        String line = "{\"name\":\"n\",\"value\":1,\"ts\":" + NOW_MS + "}";
        for (String s : new String[] {"\n" + line, "\n\n" + line + "\n" + line, "\r\n" + line, " \t\n[" + line + "]", "\n[" + line + "]"}) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            assertThat(OtlpDecoder.detect(b)).as(s).isNull();
        }
    }

    // ---------------------------------------------------------------- OTLP/JSON

    /**
     * DEFECT (high): OTLP/JSON encodes int64 as decimal strings; asInt (sfixed64) and intValue (int64) are signed,
     * but OtlpJson parses every string-encoded 64-bit field with Long.parseUnsignedLong, so "-5" fails and the whole
     * record is poison. The number form (-5) works.
     */
    @Test
    void defectJsonNegativeInt64AsStringIsPoison() throws Exception {
        String tmpl = "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"s\"}}]},"
                + "\"scopeMetrics\":[{\"metrics\":[{\"name\":\"g\",\"gauge\":{\"dataPoints\":[{\"timeUnixNano\":\"" + NOW_NS + "\","
                + "\"asInt\":%s,\"attributes\":[{\"key\":\"a\",\"value\":{\"intValue\":%s}}]}]}}]}]}]}";
        byte[] asNumber = String.format(tmpl, "-5", "-3").getBytes(StandardCharsets.UTF_8);
        Datapoint dp = DECODER.decode(asNumber).datapoints().get(0);
        assertThat(dp.value()).isEqualTo(-5.0);
        assertThat(dp.dims()).containsEntry("a", "-3");
        byte[] asString = String.format(tmpl, "\"-5\"", "\"3\"").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> DECODER.decode(asString)).isInstanceOf(DecodeException.class).hasMessageContaining("asInt");
        byte[] attrString = String.format(tmpl, "\"5\"", "\"-3\"").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> DECODER.decode(attrString)).isInstanceOf(DecodeException.class).hasMessageContaining("intValue");
    }

    /**
     * DEFECT (medium): Jackson's readTree ignores what follows the first JSON value, so two OTLP/JSON requests in one
     * record (NDJSON style), or trailing garbage, decode as the first request only: the rest is silently dropped.
     */
    @Test
    void defectJsonTrailingContentSilentlyDropped() throws Exception {
        String one = "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"g\",\"gauge\":{\"dataPoints\":[{\"timeUnixNano\":\""
                + NOW_NS + "\",\"asDouble\":1}]}}]}]}]}";
        byte[] two = (one + "\n" + one.replace("\"g\"", "\"h\"")).getBytes(StandardCharsets.UTF_8);
        assertThat(DECODER.decode(two).datapoints()).extracting(Datapoint::name).containsExactly("g");
        byte[] garbage = (one + "}]garbage").getBytes(StandardCharsets.UTF_8);
        assertThat(DECODER.decode(garbage).datapoints()).hasSize(1);
    }

    /** DEFECT (low): an out-of-range JSON number in an int32 field (scale) wraps silently via JsonNode.intValue(). */
    @Test
    void defectJsonInt32OverflowWraps() throws Exception {
        String j = "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"e\",\"exponentialHistogram\":{\"aggregationTemporality\":1,"
                + "\"dataPoints\":[{\"timeUnixNano\":\"" + NOW_NS + "\",\"count\":\"2\",\"sum\":3.0,\"scale\":4294967299,"
                + "\"positive\":{\"offset\":0,\"bucketCounts\":[\"2\"]}}]}}]}]}]}";
        // scale 4294967299 is read as 3 instead of being rejected.
        assertThat(DECODER.decode(j.getBytes(StandardCharsets.UTF_8)).datapoints()).hasSize(1);
    }

    // ---------------------------------------------------------------- histogram arithmetic

    /**
     * DEFECT (low): bucket counts are summed in a long without overflow check, so buckets {Long.MAX, Long.MAX, 3} pass
     * the "bucket counts add up to count" rule for count 1; the stored sketch then holds ~1.8e19 values for a count of 1.
     */
    @Test
    void defectBucketCountOverflowPassesCountCheck() throws Exception {
        HistogramDataPoint p = HistogramDataPoint.newBuilder().setTimeUnixNano(NOW_NS).setCount(1).setSum(5).setMin(5).setMax(5)
                .addExplicitBounds(1).addExplicitBounds(10)
                .addBucketCounts(Long.MAX_VALUE).addBucketCounts(Long.MAX_VALUE).addBucketCounts(3).build();
        Metric m = Metric.newBuilder().setName("h").setHistogram(Histogram.newBuilder()
                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA).addDataPoints(p)).build();
        Datapoint dp = DECODER.decode(request(Resource.getDefaultInstance(), m).toByteArray()).datapoints().get(0);
        assertThat(dp.summary().count()).isEqualTo(1);
        assertThat(dp.summary().sketch().getCount()).isGreaterThan(1e18);
    }

    @Test
    void heldNegativeBucketCountIsPoisonNotException() {
        HistogramDataPoint p = HistogramDataPoint.newBuilder().setTimeUnixNano(NOW_NS).setCount(3).setSum(5)
                .addExplicitBounds(1).addBucketCounts(5).addBucketCounts(-2).build();
        Metric m = Metric.newBuilder().setName("h").setHistogram(Histogram.newBuilder()
                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA).addDataPoints(p)).build();
        assertThatThrownBy(() -> DECODER.decode(request(Resource.getDefaultInstance(), m).toByteArray()))
                .isInstanceOf(DecodeException.class);
    }

    // ---------------------------------------------------------------- attributes

    /**
     * DEFECT (low, doc mismatch): the doc says an attribute with an empty value "is dropped"; in fact a data-point
     * attribute with an empty value REMOVES the resource attribute of the same key from the dims.
     */
    @Test
    void defectEmptyPointAttributeRemovesResourceAttribute() throws Exception {
        byte[] pb = request(Resource.newBuilder().addAttributes(kv("service.name", "checkout")).addAttributes(kv("env", "prod")).build(),
                gauge("g", 1.0, kv("env", ""))).toByteArray();
        assertThat(DECODER.decode(pb).datapoints().get(0).dims()).doesNotContainKey("env").containsEntry("service.name", "checkout");
    }

    /** DEFECT (low): array rendering is ambiguous: ["a,b"] and ["a","b"] are the same dim value, so two series merge. */
    @Test
    void defectArrayAttributeRenderingCollides() {
        AnyValue oneElem = AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder()
                .addValues(AnyValue.newBuilder().setStringValue("a,b"))).build();
        AnyValue twoElems = AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder()
                .addValues(AnyValue.newBuilder().setStringValue("a")).addValues(AnyValue.newBuilder().setStringValue("b"))).build();
        assertThat(OtlpDecoder.text(oneElem)).isEqualTo(OtlpDecoder.text(twoElems)).isEqualTo("[a,b]");
    }

    // ---------------------------------------------------------------- compression

    @Test
    void heldZipBombIsPoisonAndBounded() throws Exception {
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
        assertThatThrownBy(() -> DECODER.decode(bomb)).isInstanceOf(DecodeException.class).hasMessageContaining("decompresses to more than");
    }

    /**
     * DEFECT (low): a gzip record of several members (concatenated gzip, e.g. `cat a.gz b.gz`) is read up to the end
     * of the first member only; the rest is silently ignored, when it ends on a message boundary.
     */
    @Test
    void defectConcatenatedGzipMembersAfterTheFirstIgnored() throws Exception {
        byte[] a = request(Resource.getDefaultInstance(), gauge("g", 1.0)).toByteArray();
        byte[] b = request(Resource.getDefaultInstance(), gauge("h", 2.0)).toByteArray();
        byte[] ga = gzip(a);
        byte[] gb = gzip(b);
        byte[] both = new byte[ga.length + gb.length];
        System.arraycopy(ga, 0, both, 0, ga.length);
        System.arraycopy(gb, 0, both, ga.length, gb.length);
        // java.util.zip.GZIPInputStream would read both members, i.e. two ResourceMetrics, g and h.
        List<Datapoint> dps = DECODER.decode(both).datapoints();
        assertThat(dps).extracting(Datapoint::name).containsExactly("g");
    }
}
