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

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestHandler;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.metrics.SdkClientMetrics;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.StdoutCapture;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.Ports;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.ConsoleAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.layout.PatternLayout;
import software.amazon.awssdk.metrics.MetricCollection;
import software.amazon.awssdk.metrics.MetricPublisher;
import software.amazon.awssdk.metrics.publishers.emf.EmfMetricLoggingPublisher;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * client-metrics: what publishing the DynamoDB client's own metrics adds to an ingest batch, and how many log bytes,
 * for the two ways: {@link SdkClientMetrics} (folded per operation, written with the function's metrics at the end
 * of the invocation) and the SDK's {@link EmfMetricLoggingPublisher} (one EMF line per API call, through a log4j
 * appender that prints the message alone, as CloudWatch needs it). Budget (the functions' metrics budget, as in
 * {@code metrics}): at most +2% of a 100-record ingest batch, and at most +0.3 ms for an invocation without SDK calls.
 */
final class ClientMetricsBench implements Benchmark {

    static final double BATCH_BUDGET = 0.02;
    static final double INVOCATION_BUDGET_MILLIS = 0.3;
    static final int BATCH_RECORDS = 100;
    private static final String SHARD = "shardId-000000000000";
    private static final String SDK_EMF_LOGGER = "software.amazon.awssdk.metrics.publishers.emf";

    @Override
    public String name() {
        return "client-metrics";
    }

