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

import static dev.pulse.codec.Payloads.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.model.Datapoint;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The KPL aggregate reader and writer against aggregates made by the Python {@code aws-kinesis-agg} library
 * (events/ingest-kinesis-kpl.json, from scripts/gen_kpl_events.py), against corrupt ones, and against the rest of the
 * protobuf wire format a producer may use (unknown fields, tags, explicit hash keys, any uint64 index). De-aggregation
 * decides each user record's fate from the record alone, and bounds the poison one Kinesis record can turn into.
 */
class KplAggregateTest {

    private static final Path REPO = ProjectPython.REPO;
    private static final Path EVENT = REPO.resolve("events/ingest-kinesis-kpl.json");
    /** The instant gen_events.py's fixtures are made for (DEFAULT_NOW). */
    private static final Instant FIXTURE_NOW = Instant.parse("2026-11-21T12:00:00Z");

    private static final long NOW_MS = FIXTURE_NOW.toEpochMilli();
    private static final RecordDecoder DECODER = Payloads.decoderAt(FIXTURE_NOW);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static List<JsonNode> records() throws IOException {
        List<JsonNode> out = new ArrayList<>();
        JSON.readTree(EVENT.toFile()).get("Records").forEach(out::add);
        return out;
    }

    private static byte[] data(JsonNode record) {
        return Base64.getDecoder().decode(record.get("kinesis").get("data").asText());
    }

    @Test
    void read_whenAggregateFromAwsKinesisAgg_returnsUserRecordsInOrderWithTheirKeys() throws Exception {
        List<KplAggregate.UserRecord> users = KplAggregate.read(data(records().get(0)));

        assertThat(users).extracting(KplAggregate.UserRecord::subSequence).containsExactly(0, 1, 2);
        assertThat(users)
                .extracting(KplAggregate.UserRecord::partitionKey)
                .containsExactly("checkout.latency", "cart", "checkout");
        assertThat(new String(users.get(0).data())).startsWith("{\"name\":\"checkout.latency\"");
    }

    @Test
    void write_whenSameUserRecordsAsThePythonLibrary_producesTheSameBytes() throws Exception {
        byte[] python = data(records().get(0));
        List<KplAggregate.UserRecord> users = KplAggregate.read(python);

        byte[] ours = KplAggregate.write(
                users.stream().map(u -> Map.entry(u.partitionKey(), u.data())).toList());

        assertThat(ours).isEqualTo(python);
    }

    @Test
    void write_whenReadBack_roundTripsKeysAndData() throws Exception {
        byte[] big = new byte[300];
        Arrays.fill(big, (byte) 'x');
        byte[] agg = KplAggregate.write(
                List.of(Map.entry("a", utf8("1")), Map.entry("b", big), Map.entry("a", new byte[0])));

        List<KplAggregate.UserRecord> users = KplAggregate.read(agg);

        assertThat(users).extracting(KplAggregate.UserRecord::partitionKey).containsExactly("a", "b", "a");
        assertThat(users.get(1).data()).isEqualTo(big);
        assertThat(users.get(2).data()).isEmpty();
    }

    @Test
    void recordCost_whenRecordsPacked_boundsTheRealSize() {
        int bound = KplAggregate.OVERHEAD_BYTES;
        List<Map.Entry<String, byte[]>> recs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String key = "key-" + (i % 7);
            byte[] d = new byte[i * 13];
            bound += KplAggregate.recordCost(
                    key, d.length, recs.stream().noneMatch(e -> e.getKey().equals(key)));
            recs.add(Map.entry(key, d));
        }

