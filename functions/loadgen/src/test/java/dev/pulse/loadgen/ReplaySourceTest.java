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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReplaySourceTest {

    @Test
    void read_whenGzipNativeAndRecordedLines_keepsDataPartitionKeysAndTimes() throws Exception {
        String recorded = "{\"data\":\"" + Base64.getEncoder().encodeToString("raw".getBytes(StandardCharsets.UTF_8))
                + "\",\"partitionKey\":\"pk-1\",\"arrival\":1795262401000}";
        String text = "{\"name\":\"a.b\",\"ts\":1795262400000,\"value\":1}\n\n" + recorded + "\n";
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }

        List<ReplayRecord> records = ReplaySource.read(new ByteArrayInputStream(gz.toByteArray()), true);

        assertThat(records).extracting(ReplayRecord::partitionKey).containsExactly("a.b", "pk-1");
        assertThat(new String(records.get(1).data(), StandardCharsets.UTF_8)).isEqualTo("raw");
        assertThat(ReplaySource.offsets(records)).containsExactly(0, 1000);
    }

    @Test
    void read_whenALineIsNeitherFormat_namesTheLine() {
        byte[] bad = "{\"name\":\"a\",\"ts\":1}\n{\"hello\":1}\n".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> ReplaySource.read(new ByteArrayInputStream(bad), false))
                .isInstanceOf(LoadGenRequest.InvalidRequestException.class)
                .hasMessageContaining("line 2");
    }

    @Test
    void load_whenPathLeavesTheBundle_isRejected(@TempDir Path root) throws Exception {
        Files.writeString(root.resolve("ok.ndjson"), "{\"name\":\"a\",\"ts\":1,\"value\":1}\n");

        assertThat(ReplaySource.load("ok.ndjson", root)).hasSize(1);
        assertThatThrownBy(() -> ReplaySource.load("../../etc/passwd", root))
                .isInstanceOf(LoadGenRequest.InvalidRequestException.class)
                .hasMessageContaining("source");
    }

    private static final String OK = "{\"name\":\"a\",\"ts\":1,\"value\":1}\n";

    private static List<ReplayRecord> read(String text) throws Exception {
        return ReplaySource.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), false, "day.ndjson");
    }

    private static String recorded(byte[] data, String key) {
        return "{\"data\":\"" + Base64.getEncoder().encodeToString(data) + "\",\"partitionKey\":\"" + key + "\"}\n";
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "{\"data\":\"not base64!\",\"partitionKey\":\"k\"}|field data is not base64",
                "{\"name\":|not JSON",
                "[1,2]|not a JSON object",
                "{\"hello\":1}|neither a recorded Kinesis record",
                "{\"data\":\"AAAA\"}|field partitionKey must be a string",
                "{\"data\":7,\"partitionKey\":\"k\"}|field data must be a string",
                "{\"data\":\"AAAA\",\"partitionKey\":\"\"}|field partitionKey has 0 characters; a partition key has 1 to MAX_PARTITION_KEY_CHARS 256",
                "{\"data\":\"AAAA\",\"partitionKey\":\"k\",\"arrival\":1.5}|field arrival must be an integer",
                "{\"name\":\"a\",\"value\":1}|field ts must be epoch milliseconds or an ISO-8601 instant",
                "{\"name\":\"a\",\"ts\":true,\"value\":1}|field ts must be epoch milliseconds or an ISO-8601 instant",
                "{\"name\":\"a\",\"ts\":1,\"ts\":2}|not JSON (Duplicate field 'ts')",
            })
    void read_whenALineIsBad_namesTheSourceTheLineAndWhy(String line, String why) {
        assertThatThrownBy(() -> read(OK + "\n" + line + "\n" + OK))
                .isInstanceOfSatisfying(LoadGenRequest.InvalidRequestException.class, e -> {
                    assertThat(e.field()).isEqualTo("source");
                    assertThat(e.getMessage()).startsWith("source: day.ndjson line 3: " + why);
                });
    }

    @Test
    void read_whenAPartitionKeyHas256Characters_keepsItAndRefuses257() throws Exception {
        String key = "k".repeat(255) + "\u00e9"; // 256 characters, 257 bytes
        assertThat(read(recorded(new byte[] {1}, key)).get(0).partitionKey()).isEqualTo(key);

        assertThatThrownBy(() -> read(OK + recorded(new byte[] {1}, key + "k")))
                .hasMessageContaining("line 2: field partitionKey has 257 characters")
                .hasMessageContaining("MAX_PARTITION_KEY_CHARS 256");
        assertThatThrownBy(() -> read("{\"name\":\"" + "n".repeat(300) + "\",\"ts\":1,\"value\":1}"))
                .hasMessageContaining("line 1: field name has 300 characters");
    }

    @Test
    void read_whenARecordFillsKinesisOneMiB_keepsItAndRefusesOneByteMore() throws Exception {
        byte[] fits = new byte[ReplaySource.MAX_RECORD_BYTES - 2];
        assertThat(read(recorded(fits, "pk")).get(0).data()).hasSize(ReplaySource.MAX_RECORD_BYTES - 2);

        assertThatThrownBy(() -> read(OK + OK + recorded(new byte[ReplaySource.MAX_RECORD_BYTES - 1], "pk")))
                .hasMessageContaining("day.ndjson line 3: a record of 1048577 bytes (data and partition key), over "
                        + "Kinesis' MAX_RECORD_BYTES 1048576");
        String bigNative = "{\"name\":\"a\",\"ts\":1,\"pad\":\"" + "x".repeat(ReplaySource.MAX_RECORD_BYTES) + "\"}";
        assertThatThrownBy(() -> read(bigNative)).hasMessageContaining("line 1: a record of");
    }

    @Test
    void read_whenALineIsLongerThanTheLimit_refusesItWhileReading() {
        String longLine = "{\"name\":\"a\",\"ts\":1,\"pad\":\"" + "x".repeat(ReplaySource.MAX_LINE_BYTES) + "\"}";

        assertThatThrownBy(() -> read(OK + longLine))
                .hasMessageContaining("day.ndjson line 2: longer than MAX_LINE_BYTES 2097152 bytes");
    }

    @Test
    void read_whenCrLfLinesAndIsoTimes_readsThemAsRecorded() throws Exception {
        List<ReplayRecord> records = read("{\"name\":\"a\",\"ts\":\"2026-11-27T00:00:01Z\",\"value\":1}\r\n"
                + "{\"name\":\"b\",\"ts\":1795737602000.7,\"value\":1}\r\n");

        assertThat(records).extracting(ReplayRecord::recordedMillis).containsExactly(1795737601000L, 1795737602000L);
        assertThat(new String(records.get(0).data(), StandardCharsets.UTF_8)).endsWith("}");
    }

    @Test
    void read_whenGzipIsCorruptOrTruncated_namesTheSource() throws Exception {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write((OK + OK + OK).getBytes(StandardCharsets.UTF_8));
        }
        byte[] whole = gz.toByteArray();

        assertThatThrownBy(() -> ReplaySource.read(
                        new ByteArrayInputStream(OK.getBytes(StandardCharsets.UTF_8)), true, "plain.gz"))
                .hasMessageStartingWith("source: plain.gz line 1: not valid gzip");
        assertThatThrownBy(() -> ReplaySource.read(
                        new ByteArrayInputStream(java.util.Arrays.copyOf(whole, whole.length - 12)), true, "cut.gz"))
                .hasMessageContaining("cut.gz line")
                .hasMessageContaining("gzip data ends early");
        assertThatThrownBy(() -> ReplaySource.read(new ByteArrayInputStream(new byte[0]), true, "empty.gz"))
                .hasMessageContaining("empty.gz line 1: the gzip data ends early");
    }
}
