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
package dev.pulse.bench;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import dev.pulse.push.PushConfig;
import dev.pulse.push.PushFunction;
import dev.pulse.push.PushHandler;
import dev.pulse.testing.Gzip;
import dev.pulse.testing.NoMetrics;
import dev.pulse.testing.TestContext;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;

/**
 * push: OTLP/HTTP requests through one PushFunction instance, in process, one request at a time as a Lambda
 * execution environment takes them, against a Kinesis endpoint that acknowledges as fast as it can
 * ({@link KinesisSink}): the function's own throughput, not the stream's.
 */
final class PushBench implements Benchmark {

    static final double TARGET_DATAPOINTS_PER_SECOND = 5_000;
    private static final int SERIES_PER_REQUEST = 1_000;

    @Override
    public String name() {
        return "push";
    }

    @Override
    public String howToRead() {
        return """
                Datapoints per second through one PushFunction instance (`PushHandler`, in process, one request at a \
                time as one execution environment takes them): OTLP/HTTP requests of 1,000 gauge series (one point \
                each, 8 attributes, resource service.name), protobuf with gzip, read, split by series onto 16 partition \
                keys, every record validated as ingest will, and put with PutRecords on a Kinesis endpoint that \
                acknowledges everything at once (`KinesisSink`), so the figure is the function's, not a stream's. The \
                baseline is the floor of any OTLP endpoint: gunzip and protobuf parsing of the same bodies alone. \
                Target: >= 5,000 datapoints/s per instance.""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        System.setProperty("aws.cborEnabled", "false");
        int requests = env.scale(200, 20);
        List<byte[]> bodies = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (int r = 0; r < 20; r++) {
            bodies.add(Gzip.gzip(request(r, now).toByteArray()));
        }
        PushConfig config = PushConfig.fromEnvironment(Map.of(
                "TABLE_NAME", "pulse",
                "DLQ_URL", "http://127.0.0.1:1/queue/dlq",
                "AWS_REGION", "us-east-1",
                "STREAM_NAME", "pulse-bench"));
        List<String> details = new ArrayList<>();
        double rate;
        double floor;
        long records;
        try (KinesisSink sink = KinesisSink.start(2);
                SdkAsyncHttpClient http =
                        AwsCrtAsyncHttpClient.builder().maxConcurrency(16).build();
                KinesisAsyncClient client = KinesisAsyncClient.builder()
                        .region(Region.US_EAST_1)
                        .endpointOverride(sink.endpoint())
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("b", "b")))
                        .httpClient(http)
                        .build()) {
            PushHandler handler =
                    PushFunction.handler(PushFunction.service(config, client, Clock.systemUTC()), new NoMetrics(), 500);
            for (int w = 0; w < env.scale(40, 5); w++) {
                send(handler, bodies.get(w % bodies.size()));
            }
            long before = sink.records();
            long start = System.nanoTime();
            for (int i = 0; i < requests; i++) {
                send(handler, bodies.get(i % bodies.size()));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            rate = requests * (double) SERIES_PER_REQUEST / seconds;
            records = sink.records() - before;
            long fstart = System.nanoTime();
            long parsed = 0;
            for (int i = 0; i < requests; i++) {
                byte[] plain = dev.pulse.codec.Gunzip.bytes(bodies.get(i % bodies.size()), 1 << 26, 10);
                parsed += ExportMetricsServiceRequest.parseFrom(plain).getResourceMetricsCount();
            }
            floor = requests * (double) SERIES_PER_REQUEST / ((System.nanoTime() - fstart) / 1e9);
            details.add(
                    requests + " requests of " + SERIES_PER_REQUEST + " datapoints in " + String.format("%.2f", seconds)
                            + " s, " + Format.count(records) + " Kinesis records ("
                            + String.format("%.1f", records / (double) requests)
                            + " a request), " + parsed + " requests parsed for the floor");
        }
        Map<String, Double> values = new LinkedHashMap<>();
        values.put("datapointsPerSecond", rate);
        values.put("parseOnlyDatapointsPerSecond", floor);
        values.put("recordsPerRequest", records / (double) requests);
        return new Result(
                name(),
                Format.count(rate) + " datapoints/s per instance (OTLP protobuf gzip, 1,000 series a request)",
                Format.count(floor) + " datapoints/s gunzip + parse only",
                Format.ratio(rate / floor),
                ">= 5,000 datapoints/s",
                rate >= TARGET_DATAPOINTS_PER_SECOND,
                details,
                values);
    }

    private static void send(PushHandler handler, byte[] body) {
        APIGatewayV2HTTPEvent.RequestContext.Http http = new APIGatewayV2HTTPEvent.RequestContext.Http();
        http.setMethod("POST");
        APIGatewayV2HTTPEvent.RequestContext ctx = new APIGatewayV2HTTPEvent.RequestContext();
        ctx.setHttp(http);
        APIGatewayV2HTTPEvent event = APIGatewayV2HTTPEvent.builder()
                .withRawPath("/otlp/v1/metrics")
                .withHeaders(Map.of("content-type", "application/x-protobuf", "content-encoding", "gzip"))
                .withRequestContext(ctx)
                .withBody(Base64.getEncoder().encodeToString(body))
                .withIsBase64Encoded(true)
                .build();
        APIGatewayV2HTTPResponse r = handler.handleRequest(event, new TestContext("bench", 29_000, 1024));
        if (r.getStatusCode() != 200) {
            throw new IllegalStateException("push answered " + r.getStatusCode() + ": " + r.getBody());
        }
    }

    private static KeyValue attr(String k, String v) {
        return KeyValue.newBuilder()
                .setKey(k)
                .setValue(AnyValue.newBuilder().setStringValue(v))
                .build();
    }

    /** 1,000 gauge series of 8 attributes, one point each at {@code now}. */
    private static ExportMetricsServiceRequest request(int r, long now) {
        Gauge.Builder g = Gauge.newBuilder();
        for (int i = 0; i < SERIES_PER_REQUEST; i++) {
            NumberDataPoint.Builder p = NumberDataPoint.newBuilder()
                    .setTimeUnixNano(now * 1_000_000L)
                    .setAsDouble(i * 0.5 + r);
            p.addAttributes(attr("series", Integer.toString(i)));
            for (int a = 0; a < 7; a++) {
                p.addAttributes(attr("label" + a, "value-" + (i % (a + 2))));
            }
            g.addDataPoints(p);
        }
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder().addAttributes(attr("service.name", "bench")))
                        .addScopeMetrics(ScopeMetrics.newBuilder()
                                .addMetrics(Metric.newBuilder()
                                        .setName("bench.gauge")
                                        .setGauge(g))))
                .build();
    }
}
