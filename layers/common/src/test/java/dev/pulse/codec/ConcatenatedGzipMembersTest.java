package dev.pulse.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.model.DatapointValidator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * A gzip payload may concatenate members (RFC 1952), and a member may be empty (20 bytes). A 1 MB record of 50,000
 * empty members and then a real one is a poison record with a reason, like any other undecodable record; the
 * decoder must not fail the batch with an error. Members are read in a loop, up to MAX_GZIP_MEMBERS.
 */
class ConcatenatedGzipMembersTest {

    static final long NOW_MS = 1_795_262_400_000L;
    static final RecordDecoder DECODER = new RecordDecoder(new DatapointValidator(
            Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2)));

    static byte[] gzip(byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(out)) {
            g.write(content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** {@code emptyMembers} empty gzip members, then one holding a CloudWatch Logs control message. */
    static byte[] emptyMembersThenPayload(int emptyMembers) {
        byte[] empty = gzip(new byte[0]);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < emptyMembers; i++) {
            out.writeBytes(empty);
        }
        out.writeBytes(gzip("{\"messageType\":\"CONTROL_MESSAGE\"}".getBytes(StandardCharsets.UTF_8)));
        return out.toByteArray();
    }

    @Test
    void decodeUnits_whenGzipHasFiftyThousandEmptyMembers_returnsOneUnitWithoutThrowing() throws Exception {
        byte[] record = emptyMembersThenPayload(50_000);
        assertThat(record.length).isLessThanOrEqualTo(1_048_576 - 10); // one Kinesis record, with its partition key

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(record, "pk", NOW_MS);

        assertThat(units).hasSize(1);
        assertThat(units.get(0).poisonReason()).isEqualTo("gzip payload of more than " + DecodeLimits.MAX_GZIP_MEMBERS
                + " members (MAX_GZIP_MEMBERS)");
    }

    @Test
    void decodeUnits_whenGzipMembersAtTheLimit_decodesTheLastMembersContent() throws Exception {
        byte[] record = emptyMembersThenPayload(DecodeLimits.MAX_GZIP_MEMBERS - 1);

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(record, "pk", NOW_MS);

        assertThat(units).singleElement().satisfies(u -> {
            assertThat(u.poisonReason()).isNull();
            assertThat(u.decoded().skippedEvents()).isEqualTo(1);  // the control message
        });
    }

    @Test
    void decodeUnits_whenGzipMembersOneOverTheLimit_poisonNamingTheLimit() throws Exception {
        byte[] record = emptyMembersThenPayload(DecodeLimits.MAX_GZIP_MEMBERS);

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(record, "pk", NOW_MS);

        assertThat(units).singleElement().extracting(RecordDecoder.Unit::poisonReason).asString()
                .contains("MAX_GZIP_MEMBERS");
    }

    @Test
    void decodeUnits_whenPayloadSplitAcrossMembers_decodesTheirContentTogether() throws Exception {
        byte[] json = "{\"messageType\":\"CONTROL_MESSAGE\"}".getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte b : json) {
            out.writeBytes(gzip(new byte[] {b}));
        }

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(out.toByteArray(), "pk", NOW_MS);

        assertThat(units).singleElement().satisfies(u -> assertThat(u.poisonReason()).isNull());
    }
}
