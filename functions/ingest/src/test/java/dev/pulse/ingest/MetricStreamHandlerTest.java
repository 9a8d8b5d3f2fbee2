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

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.amazonaws.services.lambda.runtime.tests.annotations.Event;
import com.amazonaws.services.lambda.runtime.tests.annotations.Events;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.ingest.metricstream.AccessKey;
import dev.pulse.ingest.metricstream.MetricStreamFunction;
import dev.pulse.ingest.metricstream.MetricStreamHandler;
import dev.pulse.testing.DynamoDbLocalExtension;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.TestContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * {@link MetricStreamHandler} as API Gateway invokes it with Firehose's deliveries of a CloudWatch metric stream (the
 * bundled events of {@code events/}, from scripts/gen_metric_stream.py): exactly what the stream sent is stored, once,
 * however often Firehose sends a delivery again, and Firehose gets the answer its protocol expects.
 */
class MetricStreamHandlerTest {

    /** The start of the fixtures' period. */
    private static final long PERIOD = 1_795_262_400_000L;

    private static final String KEY = "pulse-local-firehose-access-key";
    private static final String LAMBDA = "{FunctionName=checkout,account_id=123456789012,region=us-east-1}";

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    private IngestFixture f;
    private final RecordingMetrics metrics = new RecordingMetrics();
    private final AtomicInteger secretReads = new AtomicInteger();

    @BeforeEach
    void newTable() {
        f = new IngestFixture(DYNAMO.local(), DYNAMO.async(), DYNAMO.reader(), Map.of());
        f.clock.set(Instant.ofEpochMilli(PERIOD + 180_000));
    }

    private MetricStreamHandler handler() {
        AccessKey key = new AccessKey(
                () -> {
                    secretReads.incrementAndGet();
                    return "{\"api_key\":\"" + KEY + "\"}";
                },
                f.clock);
        return MetricStreamFunction.handler(
                MetricStreamFunction.service(f.config, f.dynamo, f.sqs, f.clock, "us-east-1"),
                key,
                metrics,
                3_000,
                f.clock);
    }

    private static APIGatewayV2HTTPEvent event(String name) {
        return EventLoader.loadEvent("events/" + name + ".json", APIGatewayV2HTTPEvent.class);
    }

    private static JsonNode body(APIGatewayV2HTTPResponse r) throws IOException {
        return new ObjectMapper().readTree(r.getBody());
    }

    /** The bundled event with its Firehose body changed by {@code edit}. */
    private static APIGatewayV2HTTPEvent edited(String name, java.util.function.Consumer<ObjectNode> edit)
            throws IOException {
        APIGatewayV2HTTPEvent e = event(name);
        ObjectNode b = (ObjectNode) new ObjectMapper().readTree(e.getBody());
        edit.accept(b);
        e.setBody(b.toString());
        return e;
    }

    @ParameterizedTest
    @Events(
            events = {
                @Event("events/metricstream-firehose-json.json"),
                @Event("events/metricstream-firehose-otel1.json")
            },
            type = APIGatewayV2HTTPEvent.class)
    void handleRequest_whenDeliveryIsSentTwice_storesTheStreamsStatisticsOnceAndAnswersFirehose(
            APIGatewayV2HTTPEvent event) throws IOException {
        MetricStreamHandler h = handler();

        APIGatewayV2HTTPResponse first = h.handleRequest(event, new TestContext("first", 30_000, 512));
        Map<String, Map<Long, List<Double>>> stored = f.stored();
        APIGatewayV2HTTPResponse again = h.handleRequest(event, new TestContext("again", 30_000, 512));

        assertThat(first.getStatusCode()).as(first.getBody()).isEqualTo(200);
        assertThat(body(first).get("requestId").asText())
                .isEqualTo(event.getHeaders().get("x-amz-firehose-request-id"));
        assertThat(body(first).get("timestamp").asLong()).isEqualTo(PERIOD + 180_000);
        assertThat(body(first).has("errorMessage")).isFalse();
        assertThat(again.getStatusCode()).isEqualTo(200);
        assertThat(f.stored()).isEqualTo(stored);
        assertThat(stored)
                .containsEntry("AWS/Lambda/Duration" + LAMBDA, Map.of(PERIOD, List.of(120.0, 5400.0, 12.0, 480.0)))
                .containsEntry("AWS/Lambda/Duration.p99" + LAMBDA, Map.of(PERIOD, List.of(1.0, 410.0, 410.0, 410.0)))
                .containsEntry("AWS/Lambda/Errors" + LAMBDA, Map.of(PERIOD, List.of(120.0, 3.0, 0.0, 1.0)))
                .containsEntry(
                        "AWS/DynamoDB/ConsumedWriteCapacityUnits{TableName=pulse,account_id=123456789012,region=us-east-1}",
                        Map.of(PERIOD, List.of(60.0, 9000.0, 100.0, 200.0)))
                .hasSize(7);
        assertThat(metrics.documents()).hasSize(2);
        assertThat(metrics.documents().get(1)).containsEntry("AlreadyStoredRecords", 1.0);
        assertThat(f.sqs.messages()).isEmpty();
    }