        assertThat(KplAggregate.write(recs).length).isLessThanOrEqualTo(bound);
    }

    @Test
    void read_whenMd5TrailerDoesNotMatch_throwsWithTheReason() throws Exception {
        byte[] corrupt = data(records().get(3)); // the fixture's corrupt aggregate

        assertThatThrownBy(() -> KplAggregate.read(corrupt))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("MD5");
    }

    @Test
    void read_whenProtobufMalformedButDigestMatches_throwsWithTheReason() throws Exception {
        // A length prefix running past the body, with a correct MD5: the protobuf check must catch it on its own.
        byte[] body = {0x1A, 0x7F, 0x08, 0x00};

        assertThatThrownBy(() -> KplAggregate.read(withDigest(body)))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("runs past the body");
    }

    @Test
    void read_whenPartitionKeyIndexOutOfTable_throwsWithTheReason() throws Exception {
        byte[] body = {0x0A, 0x01, 'k', 0x1A, 0x04, 0x08, 0x05, 0x1A, 0x00};

        assertThatThrownBy(() -> KplAggregate.read(withDigest(body)))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("partition key #5 of 1");
    }

    @Test
    void read_whenShorterThanMagicAndDigest_throwsWithTheReason() {
        assertThatThrownBy(() -> KplAggregate.read(new byte[] {(byte) 0xF3, (byte) 0x89, (byte) 0x9A, (byte) 0xC2, 1}))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("shorter than its magic and MD5");
    }

    @Test
    void decodeUnits_whenOneUserRecordIsBad_returnsItAlonePoisonAndTheOthersDecoded() throws Exception {
        RecordDecoder decoder = Payloads.decoderAt(FIXTURE_NOW);
        JsonNode r = records().get(2);
        long arrival =
                (long) (r.get("kinesis").get("approximateArrivalTimestamp").asDouble() * 1000);

        List<RecordDecoder.Unit> units = decoder.decodeUnits(data(r), "checkout.latency", arrival);

        assertThat(units).extracting(RecordDecoder.Unit::subSequence).containsExactly(0, 1, 2);
        assertThat(units.get(1).decoded()).isNull();
        assertThat(units.get(1).poisonReason()).startsWith("user record #1 of a KPL aggregate: ");
        assertThat(units.get(0).decoded().datapoints())
                .extracting(Datapoint::value)
                .containsExactly(21.5);
        assertThat(units.get(2).decoded().datapoints())
                .extracting(Datapoint::value)
                .containsExactly(7.0);
    }

    @Test
    void decodeUnits_whenPlainRecord_returnsOneUnitWithoutSubSequence() throws Exception {
        RecordDecoder decoder = Payloads.decoderAt(FIXTURE_NOW);
        JsonNode r = records().get(1);
        long arrival =
                (long) (r.get("kinesis").get("approximateArrivalTimestamp").asDouble() * 1000);

        List<RecordDecoder.Unit> units = decoder.decodeUnits(data(r), "pulse.heartbeat", arrival);

        assertThat(units).singleElement().satisfies(u -> {
            assertThat(u.subSequence()).isEqualTo(-1);
            assertThat(u.decoded().datapoints()).hasSize(1);
        });
    }

    @Test
    void decodeUnits_whenAggregateCorrupt_throwsForTheWholeRecord() throws Exception {
        RecordDecoder decoder = Payloads.decoderAt(FIXTURE_NOW);

        assertThatThrownBy(() -> decoder.decodeUnits(data(records().get(3)), "k", FIXTURE_NOW.toEpochMilli()))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("KPL aggregate: MD5");
    }

    /**
     * The committed fixture must be what the real library makes, not an edited file: regenerated with the project's
     * Python and compared byte for byte. Without that Python the test fails and names the install command.
     */
    @Test
    void genKplEvents_whenRunWithThePinnedLibrary_regeneratesTheCommittedFixtureByteForByte(@TempDir Path out)
            throws Exception {
        Path python = ProjectPython.require("aws_kinesis_agg");
        Process p = new ProcessBuilder(
                        python.toString(),
                        REPO.resolve("scripts/gen_kpl_events.py").toString(),
                        "--out",
                        out.toString())
                .redirectErrorStream(true)
                .start();
        String log = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(log).isZero();

        assertThat(out.resolve("ingest-kinesis-kpl.json")).hasSameBinaryContentAs(EVENT);
        assertThat(out.resolve("expected/ingest-kinesis-kpl.json"))
                .hasSameBinaryContentAs(REPO.resolve("events/expected/ingest-kinesis-kpl.json"));
    }

    // --- the wire format beyond what aws-kinesis-agg writes --------------------------------------------------

    /**
     * A length-delimited field the reader skips (explicit hash keys, tags, a field it does not know) must be skipped
     * to its end: landing inside it would read its last byte as a tag and poison a valid aggregate.
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
        varint(body, (9 << 3)); // unknown varint field 9
        varint(body, 7);

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(withDigest(body.toByteArray()), "outer", NOW_MS);

        assertThat(units).extracting(RecordDecoder.Unit::subSequence).containsExactly(0, 1);
        assertThat(units).allSatisfy(u -> assertThat(u.poisonReason()).isNull());
        assertThat(units).extracting(RecordDecoder.Unit::partitionKey).containsOnly("pk0");
        assertThat(units)
                .extracting(u -> u.decoded().datapoints().get(0).name())
                .containsExactly("m0", "m1");
    }

    /** An unknown length-delimited top-level field is skipped whole, even when its last byte reads as a valid tag. */
    @Test
    void decodeUnits_whenUnknownLengthDelimitedTopLevelField_skipsIt() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "pk0".getBytes(StandardCharsets.UTF_8));
        field(body, 9, "zz".getBytes(StandardCharsets.UTF_8)); // last byte 'z' = 0x7a: field 15, wire 2
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        varint(r, 1 << 3);
        varint(r, 0);
        field(r, 3, json("m", 1));
        field(body, 3, r.toByteArray());

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(withDigest(body.toByteArray()), "outer", NOW_MS);

        assertThat(units).singleElement().satisfies(u -> {
            assertThat(u.poisonReason()).isNull();
            assertThat(u.partitionKey()).isEqualTo("pk0");
            assertThat(u.decoded().datapoints())
                    .singleElement()
                    .satisfies(d -> assertThat(d.name()).isEqualTo("m"));
        });
    }

    @Test
    void decodeUnits_whenZeroRecordsOrHugeKeyIndex_throwsWithReason() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "pk0".getBytes(StandardCharsets.UTF_8));
        byte[] empty = withDigest(body.toByteArray());
        assertThatThrownBy(() -> DECODER.decodeUnits(empty, "p", NOW_MS)).hasMessageContaining("no user records");
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        varint(r, 1 << 3);
        varint(r, 1L << 40);
        field(r, 3, json("m", 1));
        field(body, 3, r.toByteArray());
        byte[] huge = withDigest(body.toByteArray());
        assertThatThrownBy(() -> DECODER.decodeUnits(huge, "p", NOW_MS))
                .hasMessageContaining("partition key #1099511627776 of 1");
    }

    /**
     * partition_key_index is a uint64: an index of 2^63 or more is a valid number out of the key table, and the reason
     * must say so (read as a signed long it would look negative, as if the index were missing).
     */
    @Test
    void decodeUnits_whenPartitionKeyIndexAbove2pow63_throwsOutOfTable() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "pk0".getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        varint(r, 1 << 3);
        varint(r, -1L);
        field(r, 3, json("m", 1));
        field(body, 3, r.toByteArray());
        byte[] agg = withDigest(body.toByteArray());

        assertThatThrownBy(() -> DECODER.decodeUnits(agg, "p", NOW_MS))
                .hasMessageContaining("partition key #18446744073709551615 of 1")
                .hasMessageNotContaining("lacks");
    }

    // --- what one aggregate's user records can turn into ------------------------------------------------------

    @Test
    void decodeUnits_whenNestedAggregateAndOtlpUserRecords_nestedIsPoisonAloneOthersDecoded() throws Exception {
        byte[] inner = KplAggregate.write(List.of(Map.entry("a", json("inner", 1))));
        byte[] otlp = ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(ScopeMetrics.newBuilder()
                                .addMetrics(Metric.newBuilder()
                                        .setName("o")
                                        .setGauge(Gauge.newBuilder()
                                                .addDataPoints(NumberDataPoint.newBuilder()
                                                        .setTimeUnixNano(NOW_MS * 1_000_000L)
                                                        .setAsDouble(2))))))
                .build()
                .toByteArray();
        byte[] outer = KplAggregate.write(
                List.of(Map.entry("x", inner), Map.entry("y", otlp), Map.entry("z", json("plain", 3))));

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(outer, "x", NOW_MS);

        // A nested aggregate is poison alone (not split a second time), and the reason says so.
        assertThat(units.get(0).poisonReason())
                .startsWith("user record #0 of a KPL aggregate:")
                .contains("nested KPL aggregate");
        assertThat(units.get(1).decoded().datapoints())
                .singleElement()
                .satisfies(d -> assertThat(d.name()).isEqualTo("o"));
        assertThat(units.get(2).decoded().datapoints())
                .singleElement()
                .satisfies(d -> assertThat(d.name()).isEqualTo("plain"));
    }

    /**
     * One 1 MB Kinesis record can carry about 170,000 empty user records. As separate poison each would be its own DLQ
     * message, some 17,000 SQS calls for one record, past the invocation's deadline, so the shard would stall. Above
     * {@link RecordDecoder#MAX_POISON_USER_RECORDS} poison user records the whole Kinesis record is one poison record.
     */
    @Test
    void decodeUnits_whenAggregateHasHundredsOfThousandsOfBadUserRecords_throwsOnePoisonForTheWholeRecord()
            throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        field(body, 1, "k".getBytes(StandardCharsets.UTF_8));
        byte[] rec = {0x08, 0x00, 0x1a, 0x00}; // partition_key_index 0, data empty
        int n = 0;
        while (body.size() < 1_000_000 - 40) {
            field(body, 3, rec);
            n++;
        }
        byte[] agg = withDigest(body.toByteArray());
        assertThat(agg.length).isLessThanOrEqualTo(1 << 20);
        String expected = "KPL aggregate: " + n + " of its " + n + " user records are poison";

        assertThatThrownBy(() -> DECODER.decodeUnits(agg, "k", NOW_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageStartingWith(expected)
                .hasMessageContaining("empty record");
    }

    @Test
    void decodeUnits_whenPoisonUserRecordsAtTheBound_poisonEachAloneAndAboveItTheWholeRecord() throws Exception {
        int max = RecordDecoder.MAX_POISON_USER_RECORDS;
        List<Map.Entry<String, byte[]>> atBound = new ArrayList<>();
        atBound.add(Map.entry("g", json("good", 1)));
        for (int i = 0; i < max; i++) {
            atBound.add(Map.entry("b", "not json".getBytes(StandardCharsets.UTF_8)));
        }
        List<RecordDecoder.Unit> units = DECODER.decodeUnits(KplAggregate.write(atBound), "g", NOW_MS);
        assertThat(units).hasSize(max + 1);
        assertThat(units.get(0).decoded()).isNotNull();
        assertThat(units.subList(1, max + 1))
                .allSatisfy(u -> assertThat(u.poisonReason()).isNotNull());

        atBound.add(Map.entry("b", "not json".getBytes(StandardCharsets.UTF_8)));
        byte[] over = KplAggregate.write(atBound);
        // The good user record is not returned either: the whole record is poison, stored not at all.
        assertThatThrownBy(() -> DECODER.decodeUnits(over, "g", NOW_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageStartingWith(
                        "KPL aggregate: " + (max + 1) + " of its " + (max + 2) + " user records are poison")
                .hasMessageContaining("first: user record #1 of a KPL aggregate:");
    }

    // --- helpers ------------------------------------------------------------------------------------------------

    private static byte[] json(String name, double v) {
        return ("{\"name\":\"" + name + "\",\"value\":" + v + ",\"ts\":" + NOW_MS + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static void varint(ByteArrayOutputStream o, long v) {
        while ((v & ~0x7FL) != 0) {
            o.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        o.write((int) v);
    }

    /** A length-delimited protobuf field. */
    private static void field(ByteArrayOutputStream o, int f, byte[] b) {
        varint(o, (f << 3) | 2);
        varint(o, b.length);
        o.write(b, 0, b.length);
    }

    private static byte[] withDigest(byte[] body) throws Exception {
        byte[] digest = MessageDigest.getInstance("MD5").digest(body);
        byte[] out = new byte[4 + body.length + 16];
        System.arraycopy(KplAggregate.MAGIC, 0, out, 0, 4);
        System.arraycopy(body, 0, out, 4, body.length);
        System.arraycopy(digest, 0, out, 4 + body.length, 16);
        return out;
    }
}
