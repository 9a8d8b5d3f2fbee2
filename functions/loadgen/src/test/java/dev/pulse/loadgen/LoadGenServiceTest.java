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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LoadGenServiceTest {

    @Test
    void merge_whenWorkersReport_countsAddUpAndPercentilesAreOverAllSamples() {
        LoadGenRequest r = new LoadGenRequest("x", "rate", 400, 1, 0, 3, 0, 4, "run", -1);
        Random random = new Random(5);
        LatencyHistogram pooled = new LatencyHistogram();
        List<JsonNode> reports = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            LatencyHistogram h = new LatencyHistogram();
            for (int i = 0; i < 5_000; i++) {
                long micros = 1_000 + (long) (random.nextDouble() * 10_000 * (w + 1));
                h.recordMicros(micros);
                pooled.recordMicros(micros);
            }
            reports.add(LoadGenService.toJson(
                    r.forWorker(w),
                    new SendReport(
                            300,
                            299,
                            1,
                            2,
                            3,
                            100,
                            99.5,
                            new long[] {100, 100, 100},
                            new long[] {90, 100, 100},
                            List.of(
                                    new SendReport.Second(10, 1, 2, 3 + w, 4),
                                    new SendReport.Second(0, 0, 0, 0, 0),
                                    new SendReport.Second(5, 1, 2, 7 - w, 9)),
                            List.of(),
                            h,
                            new SendReport.Units(30, 3_000_000, 150, 299))));
        }

        JsonNode merged = LoadGenService.merge(r, reports);

        assertThat(merged.get("sent").asLong()).isEqualTo(1200);
        assertThat(merged.get("acked").asLong()).isEqualTo(1196);
        assertThat(merged.get("failed").asLong()).isEqualTo(4);
        assertThat(merged.get("throttled").asLong()).isEqualTo(8);
        assertThat(merged.get("kinesisRecords").asLong()).isEqualTo(120);
        assertThat(merged.get("putPayloadUnits").asLong()).isEqualTo(600);
        assertThat(merged.get("putPayloadUnitsUnaggregated").asLong()).isEqualTo(1196);
        // 12 MB over 3 s is 3.8 MiB/s: four shards by bytes, though 40 records/s would fit in one.
        assertThat(merged.get("shardsNeeded").asLong()).isEqualTo(4);
        assertThat(merged.get("achievedRate").asDouble()).isEqualTo(398.0);
        assertThat(merged.get("sentPerSecond")).extracting(JsonNode::asLong).containsExactly(400L, 400L, 400L);
        assertThat(merged.get("latencyMs").get("p99").asDouble()).isEqualTo(pooled.percentileMillis(99));
        assertThat(merged.get("latencyMs").get("p50").asDouble()).isEqualTo(pooled.percentileMillis(50));
        assertThat(merged.get("workers")).hasSize(4);
        // Per second: targets and sample counts add up; percentiles are the highest worker's (an upper bound).
        assertThat(merged.get("targetPerSecond")).extracting(JsonNode::asLong).containsExactly(360L, 400L, 400L);
        assertThat(merged.at("/latencyPerSecondMs/count"))
                .extracting(JsonNode::asLong)
                .containsExactly(40L, 0L, 20L);
        assertThat(merged.at("/latencyPerSecondMs/p99"))
                .extracting(JsonNode::asDouble)
                .containsExactly(6.0, 0.0, 7.0);
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<ReplayRecord> ONE =
            List.of(new ReplayRecord("{\"name\":\"a\",\"ts\":1,\"value\":1}".getBytes(StandardCharsets.UTF_8), "a", 1));

    private static JsonNode overTheWire(String payload) {
        try {
            return JSON.readTree(payload);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A worker's answer as a worker reports it: its share, every record sent and acknowledged. */
    private static JsonNode workerReport(LoadGenRequest share) {
        LatencyHistogram h = new LatencyHistogram();
        h.recordMicros(1_000);
        return LoadGenService.toJson(
                share,
                new SendReport(
                        10,
                        10,
                        0,
                        0,
                        0,
                        share.rate(),
                        share.rate(),
                        new long[(int) share.durationSeconds()],
                        new long[(int) share.durationSeconds()],
                        java.util.Collections.nCopies(
                                (int) share.durationSeconds(), new SendReport.Second(0, 0, 0, 0, 0)),
                        List.of(),
                        h,
                        new SendReport.Units(10, 100, 10, 10)));
    }

    @Test
    void run_whenCoordinating_eachWorkerReceivesEveryFieldThroughItsEvent() throws Exception {
        LoadGenRequest r = new LoadGenRequest(
                "events/replay/sample.ndjson.gz", "rate", 300, 1, 2, 5, 90, 3, "fan", -1, true, 25_600);
        Map<Integer, LoadGenRequest> received = new ConcurrentHashMap<>();
        // What Lambda carries: the event's bytes, parsed by the worker as any other event.
        LoadGenService service = new LoadGenService(
                null,
                source -> ONE,
                w -> {
                    LoadGenRequest parsed =
                            LoadGenRequest.parse(overTheWire(w.toEvent().toString()), 840, "w");
                    received.put(parsed.worker(), parsed);
                    return CompletableFuture.completedFuture(workerReport(parsed.forWorker(parsed.worker())));
                },
                null);

        JsonNode report = service.run(r, Deadline.inMillis(60_000), new InvocationMetrics<>(LoadGenMetric.class));

        assertThat(received).containsOnlyKeys(0, 1, 2);
        received.forEach((i, w) -> {
            assertThat(w).isEqualTo(r.withWorker(i));
            assertThat(w.forWorker(i).aggregate()).isTrue();
            assertThat(w.forWorker(i).maxAggregateBytes()).isEqualTo(25_600);
            assertThat(w.forWorker(i).rate()).isEqualTo(100);
        });
        assertThat(received.values().stream()
                        .mapToLong(w -> w.forWorker(w.worker()).maxRecords())
                        .sum())
                .isEqualTo(90);
        assertThat(report.get("sent").asLong()).isEqualTo(30);
    }

    @Test
    void run_whenTheSourceIsBad_theCoordinatorRefusesItBeforeAnyWorkerStarts() {
        AtomicInteger started = new AtomicInteger();
        LoadGenService service = new LoadGenService(
                null,
                source -> {
                    throw new LoadGenRequest.InvalidRequestException("source", source + " line 7: not JSON");
                },
                w -> {
                    started.incrementAndGet();
                    return CompletableFuture.completedFuture(workerReport(w.forWorker(w.worker())));
                },
                null);

        assertThatThrownBy(() -> service.run(
                        new LoadGenRequest("bad.ndjson", "rate", 100, 1, 0, 5, 0, 4, "r", -1),
                        Deadline.inMillis(60_000),
                        new InvocationMetrics<>(LoadGenMetric.class)))
                .isInstanceOfSatisfying(LoadGenRequest.InvalidRequestException.class, e -> {
                    assertThat(e.field()).isEqualTo("source");
                    assertThat(e.getMessage()).contains("bad.ndjson line 7");
                });
        assertThat(started).hasValue(0);
    }

    @Test
    void run_whenAWorkerAnswersAnError_theCoordinatorAnswersItWithTheWorker() {
        LoadGenService service = new LoadGenService(
                null,
                source -> ONE,
                w -> CompletableFuture.completedFuture(
                        w.worker() == 1
                                ? JSON.createObjectNode()
                                        .set(
                                                "error",
                                                JSON.createObjectNode()
                                                        .put("field", "source")
                                                        .put("message", "source: day.gz line 3: not JSON"))
                                : workerReport(w.forWorker(w.worker()))),
                null);

        assertThatThrownBy(() -> service.run(
                        new LoadGenRequest("day.gz", "rate", 100, 1, 0, 5, 0, 2, "r", -1),
                        Deadline.inMillis(60_000),
                        new InvocationMetrics<>(LoadGenMetric.class)))
                .isInstanceOfSatisfying(LoadGenRequest.InvalidRequestException.class, e -> {
                    assertThat(e.field()).isEqualTo("source");
                    assertThat(e.getMessage()).contains("worker 1").contains("day.gz line 3: not JSON");
                });
    }
}
