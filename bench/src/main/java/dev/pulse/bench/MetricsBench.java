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
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.bench.internal.JfrProfile;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestHandler;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.query.QueryHandler;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.NoMetrics;
import dev.pulse.testing.StdoutCapture;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.Ports;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.model.MetricResolution;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * metrics: what the functions' metrics (one EMF document a invocation, printed by Powertools Metrics at the end of
 * the invocation) add to a handler, as an absolute budget: at most 0.3 ms a query invocation and at most 2% of a
 * 100-record ingest batch. Each side is the same warm handler with Powertools' metrics or a no-op {@link Metrics},
 * switched per invocation and interleaved in one JVM.
 */
final class MetricsBench implements Benchmark {

    /** The budget of an invocation (the query handler's), in ms. */
    static final double INVOCATION_BUDGET_MILLIS = 0.3;
    /** The budget of an ingest batch, as a share of the batch's time without metrics. */
    static final double BATCH_BUDGET = 0.02;

    static final int BATCH_RECORDS = 100;
    private static final String SHARD = "shardId-000000000000";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "metrics";
    }

    @Override
    public String howToRead() {
        return """
                What the functions' metrics cost, as an absolute budget measured side by side: each handler publishes \
                its counters to Powertools Metrics (`PulseMetrics.create`: Powertools' singleton, configured as in \
                Lambda) and flushes one EMF document at the end of every invocation; the other side is the same \
                handler with a no-op `Metrics` (the counters are still kept, nothing is added or printed). One warm \
                handler per part, its metrics switched per invocation: pairs of invocations, one of each side, \
                alternating which goes first (A B, B A, ...), in one JVM, so the container, its cache and its \
                compiled code are shared and drift favours neither side. (a) `QueryHandler` on a warm container \
                answering a day of 20 series at PT5M (count, avg, max) from its rollup cache, pure CPU: 3,000 pairs; \
                budget: at most 0.3 ms added to an invocation. (b) `IngestHandler` (the real handler: decode, \
                validate, minute partials, BatchWriteItem on the CRT async client with the template's settings) with \
                a batch of 100 native NDJSON records of 5 datapoints over 200 series into DynamoDB Local (no \
                stream), each batch the shard's next (new sequence numbers, so none is skipped as already stored), \
                on one warm container: 200 pairs; budget: at most 2% of the batch's time. Added = the median of \
                the pairs' differences (with minus without: the two invocations of a pair run back to back, so \
                other work on the machine mostly hits both); relative = added / the median without. The details \
                give both medians and their difference, the added time in blocks of pairs (how much it moves on \
                this machine) and the time spent inside Powertools' `addMetric` and `flush` calls. Every document printed is \
                checked (one per invocation with metrics, none without; the ingest counts of every batch). The \
                printed lines go to memory, not to a pipe.""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        List<String> details = new ArrayList<>();
        Map<String, Double> values = new LinkedHashMap<>();
        Side query;
        Side ingest;
        try (StdoutCapture out = StdoutCapture.install()) {
            query = query(env, out, details);
            ingest = ingest(env, out, details);
        }
        boolean queryMet = query.added() <= INVOCATION_BUDGET_MILLIS;
        boolean ingestMet = ingest.relative() <= BATCH_BUDGET;
        details.add(0, verdict("query invocation", query, queryMet, "budget +" + INVOCATION_BUDGET_MILLIS + " ms"));
        details.add(1, verdict("100-record ingest batch", ingest, ingestMet, "budget +" + percent(BATCH_BUDGET)));
        values.put("queryMedianMillis", query.onMedian());
        values.put("queryNoMetricsMedianMillis", query.offMedian());
        values.put("queryAddedMillis", query.added());
        values.put("queryAddedRelative", query.relative());
        values.put("ingestBatchMedianMillis", ingest.onMedian());
        values.put("ingestBatchNoMetricsMedianMillis", ingest.offMedian());
        values.put("ingestAddedMillis", ingest.added());
        values.put("ingestAddedRelative", ingest.relative());
        return new Result(
                name(),
                "query invocation " + signedMillis(query.added()) + " (" + signedPercent(query.relative()) + ") "
                        + (queryMet ? "PASS" : "FAIL") + "; 100-record ingest batch " + signedMillis(ingest.added())
                        + " ("
                        + signedPercent(ingest.relative()) + ") " + (ingestMet ? "PASS" : "FAIL"),
                "no-op Metrics: query " + millis3(query.offMedian()) + ", ingest batch "
                        + Format.millis(ingest.offMedian()),
                Format.ratio(query.onMedian() / query.offMedian()) + " and "
                        + Format.ratio(ingest.onMedian() / ingest.offMedian()),
                "<= +0.3 ms an invocation, <= +2% an ingest batch",
                queryMet && ingestMet,
                details,
                values);
    }

    /** (a) The query handler on a warm container: CPU only, so nothing hides the metrics' cost. */
    private static Side query(BenchEnv env, StdoutCapture out, List<String> details) throws Exception {
        QueryDataset data = QueryDataset.create(env, 20);
        DynamoDbAsyncClient client = env.dynamoAsync(32, true);
        APIGatewayV2HTTPEvent event = data.event(List.of("count", "avg", "max"), null);
        Switchable metrics = new Switchable(PulseMetrics.create("query"));
        QueryHandler handler = data.handler(client, metrics);
        for (int i = 0; i < env.scale(600, 40); i++) {
            metrics.on = i % 2 == 0;
            invoke(handler, event, "warm-up");
        }
        int pairs = env.scale(3_000, 100);
        long documentsBefore = out.emfDocuments();
        Side side = interleave(pairs, metrics, () -> {
            long t0 = System.nanoTime();
            invoke(handler, event, "q");
            return (System.nanoTime() - t0) / 1e6;
        });
        expectDocuments(out.emfDocuments() - documentsBefore, pairs, "query");
        JsonNode doc = JSON.readTree(out.lastEmf());
        expectText(doc, "Service", "query");
        details.add("query, " + side.describe(500, "%.3f ms"));
        details.add("an EMF document as printed: " + abbreviated(out.lastEmf()));
        if (side.added() > INVOCATION_BUDGET_MILLIS) {
            metrics.on = true;
            details.addAll(JfrProfile.profile(
                    "the query handler with metrics, " + env.scale(2_000, 100) + " invocations",
                    () -> {
                        for (int i = 0; i < env.scale(2_000, 100); i++) {
                            invoke(handler, event, "profiled");
                        }
                    },
                    null,
                    List.of(
                            "dev.pulse.metrics.",
                            "software.amazon.lambda.powertools.metrics.",
                            "software.amazon.cloudwatchlogs.emf.")));
        }
        return side;
    }

    /** (b) The real ingest handler with 100-record batches on DynamoDB Local, each the shard's next. */
    private static Side ingest(BenchEnv env, StdoutCapture out, List<String> details) throws Exception {
        FunctionSettings fn = FunctionSettings.load(env.root(), "IngestFunction");
        DynamoDbClient reader = env.dynamoSync();
        String table = StreamlessTables.create(reader, "metrics");
        try {
            String queueUrl = "http://127.0.0.1:" + Ports.free() + "/123456789012/pulse-bench-dlq";
            PulseConfig cfg = fn.config(table, queueUrl);
            // The singleton is the process's: from here on it is the ingest function's, as in its own container.
            Switchable metrics = new Switchable(PulseMetrics.create("ingest"));
            IngestHandler handler = IngestFunction.handler(
                    IngestFunction.service(
                            cfg,
                            env.dynamoAsync(cfg.writeConcurrency() * 2, false),
                            env.track(IngestEndToEndBench.unusedQueueClient(queueUrl))),
                    metrics,
                    cfg.safetyMarginMillis());
            long arrival = System.currentTimeMillis();
            List<byte[]> data = IngestEndToEndBench.batchData(BATCH_RECORDS, arrival);
            long datapoints = (long) BATCH_RECORDS * IngestEndToEndBench.PER_RECORD;
            long[] next = {1_000_000};
            Batches batches = () -> {
                KinesisEvent event = KinesisRecords.event(Datasets.STREAM_ARN, SHARD, data, next[0], arrival);
                next[0] += BATCH_RECORDS;
                return event;
            };
            // A context a batch: its remaining time counts down from when it is made, as an invocation's does.
            java.util.function.Supplier<TestContext> contexts =
                    () -> new TestContext("bench-ingest", "b", fn.timeoutSeconds() * 1000L, fn.memoryMb());
            for (int i = 0; i < env.scale(20, 2); i++) {
                metrics.on = i % 2 == 0;
                ingest(handler, batches.next(), contexts.get());
            }
            int pairs = env.scale(200, 4);
            long documentsBefore = out.emfDocuments();
            List<String> wrong = new ArrayList<>();
            Side side = interleave(pairs, metrics, () -> {
                KinesisEvent event = batches.next();
                TestContext context = contexts.get();
                long documents = out.emfDocuments();
                long t0 = System.nanoTime();
                ingest(handler, event, context);
                double millis = (System.nanoTime() - t0) / 1e6;
                if (out.emfDocuments() != documents + (metrics.on ? 1 : 0)) {
                    wrong.add((out.emfDocuments() - documents) + " documents for one batch, metrics "
                            + (metrics.on ? "on" : "off"));
                } else if (metrics.on) {
                    JsonNode doc = JSON.readTree(out.lastEmf());
                    for (Map.Entry<String, Long> e : Map.of(
                                    "RecordsIn",
                                    (long) BATCH_RECORDS,
                                    "DatapointsIn",
                                    datapoints,
                                    "PoisonRecords",
                                    0L,
                                    "AlreadyStoredRecords",
                                    0L,
                                    "BatchFailures",
                                    0L)
                            .entrySet()) {
                        if (doc.path(e.getKey()).asLong(-1) != e.getValue()) {
                            wrong.add(e.getKey() + " " + doc.path(e.getKey()) + ", expected " + e.getValue());
                        }
                    }
                }
                return millis;
            });
            if (!wrong.isEmpty()) {
                throw new IllegalStateException(
                        "the batches' EMF documents are wrong: " + wrong.subList(0, Math.min(5, wrong.size())));
            }
            expectDocuments(out.emfDocuments() - documentsBefore, pairs, "ingest");
            expectText(JSON.readTree(out.lastEmf()), "Service", "ingest");
            details.add("ingest, " + side.describe(25, "%.1f ms") + "; " + BATCH_RECORDS + " records, " + datapoints
                    + " datapoints a batch, WriteConcurrency " + cfg.writeConcurrency());
            return side;
        } finally {
            StreamlessTables.delete(reader, table);
        }
    }

    @FunctionalInterface
    private interface Batches {
        KinesisEvent next();
    }

    @FunctionalInterface
    private interface Timed {
        double run() throws Exception;
    }

    /** {@code pairs} pairs: each one invocation with metrics and one without, alternating which goes first. */
    private static Side interleave(int pairs, Switchable metrics, Timed invocation) throws Exception {
        double[] on = new double[pairs];
        double[] off = new double[pairs];
        double[] inside = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            boolean onFirst = i % 2 == 0;
            metrics.on = onFirst;
            metrics.insideNanos.reset();
            double first = invocation.run();
            metrics.on = !onFirst;
            double second = invocation.run();
            on[i] = onFirst ? first : second;
            off[i] = onFirst ? second : first;
            inside[i] = metrics.insideNanos.sum() / 1e6;
        }
        return new Side(on, off, inside);
    }

    /**
     * The two sides' latencies, pair by pair (ms), and the time the invocation with metrics spent inside
     * Powertools' calls. The added time is the median of the pairs' differences: the two invocations of a pair run
     * back to back, so what the machine does meanwhile (other processes on shared cores) mostly hits both.
     */
    record Side(double[] on, double[] off, double[] inside) {

        double onMedian() {
            return Samples.of(on).median();
        }

        double offMedian() {
            return Samples.of(off).median();
        }

        /** The median of the pairs' differences (with minus without), ms. */
        double added() {
            double[] differences = new double[on.length];
            for (int i = 0; i < on.length; i++) {
                differences[i] = on[i] - off[i];
            }
            return Samples.of(differences).median();
        }

        double relative() {
            return added() / offMedian();
        }

        /** The medians, their difference, the time inside Powertools and the added time in blocks of pairs. */
        String describe(int block, String format) {
            int blocks = Math.max(1, on.length / block);
            int size = on.length / blocks;
            double[] added = new double[blocks];
            for (int b = 0; b < blocks; b++) {
                added[b] = new Side(
                                Arrays.copyOfRange(on, b * size, (b + 1) * size),
                                Arrays.copyOfRange(off, b * size, (b + 1) * size),
                                inside)
                        .added();
            }
            return on.length + " pairs: median " + format.formatted(onMedian()) + " with metrics, "
                    + format.formatted(offMedian()) + " without (difference of the medians "
                    + format.formatted(onMedian() - offMedian()) + "); median of the pairs' differences "
                    + format.formatted(added()) + " (" + signedPercent(relative()) + "), in blocks of " + size
                    + " pairs "
                    + Samples.of(added).spread(format) + "; inside Powertools' addMetric and flush: median "
                    + String.format(Locale.ROOT, "%.3f ms", Samples.of(inside).median()) + " an invocation";
        }
    }

    /** Powertools' metrics when {@link #on}, nothing otherwise. */
    static final class Switchable extends NoMetrics {
        private final Metrics powertools;
        volatile boolean on;
        /** Time spent inside Powertools' calls since it was last reset (the handler thread's own calls). */
        final java.util.concurrent.atomic.LongAdder insideNanos = new java.util.concurrent.atomic.LongAdder();

        Switchable(Metrics powertools) {
            this.powertools = powertools;
        }

        @Override
        public void addMetric(String name, double value, MetricUnit unit, MetricResolution resolution) {
            if (on) {
                long t0 = System.nanoTime();
                powertools.addMetric(name, value, unit, resolution);
                insideNanos.add(System.nanoTime() - t0);
            }
        }

        @Override
        public void flush() {
            if (on) {
                long t0 = System.nanoTime();
                powertools.flush();
                insideNanos.add(System.nanoTime() - t0);
            }
        }
    }

    private static void invoke(QueryHandler handler, APIGatewayV2HTTPEvent event, String requestId) {
        APIGatewayV2HTTPResponse r =
                handler.handleRequest(event, new TestContext("bench-query", requestId, 29_000, 1024));
        if (r.getStatusCode() != 200) {
            throw new IllegalStateException("query answered " + r.getStatusCode() + ": " + r.getBody());
        }
    }

    private static void ingest(IngestHandler handler, KinesisEvent event, TestContext context) {
        StreamsEventResponse r = handler.handleRequest(event, context);
        if (!r.getBatchItemFailures().isEmpty()) {
            throw new IllegalStateException("the batch failed: " + r.getBatchItemFailures());
        }
    }

    private static void expectDocuments(long documents, int pairs, String function) {
        if (documents != pairs) {
            throw new IllegalStateException("expected one EMF document per " + function + " invocation with metrics: "
                    + documents + " for " + pairs);
        }
    }

    private static void expectText(JsonNode doc, String member, String want) {
        if (!want.equals(doc.path(member).asText(null))) {
            throw new IllegalStateException(
                    "EMF " + member + " is " + doc.get(member) + ", expected " + want + ": " + doc);
        }
    }

    private static String verdict(String what, Side side, boolean met, String budget) {
        return what + ": " + signedMillis(side.added()) + " (" + signedPercent(side.relative()) + "), " + budget + ": "
                + (met ? "PASS" : "FAIL");
    }

    private static String abbreviated(String doc) {
        return doc == null ? "none" : doc.length() > 400 ? doc.substring(0, 400) + "..." : doc;
    }

    private static String millis3(double v) {
        return String.format(Locale.ROOT, "%.3f ms", v);
    }

    private static String signedMillis(double v) {
        return String.format(Locale.ROOT, "%+.3f ms", v);
    }

    private static String signedPercent(double v) {
        return String.format(Locale.ROOT, "%+.2f%%", v * 100);
    }

    private static String percent(double v) {
        return String.format(Locale.ROOT, "%.0f%%", v * 100);
    }
}
