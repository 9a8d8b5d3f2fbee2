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
package dev.pulse.push;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.google.protobuf.CodedInputStream;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import dev.pulse.testing.Gzip;
import dev.pulse.testing.RecordingKinesis;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.TestContext;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.status.StatusData;
import org.apache.logging.log4j.status.StatusListener;
import org.apache.logging.log4j.status.StatusLogger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;

class PushHandlerTest {

    private static final long NOW = 1_764_000_000_000L;
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
    private static final PushConfig CONFIG = PushConfig.fromEnvironment(Map.of(
            "TABLE_NAME", "pulse",
            "DLQ_URL", "http://127.0.0.1:1/queue/dlq",
            "AWS_REGION", "us-east-1",
            "STREAM_NAME", "pulse-stream",
            "RETRY_BASE_MS", "5",
            "RETRY_CAP_MS", "20"));

    private final RecordingMetrics metrics = new RecordingMetrics();

    private PushHandler handler(KinesisAsyncClient kinesis) {
        return PushFunction.handler(PushFunction.service(CONFIG, kinesis, CLOCK), metrics, 500);
    }

    private static APIGatewayV2HTTPEvent post(String path, Map<String, String> headers, byte[] body) {
        APIGatewayV2HTTPEvent.RequestContext.Http http = new APIGatewayV2HTTPEvent.RequestContext.Http();
        http.setMethod("POST");
        http.setPath(path);
        APIGatewayV2HTTPEvent.RequestContext ctx = new APIGatewayV2HTTPEvent.RequestContext();
        ctx.setHttp(http);
        return APIGatewayV2HTTPEvent.builder()
                .withRawPath(path)
                .withHeaders(headers)
                .withRequestContext(ctx)
                .withBody(Base64.getEncoder().encodeToString(body))
                .withIsBase64Encoded(true)
                .build();
    }

    private static List<Datapoint> stored(RecordingKinesis kinesis) throws Exception {
        RecordDecoder decoder =
                new RecordDecoder(new DatapointValidator(CLOCK, Duration.ofDays(14), Duration.ofHours(2)));
        List<Datapoint> out = new ArrayList<>();
        for (PutRecordsRequestEntry e : kinesis.stored()) {
            out.addAll(decoder.decode(e.data().asByteArray(), NOW).datapoints());
        }
        return out;
    }

    @Test
    void handleRequest_whenOtlpProtobufGzip_answers200AfterPuttingEveryPoint() throws Exception {
        RecordingKinesis kinesis = RecordingKinesis.accepting();
        byte[] body = Gzip.gzip(OtlpRequests.gauge("cpu", 500, NOW).toByteArray());

        APIGatewayV2HTTPResponse r = handler(kinesis)
                .handleRequest(
                        post(
                                "/otlp/v1/metrics",
                                Map.of("Content-Type", "application/x-protobuf", "Content-Encoding", "gzip"),
                                body),
                        new TestContext("req-1", 29_000, 1024));

        assertThat(r.getStatusCode()).isEqualTo(200);
        assertThat(r.getHeaders()).containsEntry("Content-Type", "application/x-protobuf");
        ExportMetricsServiceResponse response =
                ExportMetricsServiceResponse.parseFrom(Base64.getDecoder().decode(r.getBody()));
        assertThat(response.hasPartialSuccess()).isFalse();
        List<Datapoint> dps = stored(kinesis);
        assertThat(dps).hasSize(500);
        assertThat(dps.stream().mapToDouble(Datapoint::value).sum()).isEqualTo(500.0 * 499 / 2);
        assertThat(metrics.last("DatapointsIn")).isEqualTo(500);
        assertThat(metrics.last("RequestsAccepted")).isEqualTo(1);
    }

    @Test
    void handleRequest_whenOtlpJsonWithANaNPoint_answersPartialSuccessInJson() throws Exception {
        RecordingKinesis kinesis = RecordingKinesis.accepting();
        String json =
                "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"g\",\"gauge\":{\"dataPoints\":["
                        + "{\"timeUnixNano\":\"" + NOW * 1_000_000L + "\",\"asDouble\":1.5},"
                        + "{\"timeUnixNano\":\"" + NOW * 1_000_000L
                        + "\",\"asDouble\":\"NaN\",\"attributes\":[{\"key\":\"x\",\"value\":{\"stringValue\":\"y\"}}]}"
                        + "]}}]}]}]}";

        APIGatewayV2HTTPResponse r = handler(kinesis)
                .handleRequest(
                        post(
                                "/otlp/v1/metrics",
                                Map.of("content-type", "application/json"),
                                json.getBytes(StandardCharsets.UTF_8)),
                        new TestContext("req-2", 29_000, 1024));

        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(200);
        assertThat(r.getHeaders()).containsEntry("Content-Type", "application/json");
        assertThat(r.getBody()).contains("\"rejectedDataPoints\":\"1\"").contains("not a finite number");
        assertThat(stored(kinesis)).extracting(Datapoint::value).containsExactly(1.5);
    }

