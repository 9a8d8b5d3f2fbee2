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
import dev.pulse.testing.Gzip;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

class CostTrafficTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long T0 = 1_795_212_000_000L; // 2026-11-20T22:00Z

    @Test
    void batcher_whenRecordsArrive_closesABatchAfterTheWindowOrAtTheBatchSize() {
        CostTraffic.Batcher b = new CostTraffic.Batcher(1, 3, 1_000);
        List<CostTraffic.Rec> recs = new ArrayList<>();
        for (long t : new long[] {0, 100, 200, 300, 1_500, 5_000}) {
            recs.add(new CostTraffic.Rec(T0 + t, "k", new byte[] {'{', '}'}));
        }
        b.add(recs);

        List<CostTraffic.Batcher.Batch> out = b.closedBy(T0 + 2_000);

        // 3 records: full at the third's arrival; then one record alone until its window closes; 1,500 closes at 2,500
        assertThat(out).extracting(CostTraffic.Batcher.Batch::records).containsExactly(3, 1);
        assertThat(out).extracting(CostTraffic.Batcher.Batch::at).containsExactly(T0 + 200, T0 + 1_300);
        assertThat(b.pendingRecords()).isEqualTo(2);
        assertThat(b.closedBy(T0 + 6_000))
                .extracting(CostTraffic.Batcher.Batch::at)
                .containsExactly(T0 + 2_500, T0 + 6_000);
    }

    @Test
    void batcher_whenEvents_numberSequencesPerShardAndKeepTheArrivalTime() {
        CostTraffic.Batcher b = new CostTraffic.Batcher(1, 500, 1_000);
        b.add(List.of(new CostTraffic.Rec(T0, "a", new byte[1]), new CostTraffic.Rec(T0 + 10, "b", new byte[1])));

        var event = b.closedBy(T0 + 1_000).get(0).event();

        assertThat(event.getRecords()).hasSize(2);
        assertThat(event.getRecords().get(0).getEventID()).startsWith("shardId-000000000000:");
        assertThat(new java.math.BigInteger(
                        event.getRecords().get(1).getKinesis().getSequenceNumber()))
                .isGreaterThan(new java.math.BigInteger(
                        event.getRecords().get(0).getKinesis().getSequenceNumber()));
        assertThat(event.getRecords()
                        .get(1)
                        .getKinesis()
                        .getApproximateArrivalTimestamp()
                        .getTime())
                .isEqualTo(T0 + 10);
    }

    @Test
    void shard_whenManyKeys_spreadsThemOverEveryShardDeterministically() {
        int[] seen = new int[4];
        for (int i = 0; i < 400; i++) {
            seen[CostTraffic.Batcher.shard("series-" + i, 4)]++;
        }

        assertThat(java.util.Arrays.stream(seen).boxed().toList()).allMatch(n -> n > 60);
        assertThat(CostTraffic.Batcher.shard("series-7", 4)).isEqualTo(CostTraffic.Batcher.shard("series-7", 4));
        assertThat(CostTraffic.Batcher.shard("anything", 1)).isZero();
    }

    @Test
    void retime_whenNativeDatapoint_movesItsTimestamp() throws Exception {
        byte[] data = "{\"name\":\"x\",\"ts\":1000,\"value\":1.5}".getBytes(StandardCharsets.UTF_8);

        JsonNode out = JSON.readTree(CostTraffic.Recording.retime(data, 500));

        assertThat(out.path("ts").asLong()).isEqualTo(1500);
        assertThat(out.path("value").asDouble()).isEqualTo(1.5);
    }

    @Test
    void retime_whenCloudWatchLogsPayload_movesLogEventsAndEmfTimestamps() throws Exception {
        String env = "{\"messageType\":\"DATA_MESSAGE\",\"logEvents\":[{\"id\":\"1\",\"timestamp\":1000,\"message\":"
                + JSON.writeValueAsString("{\"_aws\":{\"Timestamp\":1000,\"CloudWatchMetrics\":[]},\"Latency\":[1,2]}")
                + "},{\"id\":\"2\",\"timestamp\":1001,\"message\":\"REPORT RequestId: x\\tDuration: 1.00 ms\\t\"}]}";

        byte[] out = CostTraffic.Recording.retime(Gzip.gzip(env.getBytes(StandardCharsets.UTF_8)), 2_000);
        JsonNode n;
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(out))) {
            n = JSON.readTree(in);
        }

        assertThat(n.path("logEvents").get(0).path("timestamp").asLong()).isEqualTo(3000);
        assertThat(JSON.readTree(n.path("logEvents").get(0).path("message").asText())
                        .path("_aws")
                        .path("Timestamp")
                        .asLong())
                .isEqualTo(3000);
        assertThat(n.path("logEvents").get(1).path("timestamp").asLong()).isEqualTo(3001);
        assertThat(n.path("logEvents").get(1).path("message").asText()).startsWith("REPORT");
    }

    @Test
    void mix_whenAMinutesRecordsArrive_eachSeriesSendsTenDatapointsOfItOnceBetween60And110SecondsLater()
            throws Exception {
        CostTraffic.Mix mix = new CostTraffic.Mix(20, T0, T0 + 3_600_000L);

        List<CostTraffic.Rec> recs = mix.arrivals(T0, T0 + 180_000L);

        // minutes 22:00 and 22:01 arrive within the first three minutes (22:01:00..22:02:50), never 22:02's
        assertThat(recs).hasSize(40);
        assertThat(recs).allMatch(r -> r.arrival() >= T0 + 60_000 && r.arrival() < T0 + 60_000 + 110_000);
        String[] lines = new String(recs.get(0).data(), StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(CostTraffic.Mix.PER_MINUTE);
        for (String l : lines) {
            long ts = JSON.readTree(l).path("ts").asLong();
            assertThat(ts).isBetween(T0, T0 + 120_000L);
        }
        assertThat(mix.arrivals(T0 - 600_000L, T0)).isEmpty();
    }

    @Test
    void mix_whenSeries_haveDistinctKeysAndTheQuerySpecOfTheirRecords() {
        CostTraffic.Mix mix = new CostTraffic.Mix(10_000, T0, T0 + 60_000L);

        assertThat(java.util.stream.IntStream.range(0, 10_000)
                        .mapToObj(mix::key)
                        .distinct()
                        .count())
                .isEqualTo(10_000);
        assertThat(mix.spec(0).path("name").asText()).isEqualTo("lambda.duration");
        assertThat(mix.spec(9_999).path("name").asText()).isEqualTo("ddb.item_bytes");
        assertThat(mix.key(0)).isEqualTo("lambda.duration{function=svc-000-handler-0000,region=us-east-1}");
    }

    @Test
    void rateMillis_whenScheduleExpressions_readsTheirPeriod() {
        assertThat(CostSettings.rateMillis("rate(5 minutes)")).isEqualTo(300_000);
        assertThat(CostSettings.rateMillis("rate(1 hour)")).isEqualTo(3_600_000);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CostSettings.rateMillis("cron(0 * * * ? *)"))
                .hasMessageContaining("not a rate");
    }
}
