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
import dev.pulse.model.SeriesKey;
import dev.pulse.testing.Gzip;
import dev.pulse.testing.RecordingKinesis;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.TestContext;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
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

    private static final Map<String, String> OTLP = Map.of("Content-Type", "application/x-protobuf");
    /** Ingest's clock when the records arrive: the push function's 29 s timeout after push's check, at most. */
    private static final long LATEST_ARRIVAL = NOW + 29_000;

    private static ExportMetricsServiceResponse exported(APIGatewayV2HTTPResponse r) throws IOException {
        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(200);
        return ExportMetricsServiceResponse.parseFrom(Base64.getDecoder().decode(r.getBody()));
    }

    private static KeyValue intAttr(String key, long value) {
        return attr(key, AnyValue.newBuilder().setIntValue(value).build());
    }

    private static ExportMetricsServiceRequest request(List<KeyValue> resource, Metric metric) {
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder().addAllAttributes(resource))
                        .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(metric)))
                .build();
    }

    private Set<String> partitionKeys() {
        Set<String> keys = new HashSet<>();
        for (PutRecordsRequestEntry e : kinesis.stored()) {
            keys.add(e.partitionKey());
        }
        return keys;
    }

    /**
     * One stored series as an SDK sends it across restarts and upgrades: a new {@code service.instance.id} each
     * process, another {@code telemetry.sdk.version}, the status code as an int or a string, attributes in another
     * order. Ingest stores all of them as one series; keyed by the attributes as sent, they fell on up to eight of the
     * sixteen keys (so on other shards, order across them lost).
     */
    @Test
    void handleRequest_whenOneStoredSeriesSentAsRestartedSdksSendIt_putsEveryVariantUnderOneKey() throws Exception {
        for (int i = 0; i < 8; i++) {
            List<KeyValue> resource = List.of(
                    OtlpRequests.attr("service.name", "checkout"),
                    OtlpRequests.attr("service.instance.id", "4f1c-" + i),
                    OtlpRequests.attr("telemetry.sdk.version", "1." + i));
            List<KeyValue> attrs = i % 2 == 0
                    ? List.of(intAttr("code", 200), OtlpRequests.attr("route", "/pay"))
                    : List.of(OtlpRequests.attr("route", "/pay"), OtlpRequests.attr("code", "200"));
            Metric m = Metric.newBuilder()
                    .setName("requests")
                    .setGauge(Gauge.newBuilder()
                            .addDataPoints(OtlpRequests.point(NOW - 1000 + i, i).toBuilder()
                                    .addAllAttributes(attrs)))
                    .build();

            assertThat(post("/otlp/v1/metrics", OTLP, request(resource, m).toByteArray())
                            .getStatusCode())
                    .isEqualTo(200);
        }

        assertThat(kinesis.stored()).hasSize(8);
        assertThat(partitionKeys()).hasSize(1);
        List<Datapoint> stored = storedAt(NOW);
        assertThat(stored)
                .extracting(dp -> SeriesKey.of(dp.name(), dp.dims()))
                .containsOnly(
                        SeriesKey.of("requests", Map.of("service.name", "checkout", "code", "200", "route", "/pay")));
        assertThat(stored).extracting(Datapoint::value).containsExactly(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0);
    }

    /** Remote write keys by the stored label set too: any label order, an empty label, and OTLP's equivalent series. */
    @Test
    void handleRequest_whenSameSeriesByRemoteWriteInAnyLabelOrderAndByOtlp_putsItUnderOneKey() throws Exception {
        Map<String, String> ordered = new java.util.LinkedHashMap<>();
        ordered.put("job", "api");
        ordered.put("instance", "10.0.0.1:9100");
        Map<String, String> reversed = new java.util.LinkedHashMap<>();
        reversed.put("env", "");
        reversed.put("instance", "10.0.0.1:9100");
        reversed.put("job", "api");
        for (Map<String, String> labels : List.of(ordered, reversed)) {
            APIGatewayV2HTTPResponse r = post(
                    "/prometheus/api/v1/write",
                    REMOTE_WRITE,
                    WriteRequests.snappy(WriteRequests.encode(
                            List.of(WriteRequests.series("up", labels, NOW - 5000, 1)), List.of())));
            assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(204);
        }
        Metric otlp = Metric.newBuilder()
                .setName("up")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(OtlpRequests.point(
                                NOW,
                                1,
                                OtlpRequests.attr("instance", "10.0.0.1:9100"),
                                OtlpRequests.attr("job", "api"))))
                .build();
        assertThat(post("/otlp/v1/metrics", OTLP, request(List.of(), otlp).toByteArray())
                        .getStatusCode())
                .isEqualTo(200);

        assertThat(kinesis.stored()).hasSize(3);
        assertThat(partitionKeys()).hasSize(1);
    }

    /**
     * A point push takes must still be inside ingest's window when its record arrives (ingest checks against the
     * arrival, up to the function's 29 s timeout later): within {@link PushConfig#WINDOW_EDGE_MARGIN} of either edge
     * it is rejected at push, never put to become poison (taking its record's other series to the DLQ with it).
     */
    @ParameterizedTest(name = "{0} ms from now: stored {1}")
    @CsvSource({
        // ACCEPT_PAST_SECONDS 14 days: a point 10 s inside it passes a check at now, fails ingest's at arrival
        "-1209590000, false",
        "-1209539000, true",
        // ACCEPT_FUTURE_SECONDS 2 hours
        "7190000, false",
        "7139000, true",
    })
    void handleRequest_whenPointNearTheWindowsEdge_rejectsItAtPushOrPutsWhatIngestStoresOnArrival(
            long offsetMillis, boolean stored) throws Exception {
        Metric m = Metric.newBuilder()
                .setName("g")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(OtlpRequests.point(NOW, 1, OtlpRequests.attr("s", "now")))
                        .addDataPoints(OtlpRequests.point(NOW + offsetMillis, 2, OtlpRequests.attr("s", "edge"))))
                .build();

        ExportMetricsServiceResponse r =
                exported(post("/otlp/v1/metrics", OTLP, request(List.of(), m).toByteArray()));

        assertThat(r.getPartialSuccess().getRejectedDataPoints()).isEqualTo(stored ? 0 : 1);
        if (!stored) {
            assertThat(r.getPartialSuccess().getErrorMessage()).contains("outside the accepted window");
        }
        // No poison at either end of the delay: decoding throws for a record ingest would send to the DLQ.
        for (long arrival : new long[] {NOW, LATEST_ARRIVAL}) {
            assertThat(storedAt(arrival))
                    .extracting(Datapoint::value)
                    .containsExactlyInAnyOrderElementsOf(stored ? List.of(1.0, 2.0) : List.of(1.0));
        }
    }

    @Test
    void handleRequest_whenRemoteWriteSampleWithinTheMarginOfTheOldestAcceptedTime_answers400AndPutsNoPoison()
            throws Exception {
        long edge = NOW - PAST.toMillis() + 10_000;
        byte[] body = WriteRequests.snappy(WriteRequests.encode(
                List.of(new WriteRequests.Series(
                        Map.of("__name__", "up", "job", "api"),
                        List.of(new WriteRequests.Sample(1, edge), new WriteRequests.Sample(2, NOW)))),
                List.of()));

        APIGatewayV2HTTPResponse r = post("/prometheus/api/v1/write", REMOTE_WRITE, body);

        assertThat(r.getStatusCode()).isEqualTo(400);
        assertThat(r.getBody())
                .startsWith("1 samples rejected and not stored (the request's other 1 samples are stored): ")
                .contains("outside the accepted window");
        assertThat(storedAt(LATEST_ARRIVAL)).extracting(Datapoint::value).containsExactly(2.0);
    }

    static Stream<Arguments> badPointsInOneSeries() {
        return Stream.of(
                Arguments.of("three of 1,000", 1_000, (IntPredicate) i -> i == 3 || i == 500 || i == 999, false),
                Arguments.of("every other of 5,000 (five pieces)", 5_000, (IntPredicate) i -> i % 2 == 1, false),
                Arguments.of("all of 1,000", 1_000, (IntPredicate) i -> true, false),
                Arguments.of("every tenth of 100 at one time", 100, (IntPredicate) i -> i % 10 == 0, true),
                Arguments.of("every seventh of 25,000 (records)", 25_000, (IntPredicate) i -> i % 7 == 3, false));
    }

    /**
     * Bad points among good ones of one series (NaN, infinities, a magnitude DynamoDB cannot sum, a time outside the
     * window): each is rejected alone and counted; the good ones are put in order, none of them rejected with it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("badPointsInOneSeries")
    void handleRequest_whenSomePointsOfOneSeriesAreBad_rejectsExactlyThoseAndStoresTheOthersInOrder(
            String label, int points, IntPredicate bad, boolean sameTime) throws Exception {
        Gauge.Builder g = Gauge.newBuilder();
        List<Double> good = new ArrayList<>();
        int rejected = 0;
        for (int i = 0; i < points; i++) {
            long ts = sameTime ? NOW - 1000 : NOW - points + i;
            double value = i;
            if (bad.test(i)) {
                rejected++;
                switch (i % 5) {
                    case 0 -> value = Double.NaN;
                    case 1 -> value = Double.POSITIVE_INFINITY;
                    case 2 -> value = Double.NEGATIVE_INFINITY;
                    case 3 -> value = 1e200;
                    default -> ts = NOW - Duration.ofDays(30).toMillis();
                }
            } else {
                good.add(value);
            }
            g.addDataPoints(OtlpRequests.point(ts, value, OtlpRequests.attr("host", "a")));
        }
        Metric m = Metric.newBuilder().setName("g").setGauge(g).build();

        ExportMetricsServiceResponse r = exported(post(
                "/otlp/v1/metrics",
                Map.of("Content-Type", "application/x-protobuf", "Content-Encoding", "gzip"),
                Gzip.gzip(request(List.of(), m).toByteArray())));

        assertThat(r.getPartialSuccess().getRejectedDataPoints()).isEqualTo(rejected);
        assertThat(r.getPartialSuccess().getErrorMessage())
                .startsWith(rejected + " data points rejected and not stored (the request's other " + good.size()
                        + " are stored)");
        assertThat(storedAt(LATEST_ARRIVAL)).extracting(Datapoint::value).containsExactlyElementsOf(good);
        assertThat(partitionKeys()).hasSizeLessThanOrEqualTo(1);
    }

    /** Remote write: staleness markers and other NaN dropped as documented (204 alone); the rest rejected per sample. */
    @Test
    void handleRequest_whenRemoteWriteSeriesHasBadSamples_rejectsOnlyThoseAndCountsThemExactly() throws Exception {
        double stale = Double.longBitsToDouble(RemoteWriteDecoder.STALE_NAN_BITS);
        long old = NOW - Duration.ofDays(20).toMillis();
        List<WriteRequests.Sample> samples = List.of(
                new WriteRequests.Sample(0, NOW - 9000),
                new WriteRequests.Sample(1, old),
                new WriteRequests.Sample(Double.NaN, NOW - 7000),
                new WriteRequests.Sample(3, NOW - 6000),
                new WriteRequests.Sample(4, old),
                new WriteRequests.Sample(stale, NOW - 4000),
                new WriteRequests.Sample(6, NOW - 3000),
                new WriteRequests.Sample(1e200, NOW - 2000),
                new WriteRequests.Sample(8, NOW - 1000),
                new WriteRequests.Sample(Double.POSITIVE_INFINITY, NOW));
        byte[] body = WriteRequests.snappy(WriteRequests.encode(
                List.of(new WriteRequests.Series(Map.of("__name__", "temp", "room", "a"), samples)), List.of()));

        APIGatewayV2HTTPResponse r = post("/prometheus/api/v1/write", REMOTE_WRITE, body);

        assertThat(r.getStatusCode()).isEqualTo(400);
        assertThat(r.getBody())
                .startsWith("3 samples rejected and not stored (the request's other 4 samples are stored): ")
                .contains("outside the accepted window");
        assertThat(storedAt(LATEST_ARRIVAL)).extracting(Datapoint::value).containsExactly(0.0, 3.0, 6.0, 8.0);
    }
}