    @Test
    void handleRequest_whenOtlpTruncated_answers400WithAStatusInProtobuf() throws Exception {
        byte[] whole = OtlpRequests.gauge("cpu", 3, NOW).toByteArray();

        APIGatewayV2HTTPResponse r = handler(RecordingKinesis.accepting())
                .handleRequest(
                        post(
                                "/otlp/v1/metrics",
                                Map.of("Content-Type", "application/x-protobuf"),
                                java.util.Arrays.copyOf(whole, whole.length - 2)),
                        new TestContext("req-3", 29_000, 1024));

        assertThat(r.getStatusCode()).isEqualTo(400);
        CodedInputStream in = CodedInputStream.newInstance(Base64.getDecoder().decode(r.getBody()));
        assertThat(in.readTag()).isEqualTo(8);
        assertThat(in.readInt32()).isEqualTo(3); // INVALID_ARGUMENT
        assertThat(in.readTag()).isEqualTo(18);
        assertThat(in.readStringRequireUtf8()).contains("ExportMetricsServiceRequest");
        assertThat(metrics.last("RequestsRefused")).isEqualTo(1);
    }

    @Test
    void handleRequest_whenOtlpContentTypeUnknown_answers415() {
        APIGatewayV2HTTPResponse r = handler(RecordingKinesis.accepting())
                .handleRequest(
                        post("/otlp/v1/metrics", Map.of("Content-Type", "text/plain"), new byte[] {1}),
                        new TestContext("req-4", 29_000, 1024));

        assertThat(r.getStatusCode()).isEqualTo(415);
    }

    @Test
    void handleRequest_whenKinesisFailsEveryCall_answers503SoTheClientRetries() {
        Integer[] all = new Integer[10_000];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        RecordingKinesis failing = RecordingKinesis.failingAfterStoring(all);

        APIGatewayV2HTTPResponse r = handler(failing)
                .handleRequest(
                        post(
                                "/otlp/v1/metrics",
                                Map.of("Content-Type", "application/x-protobuf"),
                                OtlpRequests.gauge("cpu", 3, NOW).toByteArray()),
                        TestContext.fixedRemaining("push", "req-5", 1_500, 1024));

        assertThat(r.getStatusCode()).isEqualTo(503);
        assertThat(r.getHeaders()).containsEntry("Retry-After", "1");
        assertThat(failing.calls()).isGreaterThan(1);
        assertThat(metrics.last("RequestsUnavailable")).isEqualTo(1);
    }

    /**
     * The refusal, unavailability and partial-store lines carry their values as fields: a message whose placeholders
     * do not match its arguments makes log4j print a plain-text status warning beside the JSON line, in every
     * invocation that logs it.
     */
    @Test
    void handleRequest_whenRefusedUnavailableOrStoredInPart_logsWithoutFormatWarnings() {
        List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        StatusListener listener = new StatusListener() {
            @Override
            public void log(StatusData data) {
                warnings.add(data.getMessage().getFormattedMessage());
            }

            @Override
            public Level getStatusLevel() {
                return Level.WARN;
            }

            @Override
            public void close() {}
        };
        StatusLogger.getLogger().registerListener(listener);
        try {
            // The listener sees the warning a mismatched call causes: the check below can fail.
            LoggerFactory.getLogger(PushHandlerTest.class)
                    .warn("one placeholder {}", "a", StructuredArguments.entry("b", 1));
            assertThat(warnings).anyMatch(w -> w.contains("argument placeholders"));
            warnings.clear();

            PushHandler h = handler(RecordingKinesis.accepting());
            h.handleRequest(
                    post("/otlp/v1/metrics", Map.of("Content-Type", "text/plain"), new byte[] {1}),
                    new TestContext("refused", 29_000, 1024));
            String json = "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"g\",\"gauge\":{"
                    + "\"dataPoints\":[{\"timeUnixNano\":\"" + NOW * 1_000_000L + "\",\"asDouble\":\"NaN\"}]}}]}]}]}";
            h.handleRequest(
                    post(
                            "/otlp/v1/metrics",
                            Map.of("content-type", "application/json"),
                            json.getBytes(StandardCharsets.UTF_8)),
                    new TestContext("in-part", 29_000, 1024));
            handler(RecordingKinesis.failingAfterStoring(0, 1, 2, 3, 4, 5, 6, 7, 8, 9))
                    .handleRequest(
                            post(
                                    "/otlp/v1/metrics",
                                    Map.of("Content-Type", "application/x-protobuf"),
                                    OtlpRequests.gauge("cpu", 3, NOW).toByteArray()),
                            TestContext.fixedRemaining("push", "unavailable", 600, 1024));

            assertThat(warnings).noneMatch(w -> w.contains("argument placeholders"));
        } finally {
            StatusLogger.getLogger().removeListener(listener);
        }
    }

