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
package dev.pulse.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.pulse.aggregate.BatchAggregator;
import dev.pulse.aggregate.Partial;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * OTLP records produced by the OpenTelemetry Python SDK and its OTLP encoder (scripts/gen_otlp.py, which lists the
 * instruments and values these tests expect), in every encoding and compression the awskinesis exporter writes.
 */
class OtlpDecodeTest {

    /** The fixtures' time_unix_nano, 2026-11-21T12:00:00Z. */
    static final long FIXTURE_MS = 1_795_262_400_000L;

    static final String[] FIXTURES = {
        "metrics.pb", "metrics.json", "metrics.pb.gz", "metrics.pb.zlib", "metrics.pb.flate", "metrics.json.gz"
    };

    static final RecordDecoder DECODER = new RecordDecoder(new DatapointValidator(
            Clock.fixed(Instant.ofEpochMilli(FIXTURE_MS), ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2)));

    static byte[] fixture(String name) throws IOException {
        try (InputStream in = OtlpDecodeTest.class.getResourceAsStream("/otlp/" + name)) {
            assertThat(in).as("fixture %s", name).isNotNull();
            return in.readAllBytes();
        }
    }

    static Map<String, Datapoint> bySeries(List<Datapoint> dps) {
        return dps.stream().collect(Collectors.toMap(Datapoint::seriesKey, d -> d));
    }

