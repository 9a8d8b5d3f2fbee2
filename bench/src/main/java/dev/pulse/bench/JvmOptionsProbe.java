package dev.pulse.bench;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.management.HotSpotDiagnosticMXBean;
import dev.pulse.bench.internal.StdoutCapture;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestHandler;
import dev.pulse.ingest.IngestHandlerAccess;
import dev.pulse.local.emulator.Ports;
import dev.pulse.query.QueryHandler;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.lambda.powertools.metrics.MetricsBuilder;

/**
 * The jvm-options benchmark's child JVM, started with one variant of a function's JAVA_TOOL_OPTIONS
 * ({@link ChildJvm}): one execution environment of IngestFunction or QueryFunction, its real handler built as the
 * runtime builds it, on the parent's DynamoDB Local. It times the first invocation (cold JVM), then warm-up
 * invocations, then the timed warm ones, checks every answer, and prints {@code JVMOPT {json}}: the timings, the
 * compilation flags the JVM really ran with, and its total JIT compilation time.
 *
 * <p>Usage: {@code JvmOptionsProbe ingest <dynamodb endpoint> <table> <repository> <records> <warm-up> <timed>
 * <seconds>} or {@code JvmOptionsProbe query <dynamodb endpoint> <dataset file> <repository> 0 <warm-up> <timed>
 * <seconds>}; the timed invocations stop at {@code timed} or after {@code seconds}, whichever comes first. Not a
 * user tool.
 */
public final class JvmOptionsProbe {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final String PREFIX = "JVMOPT";

