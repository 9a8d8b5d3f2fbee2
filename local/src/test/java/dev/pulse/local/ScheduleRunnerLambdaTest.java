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
package dev.pulse.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.local.esm.InvokeResult;
import dev.pulse.local.lambda.FaultPlan;
import dev.pulse.local.lambda.FunctionConfig;
import dev.pulse.local.lambda.LocalLambda;
import dev.pulse.local.lambda.TestHandlers;
import dev.pulse.local.template.ScheduleSpec;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The schedule's event through the local Lambda service into a JVM running the runtime interface client: a handler
 * typed {@code RequestHandler<ScheduledEvent, ...>}, as the compactor is, gets every field EventBridge sets.
 */
class ScheduleRunnerLambdaTest {

    @Test
    void runNow_whenHandlerTakesScheduledEvent_runtimeClientFillsEveryField() throws Exception {
        List<Path> cp = Arrays.stream(System.getProperty("java.class.path").split(":"))
                .map(Path::of)
                .toList();
        FunctionConfig fn = new FunctionConfig(
                "Builder",
                "test-builder",
                "arn:aws:lambda:us-east-1:000000000000:function:test-builder",
                TestHandlers.Scheduled.class.getName() + "::handleRequest",
                256,
                Duration.ofSeconds(10),
                Map.of("AWS_REGION", "us-east-1", "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=50"),
                Path.of("target"),
                cp,
                Path.of(System.getProperty("java.home")));
        ScheduleSpec spec = new ScheduleSpec(
                "Builder",
                "Build",
                "rate(5 minutes)",
                Duration.ofMinutes(5),
                "pulse-local-BuilderBuild-LOCAL",
                null,
                0);
        Instant at = Instant.parse("2026-11-24T01:15:00.400Z");
        try (LocalLambda lambda = new LocalLambda(List.of(fn), f -> line -> {}, 1);
                ScheduleRunner schedule = ScheduleRunner.start(
                        spec,
                        payload -> lambda.invoke("test-builder", payload),
                        Duration.ZERO,
                        "us-east-1",
                        "000000000000",
                        FaultPlan.NONE,
                        Clock.fixed(at, ZoneOffset.UTC))) {
            InvokeResult r = schedule.runNow();

            assertThat(r.failed()).as(new String(r.payload())).isFalse();
            JsonNode seen = new ObjectMapper().readTree(r.payload());
            assertThat(seen.path("detailType").asText()).isEqualTo("Scheduled Event");
            assertThat(seen.path("source").asText()).isEqualTo("aws.events");
            assertThat(seen.path("account").asText()).isEqualTo("000000000000");
            assertThat(seen.path("region").asText()).isEqualTo("us-east-1");
            assertThat(seen.path("resources").asText())
                    .isEqualTo("[arn:aws:events:us-east-1:000000000000:rule/pulse-local-BuilderBuild-LOCAL]");
            assertThat(seen.path("timeMillis").asLong())
                    .isEqualTo(Instant.parse("2026-11-24T01:15:00Z").toEpochMilli());
            assertThat(seen.path("detail").asText()).isEqualTo("{}");
            assertThat(seen.path("id").asText()).hasSize(36);
            assertThat(lambda.stats("test-builder").invocations()).isEqualTo(1);
        }
    }
}
