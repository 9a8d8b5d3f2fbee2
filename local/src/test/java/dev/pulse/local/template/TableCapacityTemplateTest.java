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
package dev.pulse.local.template;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The table's capacity and backup settings of template.yaml: on-demand with point-in-time recovery by default;
 * {@code TableCapacityMode=PROVISIONED} gives the table and its index provisioned capacity with target-tracking
 * auto scaling at the 70% utilisation docs/capacity.md prices, and the throttle alarm watches the index as well as the
 * table. And every parameter is documented.
 */
class TableCapacityTemplateTest {

    private static final String TARGET = "AWS::ApplicationAutoScaling::ScalableTarget";
    private static final String POLICY = "AWS::ApplicationAutoScaling::ScalingPolicy";

    private static Path root;
    private static SamTemplate template;

    @BeforeAll
    static void load() throws IOException {
        Path dir = ProjectRoot.find();
        root = dir;
        template = SamTemplate.load(dir.resolve("template.yaml"));
    }

    @Test
    void table_whenDefaults_isOnDemandWithPointInTimeRecoveryAndNoScaling() {
        Stack stack = template.resolve(Map.of(), MapBindings.none());
        JsonNode table = stack.resolvedProperties("Table");

        assertThat(table.path("BillingMode").asText()).isEqualTo("PAY_PER_REQUEST");
        assertThat(table.has("ProvisionedThroughput")).isFalse();
        assertThat(table.path("GlobalSecondaryIndexes").get(0).has("ProvisionedThroughput"))
                .isFalse();
        assertThat(table.path("PointInTimeRecoverySpecification")
                        .path("PointInTimeRecoveryEnabled")
                        .asBoolean())
                .isTrue();
        assertThat(stack.resourceIds(TARGET)).isEmpty();
        assertThat(stack.resourceIds(POLICY)).isEmpty();
    }

    @Test
    void table_whenProvisioned_scalesTableAndIndexReadsAndWritesBetweenTheirBounds() {
        Map<String, String> refs = Map.of(
                "Table",
                "pulse-Table",
                "TableWriteScaling",
                "tw",
                "TableReadScaling",
                "tr",
                "DueIndexWriteScaling",
                "iw",
                "DueIndexReadScaling",
                "ir");
        Stack stack = template.resolve(
                Map.of(
                        "TableCapacityMode",
                        "PROVISIONED",
                        "TableMinCapacity",
                        "7",
                        "TableMaxWriteCapacity",
                        "900",
                        "TableMaxReadCapacity",
                        "300"),
                new MapBindings(refs, Map.of()));
        JsonNode table = stack.resolvedProperties("Table");

        assertThat(table.path("BillingMode").asText()).isEqualTo("PROVISIONED");
        for (JsonNode throughput : List.of(
                table.path("ProvisionedThroughput"),
                table.path("GlobalSecondaryIndexes").get(0).path("ProvisionedThroughput"))) {
            assertThat(throughput.path("ReadCapacityUnits").asInt()).isEqualTo(7);
            assertThat(throughput.path("WriteCapacityUnits").asInt()).isEqualTo(7);
        }
        List<String> scaled = new ArrayList<>();
        for (String id : stack.resourceIds(TARGET)) {
            JsonNode t = stack.resolvedProperties(id);
            String dimension = t.path("ScalableDimension").asText();
            assertThat(t.path("ServiceNamespace").asText()).isEqualTo("dynamodb");
            assertThat(t.path("MinCapacity").asInt()).isEqualTo(7);
            assertThat(t.path("MaxCapacity").asInt()).isEqualTo(dimension.endsWith("WriteCapacityUnits") ? 900 : 300);
            assertThat(t.path("ResourceId").asText())
                    .isEqualTo(
                            dimension.startsWith("dynamodb:index:")
                                    ? "table/pulse-Table/index/due"
                                    : "table/pulse-Table");
            scaled.add(dimension);
        }
        assertThat(scaled)
                .containsExactlyInAnyOrder(
                        "dynamodb:table:WriteCapacityUnits",
                        "dynamodb:table:ReadCapacityUnits",
                        "dynamodb:index:WriteCapacityUnits",
                        "dynamodb:index:ReadCapacityUnits");
        List<String> policiesOf = new ArrayList<>();
        for (String id : stack.resourceIds(POLICY)) {
            JsonNode p = stack.resolvedProperties(id);
            JsonNode tracking = p.path("TargetTrackingScalingPolicyConfiguration");
            assertThat(p.path("PolicyType").asText()).isEqualTo("TargetTrackingScaling");
            assertThat(tracking.path("TargetValue").asDouble()).isEqualTo(70.0);
            String target = p.path("ScalingTargetId").asText();
            String dimension = stack.resolvedProperties(stack.resourceIds(TARGET).stream()
                            .filter(t -> refs.get(t).equals(target))
                            .findFirst()
                            .orElseThrow())
                    .path("ScalableDimension")
                    .asText();
            assertThat(tracking.path("PredefinedMetricSpecification")
                            .path("PredefinedMetricType")
                            .asText())
                    .isEqualTo(
                            dimension.endsWith("WriteCapacityUnits")
                                    ? "DynamoDBWriteCapacityUtilization"
                                    : "DynamoDBReadCapacityUtilization");
            policiesOf.add(dimension);
        }
        assertThat(policiesOf).containsExactlyInAnyOrderElementsOf(scaled);
    }

