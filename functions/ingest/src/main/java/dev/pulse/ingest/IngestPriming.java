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

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.pulse.codec.KplAggregate;
import dev.pulse.config.PulseConfig;
import dev.pulse.snapstart.Priming;
import dev.pulse.snapstart.PrimingClients;
import dev.pulse.snapstart.PrimingContext;
import dev.pulse.snapstart.RuntimeSerialization;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/**
 * IngestFunction's SnapStart priming: the production wiring of {@link IngestHandler} built again on
 * {@link PrimingClients} and a throwaway EMF sink, invoked with synthetic Kinesis batches in every input format
 * (a native object, an array, NDJSON, a gzip CloudWatch Logs payload with an EMF document and a REPORT line, OTLP
 * metrics as gzip protobuf and as JSON: the OTLP classes cost about 75-95 ms to load on first use), so
 * decode, validation, aggregation, the partial, mark and checkpoint writes (marshalled, answered in memory), the
 * partial batch response and the EMF document all run before the snapshot. The function's own handler, clients,
 * series catalog, mark memory and cold-start flag are not touched.
 */
final class IngestPriming extends Priming {

    static final int ROUNDS = 3;
    private final PulseConfig config;

    IngestPriming(PulseConfig config) {
        super("ingest");
        this.config = config;
    }

    @Override
    protected int prime() throws Exception {
        int paths = primeCodecs();
        try (PrimingClients clients = new PrimingClients()) {
            IngestHandler handler = IngestFunction.handler(
                    IngestFunction.service(config, clients.dynamoDb(), clients.sqs(), Clock.systemUTC()),
                    throwawayMetrics(),
                    config.safetyMarginMillis());
            PrimingContext context = new PrimingContext();
            for (int round = 0; round < ROUNDS; round++) {
                KinesisEvent event = event(round, System.currentTimeMillis());
                StreamsEventResponse response = handler.handleRequest(event, context);
                if (!response.getBatchItemFailures().isEmpty()) {
                    throw new IllegalStateException("priming batch failed: " + response.getBatchItemFailures());
                }
                if (RuntimeSerialization.roundTrip(KinesisEvent.class, event)) {
                    RuntimeSerialization.write(StreamsEventResponse.class, response);
                }
                paths++;
            }
            recordRequests(clients);
        }
        return paths;
    }

    /**
     * A batch of one shard: one record per input format (a KPL aggregate included), sequence numbers above the
     * previous round's.
     */
    // aws-lambda-java-events types a Kinesis record's arrival time as java.util.Date: read once, as epoch millis.
    @SuppressWarnings("JavaUtilDate")
    static KinesisEvent event(int round, long nowMillis) throws IOException {
        String dp = "{\"name\":\"pulse.priming\",\"dims\":{\"fn\":\"ingest\",\"round\":\"" + round + "\"},\"ts\":"
                + nowMillis + ",\"value\":%s,\"unit\":\"Milliseconds\"}";
        String emf = "{\"_aws\":{\"Timestamp\":" + nowMillis + ",\"CloudWatchMetrics\":[{\"Namespace\":\"Priming\","
                + "\"Dimensions\":[[\"Service\"]],\"Metrics\":[{\"Name\":\"Latency\",\"Unit\":\"Milliseconds\"}]}]},"
                + "\"Service\":\"priming\",\"Latency\":[1.5,2.5]}";
        String report =
                "REPORT RequestId: 00000000-0000-0000-0000-000000000000\tDuration: 12.34 ms\tBilled Duration: 13 ms"
                        + "\tMemory Size: 1024 MB\tMax Memory Used: 100 MB\tInit Duration: 456.78 ms";
        String logs =
                "{\"messageType\":\"DATA_MESSAGE\",\"owner\":\"000000000000\",\"logGroup\":\"/aws/lambda/priming\","
                        + "\"logStream\":\"priming\",\"subscriptionFilters\":[\"priming\"],\"logEvents\":["
                        + "{\"id\":\"1\",\"timestamp\":" + nowMillis + ",\"message\":" + quote(emf) + "},"
                        + "{\"id\":\"2\",\"timestamp\":" + nowMillis + ",\"message\":" + quote(report) + "}]}";
        List<byte[]> payloads = List.of(
                dp.formatted("12.5").getBytes(StandardCharsets.UTF_8),
                ("[" + dp.formatted("30.1") + "," + dp.formatted("1") + "]").getBytes(StandardCharsets.UTF_8),
                (dp.formatted("2") + "\n" + dp.formatted("3") + "\n").getBytes(StandardCharsets.UTF_8),
                gzip(logs),
                // A KPL aggregate: de-aggregation (MD5 included) is in the snapshot too.
                KplAggregate.write(List.of(
                        Map.entry("priming", dp.formatted("4").getBytes(StandardCharsets.UTF_8)),
                        Map.entry("priming-2", dp.formatted("5").getBytes(StandardCharsets.UTF_8)))),
                gzip(otlp(nowMillis).toByteArray()),
                otlpJson(nowMillis).getBytes(StandardCharsets.UTF_8));
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        BigInteger base = new BigInteger("49590338271490256608559692538361571095921575989130000000")
                .add(BigInteger.valueOf(round * 100L));
        for (int i = 0; i < payloads.size(); i++) {
            String seq = base.add(BigInteger.valueOf(i + 1)).toString();
            KinesisEvent.Record k = new KinesisEvent.Record();
            k.setKinesisSchemaVersion("1.0");
            k.setPartitionKey("priming");
            k.setSequenceNumber(seq);
            k.setData(ByteBuffer.wrap(payloads.get(i)));
            k.setApproximateArrivalTimestamp(new Date(nowMillis));
            KinesisEvent.KinesisEventRecord r = new KinesisEvent.KinesisEventRecord();
            r.setKinesis(k);
            r.setEventSource("aws:kinesis");
            r.setEventVersion("1.0");
            r.setEventID("shardId-priming:" + seq);
            r.setEventName("aws:kinesis:record");
            r.setAwsRegion("us-east-1");
            r.setEventSourceARN("arn:aws:kinesis:us-east-1:000000000000:stream/priming");
            records.add(r);
        }
        KinesisEvent event = new KinesisEvent();
        event.setRecords(records);
        return event;
    }