    /** The series key with the fixture's resource dims and {@code kv} (key, value, ...) as the point's. */
    static String key(String name, String... kv) {
        Map<String, String> dims =
                new java.util.HashMap<>(Map.of("service.name", "checkout", "deployment.environment", "test"));
        for (int i = 0; i < kv.length; i += 2) {
            dims.put(kv[i], kv[i + 1]);
        }
        return dev.pulse.model.SeriesKey.of(name, dims);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "metrics.pb",
                "metrics.json",
                "metrics.pb.gz",
                "metrics.pb.zlib",
                "metrics.pb.flate",
                "metrics.json.gz"
            })
    void decode_whenSdkFixtureInAnyExporterEncoding_givesExactCountsSumsMinMax(String name) throws Exception {
        Map<String, Datapoint> dps =
                bySeries(DECODER.decode(fixture(name), FIXTURE_MS).datapoints());

        assertThat(dps)
                .containsOnlyKeys(
                        key("requests", "route", "/pay"),
                        key("requests", "route", "/refund"),
                        key("queue.depth"),
                        key("temperature", "room", "lab"),
                        key("latency", "route", "/pay"),
                        key("latency", "route", "/search"),
                        key("payload.size"),
                        key("rpc.duration.count", "method", "Get"),
                        key("rpc.duration.sum", "method", "Get"));
        assertThat(dps.get(key("requests", "route", "/pay")).value()).isEqualTo(6.0);
        assertThat(dps.get(key("requests", "route", "/pay")).unit()).isEqualTo("Count");
        assertThat(dps.get(key("requests", "route", "/refund")).value()).isEqualTo(4.0);
        assertThat(dps.get(key("queue.depth")).value()).isEqualTo(7.0);
        assertThat(dps.get(key("temperature", "room", "lab")).value()).isEqualTo(21.5);
        assertThat(dps.get(key("rpc.duration.count", "method", "Get")).value()).isEqualTo(4.0);
        assertThat(dps.get(key("rpc.duration.sum", "method", "Get")).value()).isEqualTo(10.5);
        assertThat(dps.values()).allSatisfy(d -> assertThat(d.timestamp()).isEqualTo(FIXTURE_MS));

        Datapoint latency = dps.get(key("latency", "route", "/pay"));
        assertThat(latency.unit()).isEqualTo("Milliseconds");
        assertThat(latency.summary().count()).isEqualTo(6);
        assertThat(latency.summary().sum()).isEqualTo(327.0);
        assertThat(latency.summary().min()).isEqualTo(3.0);
        assertThat(latency.summary().max()).isEqualTo(250.0);
        assertThat(latency.summary().sketch().getCount()).isEqualTo(6.0);
        // p50 by nearest rank is 12, in bucket (10, 25]: answered within that bucket (its middle, 17.5, +-1%).
        assertThat(latency.summary().quantile(0.5)).isBetween(10.0, 25.0 * 1.01);

        Datapoint size = dps.get(key("payload.size"));
        assertThat(size.unit()).isEqualTo("Bytes");
        assertThat(size.summary().count()).isEqualTo(5);
        assertThat(size.summary().sum()).isEqualTo(6600.0);
        assertThat(size.summary().min()).isEqualTo(100.0);
        assertThat(size.summary().max()).isEqualTo(5000.0);
        // Scale 4: relative error sqrt(2^(1/16)) - 1 = 2.2% from the buckets, plus the sketch's 1%.
        assertThat(size.summary().quantile(0.6)).isCloseTo(300.0, within(300.0 * 0.033));
        assertThat(size.summary().quantile(0.8)).isCloseTo(1000.0, within(1000.0 * 0.033));
    }

    @Test
    void decode_whenResourceHasSdkAttributes_leavesThemOutOfDims() throws Exception {
        List<Datapoint> dps = DECODER.decode(fixture("metrics.pb"), FIXTURE_MS).datapoints();

        assertThat(dps)
                .allSatisfy(d -> assertThat(d.dims())
                        .doesNotContainKeys(
                                "telemetry.sdk.language",
                                "telemetry.sdk.name",
                                "telemetry.sdk.version",
                                "service.instance.id"));
    }

    @Test
    void decode_whenBatchAggregatesOtlpAndAnotherExport_mergesHistogramsExactly() throws Exception {
        BatchAggregator agg = new BatchAggregator("shardId-000000000000");
        agg.addRecord("1", DECODER.decode(fixture("metrics.pb.gz"), FIXTURE_MS).datapoints());
        agg.addRecord("2", DECODER.decode(fixture("metrics.json"), FIXTURE_MS).datapoints());

        Partial latency = agg.partials().stream()
                .filter(p -> p.name().equals("latency"))
                .findFirst()
                .orElseThrow();
        assertThat(latency.count()).isEqualTo(12);
        assertThat(latency.sum()).isEqualTo(654.0);
        assertThat(latency.min()).isEqualTo(3.0);
        assertThat(latency.max()).isEqualTo(250.0);
        assertThat(latency.firstSequence()).isEqualTo("1");
        assertThat(latency.lastSequence()).isEqualTo("2");
    }

    @Test
    void decode_whenCumulativeHistogram_isPoisonNamingTheProcessor() throws Exception {
        ExportMetricsServiceRequest.Builder b =
                ExportMetricsServiceRequest.parseFrom(fixture("metrics.pb")).toBuilder();
        Metric.Builder latency =
                b.getResourceMetricsBuilder(0).getScopeMetricsBuilder(0).getMetricsBuilderList().stream()
                        .filter(m -> m.getName().equals("latency"))
                        .findFirst()
                        .orElseThrow();
        latency.getHistogramBuilder()
                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);

        assertThatThrownBy(() -> DECODER.decode(b.build().toByteArray(), FIXTURE_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("cumulativetodelta");
    }

    @Test
    void decode_whenAttributesBreakTheDimLimit_isPoisonWithTheReason() throws Exception {
        ExportMetricsServiceRequest.Builder b =
                ExportMetricsServiceRequest.parseFrom(fixture("metrics.pb")).toBuilder();
        var resource = b.getResourceMetricsBuilder(0).getResourceBuilder();
        for (int i = 0; i < 30; i++) {
            resource.addAttributes(KeyValue.newBuilder()
                    .setKey("k" + i)
                    .setValue(AnyValue.newBuilder().setStringValue("v")));
        }

        assertThatThrownBy(() -> DECODER.decode(b.build().toByteArray(), FIXTURE_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("at most 30");
    }

    @Test
    void decode_whenBucketCountsDisagreeWithCount_isPoison() throws Exception {
        ExportMetricsServiceRequest.Builder b =
                ExportMetricsServiceRequest.parseFrom(fixture("metrics.pb")).toBuilder();
        b.getResourceMetricsBuilder(0).getScopeMetricsBuilder(0).getMetricsBuilderList().stream()
                .filter(m -> m.getName().equals("latency"))
                .findFirst()
                .orElseThrow()
                .getHistogramBuilder()
                .getDataPointsBuilder(0)
                .setCount(7);

        assertThatThrownBy(() -> DECODER.decode(b.build().toByteArray(), FIXTURE_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("add up to 6, count is 7");
    }

    @Test
    void decode_whenProtobufTruncated_isPoisonNotAnException() throws Exception {
        byte[] pb = fixture("metrics.pb");

        assertThatThrownBy(() -> DECODER.decode(Arrays.copyOf(pb, pb.length / 2), FIXTURE_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("OTLP protobuf");
    }

    @Test
    void decode_whenJsonHasWrongType_isPoisonWithThePath() {
        byte[] json = "{\"resourceMetrics\":[{\"scopeMetrics\":\"x\"}]}".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> DECODER.decode(json, FIXTURE_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("$.resourceMetrics[0].scopeMetrics");
    }

    @Test
    void detect_whenNativeNdjsonStartsWithNewline_isNotOtlp() {
        byte[] ndjson = "\n{\"name\":\"a\",\"ts\":1795262400000,\"value\":1}\n".getBytes(StandardCharsets.UTF_8);
        byte[] array = "\n[{\"name\":\"a\",\"ts\":1795262400000,\"value\":1}]".getBytes(StandardCharsets.UTF_8);

        assertThat(OtlpDecoder.detect(ndjson)).isNull();
        assertThat(OtlpDecoder.detect(array)).isNull();
    }

    @Test
    void detect_whenEachExporterCompression_namesItAndTheEncoding() throws Exception {
        assertThat(OtlpDecoder.detect(fixture("metrics.pb")))
                .isEqualTo(new OtlpDecoder.Format(OtlpDecoder.Compression.NONE, OtlpDecoder.Encoding.PROTO));
        assertThat(OtlpDecoder.detect(fixture("metrics.json")))
                .isEqualTo(new OtlpDecoder.Format(OtlpDecoder.Compression.NONE, OtlpDecoder.Encoding.JSON));
        assertThat(OtlpDecoder.detect(fixture("metrics.pb.gz")))
                .isEqualTo(new OtlpDecoder.Format(OtlpDecoder.Compression.GZIP, OtlpDecoder.Encoding.PROTO));
        assertThat(OtlpDecoder.detect(fixture("metrics.pb.zlib")))
                .isEqualTo(new OtlpDecoder.Format(OtlpDecoder.Compression.ZLIB, OtlpDecoder.Encoding.PROTO));
        assertThat(OtlpDecoder.detect(fixture("metrics.pb.flate")))
                .isEqualTo(new OtlpDecoder.Format(OtlpDecoder.Compression.FLATE, OtlpDecoder.Encoding.PROTO));
        assertThat(OtlpDecoder.detect(fixture("metrics.json.gz")))
                .isEqualTo(new OtlpDecoder.Format(OtlpDecoder.Compression.GZIP, OtlpDecoder.Encoding.JSON));
    }

    @Test
    void detect_whenGzipOfCloudWatchLogsPayload_leavesItToTheLogsDecoder() throws Exception {
        byte[] gz = Payloads.gzip("{\"messageType\":\"CONTROL_MESSAGE\"}".getBytes(StandardCharsets.UTF_8));

        assertThat(OtlpDecoder.detect(gz)).isNull();
        assertThat(DECODER.decode(gz, FIXTURE_MS).skippedEvents()).isEqualTo(1);
    }
}
