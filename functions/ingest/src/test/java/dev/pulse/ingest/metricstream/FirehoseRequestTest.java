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
package dev.pulse.ingest.metricstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FirehoseRequestTest {

    private static final String OK =
            "{\"requestId\":\"ed4acda5-034f-9f42-bba1-f29aea6d7d8f\",\"timestamp\":1578090901599,"
                    + "\"records\":[{\"data\":\"aGVsbG8=\"},{\"data\":\"d29ybGQ=\"}]}";

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(out)) {
            g.write(data);
        }
        return out.toByteArray();
    }

    @Test
    void parse_whenDocumentedRequest_givesIdTimestampAndDecodedRecords() throws Exception {
        FirehoseRequest r = FirehoseRequest.parse(OK.getBytes(StandardCharsets.UTF_8), false);

        assertThat(r.requestId()).isEqualTo("ed4acda5-034f-9f42-bba1-f29aea6d7d8f");
        assertThat(r.timestamp()).isEqualTo(1578090901599L);
        assertThat(r.records())
                .extracting(b -> new String(b, StandardCharsets.UTF_8))
                .containsExactly("hello", "world");
    }

    @Test
    void parse_whenGzipBody_inflatesFirst() throws Exception {
        FirehoseRequest r = FirehoseRequest.parse(gzip(OK.getBytes(StandardCharsets.UTF_8)), true);

        assertThat(r.records()).hasSize(2);
    }

    @Test
    void parse_whenGzipInflatesPastTheLimit_refusesItBeforeHoldingIt() throws Exception {
        byte[] bomb = gzip(new byte[FirehoseRequest.MAX_INFLATED_BYTES + 1]);

        assertThat(bomb.length).isLessThan(100_000);
        assertThatThrownBy(() -> FirehoseRequest.parse(bomb, true))
                .isInstanceOf(FirehoseRequest.BadRequest.class)
                .hasMessageContaining("MAX_INFLATED_BYTES");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "[]|the body must be a JSON object",
                "{\"timestamp\":1,\"records\":[]}|requestId: required",
                "{\"requestId\":\"a#b\",\"timestamp\":1,\"records\":[]}|requestId: must be Firehose's request id",
                "{\"requestId\":\"a\",\"timestamp\":\"x\",\"records\":[]}|timestamp: must be epoch milliseconds",
                "{\"requestId\":\"a\",\"timestamp\":1}|records: required",
                "{\"requestId\":\"a\",\"timestamp\":1,\"records\":{}}|records: must be an array",
                "{\"requestId\":\"a\",\"timestamp\":1,\"records\":[{\"data\":\"***\"}]}|records[0].data: not base64",
                "{\"requestId\":\"a\",\"timestamp\":1,\"records\":[{}]}|records[0].data: required",
                "{\"requestId\":\"a\",\"timestamp\":1,\"records\":[1]}|records: must be an array of objects",
                "{\"requestId\":\"a\",\"timestamp\":1,\"records\":[]} {}|the body must hold one JSON object",
                "{\"requestId\":\"a\",\"timestamp\":1,\"records\":[],\"x\":[[[[[[[[1]]]]]]]]}|the body is not Firehose's JSON",
                "not json|the body is not Firehose's JSON",
            })
    void parse_whenBodyIsBad_refusesItNamingTheField(String body, String reason) {
        assertThatThrownBy(() -> FirehoseRequest.parse(body.getBytes(StandardCharsets.UTF_8), false))
                .isInstanceOf(FirehoseRequest.BadRequest.class)
                .hasMessageContaining(reason);
    }

    @Test
    void parse_whenGzipIsClaimedButBodyIsPlain_refusesIt() {
        assertThatThrownBy(() -> FirehoseRequest.parse(OK.getBytes(StandardCharsets.UTF_8), true))
                .isInstanceOf(FirehoseRequest.BadRequest.class)
                .hasMessageContaining("not gzip");
    }

    @Test
    void parse_whenMoreRecordsThanTheLimit_refusesIt() {
        String body = "{\"requestId\":\"a\",\"timestamp\":1,\"records\":["
                + "{\"data\":\"\"},".repeat(FirehoseRequest.MAX_RECORDS) + "{\"data\":\"\"}]}";

        assertThatThrownBy(() -> FirehoseRequest.parse(body.getBytes(StandardCharsets.UTF_8), false))
                .isInstanceOf(FirehoseRequest.BadRequest.class)
                .hasMessageContaining("MAX_RECORDS");
    }

    @Test
    void parse_whenRecordIsLargerThanFirehoseSends_refusesIt() {
        String data = java.util.Base64.getEncoder().encodeToString(new byte[FirehoseRequest.MAX_RECORD_BYTES + 1]);
        String body = "{\"requestId\":\"a\",\"timestamp\":1,\"records\":[{\"data\":\"" + data + "\"}]}";

        assertThatThrownBy(() -> FirehoseRequest.parse(body.getBytes(StandardCharsets.UTF_8), false))
                .isInstanceOf(FirehoseRequest.BadRequest.class)
                .hasMessageContaining("MAX_RECORD_BYTES");
    }
}
