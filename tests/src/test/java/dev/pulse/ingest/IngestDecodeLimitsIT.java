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
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.codec.KplAggregate;
import dev.pulse.config.PulseConfig;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.StoredPartials;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.LocalDynamoDb;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * Records that would run the ingest function out of memory or be stored wrong, in one batch between two
 * good records, through the real IngestHandler (DynamoDB Local, the DLQ on moto) with the Lambda's heap: MemorySize
 * 1024 MB x MaxRAMPercentage 75 = 768 MB (this class runs in its own failsafe execution with -Xmx768m, tests/pom.xml).
 * Each hostile record is answered as poison whose reason names its limit, the batch succeeds in bounded time, and the
 * good records are stored.
 */
@ExtendWith(Emulators.class)
class IngestDecodeLimitsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SHARD = "shardId-000000000000";
    private static final long NOW_MS = Instant.parse("2026-11-27T12:00:30Z").toEpochMilli();
    private static final long NOW_NS = NOW_MS * 1_000_000L;
    private static final long LAMBDA_HEAP = 768L * 1024 * 1024;
    /** The template's function timeout is the real bound; a batch of hostile records must take far less. */
    private static final Duration BOUND = Duration.ofSeconds(60);

    @Test
    void handleRequest_whenHostileRecordsSitBetweenGoodOnes_eachIsPoisonNamingItsLimitAndTheGoodAreStored()
            throws Exception {
        assertThat(Runtime.getRuntime().maxMemory())
                .as("run with the Lambda's heap (-Xmx768m)")
                .isLessThanOrEqualTo(LAMBDA_HEAP);
        Map<String, byte[]> hostile = new LinkedHashMap<>();
        Map<String, String> reasons = new LinkedHashMap<>();
        hostile.put("emf 20 metrics x 100,000 values", emfAmplification(20, 1, 100_000));
        reasons.put("emf 20 metrics x 100,000 values", "MAX_EMF_VALUES_PER_METRIC");
        hostile.put("emf 100 metrics x 100 sets x 100,000 values", emfAmplification(100, 100, 100_000));
        reasons.put("emf 100 metrics x 100 sets x 100,000 values", "MAX_EMF_DIMENSION_SETS");
        hostile.put("emf 300,000 datapoints within the specification", emfAmplification(100, 30, 100));
        reasons.put("emf 300,000 datapoints within the specification", "MAX_DATAPOINTS_PER_RECORD");
        hostile.put("otlp 20,000 resource attributes", otlpManyResourceAttributes(20_000, 10_000));
        reasons.put("otlp 20,000 resource attributes", "MAX_DIMENSIONS");
        hostile.put("otlp json millions of empty objects", otlpJsonEmptyObjects(3_000_000));
        reasons.put("otlp json millions of empty objects", "MAX_JSON_TOKENS");
        hostile.put("kpl aggregate of 6 x 20,000 otlp datapoints", kplOfOtlp(6, 20_000));
        reasons.put("kpl aggregate of 6 x 20,000 otlp datapoints", "MAX_DATAPOINTS_PER_AGGREGATE");
        // 400,000 distinct series do not fit a 1 MB record under the datapoint limit; 100,000 do (gzip), each a
        // partial.
        hostile.put("otlp 100,000 distinct series", gzip(otlpGauge(100_000, true)));
        reasons.put("otlp 100,000 distinct series", "MAX_SERIES_PER_RECORD");
        hostile.put("emf unit of 450,000 characters", emfWithUnit("u".repeat(450_000)));
        reasons.put("emf unit of 450,000 characters", "CLOUDWATCH_UNITS");
        hostile.put("otlp histogram bound NaN", otlpHistogram(Double.NaN));
        reasons.put("otlp histogram bound NaN", "bounds must be finite");
        hostile.put("otlp histogram descending bounds", otlpHistogram(100, 10, 1));
        reasons.put("otlp histogram descending bounds", "bounds must be strictly increasing");
        hostile.put("otlp summary count 2^64-1", otlpSummaryCount(-1L));
        reasons.put("otlp summary count 2^64-1", "MAX_POINT_COUNT");
        hostile.put("native value twice", utf8("{\"name\":\"dup\",\"ts\":" + NOW_MS + ",\"value\":1,\"value\":2}"));
        reasons.put("native value twice", "field value appears twice");
        hostile.put("gzip of 50,000 empty members", gzipEmptyMembersThenControl(50_000));
        reasons.put("gzip of 50,000 empty members", "MAX_GZIP_MEMBERS");
        hostile.put("emf 30 empty dimension sets x 100 metrics of empty value arrays", emfEmptyValueArrays(12, 600));
        reasons.put(
                "emf 30 empty dimension sets x 100 metrics of empty value arrays", "MAX_EMF_EMPTY_METRICS_PER_RECORD");
        hostile.put("kpl aggregate of 100 ambiguous 4 MB zlib user records", kplOfAmbiguousZlib(100));
        reasons.put("kpl aggregate of 100 ambiguous 4 MB zlib user records", "MAX_DECOMPRESSED_BYTES_PER_AGGREGATE");

        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        records.add(KinesisRecords.record(SHARD, 0, "good", utf8(nativeDp("good.before", 1)), NOW_MS));
        Map<String, String> sequenceOf = new LinkedHashMap<>();
        long n = 1;
        for (Map.Entry<String, byte[]> e : hostile.entrySet()) {
            assertThat(e.getValue().length)
                    .as(e.getKey() + " fits a Kinesis record")
                    .isLessThanOrEqualTo(1024 * 1024);
            records.add(KinesisRecords.record(SHARD, n, "hostile", e.getValue(), NOW_MS));
            sequenceOf.put(KinesisRecords.sequence(n), e.getKey());
            n++;
        }
        records.add(KinesisRecords.record(SHARD, n, "good", utf8(nativeDp("good.after", 2)), NOW_MS));
        hostile.clear(); // the batch holds the bytes now, as the Lambda's event does
        KinesisEvent event = new KinesisEvent();
        event.setRecords(records);
        Stack stack = new Stack();

        long start = System.nanoTime();
        StreamsEventResponse response =
                stack.handler.handleRequest(event, new TestContext("req-limits", 300_000, 1024));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(response.getBatchItemFailures()).isEmpty();
        assertThat(took).isLessThan(BOUND);
        Map<String, String> reasonBySequence = new LinkedHashMap<>();
        for (Message m : Emulators.sqs().drain(stack.queueUrl)) {
            JsonNode body = JSON.readTree(m.body());
            assertThat(body.get("kind").asText()).isEqualTo("poison");
            reasonBySequence.put(
                    body.get("sequenceNumber").asText(), body.get("reason").asText());
        }
        assertThat(reasonBySequence.keySet()).containsExactlyInAnyOrderElementsOf(sequenceOf.keySet());
        sequenceOf.forEach(
                (seq, name) -> assertThat(reasonBySequence.get(seq)).as(name).contains(reasons.get(name)));
        Map<String, Map<Long, StoredPartials.Summary>> stored = StoredPartials.read(stack.reader, stack.table);
        assertThat(stored.keySet()).containsExactlyInAnyOrder("good.before{}", "good.after{}");
        System.out.println(
                "IngestDecodeLimitsIT: " + sequenceOf.size() + " hostile records answered in " + took.toMillis()
                        + " ms with a max heap of " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MB");
    }

    // ---- the records, built with the producers' encoders

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String nativeDp(String name, double value) {
        return "{\"name\":\"" + name + "\",\"ts\":" + NOW_MS + ",\"value\":" + value + "}";
    }

    private interface Body {
        void write(OutputStream out) throws IOException;
    }

    private static byte[] compress(boolean gzip, Body body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream out = gzip
                ? new GZIPOutputStream(bytes, 1 << 16)
                : new DeflaterOutputStream(bytes, new java.util.zip.Deflater(9), 1 << 16)) {
            body.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static byte[] gzip(byte[] b) {
        return compress(true, out -> out.write(b));
    }

    /** One EMF event whose directive names one member of {@code values} values {@code metrics} times in {@code sets} sets. */
    private static byte[] emfAmplification(int metrics, int sets, int values) {
        return compress(true, out -> {
            StringBuilder sb = new StringBuilder();
            sb.append(
                            "{\"messageType\":\"DATA_MESSAGE\",\"logGroup\":\"/aws/lambda/checkout-api\",\"logStream\":\"s\",")
                    .append("\"logEvents\":[{\"id\":\"1\",\"timestamp\":")
                    .append(NOW_MS)
                    .append(",\"message\":\"")
                    .append("{\\\"_aws\\\":{\\\"Timestamp\\\":")
                    .append(NOW_MS)
                    .append(",\\\"CloudWatchMetrics\\\":[{\\\"Namespace\\\":\\\"ns\\\",\\\"Dimensions\\\":[");
            for (int s = 0; s < sets; s++) {
                sb.append(s == 0 ? "" : ",").append("[\\\"d\\\"]");
            }
            sb.append("],\\\"Metrics\\\":[");
            for (int m = 0; m < metrics; m++) {
                sb.append(m == 0 ? "" : ",").append("{\\\"Name\\\":\\\"m\\\"}");
            }
            sb.append("]}]},\\\"d\\\":\\\"v\\\",\\\"m\\\":[1");
            out.write(utf8(sb.toString()));
            byte[] more = utf8(",1".repeat(10_000));
            for (int v = 1; v < values; v += 10_000) {
                out.write(more, 0, 2 * Math.min(10_000, values - v));
            }
            out.write(utf8("]}\"}]}"));
        });
    }

    private static byte[] emfWithUnit(String unit) {
        String doc = "{\\\"_aws\\\":{\\\"Timestamp\\\":" + NOW_MS
                + ",\\\"CloudWatchMetrics\\\":[{\\\"Namespace\\\":\\\"ns\\\","
                + "\\\"Dimensions\\\":[[]],\\\"Metrics\\\":[{\\\"Name\\\":\\\"latency\\\",\\\"Unit\\\":\\\"" + unit
                + "\\\"}]}]},"
                + "\\\"latency\\\":12}";
        return gzip(
                utf8("{\"messageType\":\"DATA_MESSAGE\",\"logGroup\":\"/aws/lambda/checkout-api\",\"logStream\":\"s\","
                        + "\"logEvents\":[{\"id\":\"1\",\"timestamp\":" + NOW_MS + ",\"message\":\"" + doc + "\"}]}"));
    }

    private static KeyValue kv(String k, String v) {
        return KeyValue.newBuilder()
                .setKey(k)
                .setValue(AnyValue.newBuilder().setStringValue(v))
                .build();
    }

    private static byte[] request(Resource resource, Metric metric) {
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(resource)
                        .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(metric)))
                .build()
                .toByteArray();
    }

    private static byte[] otlpManyResourceAttributes(int attributes, int points) {
        Resource.Builder r = Resource.newBuilder();
        for (int i = 0; i < attributes; i++) {
            r.addAttributes(kv("attribute." + i, "value-" + i));
        }
        Gauge.Builder g = Gauge.newBuilder();
        for (int i = 0; i < points; i++) {
            g.addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(NOW_NS).setAsDouble(i));
        }
        return request(r.build(), Metric.newBuilder().setName("cpu").setGauge(g).build());
    }

    private static byte[] otlpGauge(int points, boolean distinctSeries) {
        Gauge.Builder g = Gauge.newBuilder();
        for (int i = 0; i < points; i++) {
            NumberDataPoint.Builder p =
                    NumberDataPoint.newBuilder().setTimeUnixNano(NOW_NS).setAsDouble(i);
            if (distinctSeries) {
                p.addAttributes(kv("i", Integer.toString(i)));
            }
            g.addDataPoints(p);
        }
        return request(
                Resource.getDefaultInstance(),
                Metric.newBuilder().setName("load").setGauge(g).build());
    }

    private static byte[] otlpJsonEmptyObjects(int objects) {
        return compress(false, out -> {
            out.write(utf8("{\"resourceMetrics\":[{}"));
            byte[] chunk = utf8(",{}".repeat(10_000));
            for (int i = 1; i < objects; i += 10_000) {
                out.write(chunk);
            }
            out.write(utf8("]}"));
        });
    }

    /** {@code empty} empty gzip members (20 bytes each), then one holding a CloudWatch Logs control message. */
    private static byte[] gzipEmptyMembersThenControl(int empty) {
        byte[] member = gzip(new byte[0]);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < empty; i++) {
            out.writeBytes(member);
        }
        out.writeBytes(gzip(utf8("{\"messageType\":\"CONTROL_MESSAGE\"}")));
        return out.toByteArray();
    }

    /** {@code events} EMF events of {@code directives} directives of 30 empty dimension sets x 100 empty-array metrics. */
    private static byte[] emfEmptyValueArrays(int events, int directives) {
        StringBuilder d = new StringBuilder("{\\\"Namespace\\\":\\\"n\\\",\\\"Dimensions\\\":[[]");
        d.append(",[]".repeat(29)).append("],\\\"Metrics\\\":[{\\\"Name\\\":\\\"m\\\"}");
        d.append(",{\\\"Name\\\":\\\"m\\\"}".repeat(99)).append("]}");
        byte[] directive = utf8(d.toString());
        return compress(true, out -> {
            out.write(utf8(
                    "{\"messageType\":\"DATA_MESSAGE\",\"logGroup\":\"/aws/lambda/checkout-api\",\"logStream\":\"s\","
                            + "\"logEvents\":["));
            for (int e = 0; e < events; e++) {
                out.write(utf8((e == 0 ? "" : ",") + "{\"id\":\"" + e + "\",\"timestamp\":" + NOW_MS + ",\"message\":\""
                        + "{\\\"_aws\\\":{\\\"Timestamp\\\":" + NOW_MS + ",\\\"CloudWatchMetrics\\\":["));
                for (int i = 0; i < directives; i++) {
                    if (i > 0) {
                        out.write(',');
                    }
                    out.write(directive);
                }
                out.write(utf8("]},\\\"m\\\":[]}\"}"));
            }
            out.write(utf8("]}"));
        });
    }

    /**
     * A KPL aggregate of {@code users} zlib user records of 4 MB of {@code 0a 5b} and zeros each (4 KB compressed):
     * ambiguous, so the OTLP detection inflates each whole to judge it.
     */
    private static byte[] kplOfAmbiguousZlib(int users) {
        byte[] user = compress(false, out -> {
            out.write(new byte[] {0x0a, '['});
            byte[] zeros = new byte[64 * 1024];
            for (int i = 2; i < 4 * 1024 * 1024 - 16; i += zeros.length) {
                out.write(zeros, 0, Math.min(zeros.length, 4 * 1024 * 1024 - 16 - i));
            }
        });
        List<Map.Entry<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < users; i++) {
            records.add(Map.entry("pk-" + i, user));
        }
        return KplAggregate.write(records);
    }

    private static byte[] kplOfOtlp(int users, int points) {
        List<Map.Entry<String, byte[]>> records = new ArrayList<>();
        byte[] user = otlpGauge(points, false);
        for (int i = 0; i < users; i++) {
            records.add(Map.entry("pk-" + i, gzip(user)));
        }
        return KplAggregate.write(records);
    }

    private static byte[] otlpHistogram(double... bounds) {
        HistogramDataPoint.Builder p = HistogramDataPoint.newBuilder()
                .setTimeUnixNano(NOW_NS)
                .setCount(bounds.length + 1)
                .setSum(100.0 * (bounds.length + 1))
                .setMin(1)
                .setMax(1000);
        for (double b : bounds) {
            p.addExplicitBounds(b);
        }
        for (int i = 0; i <= bounds.length; i++) {
            p.addBucketCounts(1);
        }
        return request(
                Resource.getDefaultInstance(),
                Metric.newBuilder()
                        .setName("latency")
                        .setUnit("ms")
                        .setHistogram(Histogram.newBuilder()
                                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                                .addDataPoints(p))
                        .build());
    }

    private static byte[] otlpSummaryCount(long count) {
        return request(
                Resource.getDefaultInstance(),
                Metric.newBuilder()
                        .setName("rpc")
                        .setSummary(Summary.newBuilder()
                                .addDataPoints(SummaryDataPoint.newBuilder()
                                        .setTimeUnixNano(NOW_NS)
                                        .setCount(count)
                                        .setSum(5)))
                        .build());
    }

    /** A table, a queue and a handler wired to them, as the template wires them in AWS. */
    private static final class Stack {
        final String table = "pulse-limits-" + System.nanoTime();
        final String queueUrl = Emulators.sqs().createQueue(table + "-dlq");
        final DynamoDbClient reader = Emulators.dynamo().client();
        final IngestHandler handler;

        Stack() {
            LocalDynamoDb.createTable(reader, table);
            PulseConfig config = TestConfig.of(table, queueUrl, Map.of());
            IngestService service = IngestFunction.service(
                    config,
                    Emulators.dynamoAsync(),
                    Emulators.sqs().client(),
                    Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC));
            Metrics metrics = PulseMetrics.create("PulseTest", "ingest");
            handler = IngestFunction.handler(service, metrics, config.safetyMarginMillis());
        }
    }
}
