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
import dev.pulse.aggregate.Summary;
import dev.pulse.config.PulseConfig;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.model.SeriesKey;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.SummaryAttributes;
import dev.pulse.store.read.LatestPartials;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.ShardCheckpoints;
import dev.pulse.testing.FaultInjectingDynamoDb;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.MutableClock;
import dev.pulse.testing.RecordingSqs;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;

/**
 * One test's world for {@link IngestService}: a fresh table in the test class's DynamoDB Local, the production
 * wiring ({@link IngestFunction#service}) on a fault-injecting client, an in-memory dead-letter queue and a clock
 * that stands still; plus what the tests read back: the stored partials as a reader sums them, the shard's
 * checkpoint, and the totals a direct computation from the input gives.
 */
final class IngestFixture {

    static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");
    static final String SHARD = "shardId-000000000000";
    static final String DLQ_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/pulse-dlq";
    /** The checkpoint key of {@link #SHARD} of the stream KinesisRecords names. */
    static final String CHECKPOINT = ShardCheckpoints.key("pulse-test", SHARD);

    private static final AtomicInteger TABLES = new AtomicInteger();

    final String table = "ingest-" + TABLES.incrementAndGet();
    final DynamoDbClient reader;
    final FaultInjectingDynamoDb dynamo;
    final RecordingSqs sqs = new RecordingSqs();
    final MutableClock clock = new MutableClock(NOW);
    final PulseConfig config;
    /** Every attempt's counters, in order. */
    final List<InvocationMetrics<IngestMetric>> attempts = new ArrayList<>();

    IngestFixture(LocalDynamoDb local, DynamoDbAsyncClient async, DynamoDbClient reader, Map<String, String> env) {
        this.reader = reader;
        LocalDynamoDb.createTable(reader, table);
        this.dynamo = new FaultInjectingDynamoDb(async, 42);
        this.config = TestConfig.of(table, DLQ_URL, env);
    }

    /** The production wiring of a new container (its own series and mark memory) on this fixture's clients. */
    IngestService service() {
        return IngestFunction.service(config, dynamo, sqs, clock);
    }

    /** As {@link #service()}, with the decoder wrapped (a record that fails every attempt, a slow one). */
    IngestService service(UnaryOperator<IngestService.UnitDecoder> decoder) {
        return IngestFunction.service(config, dynamo, sqs, clock, decoder);
    }

    /** One attempt with {@code millis} left before its deadline; its counters are kept in {@link #attempts}. */
    IngestResult attempt(IngestService service, List<KinesisEvent.KinesisEventRecord> batch, long millis) {
        InvocationMetrics<IngestMetric> metrics = new InvocationMetrics<>(IngestMetric.class);
        attempts.add(metrics);
        return service.ingest(batch, Deadline.inMillis(millis), metrics);
    }

    IngestResult attempt(IngestService service, List<KinesisEvent.KinesisEventRecord> batch) {
        return attempt(service, batch, 30_000);
    }

    /**
     * Delivers {@code batch} the way the event source mapping does with ReportBatchItemFailures: after a reported
     * record (a failure, or a batch that ended early), the next attempt starts at that record. Returns the results,
     * stopping after {@code maxAttempts}.
     */
    List<IngestResult> deliver(IngestService service, List<KinesisEvent.KinesisEventRecord> batch, int maxAttempts) {
        List<IngestResult> results = new ArrayList<>();
        List<KinesisEvent.KinesisEventRecord> pending = batch;
        while (!pending.isEmpty() && results.size() < maxAttempts) {
            IngestResult r = attempt(service, pending);
            results.add(r);
            pending = r.failedSequence() == null ? List.of() : from(pending, r.failedSequence());
        }
        return results;
    }

    /** The records of {@code batch} from the one with {@code sequence} on. */
    static List<KinesisEvent.KinesisEventRecord> from(List<KinesisEvent.KinesisEventRecord> batch, String sequence) {
        for (int i = 0; i < batch.size(); i++) {
            if (batch.get(i).getKinesis().getSequenceNumber().equals(sequence)) {
                return batch.subList(i, batch.size());
            }
        }
        throw new IllegalArgumentException("no record " + sequence + " in the batch");
    }

    /** {@code metric} summed over every attempt so far. */
    long total(IngestMetric metric) {
        return attempts.stream().mapToLong(m -> m.count(metric)).sum();
    }

    // ---- input ------------------------------------------------------------------------------------------------

    /** A native JSON datapoint. */
    static String datapoint(String name, String host, long ts, double value) {
        return String.format(
                Locale.ROOT,
                "{\"name\":\"%s\",\"dims\":{\"host\":\"%s\"},\"ts\":%d,\"value\":%s,\"unit\":\"Count\"}",
                name,
                host,
                ts,
                Double.toString(value));
    }

    /** Record {@code n} of {@link #SHARD}, arrived at {@link #NOW}. */
    static KinesisEvent.KinesisEventRecord record(long n, String json) {
        return KinesisRecords.record(SHARD, n, "pk-" + n, json.getBytes(StandardCharsets.UTF_8), NOW.toEpochMilli());
    }

