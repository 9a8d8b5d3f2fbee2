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
import dev.pulse.bench.internal.JfrProfile;
import dev.pulse.codec.Decoded;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestHandler;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import dev.pulse.store.codec.SummaryAttributes;
import dev.pulse.store.read.LatestPartials;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.StdoutCapture;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.LocalDynamoDb;
import dev.pulse.testing.emulator.Ports;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * ingest-end-to-end: one 10,000-record Kinesis batch through the real {@code IngestHandler} (decode, validate,
 * aggregate into minute partials, BatchWriteItem on the CRT async client with the template's write concurrency
 * and backoff) into a fresh DynamoDB Local table, against the naive design: every datapoint its own
 * {@code PutItem}, one after another, on a blocking client.
 */
final class IngestEndToEndBench implements Benchmark {

    static final double TARGET_RATIO = 10;
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int RECORDS = 10_000;
    /** Datapoints a record: a small producer batch (an SDK flushing every few datapoints). */
    static final int PER_RECORD = 5;
    /**
     * The baseline's records in a full run: a contiguous prefix of the batch, because a blocking PutItem costs
     * about a millisecond against DynamoDB Local and all 50,000 would take longer than the whole benchmark may.
     */
    static final int BASELINE_RECORDS = 2_000;

    static final String SHARD = "shardId-000000000000";
    static final long FIRST_SEQUENCE = 1_000_000;

    @Override
    public String name() {
        return "ingest-end-to-end";
    }

