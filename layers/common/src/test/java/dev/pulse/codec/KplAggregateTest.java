package dev.pulse.codec;

import static dev.pulse.codec.Payloads.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.model.Datapoint;
import java.io.IOException;
import java.nio.file.Files;
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

/**
 * The KPL aggregate reader and writer against aggregates made by the Python {@code aws-kinesis-agg} library
 * (events/ingest-kinesis-kpl.json, from scripts/gen_kpl_events.py), and against corrupt ones.
 */
class KplAggregateTest {

    private static final Path REPO = Path.of("../..").toAbsolutePath().normalize();
    private static final Path EVENT = REPO.resolve("events/ingest-kinesis-kpl.json");
    /** The instant gen_events.py's fixtures are made for (DEFAULT_NOW). */
    private static final Instant FIXTURE_NOW = Instant.parse("2026-11-21T12:00:00Z");
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
        assertThat(users).extracting(KplAggregate.UserRecord::partitionKey)
                .containsExactly("checkout.latency", "cart", "checkout");
        assertThat(new String(users.get(0).data())).startsWith("{\"name\":\"checkout.latency\"");
    }

    @Test
    void write_whenSameUserRecordsAsThePythonLibrary_producesTheSameBytes() throws Exception {
        byte[] python = data(records().get(0));
        List<KplAggregate.UserRecord> users = KplAggregate.read(python);

        byte[] ours = KplAggregate.write(users.stream()
                .map(u -> Map.entry(u.partitionKey(), u.data())).toList());

        assertThat(ours).isEqualTo(python);
    }

    @Test
    void write_whenReadBack_roundTripsKeysAndData() throws Exception {
        byte[] big = new byte[300];
        Arrays.fill(big, (byte) 'x');
        byte[] agg = KplAggregate.write(List.of(Map.entry("a", utf8("1")), Map.entry("b", big),
                Map.entry("a", new byte[0])));

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
            bound += KplAggregate.recordCost(key, d.length, recs.stream().noneMatch(e -> e.getKey().equals(key)));
            recs.add(Map.entry(key, d));
        }

        assertThat(KplAggregate.write(recs).length).isLessThanOrEqualTo(bound);
    }

    @Test
    void read_whenMd5TrailerDoesNotMatch_throwsWithTheReason() throws Exception {
        byte[] corrupt = data(records().get(3)); // the fixture's corrupt aggregate

        assertThatThrownBy(() -> KplAggregate.read(corrupt)).isInstanceOf(DecodeException.class)
                .hasMessageContaining("MD5");
    }

    @Test
    void read_whenProtobufMalformedButDigestMatches_throwsWithTheReason() throws Exception {
        // A length prefix running past the body, with a correct MD5: the protobuf check must catch it on its own.
        byte[] body = {0x1A, 0x7F, 0x08, 0x00};

        assertThatThrownBy(() -> KplAggregate.read(withDigest(body))).isInstanceOf(DecodeException.class)
                .hasMessageContaining("runs past the body");
    }

    @Test
    void read_whenPartitionKeyIndexOutOfTable_throwsWithTheReason() throws Exception {
        byte[] body = {0x0A, 0x01, 'k', 0x1A, 0x04, 0x08, 0x05, 0x1A, 0x00};

        assertThatThrownBy(() -> KplAggregate.read(withDigest(body))).isInstanceOf(DecodeException.class)
                .hasMessageContaining("partition key #5 of 1");
    }

    @Test
    void read_whenShorterThanMagicAndDigest_throwsWithTheReason() {
        assertThatThrownBy(() -> KplAggregate.read(new byte[] {(byte) 0xF3, (byte) 0x89, (byte) 0x9A, (byte) 0xC2, 1}))
                .isInstanceOf(DecodeException.class).hasMessageContaining("shorter than its magic and MD5");
    }

    @Test
    void decodeUnits_whenOneUserRecordIsBad_returnsItAlonePoisonAndTheOthersDecoded() throws Exception {
        RecordDecoder decoder = Payloads.decoderAt(FIXTURE_NOW);
        JsonNode r = records().get(2);
        long arrival = (long) (r.get("kinesis").get("approximateArrivalTimestamp").asDouble() * 1000);

        List<RecordDecoder.Unit> units = decoder.decodeUnits(data(r), "checkout.latency", arrival);

        assertThat(units).extracting(RecordDecoder.Unit::subSequence).containsExactly(0, 1, 2);
        assertThat(units.get(1).decoded()).isNull();
        assertThat(units.get(1).poisonReason()).startsWith("user record #1 of a KPL aggregate: ");
        assertThat(units.get(0).decoded().datapoints()).extracting(Datapoint::value).containsExactly(21.5);
        assertThat(units.get(2).decoded().datapoints()).extracting(Datapoint::value).containsExactly(7.0);
    }

    @Test
    void decodeUnits_whenPlainRecord_returnsOneUnitWithoutSubSequence() throws Exception {
        RecordDecoder decoder = Payloads.decoderAt(FIXTURE_NOW);
        JsonNode r = records().get(1);
        long arrival = (long) (r.get("kinesis").get("approximateArrivalTimestamp").asDouble() * 1000);

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
                .isInstanceOf(DecodeException.class).hasMessageContaining("KPL aggregate: MD5");
    }

    @Test
    void genKplEvents_whenVenvPresent_regeneratesTheCommittedFixtureByteForByte(@TempDir Path out) throws Exception {
        // The committed fixture must be what the real library makes, not an edited file: regenerate and compare
        // where the venv (make, requirements-dev.txt) exists; elsewhere the committed bytes are tested above.
        Path python = REPO.resolve(".venv/bin/python");
        assumeTrue(Files.isExecutable(python), "no .venv: run make to install requirements-dev.txt");
        Process p = new ProcessBuilder(python.toString(), REPO.resolve("scripts/gen_kpl_events.py").toString(),
                "--out", out.toString()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assumeTrue(p.exitValue() == 0 || !log.contains("No module named 'aws_kinesis_agg'"),
                "aws-kinesis-agg is not installed in .venv: make installs requirements-dev.txt");
        assertThat(p.exitValue()).as(log).isZero();

        assertThat(out.resolve("ingest-kinesis-kpl.json")).hasSameBinaryContentAs(EVENT);
        assertThat(out.resolve("expected/ingest-kinesis-kpl.json"))
                .hasSameBinaryContentAs(REPO.resolve("events/expected/ingest-kinesis-kpl.json"));
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