    /** A gauge, a delta histogram and a delta exponential histogram: every OTLP mapping path but the summary's. */
    private static io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest otlp(long nowMillis) {
        long nanos = nowMillis * 1_000_000L;
        var attr = io.opentelemetry.proto.common.v1.KeyValue.newBuilder()
                .setKey("service.name")
                .setValue(io.opentelemetry.proto.common.v1.AnyValue.newBuilder().setStringValue("priming"));
        var delta = io.opentelemetry.proto.metrics.v1.AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA;
        var scope = io.opentelemetry.proto.metrics.v1.ScopeMetrics.newBuilder()
                .addMetrics(io.opentelemetry.proto.metrics.v1.Metric.newBuilder()
                        .setName("pulse.priming.otlp.gauge")
                        .setUnit("ms")
                        .setGauge(io.opentelemetry.proto.metrics.v1.Gauge.newBuilder()
                                .addDataPoints(io.opentelemetry.proto.metrics.v1.NumberDataPoint.newBuilder()
                                        .setTimeUnixNano(nanos)
                                        .setAsDouble(1.5))))
                .addMetrics(io.opentelemetry.proto.metrics.v1.Metric.newBuilder()
                        .setName("pulse.priming.otlp.histogram")
                        .setUnit("ms")
                        .setHistogram(io.opentelemetry.proto.metrics.v1.Histogram.newBuilder()
                                .setAggregationTemporality(delta)
                                .addDataPoints(io.opentelemetry.proto.metrics.v1.HistogramDataPoint.newBuilder()
                                        .setTimeUnixNano(nanos)
                                        .setCount(3)
                                        .setSum(16)
                                        .setMin(1)
                                        .setMax(10)
                                        .addExplicitBounds(5)
                                        .addBucketCounts(2)
                                        .addBucketCounts(1))))
                .addMetrics(io.opentelemetry.proto.metrics.v1.Metric.newBuilder()
                        .setName("pulse.priming.otlp.exponential")
                        .setUnit("By")
                        .setExponentialHistogram(io.opentelemetry.proto.metrics.v1.ExponentialHistogram.newBuilder()
                                .setAggregationTemporality(delta)
                                .addDataPoints(
                                        io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint.newBuilder()
                                                .setTimeUnixNano(nanos)
                                                .setCount(2)
                                                .setSum(300)
                                                .setMin(100)
                                                .setMax(200)
                                                .setScale(0)
                                                .setPositive(io.opentelemetry.proto.metrics.v1
                                                        .ExponentialHistogramDataPoint.Buckets.newBuilder()
                                                        .setOffset(6)
                                                        .addBucketCounts(1)
                                                        .addBucketCounts(1)))));
        return io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(io.opentelemetry.proto.metrics.v1.ResourceMetrics.newBuilder()
                        .setResource(io.opentelemetry.proto.resource.v1.Resource.newBuilder()
                                .addAttributes(attr))
                        .addScopeMetrics(scope))
                .build();
    }

    private static String otlpJson(long nowMillis) {
        return "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"pulse.priming.otlp.sum\",\"sum\":{"
                + "\"aggregationTemporality\":1,\"isMonotonic\":true,\"dataPoints\":[{\"timeUnixNano\":\"" + nowMillis
                + "000000\","
                + "\"asInt\":\"2\",\"attributes\":[{\"key\":\"route\",\"value\":{\"stringValue\":\"/priming\"}}]}]}}]}]}]}";
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\t", "\\t") + "\"";
    }

    private static byte[] gzip(String s) throws IOException {
        return gzip(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(data);
        }
        return out.toByteArray();
    }
}
