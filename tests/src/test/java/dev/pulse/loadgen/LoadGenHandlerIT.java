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

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulse.local.emulator.KinesisEmulator;
import dev.pulse.testing.ExpectedResults;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;

/**
 * The load generator's handler on the bundled recording against a Kinesis emulator: two workers (run
 * in-process where Lambda would invoke the function) share the rate and their reports merge into one.
 */
class LoadGenHandlerIT {

    private static KinesisEmulator kinesis;
    private static KinesisAsyncClient client;

    @BeforeAll
    static void start() throws Exception {
        kinesis = KinesisEmulator.start();
        kinesis.createStream("replay", 2);
        client = kinesis.client();
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (kinesis != null) {
            kinesis.close();
        }
    }

    private static LoadGenHandler handler() {
        return InProcessLoadGen.handler(client, "replay", null);
    }

    private static JsonNode invoke(String event) {
        return InProcessLoadGen.invoke(handler(), event, "loadgen-req");
    }

    @Test
    void handleRequest_whenTwoWorkersReplayTheBundledSample_mergesOneReport() throws Exception {
        JsonNode report = invoke("{\"source\":\"events/replay/sample.ndjson.gz\",\"mode\":\"rate\",\"rate\":400,"
                + "\"durationSeconds\":6,\"workers\":2,\"runId\":\"it-run\"}");

        assertThat(report.has("error")).as(report.toString()).isFalse();
        assertThat(report.get("workers")).hasSize(2);
        assertThat(report.get("sent").asLong()).isBetween(2350L, 2400L);
        assertThat(report.get("acked").asLong()).isEqualTo(report.get("sent").asLong());
        assertThat(report.get("failed").asLong()).isZero();
        assertThat(report.get("latencyMs").get("p99").asDouble()).isPositive();
        assertThat(report.get("canary").get("sent").asInt()).isEqualTo(6);
        assertThat(report.get("canary").get("verified").asBoolean()).isFalse();
    }

    @Test
    void handleRequest_whenAggregating_sendsTheSameRecordsInFewerKinesisRecordsAndPutPayloadUnits() throws Exception {
        String run = "{\"source\":\"events/replay/sample.ndjson.gz\",\"mode\":\"rate\",\"rate\":2000,"
                + "\"durationSeconds\":3,\"maxRecords\":6000,\"runId\":\"it-agg\"";
        JsonNode plain = invoke(run + "}");
        JsonNode aggregated = invoke(run + ",\"aggregate\":true}");

        for (JsonNode r : List.of(plain, aggregated)) {
            assertThat(r.has("error")).as(r.toString()).isFalse();
            assertThat(r.get("acked").asLong())
                    .as(r.toString())
                    .isEqualTo(r.get("sent").asLong())
                    .isPositive();
            assertThat(r.get("failed").asLong()).isZero();
        }
        // Without aggregation both unit counts are the real one; with it, the unaggregated count is what the same
        // records would have cost, so the two runs' unaggregated counts agree per record sent.
        assertThat(plain.get("kinesisRecords").asLong())
                .isEqualTo(plain.get("acked").asLong());
        assertThat(plain.get("putPayloadUnits").asLong())
                .isEqualTo(plain.get("putPayloadUnitsUnaggregated").asLong());
        assertThat(aggregated.get("aggregate").asBoolean()).isTrue();
        assertThat(aggregated.get("kinesisRecords").asLong())
                .isLessThan(aggregated.get("acked").asLong() / 3);
        assertThat(aggregated.get("putPayloadUnits").asLong())
                .isLessThan(aggregated.get("putPayloadUnitsUnaggregated").asLong() / 2);
        assertThat((double) aggregated.get("putPayloadUnitsUnaggregated").asLong()
                        / aggregated.get("acked").asLong())
                .isCloseTo(
                        (double) plain.get("putPayloadUnits").asLong()
                                / plain.get("acked").asLong(),
                        org.assertj.core.data.Offset.offset(0.05));
    }

    @Test
    void handleRequest_whenWorkersAggregate_everyWorkerPacksItsShareIntoAggregates() {
        JsonNode report = invoke("{\"source\":\"events/replay/sample.ndjson.gz\",\"mode\":\"rate\",\"rate\":2000,"
                + "\"durationSeconds\":3,\"maxRecords\":4000,\"workers\":2,\"runId\":\"it-agg-2\",\"aggregate\":true,"
                + "\"maxAggregateBytes\":8192}");

        assertThat(report.has("error")).as(report.toString()).isFalse();
        assertThat(report.get("aggregate").asBoolean()).isTrue();
        assertThat(report.get("workers")).hasSize(2);
        for (JsonNode w : report.get("workers")) {
            // Each worker sent its half of the record budget, packed: far fewer Kinesis records than records.
            assertThat(w.get("acked").asLong()).as(w.toString()).isEqualTo(2000);
            assertThat(w.get("kinesisRecords").asLong())
                    .as(w.toString())
                    .isPositive()
                    .isLessThan(2000 / 3);
        }
        assertThat(report.get("failed").asLong()).isZero();
    }

    @Test
    void handleRequest_whenTheReplaySourceHasABadLine_answersTheFieldNamingTheLine() throws Exception {
        Path bad = ExpectedResults.repoRoot().resolve("tests/target/loadgen-bad-" + System.nanoTime() + ".ndjson");
        Files.writeString(bad, "{\"name\":\"a\",\"ts\":1,\"value\":1}\n{\"data\":\"%%%\",\"partitionKey\":\"k\"}\n");
        String source = ExpectedResults.repoRoot().relativize(bad).toString();
        try {
            JsonNode answer = invoke("{\"source\":\"" + source + "\",\"rate\":10,\"durationSeconds\":1,\"workers\":2}");

            assertThat(answer.path("error").path("field").asText())
                    .as(answer.toString())
                    .isEqualTo("source");
            assertThat(answer.path("error").path("message").asText())
                    .startsWith("source: " + source + " line 2: field data is not base64");
        } finally {
            Files.deleteIfExists(bad);
        }
    }

    @Test
    void handleRequest_whenEventInvalid_answersWithTheFieldAndSendsNothing() throws Exception {
        JsonNode report =
                invoke("{\"source\":\"events/replay/sample.ndjson.gz\",\"mode\":\"rate\",\"durationSeconds\":5}");

        assertThat(report.get("error").get("field").asText()).isEqualTo("rate");
        JsonNode missing = invoke("{\"source\":\"events/replay/nope.gz\",\"rate\":10,\"durationSeconds\":1}");
        assertThat(missing.get("error").get("field").asText()).isEqualTo("source");
    }
}