    @Test
    void handleRequest_whenBothFormatsCarryTheSameUpdates_storeTheSameSeries() {
        MetricStreamHandler h = handler();
        h.handleRequest(event("metricstream-firehose-json"), new TestContext("json", 30_000, 512));
        Map<String, Map<Long, List<Double>>> json = f.stored();
        newTable();

        handler().handleRequest(event("metricstream-firehose-otel1"), new TestContext("otel", 30_000, 512));

        assertThat(f.stored()).isEqualTo(json);
    }

    @Test
    void handleRequest_whenAnAttemptDiesMidwayAndFirehoseSendsAgain_storesEveryRecordOnce() throws IOException {
        // Three records in one delivery: the documented split of a stream's output over several Firehose records.
        APIGatewayV2HTTPEvent e = edited("metricstream-firehose-json", b -> {
            ArrayNode records = (ArrayNode) b.get("records");
            String[] lines = new String(
                            Base64.getDecoder()
                                    .decode(records.get(0).get("data").asText()),
                            StandardCharsets.UTF_8)
                    .split("\n");
            records.removeAll();
            for (String line : lines) {
                records.addObject()
                        .put(
                                "data",
                                Base64.getEncoder().encodeToString((line + "\n").getBytes(StandardCharsets.UTF_8)));
            }
        });
        MetricStreamHandler h = handler();
        f.dynamo.crashAfter(3);

        APIGatewayV2HTTPResponse died = h.handleRequest(e, new TestContext("dies", 30_000, 512));
        f.dynamo.disarmCrash();
        APIGatewayV2HTTPResponse retried = h.handleRequest(e, new TestContext("retry", 30_000, 512));

        assertThat(died.getStatusCode()).isEqualTo(500);
        assertThat(body(died).get("errorMessage").asText()).isNotEmpty();
        assertThat(retried.getStatusCode()).as(retried.getBody()).isEqualTo(200);
        newTableKeeping(f.stored());
    }

    /** What a clean single delivery of the same event stores must equal {@code afterRetry}. */
    private void newTableKeeping(Map<String, Map<Long, List<Double>>> afterRetry) {
        newTable();
        handler().handleRequest(event("metricstream-firehose-json"), new TestContext("clean", 30_000, 512));
        assertThat(afterRetry).isEqualTo(f.stored());
    }

    @Test
    void handleRequest_whenAccessKeyIsWrongOrMissing_refusesWith401AndStoresNothing() throws IOException {
        APIGatewayV2HTTPEvent wrong = event("metricstream-firehose-json");
        wrong.setHeaders(new HashMap<>(wrong.getHeaders()));
        wrong.getHeaders().put("x-amz-firehose-access-key", KEY + "x");
        APIGatewayV2HTTPEvent missing = event("metricstream-firehose-json");
        missing.setHeaders(new HashMap<>(missing.getHeaders()));
        missing.getHeaders().remove("x-amz-firehose-access-key");
        MetricStreamHandler h = handler();

        APIGatewayV2HTTPResponse r1 = h.handleRequest(wrong, new TestContext("wrong", 30_000, 512));
        APIGatewayV2HTTPResponse r2 = h.handleRequest(missing, new TestContext("missing", 30_000, 512));

        assertThat(r1.getStatusCode()).isEqualTo(401);
        assertThat(r2.getStatusCode()).isEqualTo(401);
        assertThat(body(r1).get("errorMessage").asText()).contains("X-Amz-Firehose-Access-Key");
        assertThat(f.stored()).isEmpty();
        // A wrong key reads the secret again (it may have been rotated), at most once a minute.
        assertThat(secretReads).hasValue(1);
    }

