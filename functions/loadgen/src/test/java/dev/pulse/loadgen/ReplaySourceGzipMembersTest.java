package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * A gzip recording may concatenate members, and a member may be empty (20 bytes). One of 50,000 empty members
 * (1 MB) and then a line that is not JSON is refused as the {@code source} field naming the line, like any bad
 * recording; reading it must not end in an error instead. Members are read in a loop, up to MAX_GZIP_MEMBERS.
 */
class ReplaySourceGzipMembersTest {

    static byte[] gzip(byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(out)) {
            g.write(content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    @Test
    void read_whenGzipHasFiftyThousandEmptyMembers_refusesAsSourceFieldErrorNamingTheLine() {
        byte[] empty = gzip(new byte[0]);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < 50_000; i++) {
            out.writeBytes(empty);
        }
        out.writeBytes(gzip("not json\n".getBytes()));
        byte[] recording = out.toByteArray();

        assertThatThrownBy(() -> ReplaySource.read(new ByteArrayInputStream(recording), true, "hostile.ndjson.gz"))
                .isInstanceOfSatisfying(LoadGenRequest.InvalidRequestException.class,
                        e -> assertThat(e.field()).isEqualTo("source"))
                .hasMessageContaining("hostile.ndjson.gz line 1");
    }

    @Test
    void read_whenMoreGzipMembersThanAllowed_refusesNamingTheLimit() {
        byte[] member = gzip("{\"name\":\"m\",\"ts\":1}\n".getBytes());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i <= ReplaySource.MAX_GZIP_MEMBERS; i++) {
            out.writeBytes(member);
        }
        byte[] recording = out.toByteArray();

        assertThatThrownBy(() -> ReplaySource.read(new ByteArrayInputStream(recording), true, "many.ndjson.gz"))
                .isInstanceOf(LoadGenRequest.InvalidRequestException.class)
                .hasMessageContaining("many.ndjson.gz line " + (ReplaySource.MAX_GZIP_MEMBERS + 1))
                .hasMessageContaining("MAX_GZIP_MEMBERS");
    }

    @Test
    void read_whenRecordingsConcatenatedAsGzipMembers_readsEveryLine() throws Exception {
        // cat a.gz b.gz: a line may even continue across the members' boundary.
        byte[] recording = concat(gzip("{\"name\":\"a\",\"ts\":1}\n{\"name\":".getBytes()),
                gzip("\"b\",\"ts\":2}\n".getBytes()));

        List<ReplayRecord> records = ReplaySource.read(new ByteArrayInputStream(recording), true, "cat.ndjson.gz");

        assertThat(records).extracting(ReplayRecord::partitionKey).containsExactly("a", "b");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }
}
