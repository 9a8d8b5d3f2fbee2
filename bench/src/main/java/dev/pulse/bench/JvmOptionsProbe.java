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
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.management.HotSpotDiagnosticMXBean;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestHandler;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.query.QueryHandler;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.StdoutCapture;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.Ports;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The jvm-options benchmark's child JVM, started with one variant of a function's JAVA_TOOL_OPTIONS
 * ({@link ChildJvm}): one execution environment of IngestFunction or QueryFunction, its real handler built as the
 * runtime builds it, on the parent's DynamoDB Local. At once it builds the handler and runs the first unit of work
 * (the cold JVM's first invocation), then one more unit per {@code unit} line on stdin, and on {@code end} checks
 * what was stored and exits. A unit is one ingest batch, or one whole query (its pages). Each unit prints
 * {@code UNIT {json}} (every invocation's ms, the unit's ms, the JIT's compilation time during it); {@code end}
 * prints {@code JVMOPT {json}}: the compilation flags the JVM really ran with, its total JIT time, the invocations.
 *
 * <p>Usage: {@code JvmOptionsProbe ingest <dynamodb endpoint> <table> <repository> <records>} or
 * {@code JvmOptionsProbe query <dynamodb endpoint> <dataset file> <repository> 0}. Not a user tool.
 */
public final class JvmOptionsProbe {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final String UNIT = "UNIT";
    static final String END = "JVMOPT";

    private JvmOptionsProbe() {}

    /** One execution environment's handler and the work it is given. */
    private interface Container extends AutoCloseable {
        /** Builds the handler (the init); the ms it took. */
        double init() throws Exception;

        /** Unit {@code n} (a batch; a whole query), each invocation's ms added to {@code millis}; the unit's ms. */
        double unit(int n, List<Double> millis) throws Exception;

        /** Checks what the units did; the invocations made. */
        int finish() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println(
                    "usage: JvmOptionsProbe ingest|query <dynamodb endpoint> <table|dataset file> <repository> <records>");
            System.exit(2);
        }
        URI endpoint = URI.create(args[1]);
        Path repository = Path.of(args[3]);
        PrintStream results = System.out; // the handlers' output is captured; results go to the real stdout
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (StdoutCapture capture = StdoutCapture.install();
                Container c = switch (args[0]) {
                    case "ingest" -> new Ingest(capture, endpoint, args[2], repository, Integer.parseInt(args[4]));
                    case "query" -> new Query(capture, endpoint, Path.of(args[2]), repository);
                    default -> throw new IllegalArgumentException("ingest or query: " + args[0]);
                }) {
            long initStart = System.currentTimeMillis();
            double initMillis = c.init();
            List<Double> millis = new ArrayList<>();
            double unitMillis = c.unit(0, millis);
            // Read after the first response, so that loading the management classes is not part of it.
            ObjectNode first = unitReport(millis, unitMillis, compileMillis());
            first.put("initMillis", initMillis);
            first.put(
                    "firstResponseUptimeMillis",
                    initStart - ManagementFactory.getRuntimeMXBean().getStartTime() + initMillis + millis.get(0));
            results.println(UNIT + " " + first);
            results.flush();
            int n = 0;
            for (String command = commands.readLine(); command != null; command = commands.readLine()) {
                switch (command.strip()) {
                    case "unit" -> {
                        long compiled = compileMillis();
                        List<Double> m = new ArrayList<>();
                        double ms = c.unit(++n, m);
                        results.println(UNIT + " " + unitReport(m, ms, compileMillis() - compiled));
                        results.flush();
                    }
                    case "end" -> {
                        int invocations = c.finish();
                        HotSpotDiagnosticMXBean hotspot =
                                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
                        ObjectNode out = JSON.createObjectNode();
                        out.put(
                                "tieredCompilation",
                                hotspot.getVMOption("TieredCompilation").getValue());
                        out.put(
                                "tieredStopAtLevel",
                                hotspot.getVMOption("TieredStopAtLevel").getValue());
                        out.put(
                                "useSerialGC",
                                hotspot.getVMOption("UseSerialGC").getValue());
                        out.put("heapMaxBytes", Runtime.getRuntime().maxMemory());
                        out.put("compileMillis", compileMillis());
                        out.put("invocations", invocations);
                        results.println(END + " " + out);
                        results.flush();
                        System.exit(0); // the SDK's and CRT's threads would keep the JVM alive
                    }
                    default -> throw new IllegalArgumentException("unit or end: " + command);
                }
            }
            throw new IllegalStateException("stdin ended without 'end'");
        }
    }

    private static ObjectNode unitReport(List<Double> millis, double unitMillis, long compileMillis) {
        ObjectNode r = JSON.createObjectNode();
        r.set("millis", JSON.valueToTree(millis));
        r.put("unitMillis", unitMillis);
        r.put("compileMillis", compileMillis);
        return r;
    }

    /** The JIT's total compilation time so far (all compiler threads). */
    private static long compileMillis() {
        return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    }

    /**
     * A warm IngestFunction container: one handler, one table, every batch the shard's next 10,000 records (a
     * batch at or below the committed position would be skipped unread). Each batch is checked by its EMF
     * document, and the table at the end by the datapoints its partials count.
     */
    private static final class Ingest implements Container {
        private final StdoutCapture capture;
        private final FunctionSettings fn;
        private final String table;
        private final String queueUrl;
        private final PulseConfig cfg;
        private final int records;
        private final long datapoints;
        private final long arrival = System.currentTimeMillis();
        private final List<byte[]> data;
        private final DynamoDbAsyncClient client;
        private final SqsClient sqs;
        private final DynamoDbClient reader;
        private IngestHandler handler;
        private KinesisEvent next;
        private long itemsWritten;
        private int batches;

        Ingest(StdoutCapture capture, URI endpoint, String table, Path repository, int records) throws Exception {
            this.capture = capture;
            this.fn = FunctionSettings.load(repository, "IngestFunction");
            this.table = table;
            this.queueUrl = "http://127.0.0.1:" + Ports.free() + "/123456789012/pulse-bench-dlq";
            this.cfg = fn.config(table, queueUrl);
            this.records = records;
            this.datapoints = (long) records * IngestEndToEndBench.PER_RECORD;
            this.data = IngestEndToEndBench.batchData(records, arrival);
            this.client = BenchEnv.dynamoAsync(endpoint, cfg.writeConcurrency(), false, List.of());
            this.sqs = IngestEndToEndBench.unusedQueueClient(queueUrl);
            this.reader = BenchEnv.dynamoSync(endpoint);
            // The event is built before the clock starts: the runtime hands the handler a deserialised one.
            this.next = batch(0);
        }

        @Override
        public double init() {
            long t0 = System.nanoTime();
            handler = IngestFunction.handler(
                    IngestFunction.service(cfg, client, sqs),
                    PulseMetrics.create("PulseBench", "ingest"),
                    cfg.safetyMarginMillis());
            return (System.nanoTime() - t0) / 1e6;
        }

        @Override
        public double unit(int n, List<Double> millis) throws Exception {
            KinesisEvent event = next;
            long emfBefore = capture.emfDocuments();
            long t0 = System.nanoTime();
            StreamsEventResponse response = handler.handleRequest(
                    event, new TestContext("bench-ingest", "batch-" + n, fn.timeoutSeconds() * 1000L, fn.memoryMb()));
            double ms = (System.nanoTime() - t0) / 1e6;
            millis.add(ms);
            batches++;
            if (!response.getBatchItemFailures().isEmpty()) {
                throw new IllegalStateException("batch " + n + " failed: " + response.getBatchItemFailures());
            }
            if (capture.emfDocuments() != emfBefore + 1) {
                throw new IllegalStateException(
                        "batch " + n + ": expected one EMF document, got " + (capture.emfDocuments() - emfBefore));
            }
            JsonNode doc = JSON.readTree(capture.lastEmf());
            IngestEndToEndBench.expect(doc, "RecordsIn", records);
            IngestEndToEndBench.expect(doc, "DatapointsIn", datapoints);
            IngestEndToEndBench.expect(doc, "PoisonRecords", 0);
            IngestEndToEndBench.expect(doc, "BatchFailures", 0);
            itemsWritten += doc.path("ItemsWritten").asLong(-1);
            next = batch(n + 1);
            return ms;
        }

        /** The shard's batch number {@code n}: the same records, sequence numbers above those of batch n - 1. */
        private KinesisEvent batch(int n) {
            return KinesisRecords.event(
                    Datasets.STREAM_ARN,
                    IngestEndToEndBench.SHARD,
                    data,
                    IngestEndToEndBench.FIRST_SEQUENCE + (long) n * records,
                    arrival);
        }

        @Override
        public int finish() {
            // Every batch's partials are in the one table (their slots differ by first sequence number).
            IngestEndToEndBench.Stored stored = IngestEndToEndBench.Stored.read(reader, table);
            if (stored.datapoints() != batches * datapoints) {
                throw new IllegalStateException("the stored partials count " + stored.datapoints()
                        + " datapoints, sent " + batches * datapoints + " in " + batches + " batches");
            }
            if (stored.checkpoints() != 1 || stored.items() - stored.marks() - stored.checkpoints() != itemsWritten) {
                throw new IllegalStateException("EMF ItemsWritten sum to " + itemsWritten + " but the table holds "
                        + (stored.items() - stored.marks() - stored.checkpoints())
                        + " partials and catalog entries and "
                        + stored.checkpoints() + " checkpoints");
            }
            return batches;
        }

        @Override
        public void close() {
            client.close();
            sqs.close();
            reader.close();
        }
    }

    /**
     * A warm QueryFunction container: one handler asked the benchmark's 100-series day query again and again, page
     * after page. The first query (cold JVM, cold cache) is checked bucket by bucket, and so are the first warm-up
     * query and one more at the end; every invocation must answer 200 with its EMF document.
     */
    private static final class Query implements Container {
        private final StdoutCapture capture;
        private final QueryDataset data;
        private final List<String> stats = QueryDataset.dashboardStats();
        private final DynamoDbAsyncClient client;
        private QueryHandler handler;
        private int invocations;

        Query(StdoutCapture capture, URI endpoint, Path datasetFile, Path repository) throws Exception {
            this.capture = capture;
            this.data = QueryDataset.load(datasetFile, repository);
            this.client = BenchEnv.dynamoAsync(endpoint, data.config().writeConcurrency() * 4, true, List.of());
        }

        @Override
        public double init() {
            long t0 = System.nanoTime();
            handler = data.handler(client, PulseMetrics.create("PulseBench", "query"));
            return (System.nanoTime() - t0) / 1e6;
        }

        @Override
        public double unit(int n, List<Double> millis) throws Exception {
            long t0 = System.nanoTime();
            invocations += QueryBench.fullQuery(handler, data, stats, n <= 1, capture, millis)
                    .pages(); // cold and first warm-up checked
            return (System.nanoTime() - t0) / 1e6;
        }

        @Override
        public int finish() throws Exception {
            invocations += QueryBench.fullQuery(handler, data, stats, true, capture, null)
                    .pages();
            if (capture.emfDocuments() != invocations) {
                throw new IllegalStateException(invocations + " invocations wrote " + capture.emfDocuments()
                        + " EMF documents, expected one each");
            }
            return invocations;
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
