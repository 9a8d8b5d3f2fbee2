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

import static dev.pulse.codec.Payloads.NOW_MS;
import static dev.pulse.codec.Payloads.concat;
import static dev.pulse.codec.Payloads.gzip;
import static dev.pulse.codec.Payloads.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A gzip payload may concatenate members (RFC 1952), and a member may be empty (20 bytes). A 1 MB record of 50,000
 * empty members and then a real one is a poison record with a reason, like any other undecodable record; the
 * decoder must not fail the batch with an error. Members are read in a loop, up to MAX_GZIP_MEMBERS.
 */
class ConcatenatedGzipMembersTest {

    private static final RecordDecoder DECODER = Payloads.decoder();

    /** {@code emptyMembers} empty gzip members, then one holding a CloudWatch Logs control message. */
    static byte[] emptyMembersThenPayload(int emptyMembers) {
        return Payloads.emptyMembersThen(emptyMembers, utf8("{\"messageType\":\"CONTROL_MESSAGE\"}"));
    }

    @Test
    void decodeUnits_whenGzipHasFiftyThousandEmptyMembers_returnsOneUnitWithoutThrowing() throws Exception {
        byte[] record = emptyMembersThenPayload(50_000);
        assertThat(record.length).isLessThanOrEqualTo(1_048_576 - 10); // one Kinesis record, with its partition key

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(record, "pk", NOW_MS);

        assertThat(units).hasSize(1);
        assertThat(units.get(0).poisonReason())
                .isEqualTo(
                        "gzip payload of more than " + DecodeLimits.MAX_GZIP_MEMBERS + " members (MAX_GZIP_MEMBERS)");
    }

    @Test
    void decodeUnits_whenGzipMembersAtTheLimit_decodesTheLastMembersContent() throws Exception {
        byte[] record = emptyMembersThenPayload(DecodeLimits.MAX_GZIP_MEMBERS - 1);

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(record, "pk", NOW_MS);

        assertThat(units).singleElement().satisfies(u -> {
            assertThat(u.poisonReason()).isNull();
            assertThat(u.decoded().skippedEvents()).isEqualTo(1); // the control message
        });
    }

    @Test
    void decodeUnits_whenGzipMembersOneOverTheLimit_poisonNamingTheLimit() throws Exception {
        byte[] record = emptyMembersThenPayload(DecodeLimits.MAX_GZIP_MEMBERS);

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(record, "pk", NOW_MS);

        assertThat(units)
                .singleElement()
                .extracting(RecordDecoder.Unit::poisonReason)
                .asString()
                .contains("MAX_GZIP_MEMBERS");
    }

    @Test
    void decodeUnits_whenPayloadSplitAcrossMembers_decodesTheirContentTogether() throws Exception {
        byte[] json = utf8("{\"messageType\":\"CONTROL_MESSAGE\"}");
        byte[][] members = new byte[json.length][];
        for (int i = 0; i < json.length; i++) {
            members[i] = gzip(new byte[] {json[i]});
        }

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(concat(members), "pk", NOW_MS);

        assertThat(units)
                .singleElement()
                .satisfies(u -> assertThat(u.poisonReason()).isNull());
    }
}
