package dev.pulse.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.model.DatapointValidator;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review (wt-review3) of KPL de-aggregation. {@code defect*} tests assert the CURRENT behaviour (they pass
 * today; flip them with the fix); {@code held*} tests assert documented behaviour that held up.
 */
class KplAdversarialReviewTest {

    static final long NOW_MS = 1_795_262_400_000L;
    static final RecordDecoder DECODER = new RecordDecoder(new DatapointValidator(
            Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2)));

    static byte[] json(String name, double v) {
        return ("{\"name\":\"" + name + "\",\"value\":" + v + ",\"ts\":" + NOW_MS + "}").getBytes(StandardCharsets.UTF_8);
    }

    static void varint(ByteArrayOutputStream o, long v) {
        while ((v & ~0x7FL) != 0) {
            o.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        o.write((int) v);
    }

    static void field(ByteArrayOutputStream o, int f, byte[] b) {
        varint(o, (f << 3) | 2);
        varint(o, b.length);
        o.write(b, 0, b.length);
    }

    static byte[] seal(byte[] body) throws Exception {
        byte[] md5 = MessageDigest.getInstance("MD5").digest(body);
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.write(KplAggregate.MAGIC);
        o.write(body);
        o.write(md5);
        return o.toByteArray();
    }

    /**
     * DEFECT (high for tags, any length-delimited unknown field): Reader.skip does {@code pos += length()}; Java saves
     * the left operand before calling length(), so the length varint's own bytes are not skipped and the reader lands
     * on the LAST byte of the skipped field, reading it as a tag. A valid aggregate whose user records carry tags
     * (Record field 4) is poison whole ("wire type 6": the last tag byte 'v' = 0x76), or misparsed when the byte
     * happens to be a valid tag. Fix: {@code case 2 -> { int n = length(); pos += n; }}.
     */
    @Test
    void defectTagsMakeAValidAggregatePoison() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "pk0".getBytes(StandardCharsets.UTF_8));
        field(body, 2, "123456789012345678901234567890".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 2; i++) {
            ByteArrayOutputStream r = new ByteArrayOutputStream();
            varint(r, 1 << 3);
            varint(r, 0);
            varint(r, 2 << 3);
            varint(r, 0);
            field(r, 3, json("m" + i, i));
            ByteArrayOutputStream tag = new ByteArrayOutputStream();
            field(tag, 1, "k".getBytes(StandardCharsets.UTF_8));
            field(tag, 2, "v".getBytes(StandardCharsets.UTF_8));
            field(r, 4, tag.toByteArray());
            field(body, 3, r.toByteArray());
        }
        varint(body, (9 << 3));  // unknown varint field 9
        varint(body, 7);
        byte[] agg = seal(body.toByteArray());
        // Correct behaviour would be: units 0 and 1, both decoded, partition key pk0.
        assertThatThrownBy(() -> DECODER.decodeUnits(agg, "outer", NOW_MS)).isInstanceOf(DecodeException.class)
                .hasMessageContaining("wire type 6");
    }

    @Test
    void heldExplicitHashKeysAndUnknownVarintFieldsAreSkipped() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "pk0".getBytes(StandardCharsets.UTF_8));
        field(body, 2, "123456789012345678901234567890".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 2; i++) {
            ByteArrayOutputStream r = new ByteArrayOutputStream();
            varint(r, 1 << 3);
            varint(r, 0);
            varint(r, 2 << 3);
            varint(r, 0);
            field(r, 3, json("m" + i, i));
            field(body, 3, r.toByteArray());
        }
        varint(body, (9 << 3));
        varint(body, 7);
        List<RecordDecoder.Unit> units = DECODER.decodeUnits(seal(body.toByteArray()), "outer", NOW_MS);
        assertThat(units).extracting(RecordDecoder.Unit::subSequence).containsExactly(0, 1);
        assertThat(units).allSatisfy(u -> assertThat(u.poisonReason()).isNull());
        assertThat(units).extracting(RecordDecoder.Unit::partitionKey).containsOnly("pk0");
    }

    /** DEFECT (same root cause): an unknown length-delimited top-level field (wire 2) also derails the reader. */
    @Test
    void defectUnknownLengthDelimitedTopLevelFieldDerailsTheReader() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "pk0".getBytes(StandardCharsets.UTF_8));
        field(body, 9, "zz".getBytes(StandardCharsets.UTF_8));  // last byte 'z' = 0x7a: field 15, wire 2
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        varint(r, 1 << 3);
        varint(r, 0);
        field(r, 3, json("m", 1));
        field(body, 3, r.toByteArray());
        byte[] agg = seal(body.toByteArray());
        // 'z' read as a tag (field 15, wire 2), then 0x1a (the records tag) read as its length 26: the record is
        // swallowed as an unknown field, and what follows derails.
        assertThatThrownBy(() -> DECODER.decodeUnits(agg, "outer", NOW_MS)).isInstanceOf(DecodeException.class);
    }

    @Test
    void heldZeroRecordsAndHugeKeyIndexArePoisonWithReason() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "pk0".getBytes(StandardCharsets.UTF_8));
        byte[] empty = seal(body.toByteArray());
        assertThatThrownBy(() -> DECODER.decodeUnits(empty, "p", NOW_MS)).hasMessageContaining("no user records");
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        varint(r, 1 << 3);
        varint(r, 1L << 40);
        field(r, 3, json("m", 1));
        field(body, 3, r.toByteArray());
        byte[] huge = seal(body.toByteArray());
        assertThatThrownBy(() -> DECODER.decodeUnits(huge, "p", NOW_MS)).hasMessageContaining("partition key #1099511627776 of 1");
    }

    /**
     * DEFECT (low): a partition_key_index of 2^63 or more (a valid uint64) reads as a negative long, and the reason
     * says the index is missing ("lacks its required partition_key_index") instead of out of the table.
     */
    @Test
    void defectPartitionKeyIndexAbove2pow63HasMisleadingReason() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "pk0".getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        varint(r, 1 << 3);
        varint(r, -1L);
        field(r, 3, json("m", 1));
        field(body, 3, r.toByteArray());
        byte[] agg = seal(body.toByteArray());
        assertThatThrownBy(() -> DECODER.decodeUnits(agg, "p", NOW_MS)).hasMessageContaining("lacks its required partition_key_index");
    }

    @Test
    void heldNestedAggregateAndOtlpUserRecords() throws Exception {
        byte[] inner = KplAggregate.write(List.of(Map.entry("a", json("inner", 1))));
        byte[] otlp = ExportMetricsServiceRequest.newBuilder().addResourceMetrics(ResourceMetrics.newBuilder().addScopeMetrics(
                ScopeMetrics.newBuilder().addMetrics(Metric.newBuilder().setName("o").setGauge(Gauge.newBuilder().addDataPoints(
                        NumberDataPoint.newBuilder().setTimeUnixNano(NOW_MS * 1_000_000L).setAsDouble(2)))))).build().toByteArray();
        byte[] outer = KplAggregate.write(List.of(Map.entry("x", inner), Map.entry("y", otlp), Map.entry("z", json("plain", 3))));
        List<RecordDecoder.Unit> units = DECODER.decodeUnits(outer, "x", NOW_MS);
        // A nested aggregate is poison alone (not split a second time); note the reason is a native-JSON error
        // ("user record #0 of a KPL aggregate: ...") that does not say "nested aggregate".
        assertThat(units.get(0).poisonReason()).startsWith("user record #0 of a KPL aggregate:");
        System.out.println("nested aggregate reason: " + units.get(0).poisonReason());
        assertThat(units.get(1).decoded().datapoints()).singleElement().satisfies(d -> assertThat(d.name()).isEqualTo("o"));
        assertThat(units.get(2).decoded().datapoints()).singleElement().satisfies(d -> assertThat(d.name()).isEqualTo("plain"));
    }

    /**
     * DEFECT (medium): one 1 MB Kinesis record can carry ~170,000 empty (or otherwise bad) user records, each of which
     * becomes its own DLQ message (IngestService adds one PoisonRecord per unit; DeadLetterQueue.sendAll sends 10 per
     * SendMessageBatch). That is ~17,000 SQS calls for one record, far beyond an invocation's time: the DLQ send hits
     * the deadline, the batch fails and is retried, and the shard is blocked ("poison never fails a batch" breaks).
     */
    @Test
    void defectOneAggregateExplodesIntoHundredsOfThousandsOfPoisonUnits() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "k".getBytes(StandardCharsets.UTF_8));
        byte[] rec = {0x08, 0x00, 0x1a, 0x00};  // partition_key_index 0, data empty
        while (body.size() < 1_000_000 - 40) {
            field(body, 3, rec);
        }
        byte[] agg = seal(body.toByteArray());
        assertThat(agg.length).isLessThanOrEqualTo(1 << 20);
        long t0 = System.nanoTime();
        List<RecordDecoder.Unit> units = DECODER.decodeUnits(agg, "k", NOW_MS);
        System.out.printf("1 MB aggregate: %d poison units in %d ms%n", units.size(), (System.nanoTime() - t0) / 1_000_000);
        assertThat(units).hasSizeGreaterThan(160_000).allSatisfy(u -> assertThat(u.poisonReason()).contains("empty record"));
    }
}
