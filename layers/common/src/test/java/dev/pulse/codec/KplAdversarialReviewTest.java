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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Adversarial review (wt-review3) of KPL de-aggregation: the defects it found, now fixed, and the documented behaviour
 * that held up.
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
     * Was a defect: Reader.skip did {@code pos += length()}; Java saves the left operand before calling length(), so
     * the reader landed on the last byte of a skipped length-delimited field (tags, Record field 4) and read it as a
     * tag ("wire type 6").
     */
    @ParameterizedTest(name = "tags {0}")
    @ValueSource(booleans = {true, false})
    void decodeUnits_whenExplicitHashKeysUnknownFieldsAndTags_skipsThemAndDecodesEveryRecord(boolean withTags)
            throws Exception {
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
            if (withTags) {
                ByteArrayOutputStream tag = new ByteArrayOutputStream();
                field(tag, 1, "k".getBytes(StandardCharsets.UTF_8));
                field(tag, 2, "v".getBytes(StandardCharsets.UTF_8));
                field(r, 4, tag.toByteArray());
            }
            field(body, 3, r.toByteArray());
        }
        varint(body, (9 << 3));  // unknown varint field 9
        varint(body, 7);
        List<RecordDecoder.Unit> units = DECODER.decodeUnits(seal(body.toByteArray()), "outer", NOW_MS);
        assertThat(units).extracting(RecordDecoder.Unit::subSequence).containsExactly(0, 1);
        assertThat(units).allSatisfy(u -> assertThat(u.poisonReason()).isNull());
        assertThat(units).extracting(RecordDecoder.Unit::partitionKey).containsOnly("pk0");
        assertThat(units).extracting(u -> u.decoded().datapoints().get(0).name()).containsExactly("m0", "m1");
    }

    /** Was a defect (same root cause): an unknown length-delimited top-level field (wire 2) derailed the reader. */
    @Test
    void decodeUnits_whenUnknownLengthDelimitedTopLevelField_skipsIt() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "pk0".getBytes(StandardCharsets.UTF_8));
        field(body, 9, "zz".getBytes(StandardCharsets.UTF_8));  // last byte 'z' = 0x7a: field 15, wire 2
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        varint(r, 1 << 3);
        varint(r, 0);
        field(r, 3, json("m", 1));
        field(body, 3, r.toByteArray());
        byte[] agg = seal(body.toByteArray());
        List<RecordDecoder.Unit> units = DECODER.decodeUnits(agg, "outer", NOW_MS);
        assertThat(units).singleElement().satisfies(u -> {
            assertThat(u.poisonReason()).isNull();
            assertThat(u.partitionKey()).isEqualTo("pk0");
            assertThat(u.decoded().datapoints()).singleElement().satisfies(d -> assertThat(d.name()).isEqualTo("m"));
        });
    }

    @Test
    void decodeUnits_whenZeroRecordsOrHugeKeyIndex_throwsWithReason() throws Exception {
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

    /** Was a defect: a partition_key_index of 2^63 or more (a valid uint64) was reported as missing. */
    @Test
    void decodeUnits_whenPartitionKeyIndexAbove2pow63_throwsOutOfTable() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "pk0".getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        varint(r, 1 << 3);
        varint(r, -1L);
        field(r, 3, json("m", 1));
        field(body, 3, r.toByteArray());
        byte[] agg = seal(body.toByteArray());
        assertThatThrownBy(() -> DECODER.decodeUnits(agg, "p", NOW_MS)).hasMessageContaining("partition key #18446744073709551615 of 1")
                .hasMessageNotContaining("lacks");
    }

    @Test
    void decodeUnits_whenNestedAggregateAndOtlpUserRecords_nestedIsPoisonAloneOthersDecoded() throws Exception {
        byte[] inner = KplAggregate.write(List.of(Map.entry("a", json("inner", 1))));
        byte[] otlp = ExportMetricsServiceRequest.newBuilder().addResourceMetrics(ResourceMetrics.newBuilder().addScopeMetrics(
                ScopeMetrics.newBuilder().addMetrics(Metric.newBuilder().setName("o").setGauge(Gauge.newBuilder().addDataPoints(
                        NumberDataPoint.newBuilder().setTimeUnixNano(NOW_MS * 1_000_000L).setAsDouble(2)))))).build().toByteArray();
        byte[] outer = KplAggregate.write(List.of(Map.entry("x", inner), Map.entry("y", otlp), Map.entry("z", json("plain", 3))));
        List<RecordDecoder.Unit> units = DECODER.decodeUnits(outer, "x", NOW_MS);
        // A nested aggregate is poison alone (not split a second time), and the reason says so.
        assertThat(units.get(0).poisonReason()).startsWith("user record #0 of a KPL aggregate:").contains("nested KPL aggregate");
        assertThat(units.get(1).decoded().datapoints()).singleElement().satisfies(d -> assertThat(d.name()).isEqualTo("o"));
        assertThat(units.get(2).decoded().datapoints()).singleElement().satisfies(d -> assertThat(d.name()).isEqualTo("plain"));
    }

    /**
     * Was a defect: one 1 MB Kinesis record can carry ~170,000 empty user records, each of which became its own DLQ
     * message (~17,000 SQS calls for one record, past the invocation's deadline, so the shard stalled). Above
     * {@link RecordDecoder#MAX_POISON_USER_RECORDS} poison user records the whole Kinesis record is one poison record.
     */
    @Test
    void decodeUnits_whenAggregateHasHundredsOfThousandsOfBadUserRecords_throwsOnePoisonForTheWholeRecord() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "k".getBytes(StandardCharsets.UTF_8));
        byte[] rec = {0x08, 0x00, 0x1a, 0x00};  // partition_key_index 0, data empty
        int n = 0;
        while (body.size() < 1_000_000 - 40) {
            field(body, 3, rec);
            n++;
        }
        byte[] agg = seal(body.toByteArray());
        assertThat(agg.length).isLessThanOrEqualTo(1 << 20);
        String expected = "KPL aggregate: " + n + " of its " + n + " user records are poison";
        assertThatThrownBy(() -> DECODER.decodeUnits(agg, "k", NOW_MS)).isInstanceOf(DecodeException.class)
                .hasMessageStartingWith(expected).hasMessageContaining("empty record");
    }

    @Test
    void decodeUnits_whenPoisonUserRecordsAtTheBound_poisonEachAloneAndAboveItTheWholeRecord() throws Exception {
        int max = RecordDecoder.MAX_POISON_USER_RECORDS;
        List<Map.Entry<String, byte[]>> atBound = new java.util.ArrayList<>();
        atBound.add(Map.entry("g", json("good", 1)));
        for (int i = 0; i < max; i++) {
            atBound.add(Map.entry("b", "not json".getBytes(StandardCharsets.UTF_8)));
        }
        List<RecordDecoder.Unit> units = DECODER.decodeUnits(KplAggregate.write(atBound), "g", NOW_MS);
        assertThat(units).hasSize(max + 1);
        assertThat(units.get(0).decoded()).isNotNull();
        assertThat(units.subList(1, max + 1)).allSatisfy(u -> assertThat(u.poisonReason()).isNotNull());

        atBound.add(Map.entry("b", "not json".getBytes(StandardCharsets.UTF_8)));
        byte[] over = KplAggregate.write(atBound);
        // The good user record is not returned either: the whole record is poison, stored not at all.
        assertThatThrownBy(() -> DECODER.decodeUnits(over, "g", NOW_MS)).isInstanceOf(DecodeException.class)
                .hasMessageStartingWith("KPL aggregate: " + (max + 1) + " of its " + (max + 2) + " user records are poison")
                .hasMessageContaining("first: user record #1 of a KPL aggregate:");
    }
}
