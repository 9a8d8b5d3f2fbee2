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
package dev.pulse.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulse.config.PulseConfig;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.testing.EmfOutput;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.TestContext;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * IngestFunction's EMF output through Powertools for batches with nothing in them, which the event source mapping
 * does not send but a hand-made event (or {@code make invoke}) can: still one document, every ingest metric present
 * at zero but {@code ColdStart}, and nothing read or written (the table and the queue refuse every call).
 */
class IngestHandlerEmfTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-21T12:20:00Z"), ZoneOffset.UTC);

    static Stream<Arguments> emptyBatches() {
        KinesisEvent noRecords = new KinesisEvent();
        noRecords.setRecords(new ArrayList<>());
        return Stream.of(
                Arguments.of("records []", noRecords),
                Arguments.of("records null", new KinesisEvent()),
                Arguments.of("no event", null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("emptyBatches")
    void handleRequest_whenTheBatchIsEmpty_printsOneDocumentWithEveryMetricAtZero(String name, KinesisEvent event)
            throws Exception {
        DynamoDbAsyncClient table = new DynamoDbAsyncClient() {
            @Override
            public String serviceName() {
                return "dynamodb";
            }

            @Override
            public void close() {}
        };
        SqsClient queue = new SqsClient() {
            @Override
            public String serviceName() {
                return "sqs";
            }

            @Override
            public void close() {}
        };
        PulseConfig config = TestConfig.of("t", "https://sqs.invalid/123456789012/dlq", Map.of());
        IngestHandler handler = IngestFunction.handler(
                IngestFunction.service(config, table, queue, CLOCK),
                PulseMetrics.create("PulseTest", "ingest"),
                config.safetyMarginMillis());
        StreamsEventResponse[] response = new StreamsEventResponse[1];

        EmfOutput out = EmfOutput.during(
                () -> response[0] = handler.handleRequest(event, new TestContext("req", 60_000, 1024)));

        assertThat(response[0].getBatchItemFailures()).isEmpty();
        JsonNode doc = out.single();
        assertThat(doc.get("Service").asText()).isEqualTo("ingest");
        List<String> names = new ArrayList<>();
        doc.get("_aws")
                .get("CloudWatchMetrics")
                .get(0)
                .get("Metrics")
                .forEach(m -> names.add(m.get("Name").asText()));
        assertThat(names)
                .containsExactlyInAnyOrderElementsOf(Stream.of(IngestMetric.values())
                        .map(IngestMetric::metricName)
                        .toList());
        for (IngestMetric m : IngestMetric.values()) {
            assertThat(doc.get(m.metricName()).asDouble())
                    .as(m.metricName())
                    .isEqualTo(m == IngestMetric.COLD_START ? 1.0 : 0.0);
        }
    }
}
