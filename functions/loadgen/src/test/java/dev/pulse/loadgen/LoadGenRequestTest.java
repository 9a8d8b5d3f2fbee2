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

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class LoadGenRequestTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static LoadGenRequest parse(String json) throws Exception {
        return LoadGenRequest.parse(JSON.readTree(json), 840, "req-1");
    }

    @Test
    void parse_whenDesignExample_readsEveryField() throws Exception {
        LoadGenRequest r = parse("{\"source\":\"events/replay/sample.ndjson.gz\",\"mode\":\"rate\",\"rate\":2000,"
                + "\"rampUpSeconds\":30,\"durationSeconds\":120,\"workers\":4,\"runId\":\"peak-1\"}");

        assertThat(r)
                .isEqualTo(new LoadGenRequest(
                        "events/replay/sample.ndjson.gz", "rate", 2000, 1, 30, 120, 0, 4, "peak-1", -1));
        assertThat(r.forWorker(3))
                .isEqualTo(new LoadGenRequest(
                        "events/replay/sample.ndjson.gz", "rate", 500, 0.25, 30, 120, 0, 1, "peak-1", 3));
    }

    @Test
    void parse_whenAggregateAsked_keepsItAndTheSizeForEveryWorker() throws Exception {
        LoadGenRequest r = parse("{\"source\":\"x\",\"rate\":100,\"durationSeconds\":5,\"workers\":2,"
                + "\"aggregate\":true,\"maxAggregateBytes\":25600}");

        assertThat(r.aggregate()).isTrue();
        assertThat(r.forWorker(1).aggregate()).isTrue();
        assertThat(r.forWorker(1).maxAggregateBytes()).isEqualTo(25_600);
        assertThat(parse("{\"source\":\"x\",\"rate\":100,\"durationSeconds\":5}")
                        .maxAggregateBytes())
                .isEqualTo(LoadGenRequest.DEFAULT_AGGREGATE_BYTES);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{}|source",
                "{\"source\":\"x\",\"mode\":\"burst\",\"durationSeconds\":5}|mode",
                "{\"source\":\"x\",\"durationSeconds\":5}|rate",
                "{\"source\":\"x\",\"rate\":0,\"durationSeconds\":5}|rate",
                "{\"source\":\"x\",\"rate\":\"fast\",\"durationSeconds\":5}|rate",
                "{\"source\":\"x\",\"rate\":10}|durationSeconds",
                "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":900}|durationSeconds",
                "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"rampUpSeconds\":6}|rampUpSeconds",
                "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"workers\":101}|workers",
                "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"aggregate\":\"yes\"}|aggregate",
                "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"aggregate\":true,\"maxAggregateBytes\":2000000}|maxAggregateBytes",
                "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"runId\":\"a b\"}|runId",
                "{\"source\":\"x\",\"mode\":\"recorded\",\"speed\":-1,\"durationSeconds\":5}|speed",
                "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"htmlReport\":\"s3\"}|htmlReport",
                "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"workers\":2,\"worker\":2}|worker",
                "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"maxRecords\":-1}|maxRecords",
            })
    void parse_whenInvalid_namesTheFieldBeforeAnythingIsSent(String json, String field) {
        assertThatThrownBy(() -> parse(json))
                .isInstanceOfSatisfying(
                        LoadGenRequest.InvalidRequestException.class,
                        e -> assertThat(e.field()).isEqualTo(field));
    }

    @Test
    void parse_whenHtmlReportAsked_keepsItForTheCoordinatorOnly() throws Exception {
        LoadGenRequest r =
                parse("{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"workers\":2,\"htmlReport\":true}");

        assertThat(r.htmlReport()).isTrue();
        assertThat(r.forWorker(0).htmlReport()).isFalse();
    }

    @Test
    void forWorker_whenRecordBudget_splitsItExactly() throws Exception {
        LoadGenRequest r = parse("{\"source\":\"x\",\"rate\":10,\"maxRecords\":10,\"workers\":4}");

        long total = 0;
        for (int i = 0; i < 4; i++) {
            total += r.forWorker(i).maxRecords();
        }
        assertThat(total).isEqualTo(10);
        assertThat(r.durationSeconds()).isEqualTo(840);
    }

    /**
     * Requests whose fields are all set to values other than what parse gives an absent field (rate fields in rate
     * mode, speed in recorded mode: together they cover every component).
     */
    static Stream<LoadGenRequest> everyFieldSet() {
        return Stream.of(
                new LoadGenRequest(
                        "s3://recordings/day.ndjson.gz",
                        "rate",
                        1234.5,
                        1,
                        7.5,
                        60,
                        1001,
                        3,
                        "peak-7",
                        -1,
                        true,
                        25_600,
                        true),
                new LoadGenRequest(
                        "events/replay/sample.ndjson.gz",
                        "recorded",
                        0,
                        2.5,
                        0,
                        30,
                        99,
                        4,
                        "replay-2",
                        -1,
                        true,
                        4_096,
                        true));
    }

    @ParameterizedTest
    @MethodSource("everyFieldSet")
    void workerEvent_whenEveryFieldIsSet_parsesBackToTheSameRequestAndShare(LoadGenRequest r) {
        for (int i = 0; i < r.workers(); i++) {
            LoadGenRequest received = LoadGenRequest.parse(r.workerEvent(i), 840, "worker-req");

            assertThat(received).isEqualTo(r.withWorker(i));
            assertThat(received.forWorker(received.worker())).isEqualTo(r.forWorker(i));
        }
    }

    /**
     * Every record component reaches the worker: dropped from the worker's event, each one changes what the worker
     * parses (or makes the event invalid) for at least one request. A component added later without a JSON form, or
     * that parse does not read, fails here.
     */
    @Test
    void workerEvent_whenAnyFieldIsDropped_theWorkerParsesSomethingElse() {
        List<String> notForwarded = new ArrayList<>();
        for (RecordComponent c : LoadGenRequest.class.getRecordComponents()) {
            boolean matters = everyFieldSet().anyMatch(r -> {
                ObjectNode event = r.workerEvent(1);
                assertThat(event.has(c.getName())).as(c.getName()).isTrue();
                event.remove(c.getName());
                try {
                    LoadGenRequest parsed = LoadGenRequest.parse(event, 840, "worker-req");
                    return !Objects.equals(value(c, parsed), value(c, r.withWorker(1)));
                } catch (LoadGenRequest.InvalidRequestException required) {
                    return true;
                }
            });
            if (!matters) {
                notForwarded.add(c.getName());
            }
        }
        assertThat(notForwarded).isEmpty();
    }

    private static Object value(RecordComponent c, LoadGenRequest r) {
        try {
            return c.getAccessor().invoke(r);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void parse_whenMaxRecordsIsZero_meansNoLimit() throws Exception {
        assertThat(parse("{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"maxRecords\":0}")
                        .maxRecords())
                .isZero();
    }
}
