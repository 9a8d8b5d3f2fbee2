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
import com.google.protobuf.CodedOutputStream;
import dev.pulse.codec.DecodeException;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import dev.pulse.testing.Gzip;
import dev.pulse.testing.RecordingKinesis;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.TestContext;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;

/** Hostile requests PushFunction must refuse before they cost it memory or lose samples behind a 2xx. */
class PushHostileInputTest {

    private static final long NOW = 1_764_000_000_000L;
    private static final Duration PAST = Duration.ofDays(14);
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
    private static final PushConfig CONFIG = PushConfig.fromEnvironment(Map.of(
            "TABLE_NAME", "pulse",
            "DLQ_URL", "http://127.0.0.1:1/queue/dlq",
            "AWS_REGION", "us-east-1",
            "STREAM_NAME", "pulse-stream",
            "RETRY_BASE_MS", "5",
            "RETRY_CAP_MS", "20"));
    private static final Map<String, String> REMOTE_WRITE =
            Map.of("Content-Type", "application/x-protobuf", "Content-Encoding", "snappy");

    private final RecordingKinesis kinesis = RecordingKinesis.accepting();

    private APIGatewayV2HTTPResponse post(String path, Map<String, String> headers, byte[] body) {
        APIGatewayV2HTTPEvent.RequestContext.Http http = new APIGatewayV2HTTPEvent.RequestContext.Http();
        http.setMethod("POST");
        http.setPath(path);
        APIGatewayV2HTTPEvent.RequestContext ctx = new APIGatewayV2HTTPEvent.RequestContext();
        ctx.setHttp(http);
        APIGatewayV2HTTPEvent event = APIGatewayV2HTTPEvent.builder()
                .withRawPath(path)
                .withHeaders(headers)
                .withRequestContext(ctx)
                .withBody(Base64.getEncoder().encodeToString(body))
                .withIsBase64Encoded(true)
                .build();
        return PushFunction.handler(PushFunction.service(CONFIG, kinesis, CLOCK), new RecordingMetrics(), 500)
                .handleRequest(event, new TestContext("req-1", 29_000, 1024));
    }

    /** What ingest stores of the records put, decoding each at {@code arrivalMillis} as ingest does. */
    private List<Datapoint> storedAt(long arrivalMillis) throws DecodeException {
        RecordDecoder decoder = new RecordDecoder(new DatapointValidator(CLOCK, PAST, Duration.ofHours(2)));
        List<Datapoint> out = new ArrayList<>();
        for (PutRecordsRequestEntry e : kinesis.stored()) {
            out.addAll(decoder.decode(e.data().asByteArray(), arrivalMillis).datapoints());
        }
        return out;
    }

    private static byte[] field(int number, byte[] content) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            out.writeByteArray(number, content);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] repeat(byte[] unit, int times) {
        byte[] out = new byte[unit.length * times];
        for (int i = 0; i < times; i++) {
            System.arraycopy(unit, 0, out, i * unit.length, unit.length);
        }
        return out;
    }

    private static KeyValue attr(String key, AnyValue value) {
        return KeyValue.newBuilder().setKey(key).setValue(value).build();
    }

    /**
     * 15.6 KB of gzip inflating to a 16 MB ExportMetricsServiceRequest of 8,000,000 empty metrics: parsed whole it
     * would hold about 500 MB of heap (the deployed heap is 75% of 1,024 MB), and metrics without points are counted
     * by no request limit. Protobuf is bounded as ingest bounds it, at MAX_OTLP_PROTOBUF_BYTES.
     */
    @Test
    void handleRequest_whenGzipInflatesToSixteenMegabytesOfEmptyMetrics_answers413() {
        byte[] emptyMetrics = repeat(new byte[] {0x12, 0x00}, 8_000_000); // ScopeMetrics.metrics: Metric {}
        byte[] request = field(1, field(2, emptyMetrics)); // ExportMetricsServiceRequest { ResourceMetrics { ... } }
        byte[] body = Gzip.gzip(request);
        assertThat(body.length).isLessThan(20_000);

        APIGatewayV2HTTPResponse r = post(
                "/otlp/v1/metrics", Map.of("Content-Type", "application/x-protobuf", "Content-Encoding", "gzip"), body);

        assertThat(r.getStatusCode())
                .as("a 16 MB protobuf (~35 bytes of heap per byte when parsed whole) must be refused")
                .isEqualTo(413);
    }

    /**
     * Remote write 2.0 names its message in the Content-Type's proto= parameter; read as 1.0 its fields are unknown and
     * every sample would be lost behind a 204. 2.0 asks a receiver without the message to answer 415.
     */
    @Test
    void handleRequest_whenRemoteWrite2Request_answers415() {
        ByteArrayOutputStream v2 = new ByteArrayOutputStream();
        for (String symbol : List.of("", "__name__", "up", "job", "api")) {
            v2.writeBytes(field(4, symbol.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        ByteArrayOutputStream series = new ByteArrayOutputStream();
        series.writeBytes(field(1, new byte[] {1, 2, 3, 4})); // labels_refs, packed
        ByteArrayOutputStream sample = new ByteArrayOutputStream();
        try {
            CodedOutputStream s = CodedOutputStream.newInstance(sample);
            s.writeDouble(1, 1.0);
            s.writeInt64(2, NOW - 60_000);
            s.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        series.writeBytes(field(2, sample.toByteArray()));
        v2.writeBytes(field(5, series.toByteArray()));

        APIGatewayV2HTTPResponse r = post(
                "/prometheus/api/v1/write",
                Map.of(
                        "Content-Type", "application/x-protobuf;proto=io.prometheus.write.v2.Request",
                        "Content-Encoding", "snappy",
                        "X-Prometheus-Remote-Write-Version", "2.0.0"),
                WriteRequests.snappy(v2.toByteArray()));

        assertThat(r.getStatusCode())
                .as("stored records: %s", kinesis.stored().size())
                .isEqualTo(415);
    }
}