    @Test
    void handleRequest_whenSecretWasRotated_acceptsTheNewKeyAfterAMinute() {
        String[] current = {"old"};
        AccessKey key = new AccessKey(() -> "{\"api_key\":\"" + current[0] + "\"}", f.clock);

        assertThat(key.accepts("old")).isTrue();
        current[0] = "new";
        assertThat(key.accepts("new")).isFalse();
        f.clock.set(f.clock.instant().plusSeconds(61));
        assertThat(key.accepts("new")).isTrue();
        assertThat(key.accepts("old")).isFalse();
    }

    @Test
    void handleRequest_whenBodyIsGzipped_storesIt() throws IOException {
        APIGatewayV2HTTPEvent e = event("metricstream-firehose-otel1");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(out)) {
            g.write(e.getBody().getBytes(StandardCharsets.UTF_8));
        }
        e.setBody(Base64.getEncoder().encodeToString(out.toByteArray()));
        e.setIsBase64Encoded(true);
        e.setHeaders(new HashMap<>(e.getHeaders()));
        e.getHeaders().put("content-encoding", "gzip");

        APIGatewayV2HTTPResponse r = handler().handleRequest(e, new TestContext("gzip", 30_000, 512));

        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(200);
        assertThat(f.stored()).hasSize(7);
    }

    @Test
    void handleRequest_whenARecordIsPoison_answers200AndSendsItToTheDlqWithItsReason() throws IOException {
        APIGatewayV2HTTPEvent e = edited(
                "metricstream-firehose-json",
                b -> ((ArrayNode) b.get("records"))
                        .addObject()
                        .put(
                                "data",
                                Base64.getEncoder()
                                        .encodeToString("{\"namespace\":\"N\"}".getBytes(StandardCharsets.UTF_8))));

        APIGatewayV2HTTPResponse r = handler().handleRequest(e, new TestContext("poison", 30_000, 512));

        assertThat(r.getStatusCode()).isEqualTo(200);
        assertThat(f.stored()).hasSize(7);
        assertThat(f.sqs.messages())
                .singleElement()
                .satisfies(m -> assertThat(m.body()).contains("metric_name"));
    }

    @Test
    void handleRequest_whenOneMetricOfARecordBreaksPulsesLimits_storesTheOthersOnceAndSetsItAside() throws IOException {
        String stats = ",\"timestamp\":" + PERIOD + ",\"value\":{\"count\":2,\"sum\":7,\"min\":3,\"max\":4}}\n";
        String record = "{\"namespace\":\"App\",\"metric_name\":\"Ok\",\"account_id\":\"1\",\"region\":\"r\"" + stats
                + "{\"namespace\":\"App\",\"metric_name\":\"" + "x".repeat(300)
                + "\",\"account_id\":\"1\",\"region\":\"r\"" + stats;
        APIGatewayV2HTTPEvent e = edited(
                "metricstream-firehose-json",
                b -> ((ArrayNode) b.get("records"))
                        .addObject()
                        .put("data", Base64.getEncoder().encodeToString(record.getBytes(StandardCharsets.UTF_8))));
        MetricStreamHandler h = handler();

        APIGatewayV2HTTPResponse r = h.handleRequest(e, new TestContext("partial", 30_000, 512));
        APIGatewayV2HTTPResponse again = h.handleRequest(e, new TestContext("again", 30_000, 512));

        assertThat(r.getStatusCode()).isEqualTo(200);
        assertThat(again.getStatusCode()).isEqualTo(200);
        assertThat(f.stored())
                .hasSize(8)
                .containsEntry("App/Ok{account_id=1,region=r}", Map.of(PERIOD, List.of(2.0, 7.0, 3.0, 4.0)));
        assertThat(f.sqs.messages())
                .singleElement()
                .satisfies(m -> assertThat(m.toString())
                        .contains("1 of the record's 2 datapoints set aside, the other 1 stored"));
    }

    /**
     * Pulse's own metrics reach Pulse the way AWS's do: its EMF documents become CloudWatch metrics, and a stream of
     * their namespaces ({@code MetricsNamespace} and {@code AwsSdk/JavaSdk2}) brings them back, once a minute whatever
     * the traffic, where a subscription of Pulse's own log groups would feed every batch back as records.
     */
    @Test
    void handleRequest_whenPulsesOwnNamespacesAreStreamed_storesItsCountersAndItsClientsCallDurations()
            throws IOException {
        String common = ",\"account_id\":\"123456789012\",\"region\":\"us-east-1\",\"timestamp\":" + PERIOD;
        String record = "{\"namespace\":\"Pulse\",\"metric_name\":\"DatapointsIn\",\"dimensions\":"
                + "{\"Service\":\"ingest\"}" + common
                + ",\"value\":{\"count\":60,\"sum\":30000,\"min\":100,\"max\":900},\"unit\":\"Count\"}\n"
                + "{\"namespace\":\"AwsSdk/JavaSdk2\",\"metric_name\":\"ApiCallDuration\",\"dimensions\":"
                + "{\"Service\":\"ingest\",\"ServiceId\":\"DynamoDB\",\"OperationName\":\"BatchWriteItem\"}"
                + common + ",\"value\":{\"count\":340,\"sum\":5100,\"min\":4,\"max\":95,\"p99\":80},"
                + "\"unit\":\"Milliseconds\"}\n";
        APIGatewayV2HTTPEvent e = edited("metricstream-firehose-json", b -> {
            ArrayNode records = (ArrayNode) b.get("records");
            records.removeAll();
            records.addObject()
                    .put("data", Base64.getEncoder().encodeToString(record.getBytes(StandardCharsets.UTF_8)));
        });

        APIGatewayV2HTTPResponse r = handler().handleRequest(e, new TestContext("own", 30_000, 512));

        String account = "account_id=123456789012,region=us-east-1}";
        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(200);
        assertThat(f.stored())
                .containsOnly(
                        Map.entry(
                                "Pulse/DatapointsIn{Service=ingest," + account,
                                Map.of(PERIOD, List.of(60.0, 30000.0, 100.0, 900.0))),
                        Map.entry(
                                "AwsSdk/JavaSdk2/ApiCallDuration{OperationName=BatchWriteItem,Service=ingest,"
                                        + "ServiceId=DynamoDB," + account,
                                Map.of(PERIOD, List.of(340.0, 5100.0, 4.0, 95.0))),
                        Map.entry(
                                "AwsSdk/JavaSdk2/ApiCallDuration.p99{OperationName=BatchWriteItem,Service=ingest,"
                                        + "ServiceId=DynamoDB," + account,
                                Map.of(PERIOD, List.of(1.0, 80.0, 80.0, 80.0))));
    }

    @Test
    void handleRequest_whenBodyIsNotFirehoses_answers400WithTheReason() throws IOException {
        APIGatewayV2HTTPEvent e = event("metricstream-firehose-json");
        e.setBody("{\"records\":[]}");

        APIGatewayV2HTTPResponse r = handler().handleRequest(e, new TestContext("bad", 30_000, 512));

        assertThat(r.getStatusCode()).isEqualTo(400);
        assertThat(body(r).get("errorMessage").asText()).contains("requestId: required");
    }

    @Test
    void handleRequest_whenMethodIsNotPost_answers405() {
        APIGatewayV2HTTPEvent e = event("metricstream-firehose-json");
        e.getRequestContext().getHttp().setMethod("GET");

        assertThat(handler()
                        .handleRequest(e, new TestContext("get", 30_000, 512))
                        .getStatusCode())
                .isEqualTo(405);
    }
}
