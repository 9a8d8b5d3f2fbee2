package dev.pulse.local.template;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Review (wt-rev2) of TableCapacityMode PROVISIONED beyond the resources it adds: what watches the index it scales.
 */
class TableCapacityReviewTest {

    private static SamTemplate template;

    @BeforeAll
    static void load() throws IOException {
        template = SamTemplate.load(ProjectRoot.find().resolve("template.yaml"));
    }

    /**
     * Was REPRO (medium), fixed: with PROVISIONED the {@code due} index has its own capacity (TableMinCapacity, 5 by default)
     * and takes a write for every hour mark, which every series sets in the first minutes of each hour: the burst the
     * docs name as the first suspect. An index short of write capacity throttles the base table's writes (GSI
     * back-pressure), but CloudWatch counts those events under the index: "The TableName dimension returns the
     * WriteThrottleEvents for the table, but not for any global secondary indexes" (DynamoDB metrics docs). The
     * table-throttles alarm reads only the TableName dimension, so it stays OK while ingest is throttled.
     */
    @Test
    void throttleAlarm_whenProvisioned_watchesTheDueIndexToo() {
        Stack stack = template.resolve(Map.of("TableCapacityMode", "PROVISIONED"),
                new MapBindings(Map.of("Table", "pulse-Table"), Map.of()));
        JsonNode alarm = stack.resolvedProperties("TableThrottleAlarm");

        List<String> watched = new ArrayList<>();
        for (JsonNode m : alarm.path("Metrics")) {
            JsonNode metric = m.path("MetricStat").path("Metric");
            List<String> dims = new ArrayList<>();
            metric.path("Dimensions").forEach(d -> dims.add(d.path("Name").asText() + "=" + d.path("Value").asText()));
            if (!metric.isMissingNode()) {
                watched.add(metric.path("MetricName").asText() + " " + dims);
            }
        }

        assertThat(watched).contains("WriteThrottleEvents [TableName=pulse-Table]"); // what it watches today
        assertThat(watched).contains("WriteThrottleEvents [TableName=pulse-Table, GlobalSecondaryIndexName=due]",
                "ReadThrottleEvents [TableName=pulse-Table, GlobalSecondaryIndexName=due]");
        assertThat(alarm.path("Metrics").get(0).path("Expression").asText()).contains("indexreads", "indexwrites");
    }
}
