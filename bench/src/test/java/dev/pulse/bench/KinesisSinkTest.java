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
package dev.pulse.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KinesisSinkTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JSON_TYPE = "application/x-amz-json-1.1";

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void countRecords_whenRecordsHoldNestedValues_countsOnlyTheEntries() throws Exception {
        String body = "{\"StreamName\":\"s\",\"Records\":[{\"Data\":\"AAAA\",\"PartitionKey\":\"a\"},"
                + "{\"Data\":\"BBBB\",\"PartitionKey\":\"b\",\"ExplicitHashKey\":\"1\",\"x\":{\"Records\":[{},{}]}},"
                + "{\"Data\":\"CCCC\",\"PartitionKey\":\"[{\\\"}\"}]}";

        assertThat(KinesisSink.countRecords(bytes(body))).isEqualTo(3);
    }

    @Test
    void countRecords_whenRecordsComeAfterOtherFields_findsThem() throws Exception {
        String body =
                "{\"Other\":{\"Records\":[{}]},\"Records\":[{\"Data\":\"AA==\"},{\"Data\":\"AA==\"}],\"StreamName\":\"s\"}";

        assertThat(KinesisSink.countRecords(bytes(body))).isEqualTo(2);
    }

    @Test
    void countRecords_whenNoRecordsField_throws() {
        assertThatThrownBy(() -> KinesisSink.countRecords(bytes("{\"StreamName\":\"s\"}")))
                .hasMessageContaining("no Records");
    }

    @Test
    void countRecords_whenAnEntryIsNotAnObject_throws() {
        assertThatThrownBy(() -> KinesisSink.countRecords(bytes("{\"Records\":[{},\"x\"]}")))
                .hasMessageContaining("not an object");
    }

    @Test
    void count_whenMoreThan500Records_refusesLikeKinesis() {
        String body = "{\"Records\":[" + "{\"Data\":\"AA==\"},".repeat(500) + "{\"Data\":\"AA==\"}]}";

        assertThatThrownBy(() -> KinesisSink.count("Kinesis_20131202.PutRecords", JSON_TYPE, bytes(body)))
                .hasMessageStartingWith("ValidationException: 501 records");
    }

    @Test
    void count_whenCborContentType_refuses() {
        assertThatThrownBy(() -> KinesisSink.count(
                        "Kinesis_20131202.PutRecords", "application/x-amz-cbor-1.1", bytes("{\"Records\":[{}]}")))
                .hasMessageStartingWith("SerializationException");
    }

    @Test
    void count_whenPutRecordWithData_countsOne() {
        assertThat(KinesisSink.count(
                        "Kinesis_20131202.PutRecord",
                        JSON_TYPE,
                        bytes("{\"StreamName\":\"s\",\"PartitionKey\":\"k\",\"Data\":\"AA==\"}")))
                .isEqualTo(1);
    }

    @Test
    void count_whenUnknownOperation_refuses() {
        assertThatThrownBy(() -> KinesisSink.count("Kinesis_20131202.DescribeStream", JSON_TYPE, bytes("{}")))
                .hasMessageStartingWith("UnknownOperationException");
    }

    @Test
    void putRecordsResponse_whenThreeRecords_answersOneSuccessEntryEach() throws Exception {
        JsonNode r = JSON.readTree(KinesisSink.putRecordsResponse(3, 41));

        assertThat(r.path("FailedRecordCount").asInt()).isZero();
        assertThat(r.path("Records")).hasSize(3);
        assertThat(r.path("Records").get(0).path("SequenceNumber").asText())
                .hasSize(56)
                .endsWith("0000000041");
        assertThat(r.path("Records").get(2).path("SequenceNumber").asText()).endsWith("0000000043");
        assertThat(r.path("Records").get(1).path("ShardId").asText()).isEqualTo("shardId-000000000000");
    }

    @Test
    void handle_whenPutRecordsOverHttp_countsTheRecordsItAcknowledged() throws Exception {
        try (KinesisSink sink = KinesisSink.start(1)) {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> ok = http.send(
                    HttpRequest.newBuilder(URI.create(sink.endpoint() + "/"))
                            .header("X-Amz-Target", "Kinesis_20131202.PutRecords")
                            .header("Content-Type", JSON_TYPE)
                            .POST(HttpRequest.BodyPublishers.ofString(
                                    "{\"Records\":[{\"Data\":\"AA==\"},{\"Data\":\"AQ==\"}]}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> bad = http.send(
                    HttpRequest.newBuilder(URI.create(sink.endpoint() + "/"))
                            .header("X-Amz-Target", "Kinesis_20131202.PutRecords")
                            .header("Content-Type", JSON_TYPE)
                            .POST(HttpRequest.BodyPublishers.ofString("[]"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(ok.body()).path("Records")).hasSize(2);
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(JSON.readTree(bad.body()).path("__type").asText()).isEqualTo("SerializationException");
            assertThat(sink.records()).isEqualTo(2);
            assertThat(sink.calls()).isEqualTo(1);
            assertThat(sink.rejected()).isEqualTo(1);
            assertThat(sink.endpoint().getHost()).isEqualTo("127.0.0.1");
        }
    }
}