    @Test
    void handleRequest_whenKinesisFailsOnce_retriesAndAnswers200() throws Exception {
        RecordingKinesis kinesis = RecordingKinesis.failingAfterStoring(0);

        APIGatewayV2HTTPResponse r = handler(kinesis)
                .handleRequest(
                        post(
                                "/otlp/v1/metrics",
                                Map.of("Content-Type", "application/x-protobuf"),
                                OtlpRequests.gauge("cpu", 3, NOW).toByteArray()),
                        new TestContext("req-6", 29_000, 1024));

        assertThat(r.getStatusCode()).isEqualTo(200);
        assertThat(kinesis.calls()).isEqualTo(2);
        assertThat(metrics.last("PutRetries")).isPositive();
    }

    @Test
    void handleRequest_whenRemoteWrite_answers204AndPutsSamples() throws Exception {
        RecordingKinesis kinesis = RecordingKinesis.accepting();
        byte[] body = WriteRequests.snappy(WriteRequests.encode(
                List.of(
                        WriteRequests.series("up", Map.of("job", "node"), NOW, 1),
                        WriteRequests.series("http_requests_total", Map.of("code", "200"), NOW, 10, 12)),
                List.of()));

        APIGatewayV2HTTPResponse r = handler(kinesis)
                .handleRequest(
                        post(
                                "/prometheus/api/v1/write",
                                Map.of(
                                        "Content-Type", "application/x-protobuf",
                                        "Content-Encoding", "snappy",
                                        "X-Prometheus-Remote-Write-Version", "0.1.0"),
                                body),
                        new TestContext("req-7", 29_000, 1024));

        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(204);
        Map<String, Double> sums = new HashMap<>();
        for (Datapoint dp : stored(kinesis)) {
            sums.merge(dp.name() + dp.dims(), dp.value(), Double::sum);
        }
        assertThat(sums)
                .containsExactlyInAnyOrderEntriesOf(Map.of("up{job=node}", 1.0, "http_requests_total{code=200}", 22.0));
    }

    @Test
    void handleRequest_whenRemoteWriteSampleTooOld_answers400InTextAfterStoringTheOthers() throws Exception {
        RecordingKinesis kinesis = RecordingKinesis.accepting();
        byte[] body = WriteRequests.snappy(WriteRequests.encode(
                List.of(
                        WriteRequests.series("up", Map.of("job", "node"), NOW, 1),
                        WriteRequests.series(
                                "up",
                                Map.of("job", "old"),
                                NOW - Duration.ofDays(20).toMillis(),
                                1)),
                List.of()));

        APIGatewayV2HTTPResponse r = handler(kinesis)
                .handleRequest(
                        post(
                                "/prometheus/api/v1/write",
                                Map.of("Content-Type", "application/x-protobuf", "Content-Encoding", "snappy"),
                                body),
                        new TestContext("req-8", 29_000, 1024));

        assertThat(r.getStatusCode()).isEqualTo(400);
        assertThat(r.getHeaders().get("Content-Type")).startsWith("text/plain");
        assertThat(r.getBody()).contains("1 samples rejected").contains("outside the accepted window");
        assertThat(stored(kinesis)).extracting(Datapoint::dims).containsExactly(Map.of("job", "node"));
    }

    @Test
    void handleRequest_whenBodyOverMaxBodyBytes_answers413() {
        byte[] big = new byte[CONFIG.maxBodyBytes() + 1];

        APIGatewayV2HTTPResponse r = handler(RecordingKinesis.accepting())
                .handleRequest(
                        post("/otlp/v1/metrics", Map.of("Content-Type", "application/x-protobuf"), big),
                        new TestContext("req-9", 29_000, 1024));

        assertThat(r.getStatusCode()).isEqualTo(413);
    }

    @Test
    void handleRequest_whenHistogramAmongGauges_putsBoth() throws Exception {
        RecordingKinesis kinesis = RecordingKinesis.accepting();
        Metric gauge = Metric.newBuilder()
                .setName("g")
                .setGauge(Gauge.newBuilder().addDataPoints(OtlpRequests.point(NOW, 4)))
                .build();
        Metric histogram = Metric.newBuilder()
                .setName("h")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(HistogramDataPoint.newBuilder()
                                .setTimeUnixNano(NOW * 1_000_000L)
                                .setCount(3)
                                .setSum(6)
                                .setMin(1)
                                .setMax(3)
                                .addExplicitBounds(2)
                                .addBucketCounts(1)
                                .addBucketCounts(2)))
                .build();

        APIGatewayV2HTTPResponse r = handler(kinesis)
                .handleRequest(
                        post(
                                "/otlp/v1/metrics",
                                Map.of("Content-Type", "application/x-protobuf"),
                                OtlpRequests.request(gauge, histogram).toByteArray()),
                        new TestContext("req-10", 29_000, 1024));

        assertThat(r.getStatusCode()).isEqualTo(200);
        List<Datapoint> dps = stored(kinesis);
        assertThat(dps).extracting(Datapoint::name).containsExactlyInAnyOrder("g", "h");
        Datapoint h = dps.stream().filter(d -> d.name().equals("h")).findFirst().orElseThrow();
        assertThat(h.summary().count()).isEqualTo(3);
        assertThat(h.summary().max()).isEqualTo(3.0);
    }
}