    /**
     * With PROVISIONED the {@code due} index has capacity of its own and takes a write at every hour mark, which every
     * series sets in the first minutes of each hour. An index short of write capacity throttles the base table's
     * writes (GSI back-pressure), but CloudWatch counts those throttles under the index ("The TableName dimension
     * returns the WriteThrottleEvents for the table, but not for any global secondary indexes", DynamoDB metrics
     * docs): an alarm on the TableName dimension alone would stay OK while ingest is throttled.
     */
    @Test
    void throttleAlarm_whenProvisioned_watchesTheTableAndTheDueIndex() {
        Stack stack = template.resolve(
                Map.of("TableCapacityMode", "PROVISIONED"), new MapBindings(Map.of("Table", "pulse-Table"), Map.of()));
        JsonNode alarm = stack.resolvedProperties("TableThrottleAlarm");

        List<String> watched = new ArrayList<>();
        for (JsonNode m : alarm.path("Metrics")) {
            JsonNode metric = m.path("MetricStat").path("Metric");
            List<String> dims = new ArrayList<>();
            metric.path("Dimensions")
                    .forEach(d -> dims.add(
                            d.path("Name").asText() + "=" + d.path("Value").asText()));
            if (!metric.isMissingNode()) {
                watched.add(metric.path("MetricName").asText() + " " + dims);
            }
        }

        assertThat(watched)
                .contains(
                        "WriteThrottleEvents [TableName=pulse-Table]",
                        "WriteThrottleEvents [TableName=pulse-Table, GlobalSecondaryIndexName=due]",
                        "ReadThrottleEvents [TableName=pulse-Table, GlobalSecondaryIndexName=due]");
        assertThat(alarm.path("Metrics").get(0).path("Expression").asText()).contains("indexreads", "indexwrites");
    }

    @Test
    void table_whenPointInTimeRecoveryOff_hasNoContinuousBackups() {
        JsonNode table = template.resolve(Map.of("PointInTimeRecovery", "false"), MapBindings.none())
                .resolvedProperties("Table");

        assertThat(table.path("PointInTimeRecoverySpecification")
                        .path("PointInTimeRecoveryEnabled")
                        .asBoolean())
                .isFalse();
    }

    @Test
    void parameters_whenTemplateDeclaresThem_eachHasARowWithItsDefaultInConfigurationDocs() throws IOException {
        String docs = Files.readString(root.resolve("docs/configuration.md"), StandardCharsets.UTF_8);
        List<String> missing = new ArrayList<>();
        template.parameterDefaults().forEach((name, value) -> {
            if (!docs.contains("| `" + name + "` | `" + (value.isEmpty() ? "''" : value) + "` |")) {
                missing.add(name + " (default " + value + ")");
            }
        });

        assertThat(missing)
                .as("parameters without a row `| `Name` | `default` |` (`''` when empty) in docs/configuration.md")
                .isEmpty();
    }
}