    @Override
    public String howToRead() {
        return """
                Datapoints per second through IngestFunction's real handler (`IngestHandler.handleRequest`: decode, \
                validate, minute partials with sketches and exact sums, catalog entries, BatchWriteItem on the AWS CRT \
                async client with the template's default WriteConcurrency, RetryBaseMs/RetryCapMs and SafetyMarginMs, \
                the EMF document) for one batch of 10,000 native NDJSON records of 5 datapoints (50,000 datapoints \
                over 200 series, timestamps within 4 minutes), each batch into a fresh DynamoDB Local table. The \
                figure is the median of 5 batches after one warm-up batch ([min .. max] in the details); every batch \
                is checked afterwards: no batch item failures, one EMF document with the right RecordsIn and \
                DatapointsIn and no poison records, the stored partials' counts summing to every datapoint, and the \
                table holding exactly ItemsWritten items. The baseline is the naive design on the same DynamoDB \
                Local: each record decoded and each datapoint written as its own `PutItem` (a raw-datapoint item), \
                sequentially, on the blocking URL-connection client. A blocking PutItem takes a few milliseconds \
                here, so the whole batch would take minutes: the baseline times the first 2,000 records (10,000 \
                PutItem calls, a contiguous prefix of the same batch) and that rate stands for the batch; it runs 3 \
                times after a warm-up, interleaved with the product batches, and the median counts. The ratio is \
                product over baseline. The tables have the template's keys but no stream: DynamoDB fills a stream \
                asynchronously, while DynamoDB Local runs a query over all its stream records on every write, which \
                made the same batch 10x slower after a few runs. Absolute rates are the emulator's on this machine, \
                not DynamoDB's; the batch's wall time and the items written per datapoint are what docs/capacity.md prices \
                (the catalog entries are written once per series per container, so a warm container writes only the \
                partials). Target: >= 10x.""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        FunctionSettings fn = FunctionSettings.load(env.root(), "IngestFunction");
        int records = env.scale(RECORDS, 1_000);
        int baselineRecords = Math.min(records, env.scale(BASELINE_RECORDS, 200));
        long arrival = System.currentTimeMillis();
        List<byte[]> data = batchData(records, arrival);
        KinesisEvent event = KinesisRecords.event(Datasets.STREAM_ARN, SHARD, data, FIRST_SEQUENCE, arrival);
        long datapoints = (long) records * PER_RECORD;

        String queueUrl = "http://127.0.0.1:" + Ports.free() + "/123456789012/pulse-bench-dlq";
        PulseConfig defaults = fn.config("unused", queueUrl);
        Product product = new Product(
                fn,
                env.dynamoAsync(defaults.writeConcurrency(), false),
                env.dynamoSync(),
                env.track(unusedQueueClient(queueUrl)),
                queueUrl,
                event,
                records,
                datapoints);
        Baseline baseline = new Baseline(env.dynamoSync(), data, arrival, defaults);

        product.run("warm-up");
        baseline.run(Math.min(records, env.scale(400, 50)));
        int productRuns = env.scale(5, 1);
        int baselineRuns = env.scale(3, 1);
        List<Batch> batches = new ArrayList<>();
        List<Double> baselineRates = new ArrayList<>();
        List<Double> putMillis = new ArrayList<>();
        for (int i = 0; i < productRuns; i++) {
            batches.add(product.run("batch-" + i));
            if (i < baselineRuns) {
                double seconds = baseline.run(baselineRecords);
                baselineRates.add(baselineRecords * (double) PER_RECORD / seconds);
                putMillis.add(seconds * 1000 / (baselineRecords * (double) PER_RECORD));
            }
        }

        Samples millis = Samples.of(batches.stream().mapToDouble(Batch::millis).toArray());
        Samples base = Samples.of(
                baselineRates.stream().mapToDouble(Double::doubleValue).toArray());
        double rate = datapoints / (millis.median() / 1000);
        double ratio = rate / base.median();
        boolean met = ratio >= TARGET_RATIO;
        Batch last = batches.get(batches.size() - 1);
        long retries = batches.stream().mapToLong(Batch::retries).sum();
        long throttles = batches.stream().mapToLong(Batch::throttles).sum();
        long unprocessed = batches.stream().mapToLong(Batch::unprocessed).sum();

        List<String> details = new ArrayList<>();
        details.add("batch wall time: " + millis.spread("%,.0f") + " batches, ms (" + Format.count(records)
                + " records, " + Format.count(datapoints) + " datapoints; WriteConcurrency "
                + defaults.writeConcurrency() + ")");
        details.add("items written a batch: " + last.itemsWritten() + " (" + last.partials() + " minute partials, "
                + last.catalogItems() + " catalog entries of a cold container), "
                + String.format(Locale.ROOT, "%.4f", last.itemsWritten() / (double) datapoints) + " items a datapoint; "
                + String.format(Locale.ROOT, "%.4f", last.partials() / (double) datapoints) + " partials a datapoint");
        details.add("over the measured batches: " + retries + " write retries, " + throttles + " throttles, "
                + unprocessed + " unprocessed items (EMF WriteRetries/Throttles/UnprocessedItems)");
        details.add("baseline: " + base.spread("%,.0f") + " runs, datapoints/s, timing the first "
                + Format.count(baselineRecords) + " records (" + Format.count(baselineRecords * (long) PER_RECORD)
                + " PutItem calls) of the batch; "
                + Format.millis(Samples.of(putMillis.stream()
                                .mapToDouble(Double::doubleValue)
                                .toArray())
                        .median())
                + " a PutItem (decode included); the whole batch would take about "
                + String.format(Locale.ROOT, "%.0f s", datapoints / base.median()));
        if (!met) {
            details.addAll(JfrProfile.profile(
                    "IngestHandler, one " + Format.count(records) + "-record batch",
                    () -> product.run("profiled"),
                    null));
        }

        Map<String, Double> values = new LinkedHashMap<>();
        values.put("records", (double) records);
        values.put("datapoints", (double) datapoints);
        values.put("batchMillis", millis.median());
        values.put("batchMillisMin", millis.min());
        values.put("batchMillisMax", millis.max());
        values.put("datapointsPerSecond", rate);
        values.put("baselineDatapointsPerSecond", base.median());
        values.put(
                "baselinePutItemMillis",
                Samples.of(putMillis.stream().mapToDouble(Double::doubleValue).toArray())
                        .median());
        values.put("baselineDatapointsTimed", (double) baselineRecords * PER_RECORD);
        values.put("ratio", ratio);
        values.put("itemsWritten", (double) last.itemsWritten());
        values.put("partialItems", (double) last.partials());
        values.put("catalogItems", (double) last.catalogItems());
        values.put("itemsPerDatapoint", last.itemsWritten() / (double) datapoints);
        values.put("writeRetries", (double) retries);
        values.put("throttles", (double) throttles);
        values.put("writeConcurrency", (double) defaults.writeConcurrency());
        return new Result(
                name(),
                Format.count(rate) + " datapoints/s (a " + Format.count(records) + "-record batch of "
                        + Format.count(datapoints) + " datapoints in " + Format.count(millis.median()) + " ms)",
                "one blocking PutItem a datapoint " + Format.count(base.median()) + " datapoints/s",
                Format.times(ratio),
                ">= 10x",
                met,
                details,
                values);
    }

    /**
     * The batch's records: native NDJSON of {@link #PER_RECORD} datapoints over 200 series, stamped within the few
     * minutes before {@code arrival}, as a live stream carries them (the handler's clock is the real one).
     */
    static List<byte[]> batchData(int records, long arrival) {
        return Datasets.ndjson(records, PER_RECORD, arrival - 300_000, 240_000, 23);
    }

    /** What one product batch did, as measured and as checked afterwards. */
    record Batch(
            double millis,
            long itemsWritten,
            long partials,
            long catalogItems,
            long retries,
            long throttles,
            long unprocessed) {}

    /** The handler side: a fresh table, service and handler a batch, as a new container on a new table. */
    private static final class Product {
        private final FunctionSettings fn;
        private final DynamoDbAsyncClient async;
        private final DynamoDbClient reader;
        private final SqsClient sqs;
        private final String queueUrl;
        private final KinesisEvent event;
        private final int records;
        private final long datapoints;
        private final Metrics metrics = PulseMetrics.create("PulseBench", "ingest");

        Product(
                FunctionSettings fn,
                DynamoDbAsyncClient async,
                DynamoDbClient reader,
                SqsClient sqs,
                String queueUrl,
                KinesisEvent event,
                int records,
                long datapoints) {
            this.fn = fn;
            this.async = async;
            this.reader = reader;
            this.sqs = sqs;
            this.queueUrl = queueUrl;
            this.event = event;
            this.records = records;
            this.datapoints = datapoints;
        }

        Batch run(String requestId) throws Exception {
            String table = StreamlessTables.create(reader, "ingest-e2e");
            try {
                return run(requestId, table);
            } finally {
                StreamlessTables.delete(reader, table);
            }
        }

        private Batch run(String requestId, String table) throws Exception {
            PulseConfig cfg = fn.config(table, queueUrl);
            IngestHandler handler =
                    IngestFunction.handler(IngestFunction.service(cfg, async, sqs), metrics, cfg.safetyMarginMillis());
            TestContext context =
                    new TestContext("bench-ingest", requestId, fn.timeoutSeconds() * 1000L, fn.memoryMb());

            StreamsEventResponse response;
            double millis;
            long emfDocuments;
            String emf;
            try (StdoutCapture out = StdoutCapture.install()) {
                long start = System.nanoTime();
                response = handler.handleRequest(event, context);
                millis = (System.nanoTime() - start) / 1e6;
                emfDocuments = out.emfDocuments();
                emf = out.lastEmf();
            }

            if (!response.getBatchItemFailures().isEmpty()) {
                throw new IllegalStateException("the batch failed: " + response.getBatchItemFailures());
            }
            if (emfDocuments != 1) {
                throw new IllegalStateException("expected one EMF document, got " + emfDocuments);
            }
            JsonNode doc = JSON.readTree(emf);
            expect(doc, "RecordsIn", records);
            expect(doc, "DatapointsIn", datapoints);
            expect(doc, "PoisonRecords", 0);
            expect(doc, "BatchFailures", 0);
            long itemsWritten = doc.path("ItemsWritten").asLong(-1);

            Stored stored = Stored.read(reader, table);
            if (stored.datapoints() != datapoints) {
                throw new IllegalStateException(
                        "the stored partials count " + stored.datapoints() + " datapoints, sent " + datapoints);
            }
            if (stored.items() - stored.marks() - stored.checkpoints() != itemsWritten) {
                throw new IllegalStateException("EMF ItemsWritten " + itemsWritten + " but the table holds "
                        + (stored.items() - stored.marks() - stored.checkpoints()) + " partials and catalog entries");
            }
            if (stored.checkpoints() != 1) {
                throw new IllegalStateException(
                        "expected the shard's checkpoint item, the table holds " + stored.checkpoints());
            }
            if (stored.marks() != doc.path("MarksWritten").asLong(-1)) {
                throw new IllegalStateException("EMF MarksWritten " + doc.path("MarksWritten") + " but the table holds "
                        + stored.marks() + " marked rollup items");
            }
            return new Batch(
                    millis,
                    itemsWritten,
                    stored.partials(),
                    stored.items() - stored.partials() - stored.marks() - stored.checkpoints(),
                    doc.path("WriteRetries").asLong(),
                    doc.path("Throttles").asLong(),
                    doc.path("UnprocessedItems").asLong());
        }
    }

    /** The EMF document's {@code metric} is {@code want}, or the batch's answer is wrong. */
    static void expect(JsonNode doc, String metric, long want) {
        if (!doc.has(metric) || doc.get(metric).asLong() != want) {
            throw new IllegalStateException(
                    "EMF " + metric + " is " + doc.get(metric) + ", expected " + want + ": " + doc);
        }
    }

    /**
     * The table's items after a batch: minute partials and the datapoints they count (the newest generation of each
     * slot, {@link LatestPartials#newestOf}), rollup items holding only a compaction mark (set by ingest before the partials), shard
     * checkpoints ({@code W#}, one per shard: not counted in ItemsWritten), and everything else.
     */
    record Stored(long items, long partials, long datapoints, long marks, long checkpoints) {

        static Stored read(DynamoDbClient reader, String table) {
            long items = 0;
            long partials = 0;
            long datapoints = 0;
            long marks = 0;
            long checkpoints = 0;
            List<Map<String, AttributeValue>> stored = new ArrayList<>();
            for (Map<String, AttributeValue> item :
                    reader.scanPaginator(b -> b.tableName(table)).items()) {
                items++;
                if (item.get(KeyScheme.PK).s().startsWith("W#")) {
                    checkpoints++;
                } else if (item.get(KeyScheme.PK).s().startsWith("P#")) {
                    partials++;
                    stored.add(item);
                } else if (item.containsKey(dev.pulse.store.write.CompactMarks.MARKED)) {
                    marks++;
                }
            }
            for (Map<String, AttributeValue> item :
                    LatestPartials.newestOf(stored)) { // the newest generation of each slot, as readers sum
                datapoints += SummaryAttributes.read(item, false).count();
            }
            return new Stored(items, partials, datapoints, marks, checkpoints);
        }
    }

    /** The naive design: decode a record, then one blocking PutItem per datapoint, into a fresh table. */
    private static final class Baseline {
        private final DynamoDbClient client;
        private final List<byte[]> data;
        private final long arrival;
        private final RecordDecoder decoder;

        Baseline(DynamoDbClient client, List<byte[]> data, long arrival, PulseConfig cfg) {
            this.client = client;
            this.data = data;
            this.arrival = arrival;
            this.decoder =
                    new RecordDecoder(new DatapointValidator(Clock.systemUTC(), cfg.acceptPast(), cfg.acceptFuture()));
        }

        /** Writes the first {@code records} records' datapoints; the seconds it took. */
        double run(int records) throws Exception {
            String table = StreamlessTables.create(client, "ingest-e2e-baseline");
            try {
                return run(records, table);
            } finally {
                StreamlessTables.delete(client, table);
            }
        }

        private double run(int records, String table) throws Exception {
            long written = 0;
            long start = System.nanoTime();
            for (int r = 0; r < records; r++) {
                Decoded d = decoder.decode(data.get(r), arrival);
                String sequence = KinesisRecords.sequence(FIRST_SEQUENCE + r);
                List<Datapoint> points = d.datapoints();
                for (int i = 0; i < points.size(); i++) {
                    Map<String, AttributeValue> item = rawItem(points.get(i), sequence, i);
                    client.putItem(b -> b.tableName(table).item(item));
                    written++;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            // Scan counts at most 1 MB of items a page.
            long stored = 0;
            for (ScanResponse page :
                    client.scanPaginator(b -> b.tableName(table).select(Select.COUNT))) {
                stored += page.count();
            }
            if (stored != written || written != (long) records * PER_RECORD) {
                throw new IllegalStateException("baseline wrote " + written + " datapoints, the table holds " + stored);
            }
            return seconds;
        }
    }

    /** A raw datapoint item: partition by series and minute, sorted by time, unique by its record and position. */
    static Map<String, AttributeValue> rawItem(Datapoint p, String sequence, int index) {
        Map<String, AttributeValue> item = new LinkedHashMap<>(8);
        item.put(KeyScheme.PK, AttributeValue.fromS("R#" + p.seriesKey() + "#" + KeyScheme.minute(p.timestamp())));
        item.put(KeyScheme.SK, AttributeValue.fromS(p.timestamp() + "#" + sequence + "#" + index));
        item.put("value", AttributeValue.fromN(Double.toString(p.value())));
        if (p.unit() != null) {
            item.put("unit", AttributeValue.fromS(p.unit()));
        }
        return item;
    }

    /**
     * A client of a queue on a loopback port nothing listens on: the data has no poison records, so the
     * dead-letter queue is never called (each batch checks PoisonRecords is 0); were it called, the batch would
     * fail on the refused connection rather than pass unnoticed.
     */
    static SqsClient unusedQueueClient(String queueUrl) {
        URI queue = URI.create(queueUrl);
        return SqsClient.builder()
                .endpointOverride(URI.create(queue.getScheme() + "://" + queue.getAuthority()))
                .region(Region.US_EAST_1)
                .credentialsProvider(LocalDynamoDb.credentials())
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(3)))
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofSeconds(5)))
                .build();
    }
}
