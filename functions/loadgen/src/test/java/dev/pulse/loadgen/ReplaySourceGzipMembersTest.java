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
package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * A gzip recording may concatenate members, and a member may be empty (20 bytes). One of 50,000 empty members
 * (1 MB) and then a line that is not JSON is refused as the {@code source} field naming the line, like any bad
 * recording; reading it must not end in an error instead. Members are read in a loop, up to MAX_GZIP_MEMBERS.
 */
class ReplaySourceGzipMembersTest {

    @Test
    void read_whenGzipHasFiftyThousandEmptyMembers_refusesAsSourceFieldErrorNamingTheLine() throws Exception {
        byte[] recording = members(gzip(""), 50_000, gzip("not json\n"));

        assertThatThrownBy(() -> ReplaySource.read(new ByteArrayInputStream(recording), true, "hostile.ndjson.gz"))
                .isInstanceOfSatisfying(
                        LoadGenRequest.InvalidRequestException.class,
                        e -> assertThat(e.field()).isEqualTo("source"))
                .hasMessageContaining("hostile.ndjson.gz line 1");
    }

    @Test
    void read_whenMoreGzipMembersThanAllowed_refusesNamingTheLimit() throws Exception {
        byte[] recording = members(gzip("{\"name\":\"m\",\"ts\":1}\n"), ReplaySource.MAX_GZIP_MEMBERS + 1);

        assertThatThrownBy(() -> ReplaySource.read(new ByteArrayInputStream(recording), true, "many.ndjson.gz"))
                .isInstanceOf(LoadGenRequest.InvalidRequestException.class)
                .hasMessageContaining("many.ndjson.gz line " + (ReplaySource.MAX_GZIP_MEMBERS + 1))
                .hasMessageContaining("MAX_GZIP_MEMBERS");
    }

    @Test
    void read_whenRecordingsConcatenatedAsGzipMembers_readsEveryLine() throws Exception {
        // cat a.gz b.gz: a line may even continue across the members' boundary.
        byte[] recording = members(gzip("{\"name\":\"a\",\"ts\":1}\n{\"name\":"), 1, gzip("\"b\",\"ts\":2}\n"));

        List<ReplayRecord> records = ReplaySource.read(new ByteArrayInputStream(recording), true, "cat.ndjson.gz");

        assertThat(records).extracting(ReplayRecord::partitionKey).containsExactly("a", "b");
    }

    // The codec tests' Payloads (layers/common) is not on this module's test classpath: one small copy here.
    private static byte[] gzip(String text) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream member = new GZIPOutputStream(out)) {
            member.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    /** {@code copies} copies of {@code member}, then {@code last}: gzip members joined as {@code cat} joins files. */
    private static byte[] members(byte[] member, int copies, byte[]... last) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < copies; i++) {
            out.writeBytes(member);
        }
        Arrays.stream(last).forEach(out::writeBytes);
        return out.toByteArray();
    }
}