    /**
     * {@code count} records, numbered from {@code first}: one datapoint each, of {@code series} series (host h0..)
     * in turn, each round of them one minute further back, over the {@code minutes} minutes before {@link #NOW}; with
     * integer values, so sums compare exactly.
     */
    static List<KinesisEvent.KinesisEventRecord> records(int first, int count, int series, int minutes) {
        List<KinesisEvent.KinesisEventRecord> out = new ArrayList<>(count);
        for (int i = first; i < first + count; i++) {
            long ts = NOW.toEpochMilli() - 60_000L * (1 + (i / series) % minutes) + 1_000L * (i % 50);
            out.add(record(i, datapoint("requests", "h" + (i % series), ts, 1 + i % 7)));
        }
        return out;
    }

    /** What a reader must find for {@code records}: per series, per minute start, count / sum / min / max. */
    static Map<String, Map<Long, List<Double>>> expected(List<KinesisEvent.KinesisEventRecord> records) {
        Map<String, Map<Long, List<Double>>> out = new TreeMap<>();
        for (KinesisEvent.KinesisEventRecord r : records) {
            String json = StandardCharsets.UTF_8
                    .decode(r.getKinesis().getData().duplicate())
                    .toString();
            com.fasterxml.jackson.databind.JsonNode n;
            try {
                n = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            String series = SeriesKey.of(
                    n.get("name").asText(),
                    Map.of("host", n.get("dims").get("host").asText()));
            long minute = Math.floorDiv(n.get("ts").asLong(), 60_000L) * 60_000L;
            double v = n.get("value").asDouble();
            out.computeIfAbsent(series, k -> new TreeMap<>())
                    .merge(
                            minute,
                            List.of(1.0, v, v, v),
                            (a, b) -> List.of(
                                    a.get(0) + 1,
                                    a.get(1) + b.get(1),
                                    Math.min(a.get(2), b.get(2)),
                                    Math.max(a.get(3), b.get(3))));
        }
        return out;
    }

    // ---- what is stored ---------------------------------------------------------------------------------------

    List<Map<String, AttributeValue>> items() {
        return reader
                .scanPaginator(ScanRequest.builder()
                        .tableName(table)
                        .consistentRead(true)
                        .build())
                .items()
                .stream()
                .toList();
    }

    /** Every partial item, every generation. */
    List<Map<String, AttributeValue>> partialItems() {
        return items().stream()
                .filter(i -> i.get(KeyScheme.PK).s().startsWith("P#"))
                .toList();
    }

    /**
     * What a reader sums (the newest generation of each slot, {@link LatestPartials}), per series and minute, as
     * count / sum / min / max; a (series, minute) whose partials are all empty placeholders is left out.
     */
    Map<String, Map<Long, List<Double>>> stored() {
        Map<String, Map<Long, Summary>> merged = new TreeMap<>();
        for (Map<String, AttributeValue> item : LatestPartials.newestOf(partialItems())) {
            String pk = item.get(KeyScheme.PK).s();
            long minute = KeyScheme.partialMinute(pk, item.get(KeyScheme.SK).s());
            merged.computeIfAbsent(KeyScheme.seriesKey(pk), k -> new TreeMap<>())
                    .computeIfAbsent(minute, k -> new Summary())
                    .merge(SummaryAttributes.read(item));
        }
        Map<String, Map<Long, List<Double>>> out = new TreeMap<>();
        merged.forEach((series, minutes) -> minutes.forEach((minute, s) -> {
            if (s.count() > 0) {
                out.computeIfAbsent(series, k -> new TreeMap<>())
                        .put(minute, List.of((double) s.count(), s.sum(), s.min(), s.max()));
            }
        }));
        return out;
    }

    /** Datapoints a reader counts, all series and minutes. */
    long storedCount() {
        return stored().values().stream()
                .flatMap(m -> m.values().stream())
                .mapToLong(v -> v.get(0).longValue())
                .sum();
    }

    /** The checkpoint item ({@link ShardCheckpoints}) of {@link #SHARD} of the test stream, or an empty map. */
    Map<String, AttributeValue> checkpoint() {
        return checkpoint(CHECKPOINT);
    }

    private Map<String, AttributeValue> checkpoint(String key) {
        Map<String, AttributeValue> item = reader.getItem(b -> b.tableName(table)
                        .consistentRead(true)
                        .key(Map.of(KeyScheme.PK, AttributeValue.fromS(key), KeyScheme.SK, AttributeValue.fromS("w"))))
                .item();
        return item == null ? Map.of() : item;
    }

    /** The committed position of {@link #SHARD} of the test stream, or null. */
    String committed() {
        return committed("pulse-test");
    }

    /** The committed position of {@link #SHARD} of {@code stream} (the bundled events' is pulse-stream), or null. */
    String committed(String stream) {
        AttributeValue w = checkpoint(ShardCheckpoints.key(stream, SHARD)).get(ShardCheckpoints.COMMITTED);
        return w == null ? null : w.s();
    }

    long checkpointNumber(String attribute) {
        AttributeValue v = checkpoint().get(attribute);
        return v == null ? 0 : Long.parseLong(v.n());
    }

    /** The reason of each DLQ message, by sequence number. */
    Map<String, String> deadLetterReasons() {
        Map<String, String> out = new TreeMap<>();
        for (RecordingSqs.Message m : sqs.messages()) {
            try {
                com.fasterxml.jackson.databind.JsonNode body =
                        new com.fasterxml.jackson.databind.ObjectMapper().readTree(m.body());
                out.put(body.get("sequenceNumber").asText(), body.get("reason").asText());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return out;
    }
}
