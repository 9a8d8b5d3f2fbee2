package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
            reports.add(LoadGenService.toJson(r.forWorker(w),
                    new SendReport(300, 299, 1, 2, 3, 100, 99.5, new long[] {100, 100, 100}, new long[] {90, 100, 100},
                            List.of(new SendReport.Second(10, 1, 2, 3 + w, 4), new SendReport.Second(0, 0, 0, 0, 0),
                                    new SendReport.Second(5, 1, 2, 7 - w, 9)),
                            List.of(), h,
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
        assertThat(merged.at("/latencyPerSecondMs/count")).extracting(JsonNode::asLong).containsExactly(40L, 0L, 20L);
        assertThat(merged.at("/latencyPerSecondMs/p99")).extracting(JsonNode::asDouble).containsExactly(6.0, 0.0, 7.0);
    }
}
