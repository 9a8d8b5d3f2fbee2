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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.loadgen.LoadGenRequest;
import org.junit.jupiter.api.Test;

class ColdStartBenchTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String s) throws Exception {
        return JSON.readTree(s);
    }

    @Test
    void batchProblem_whenNoFailedItems_isNone() throws Exception {
        assertThat(ColdStartBench.batchProblem(json("{\"batchItemFailures\":[]}")))
                .isNull();
    }

    @Test
    void batchProblem_whenAnItemFailed_namesIt() throws Exception {
        assertThat(ColdStartBench.batchProblem(json("{\"batchItemFailures\":[{\"itemIdentifier\":\"1\"}]}")))
                .isEqualTo("1 failed batch items");
    }

    @Test
    void batchProblem_whenNotABatchResponse_isAProblem() throws Exception {
        assertThat(ColdStartBench.batchProblem(json("{\"errorMessage\":\"x\"}")))
                .isEqualTo("no batchItemFailures");
    }

    @Test
    void httpProblem_whenStatus200WithBody_isNone() throws Exception {
        assertThat(ColdStartBench.httpProblem(json("{\"statusCode\":200,\"body\":\"{}\"}")))
                .isNull();
    }

    @Test
    void httpProblem_whenStatus400_namesTheStatus() throws Exception {
        assertThat(ColdStartBench.httpProblem(json("{\"statusCode\":400,\"body\":\"{}\"}")))
                .isEqualTo("status 400");
    }

    @Test
    void loadGenProblem_whenEveryRecordAcked_isNone() throws Exception {
        assertThat(ColdStartBench.loadGenProblem(json("{\"sent\":100,\"acked\":100,\"failed\":0}")))
                .isNull();
    }

    @Test
    void loadGenProblem_whenTheRequestWasRefused_isAProblem() throws Exception {
        assertThat(ColdStartBench.loadGenProblem(json("{\"error\":{\"field\":\"rate\",\"message\":\"m\"}}")))
                .startsWith("refused");
    }

    @Test
    void loadGenProblem_whenRecordsWereLost_isAProblem() throws Exception {
        assertThat(ColdStartBench.loadGenProblem(json("{\"sent\":100,\"acked\":90,\"failed\":10}")))
                .isEqualTo("acked 90 of 100, failed 10");
        assertThat(ColdStartBench.loadGenProblem(json("{\"sent\":0,\"acked\":0,\"failed\":0}")))
                .isEqualTo("nothing sent");
    }

    @Test
    void laterBatch_whenIngestEvent_raisesEverySequenceNumberAndEventIdKeepingTheRest() throws Exception {
        byte[] event = java.nio.file.Files.readAllBytes(repoRoot().resolve("events/ingest-kinesis-native.json"));
        JsonNode before = JSON.readTree(event);

        JsonNode later = JSON.readTree(ColdStartBench.laterBatch(event, 3));

        assertThat(later.path("Records")).hasSameSizeAs(before.path("Records"));
        for (int i = 0; i < before.path("Records").size(); i++) {
            JsonNode was = before.path("Records").get(i);
            JsonNode is = later.path("Records").get(i);
            String seq = is.path("kinesis").path("sequenceNumber").asText();
            assertThat(new java.math.BigInteger(seq))
                    .isEqualTo(new java.math.BigInteger(
                                    was.path("kinesis").path("sequenceNumber").asText())
                            .add(java.math.BigInteger.valueOf(3_000)));
            assertThat(seq)
                    .hasSameSizeAs(was.path("kinesis").path("sequenceNumber").asText());
            assertThat(is.path("eventID").asText()).isEqualTo("shardId-000000000000:" + seq);
            assertThat(is.path("kinesis").path("data"))
                    .isEqualTo(was.path("kinesis").path("data"));
            assertThat(is.path("kinesis").path("approximateArrivalTimestamp"))
                    .isEqualTo(was.path("kinesis").path("approximateArrivalTimestamp"));
        }
        assertThat(JSON.readTree(ColdStartBench.laterBatch(event, 0))).isEqualTo(before);
    }

    private static java.nio.file.Path repoRoot() {
        java.nio.file.Path dir = java.nio.file.Path.of("").toAbsolutePath();
        while (dir != null && !java.nio.file.Files.exists(dir.resolve("template.yaml"))) {
            dir = dir.getParent();
        }
        return dir;
    }

    @Test
    void loadGenEvent_whenParsedAsTheFunctionDoes_isAOneSecondSingleWorkerRun() throws Exception {
        LoadGenRequest r = LoadGenRequest.parse(json(ColdStartBench.LOADGEN_EVENT), 60, "id");

        assertThat(r.durationSeconds()).isEqualTo(1);
        assertThat(r.worker()).isZero();
        assertThat(r.workers()).isEqualTo(1);
    }

    @Test
    void primingMs_whenThePrimingLineIsLogged_readsItsDuration() {
        var log = java.util.List.of(
                "Picked up JAVA_TOOL_OPTIONS: x",
                "{\"level\":\"INFO\",\"message\":\"snapstart priming done\",\"function\":\"ingest\",\"paths\":5,"
                        + "\"failures\":0,\"ms\":412}");

        assertThat(ColdStartBench.primingMs(log, "IngestFunction")).isEqualTo(412.0);
    }

    @Test
    void primingMs_whenNoPrimingRan_isMinusOne() {
        assertThat(ColdStartBench.primingMs(java.util.List.of("START", "END"), "IngestFunction"))
                .isEqualTo(-1.0);
    }

    @Test
    void primingMs_whenPrimingFailed_isAnError() {
        var log = java.util.List.of("{\"message\":\"snapstart priming done\",\"failures\":1,\"ms\":3}");

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ColdStartBench.primingMs(log, "QueryFunction"))
                .hasMessageContaining("priming failed");
    }
}