    private JvmOptionsProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 8) {
            System.err.println("usage: JvmOptionsProbe ingest|query <dynamodb endpoint> <table|dataset file> <repository>"
                    + " <records> <warm-up> <timed> <seconds>");
            System.exit(2);
        }
        URI endpoint = URI.create(args[1]);
        Path repository = Path.of(args[3]);
        int size = Integer.parseInt(args[4]);
        int warmUps = Integer.parseInt(args[5]);
        int timed = Integer.parseInt(args[6]);
        long timedNanos = Long.parseLong(args[7]) * 1_000_000_000L;
        ObjectNode out = switch (args[0]) {
            case "ingest" -> ingest(endpoint, args[2], repository, size, warmUps, timed, timedNanos);
            case "query" -> query(endpoint, Path.of(args[2]), repository, warmUps, timed, timedNanos);
            default -> throw new IllegalArgumentException("ingest or query: " + args[0]);
        };
        // Read after the measurements, so that loading the management classes is not part of them.
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        out.put("tieredCompilation", hotspot.getVMOption("TieredCompilation").getValue());
        out.put("tieredStopAtLevel", hotspot.getVMOption("TieredStopAtLevel").getValue());
        out.put("useSerialGC", hotspot.getVMOption("UseSerialGC").getValue());
        out.put("heapMaxBytes", Runtime.getRuntime().maxMemory());
        out.put("compileMillis", compileMillis());
        System.out.println(PREFIX + " " + out);
        System.exit(0);
    }

    /**
     * A warm IngestFunction container: one handler, one table, every batch the shard's next 10,000 records (a
     * batch at or below the committed position would be skipped unread). Each batch is checked by its EMF
     * document, and the table at the end by the datapoints its partials count.
     */
    private static ObjectNode ingest(URI endpoint, String table, Path repository, int records, int warmUps, int timed,
            long timedNanos) throws Exception {
        FunctionSettings fn = FunctionSettings.load(repository, "IngestFunction");
        String queueUrl = "http://127.0.0.1:" + Ports.free() + "/123456789012/pulse-bench-dlq";
        PulseConfig cfg = fn.config(table, queueUrl);
        long arrival = System.currentTimeMillis();
        List<byte[]> data = IngestEndToEndBench.batchData(records, arrival);
        long datapoints = (long) records * IngestEndToEndBench.PER_RECORD;
        ObjectNode out = JSON.createObjectNode();
        List<Double> warm = new ArrayList<>();
        long itemsWritten = 0;
        int batches = 0;
        try (StdoutCapture capture = StdoutCapture.install();
                DynamoDbAsyncClient client = BenchEnv.dynamoAsync(endpoint, cfg.writeConcurrency(), false, List.of());
                SqsClient sqs = IngestEndToEndBench.unusedQueueClient(queueUrl);
                DynamoDbClient reader = BenchEnv.dynamoSync(endpoint)) {
            KinesisEvent firstEvent = batch(data, 0, records, arrival);
            // The init: the handler and its clients built as the runtime builds them before the first invocation.
            long initStart = System.currentTimeMillis();
            long i0 = System.nanoTime();
            IngestHandler handler = IngestHandlerAccess.handler(IngestHandlerAccess.service(cfg, client, sqs),
                    MetricsBuilder.builder().withNamespace("PulseBench").withService("ingest").build(), cfg.safetyMarginMillis());
            double initMillis = (System.nanoTime() - i0) / 1e6;
            long deadline = 0;
            for (int i = 0; ; i++) {
                boolean measured = i > warmUps;
                if (measured && (warm.size() >= timed || (System.nanoTime() > deadline && !warm.isEmpty()))) {
                    break;
                }
                KinesisEvent event = i == 0 ? firstEvent : batch(data, i, records, arrival);
                long emfBefore = capture.emfDocuments();
                long t0 = System.nanoTime();
                StreamsEventResponse response = handler.handleRequest(event,
                        new BenchContext("ingest", "batch-" + i, fn.timeoutSeconds() * 1000L, fn.memoryMb()));
                double millis = (System.nanoTime() - t0) / 1e6;
                if (i == 0) {
                    first(out, initStart, initMillis, millis);
                } else if (measured) {
                    warm.add(millis);
                }
                if (i == warmUps) {
                    deadline = System.nanoTime() + timedNanos; // the timed batches start after this one
                    out.put("timedCompileMillis", -compileMillis());
                }
                batches++;
                if (!response.getBatchItemFailures().isEmpty()) {
                    throw new IllegalStateException("batch " + i + " failed: " + response.getBatchItemFailures());
                }
                if (capture.emfDocuments() != emfBefore + 1) {
                    throw new IllegalStateException("batch " + i + ": expected one EMF document, got "
                            + (capture.emfDocuments() - emfBefore));
                }
                JsonNode doc = JSON.readTree(capture.lastEmf());
                IngestEndToEndBench.expect(doc, "RecordsIn", records);
                IngestEndToEndBench.expect(doc, "DatapointsIn", datapoints);
                IngestEndToEndBench.expect(doc, "PoisonRecords", 0);
                IngestEndToEndBench.expect(doc, "BatchFailures", 0);
                itemsWritten += doc.path("ItemsWritten").asLong(-1);
            }
            out.put("timedCompileMillis", out.path("timedCompileMillis").asLong() + compileMillis());
            // Every batch's partials are in the one table (their slots differ by first sequence number).
            IngestEndToEndBench.Stored stored = IngestEndToEndBench.Stored.read(reader, table);
            if (stored.datapoints() != batches * datapoints) {
                throw new IllegalStateException("the stored partials count " + stored.datapoints() + " datapoints, sent "
                        + batches * datapoints + " in " + batches + " batches");
            }
            if (stored.checkpoints() != 1 || stored.items() - stored.marks() - stored.checkpoints() != itemsWritten) {
                throw new IllegalStateException("EMF ItemsWritten sum to " + itemsWritten + " but the table holds "
                        + (stored.items() - stored.marks() - stored.checkpoints()) + " partials and catalog entries and "
                        + stored.checkpoints() + " checkpoints");
            }
        }
        out.put("invocations", batches);
        out.set("warmMillis", JSON.valueToTree(warm));
        return out;
    }

    /** The JIT's total compilation time so far (all compiler threads). */
    private static long compileMillis() {
        return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    }

    /** The shard's batch number {@code n}: the same records, sequence numbers above those of batch n - 1. */
    private static KinesisEvent batch(List<byte[]> data, int n, int records, long arrival) {
        return Datasets.kinesisEvent(IngestEndToEndBench.SHARD, data, IngestEndToEndBench.FIRST_SEQUENCE + (long) n * records,
                arrival);
    }

    /**
     * The cold figures: the init (handler built), the first invocation, and the first response as the JVM's uptime
     * (JVM start, class loading and static initialisers, init, first invocation).
     */
    private static void first(ObjectNode out, long initStartEpochMillis, double initMillis, double invocationMillis) {
        out.put("initMillis", initMillis);
        out.put("firstInvocationMillis", invocationMillis);
        out.put("firstResponseUptimeMillis", initStartEpochMillis - ManagementFactory.getRuntimeMXBean().getStartTime()
                + initMillis + invocationMillis);
    }

    /**
     * A warm QueryFunction container: one handler asked the benchmark's 100-series day query again and again, page
     * after page. The first query (cold JVM, cold cache) is checked bucket by bucket, and so are the first warm-up
     * query and one more after the timed ones; every invocation must answer 200 with its EMF document.
     */
    private static ObjectNode query(URI endpoint, Path datasetFile, Path repository, int warmUps, int timed,
            long timedNanos) throws Exception {
        QueryDataset data = QueryDataset.load(datasetFile, repository);
        List<String> stats = QueryDataset.dashboardStats();
        ObjectNode out = JSON.createObjectNode();
        List<Double> pages = new ArrayList<>();
        List<Double> queries = new ArrayList<>();
        int invocations = 0;
        try (StdoutCapture capture = StdoutCapture.install();
                DynamoDbAsyncClient client = BenchEnv.dynamoAsync(endpoint, data.config().writeConcurrency() * 4, true,
                        List.of())) {
            long initStart = System.currentTimeMillis();
            long i0 = System.nanoTime();
            QueryHandler handler = data.handler(client, MetricsBuilder.builder().withNamespace("PulseBench")
                    .withService("query").build());
            double initMillis = (System.nanoTime() - i0) / 1e6;
            List<Double> cold = new ArrayList<>();
            invocations += QueryBench.fullQuery(handler, data, stats, true, cold);
            first(out, initStart, initMillis, cold.get(0));
            for (int i = 0; i < warmUps; i++) {
                invocations += QueryBench.fullQuery(handler, data, stats, i == 0);
            }
            long compiled = compileMillis();
            long end = System.nanoTime() + timedNanos;
            while (queries.size() < timed && (queries.isEmpty() || System.nanoTime() < end)) {
                long t0 = System.nanoTime();
                invocations += QueryBench.fullQuery(handler, data, stats, false, pages);
                queries.add((System.nanoTime() - t0) / 1e6);
            }
            out.put("timedCompileMillis", compileMillis() - compiled);
            invocations += QueryBench.fullQuery(handler, data, stats, true);
            if (capture.emfDocuments() != invocations) {
                throw new IllegalStateException(invocations + " invocations wrote " + capture.emfDocuments()
                        + " EMF documents, expected one each");
            }
        }
        out.put("invocations", invocations);
        out.set("warmMillis", JSON.valueToTree(pages));
        out.set("warmQueryMillis", JSON.valueToTree(queries));
        return out;
    }
}