    @Override
    public String howToRead() {
        return """
                What the SDK clients' own metrics (ApiCallDuration, RetryCount, throttling, ConcurrencyAcquireDuration, \
                LeasedConcurrency per service and operation) cost an ingest batch, two ways against none: the real \
                `IngestHandler` (decode, validate, minute partials, UpdateItem and BatchWriteItem on the CRT async client \
                with the template's settings) with batches of 100 native NDJSON records of 5 datapoints over 200 series \
                into DynamoDB Local, each batch the shard's next; three warm handlers in one JVM, identical but for the \
                DynamoDB client's metric publisher: none; Pulse's `SdkClientMetrics` (each call folded into an \
                in-memory aggregate on the SDK's calling thread, one EMF document per operation written through \
                Powertools when the handler flushes its own metrics); the SDK's `EmfMetricLoggingPublisher` \
                (software.amazon.awssdk:emf-metric-logging-publisher, one EMF line per API call through log4j with a \
                `%m%n` console appender, what a function needs for CloudWatch to read those lines). Each round runs \
                one batch on each, rotating the order; added = the median over rounds of (with - none); relative = \
                added / the median of none. Log bytes and lines: what each side printed per batch beyond the \
                handler's own EMF document (every line counted). Inside: the time spent in the publisher's \
                `publish` calls (on the SDK's calling thread) and, for Pulse's, its `flush` (on the handler's thread), \
                per batch: the publisher's own work, less noisy than the difference of two batches' times on shared \
                cores. Budget: the added time and the time inside at most 2% of a batch each, and at most +0.3 ms for \
                an invocation that makes no SDK call (the flush of an empty aggregate, timed alone).""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        installSdkEmfAppender();
        FunctionSettings fn = FunctionSettings.load(env.root(), "IngestFunction");
        DynamoDbClient reader = env.dynamoSync();
        String table = StreamlessTables.create(reader, "clientmetrics");
        List<String> details = new ArrayList<>();
        Map<String, Double> values = new LinkedHashMap<>();
        try (StdoutCapture out = StdoutCapture.install()) {
            String queueUrl = "http://127.0.0.1:" + Ports.free() + "/123456789012/pulse-bench-dlq";
            PulseConfig cfg = fn.config(table, queueUrl);
            Metrics metrics = PulseMetrics.create("ingest");
            SdkClientMetrics shared = SdkClientMetrics.shared();
            Timed pulse = new Timed(shared);
            // Pulse's side flushes the client metrics inside its sink's flush, timed; the handler's own flush of them
            // right after then finds nothing left.
            Metrics pulseSink = new FlushTimed(metrics, pulse, shared);
            // Its defaults: namespace AwsSdk/JavaSdk2, dimensions ServiceId and OperationName, every category.
            Timed sdk = new Timed(EmfMetricLoggingPublisher.builder()
                    .logGroupName("/aws/lambda/bench-ingest")
                    .build());
            MetricPublisher[] publishers = {null, pulse, sdk};
            String[] names = {"none", "SdkClientMetrics", "EmfMetricLoggingPublisher"};
            IngestHandler[] handlers = new IngestHandler[3];
            for (int i = 0; i < 3; i++) {
                handlers[i] = IngestFunction.handler(
                        IngestFunction.service(
                                cfg,
                                env.dynamoAsync(cfg.writeConcurrency() * 2, false, publishers[i]),
                                env.track(IngestEndToEndBench.unusedQueueClient(queueUrl))),
                        i == 1 ? pulseSink : metrics,
                        cfg.safetyMarginMillis());
            }
            long arrival = System.currentTimeMillis();
            List<byte[]> data = IngestEndToEndBench.batchData(BATCH_RECORDS, arrival);
            long[] next = {1_000_000};
            java.util.function.Supplier<KinesisEvent> batches = () -> {
                KinesisEvent event = KinesisRecords.event(Datasets.STREAM_ARN, SHARD, data, next[0], arrival);
                next[0] += BATCH_RECORDS;
                return event;
            };
            for (int i = 0; i < env.scale(30, 3); i++) {
                ingest(handlers[i % 3], batches.get(), fn);
            }
            int rounds = env.scale(150, 3);
            pulse.calls.reset();
            double[][] millis = new double[3][rounds];
            long[][] bytes = new long[3][rounds];
            long[][] lines = new long[3][rounds];
            double[] inside = new double[rounds];
            double[] flushing = new double[rounds];
            double[] sdkInside = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < 3; k++) {
                    int side = (r + k) % 3;
                    Timed timed = side == 1 ? pulse : side == 2 ? sdk : null;
                    if (timed != null) {
                        timed.nanos.reset();
                        timed.flushNanos.reset();
                    }
                    long b0 = out.bytes();
                    long l0 = out.emfDocuments();
                    long t0 = System.nanoTime();
                    ingest(handlers[side], batches.get(), fn);
                    millis[side][r] = (System.nanoTime() - t0) / 1e6;
                    bytes[side][r] = out.bytes() - b0;
                    lines[side][r] = out.emfDocuments() - l0;
                    if (side == 1) {
                        inside[r] = pulse.nanos.sum() / 1e6;
                        flushing[r] = pulse.flushNanos.sum() / 1e6;
                    } else if (side == 2) {
                        sdkInside[r] = sdk.nanos.sum() / 1e6;
                    }
                }
            }
            long[] calls = {pulse.calls.sum()};
            double none = Samples.of(millis[0]).median();
            long noneBytes = (long) Samples.of(bytes[0]).median();
            long noneLines = (long) Samples.of(lines[0]).median();
            boolean met = true;
            StringBuilder figure = new StringBuilder();
            for (int side = 1; side < 3; side++) {
                double[] diff = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    diff[r] = millis[side][r] - millis[0][r];
                }
                double added = Samples.of(diff).median();
                double relative = added / none;
                double extraBytes =
                        Samples.of(bytes[side]).mean() - Samples.of(bytes[0]).mean();
                double extraLines =
                        Samples.of(lines[side]).mean() - Samples.of(lines[0]).mean();
                String key = side == 1 ? "pulse" : "sdkEmf";
                values.put(key + "AddedMillis", added);
                values.put(key + "AddedRelative", relative);
                values.put(key + "LogBytesPerBatch", extraBytes);
                values.put(key + "LogLinesPerBatch", extraLines);
                details.add(String.format(
                        Locale.ROOT,
                        "%s: batch median %.2f ms, added %+.3f ms (%+.2f%%) over %d rounds; %.0f more log bytes and"
                                + " %.1f more lines a batch",
                        names[side],
                        Samples.of(millis[side]).median(),
                        added,
                        relative * 100,
                        rounds,
                        extraBytes,
                        extraLines));
                if (side == 1) {
                    double insideMedian = Samples.of(inside).median();
                    double emptyFlush = emptyFlushMillis(env);
                    values.put("pulseInsideMillis", insideMedian);
                    values.put("pulseFlushMillis", Samples.of(flushing).median());
                    values.put("pulseEmptyFlushMillis", emptyFlush);
                    details.add(String.format(
                            Locale.ROOT,
                            "SdkClientMetrics: inside publish and flush: median %.3f ms (flush %.3f ms: the documents"
                                    + " through Powertools and stdout), p99 %.3f ms a batch; %.1f DynamoDB calls a"
                                    + " batch",
                            insideMedian,
                            Samples.of(flushing).median(),
                            Samples.of(inside).percentile(99),
                            calls[0] / (double) rounds));
                    details.add(String.format(
                            Locale.ROOT,
                            "SdkClientMetrics: an invocation without SDK calls (a query answered from the warm cache)"
                                    + " adds the flush of an empty aggregate: median %.5f ms",
                            emptyFlush));
                    values.put("pulseInsideRelative", insideMedian / none);
                    met = relative <= BATCH_BUDGET
                            && insideMedian / none <= BATCH_BUDGET
                            && emptyFlush <= INVOCATION_BUDGET_MILLIS;
                    figure.append(String.format(
                            Locale.ROOT,
                            "SdkClientMetrics %+.3f ms (%+.2f%%; %.3f ms inside it) %s, %.0f log bytes a batch",
                            added,
                            relative * 100,
                            insideMedian,
                            met ? "PASS" : "FAIL",
                            extraBytes));
                } else {
                    double sdkMedian = Samples.of(sdkInside).median();
                    values.put("sdkEmfInsideMillis", sdkMedian);
                    details.add(String.format(
                            Locale.ROOT,
                            "EmfMetricLoggingPublisher: inside publish (each call's line built and logged on the SDK's"
                                    + " calling thread): median %.3f ms, p99 %.3f ms a batch",
                            sdkMedian,
                            Samples.of(sdkInside).percentile(99)));
                    figure.append(String.format(
                            Locale.ROOT,
                            "; SDK EMF publisher %+.3f ms (%+.2f%%; %.3f ms inside it), %.0f log bytes a batch",
                            added,
                            relative * 100,
                            sdkMedian,
                            extraBytes));
                }
            }
            details.add(String.format(
                    Locale.ROOT,
                    "none: batch median %.2f ms, %d log bytes in %d lines a batch (the handler's own EMF document and"
                            + " log lines)",
                    none,
                    noneBytes,
                    noneLines));
            details.add("the last EMF document printed: " + abbreviated(out.lastEmf()));
            values.put("noneBatchMedianMillis", none);
            return new Result(
                    name(),
                    figure.toString(),
                    "no client metric publisher: " + Format.millis(none) + " a batch",
                    null,
                    "<= +2% an ingest batch, <= +0.3 ms an invocation without SDK calls",
                    met,
                    details,
                    values);
        } finally {
            StreamlessTables.delete(reader, table);
        }
    }

    private static void ingest(IngestHandler handler, KinesisEvent event, FunctionSettings fn) {
        StreamsEventResponse r = handler.handleRequest(
                event, new TestContext("bench-ingest", "b", fn.timeoutSeconds() * 1000L, fn.memoryMb()));
        if (!r.getBatchItemFailures().isEmpty()) {
            throw new IllegalStateException("the batch failed: " + r.getBatchItemFailures());
        }
    }

    /**
     * The SDK publisher logs at INFO through SLF4J; CloudWatch reads EMF only from a line that is the document alone,
     * so a function using it adds an appender that prints the message as is (docs/metrics.md shows the XML).
     */
    private static void installSdkEmfAppender() {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        if (config.getLoggers().containsKey(SDK_EMF_LOGGER)) {
            return;
        }
        Appender appender = ConsoleAppender.newBuilder()
                .setName("SdkEmf")
                .setTarget(ConsoleAppender.Target.SYSTEM_OUT)
                .setFollow(true)
                .setLayout(PatternLayout.newBuilder().withPattern("%m%n").build())
                .build();
        appender.start();
        config.addAppender(appender);
        LoggerConfig logger = LoggerConfig.newBuilder()
                .withLoggerName(SDK_EMF_LOGGER)
                .withLevel(Level.INFO)
                .withAdditivity(false)
                .withConfig(config)
                .build();
        logger.addAppender(appender, null, null);
        config.addLogger(SDK_EMF_LOGGER, logger);
        ctx.updateLoggers();
    }

    /** A publisher with the time spent in its calls (on the SDK's calling thread) counted. */
    static final class Timed implements MetricPublisher {
        private final MetricPublisher target;
        final LongAdder nanos = new LongAdder();
        final LongAdder flushNanos = new LongAdder();

        Timed(MetricPublisher target) {
            this.target = target;
        }

        final LongAdder calls = new LongAdder();

        @Override
        public void publish(MetricCollection metricCollection) {
            calls.increment();
            long t0 = System.nanoTime();
            target.publish(metricCollection);
            nanos.add(System.nanoTime() - t0);
        }

        @Override
        public void close() {}
    }

    /** The function's Powertools metrics, then the client metrics' flush, timed into {@code timed}. */
    static final class FlushTimed extends dev.pulse.testing.NoMetrics {
        private final Metrics powertools;
        private final Timed timed;
        private final SdkClientMetrics shared;

        FlushTimed(Metrics powertools, Timed timed, SdkClientMetrics shared) {
            this.powertools = powertools;
            this.timed = timed;
            this.shared = shared;
        }

        @Override
        public void addMetric(
                String name,
                double value,
                software.amazon.lambda.powertools.metrics.model.MetricUnit unit,
                software.amazon.lambda.powertools.metrics.model.MetricResolution resolution) {
            powertools.addMetric(name, value, unit, resolution);
        }

        @Override
        public void flush() {
            powertools.flush();
            long t0 = System.nanoTime();
            shared.flush();
            long t = System.nanoTime() - t0;
            timed.nanos.add(t);
            timed.flushNanos.add(t);
        }
    }

    /** The flush an invocation without SDK calls pays: an aggregate with nothing to write. */
    private static double emptyFlushMillis(BenchEnv env) {
        SdkClientMetrics.shared().flush();
        int n = env.scale(20_000, 100);
        double[] t = new double[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            SdkClientMetrics.shared().flush();
            t[i] = (System.nanoTime() - t0) / 1e6;
        }
        return Samples.of(t).median();
    }

    private static String abbreviated(String doc) {
        return doc == null ? "none" : doc.length() > 600 ? doc.substring(0, 600) + "..." : doc;
    }
}
