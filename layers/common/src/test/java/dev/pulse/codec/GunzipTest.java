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

import static dev.pulse.codec.Payloads.concat;
import static dev.pulse.codec.Payloads.emptyMembersThen;
import static dev.pulse.codec.Payloads.gzip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** gzip as RFC 1952 writes it, read member after member in a loop, checked as the JDK's GZIPInputStream checks it. */
class GunzipTest {

    /** A member with the optional header fields {@code flags} announces (FHCRC 2, FEXTRA 4, FNAME 8, FCOMMENT 16). */
    static byte[] member(byte[] content, int flags) {
        ByteArrayOutputStream h = new ByteArrayOutputStream();
        h.writeBytes(new byte[] {0x1f, (byte) 0x8b, 8, (byte) flags, 1, 2, 3, 4, 0, 3});
        if ((flags & 4) != 0) {
            h.writeBytes(new byte[] {5, 0, 'A', 'p', 2, 0, 9}); // XLEN 5: one subfield "Ap" of 2 bytes, then one more
        }
        if ((flags & 8) != 0) {
            h.writeBytes("recording.ndjson\0".getBytes(StandardCharsets.ISO_8859_1));
        }
        if ((flags & 16) != 0) {
            h.writeBytes("a comment\0".getBytes(StandardCharsets.ISO_8859_1));
        }
        if ((flags & 2) != 0) {
            CRC32 crc = new CRC32();
            crc.update(h.toByteArray());
            h.write((int) crc.getValue() & 0xff);
            h.write((int) (crc.getValue() >> 8) & 0xff);
        }
        Deflater d = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        d.setInput(content);
        d.finish();
        byte[] buf = new byte[content.length + 64];
        int n = d.deflate(buf);
        d.end();
        h.write(buf, 0, n);
        CRC32 crc = new CRC32();
        crc.update(content);
        writeInt(h, crc.getValue());
        writeInt(h, content.length);
        return h.toByteArray();
    }

    static void writeInt(ByteArrayOutputStream out, long v) {
        for (int i = 0; i < 4; i++) {
            out.write((int) (v >> (8 * i)) & 0xff);
        }
    }

    static byte[] readAll(byte[] gz, int maxMembers) throws IOException {
        return Gunzip.bytes(gz, Integer.MAX_VALUE - 8, maxMembers);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, 4, 8, 16, 2 | 4 | 8 | 16})
    void bytes_whenHeaderHasOptionalFields_readsTheContent(int flags) throws Exception {
        byte[] content = "line 1\nline 2\n".getBytes(StandardCharsets.UTF_8);

        assertThat(readAll(member(content, flags), 1)).isEqualTo(content);
    }

    @Test
    void bytes_whenLargeRandomContent_sameAsTheJdk() throws Exception {
        byte[] content = new byte[300_000];
        new Random(7).nextBytes(content);
        Arrays.fill(content, 100_000, 200_000, (byte) 'x');
        byte[] gz = concat(gzip(content), gzip(new byte[0]), gzip(content));

        byte[] jdk;
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            jdk = in.readAllBytes();
        }
        assertThat(readAll(gz, 3)).isEqualTo(jdk).hasSize(600_000);
    }

    @Test
    void bytes_whenHundredThousandEmptyMembers_readsThemInALoop() throws Exception {
        byte[] gz = emptyMembersThen(100_000, "end".getBytes(StandardCharsets.UTF_8));

        assertThat(readAll(gz, 100_001)).asString(StandardCharsets.UTF_8).isEqualTo("end");
    }

    @Test
    void bytes_whenMoreMembersThanAllowed_throwsTooManyMembersNamingTheLimit() {
        byte[] gz = concat(gzip(new byte[] {'a'}), gzip(new byte[] {'b'}), gzip(new byte[] {'c'}));

        assertThatThrownBy(() -> readAll(gz, 2))
                .isInstanceOf(Gunzip.TooManyMembers.class)
                .hasMessage("more than 2 gzip members");
    }

    @Test
    void bytes_whenContentPassesTheLimit_throwsTooLarge() {
        byte[] gz = gzip(new byte[10_000]);

        assertThatThrownBy(() -> Gunzip.bytes(gz, 9_999, 1)).isInstanceOf(Gunzip.TooLarge.class);
    }

    @Test
    void bytes_whenBytesAfterAMemberAreNotGzip_endsThereAsTheJdk() throws Exception {
        byte[] gz = concat(gzip("ab".getBytes(StandardCharsets.UTF_8)), new byte[] {0, 0, 0, 0, 0});

        assertThat(readAll(gz, 1)).asString(StandardCharsets.UTF_8).isEqualTo("ab");
    }

    @ParameterizedTest
    @ValueSource(strings = {"crc", "isize", "method", "reserved", "headerCrc", "magic"})
    void bytes_whenMemberCorrupt_throwsZipException(String corruption) {
        byte[] content = "some content".getBytes(StandardCharsets.UTF_8);
        byte[] gz = member(content, corruption.equals("headerCrc") ? 2 : 0);
        switch (corruption) {
            case "crc" -> gz[gz.length - 8] ^= 1;
            case "isize" -> gz[gz.length - 4] ^= 1;
            case "method" -> gz[2] = 7;
            case "reserved" -> gz[3] = (byte) 0x20;
            case "headerCrc" -> gz[10] ^= 1;
            default -> gz[1] = 0;
        }

        assertThatThrownBy(() -> readAll(gz, 1)).isInstanceOf(ZipException.class);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 5, 12, 20, 27})
    void bytes_whenDataStopsInsideAMember_throwsEofException(int cut) {
        byte[] gz = gzip("some content that is long enough".getBytes(StandardCharsets.UTF_8));
        byte[] truncated = Arrays.copyOf(gz, Math.min(cut, gz.length - 1));

        assertThatThrownBy(() -> readAll(truncated, 1)).isInstanceOf(EOFException.class);
    }

    @Test
    void stream_whenReadOneByteAtATime_sameContent() throws Exception {
        byte[] content = "one byte at a time".getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in =
                Gunzip.stream(new ByteArrayInputStream(concat(member(content, 8), member(content, 0))), 2)) {
            int b;
            while ((b = in.read()) >= 0) {
                out.write(b);
            }
        }
        assertThat(out.toByteArray()).isEqualTo(concat(content, content));
    }
}
