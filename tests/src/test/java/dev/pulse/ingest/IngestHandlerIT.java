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
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.config.PulseConfig;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.write.CompactMarks;
import dev.pulse.store.write.MarkMemory;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.ExpectedResults;
import dev.pulse.testing.StdoutCapture;
import dev.pulse.testing.StoredPartials;
import dev.pulse.testing.StoredPartials.Summary;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * IngestFunction's handler on the fixtures in events/ (the files a user passes to {@code sam local invoke}),
 * against DynamoDB Local and a real SQS endpoint (moto) on 127.0.0.1.
 */
@ExtendWith(Emulators.class)
class IngestHandlerIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger STACKS = new AtomicInteger();

    @ParameterizedTest
    @ValueSource(
            strings = {
                "ingest-kinesis-native.json",
                "ingest-kinesis-cwlogs.json",
                "ingest-kinesis-poison.json",
                "ingest-kinesis-kpl.json",
                "ingest-kinesis-otlp.json"
            })
    void handleRequest_whenFixtureEvent_storesExactlyTheExpectedAggregates(String eventFile) {
        ExpectedResults expected = ExpectedResults.forEvent(eventFile);
        Stack stack = new Stack(expected.now());

        StreamsEventResponse response = stack.invoke(eventFile);

        assertThat(response.getBatchItemFailures()).isEmpty();
        Map<String, Map<Long, Summary>> stored = StoredPartials.read(stack.reader, stack.table);
        assertThat(stored.keySet())
                .containsExactlyInAnyOrderElementsOf(expected.series().keySet());
        expected.series().forEach((series, minutes) -> {
            assertThat(stored.get(series).keySet()).as(series).isEqualTo(minutes.keySet());
            minutes.forEach((minute, want) -> {
                Summary got = stored.get(series).get(minute);
                assertThat(got.count()).as(series + " count").isEqualTo(want.count());
                assertThat(got.min()).as(series + " min").isEqualTo(want.min());
                assertThat(got.max()).as(series + " max").isEqualTo(want.max());
                assertThat(got.sum()).as(series + " sum").isEqualTo(want.sum());
            });
        });
        assertThat(StoredPartials.sketchMismatches(stack.reader, stack.table)).isEmpty();

        assertThat(catalog(stack))
                .containsExactlyInAnyOrderElementsOf(expected.series().keySet());
        assertThat(Emulators.sqs().drain(stack.queueUrl)).hasSize(expected.poisonRecords());
    }

    @Test
    void handleRequest_whenOnePoisonRecordAmongGood_sendsItToDlqWithReasonAndDoesNotFailBatch() throws Exception {
        String eventFile = "ingest-kinesis-poison.json";
        ExpectedResults expected = ExpectedResults.forEvent(eventFile);
        Stack stack = new Stack(expected.now());
        KinesisEvent event =
                EventLoader.loadKinesisEvent(ExpectedResults.event(eventFile).toString());

        StreamsEventResponse response = stack.handler.handleRequest(event, new TestContext("req-poison", 60_000, 1024));

        assertThat(response.getBatchItemFailures()).isEmpty();
        long storedDatapoints = storedDatapoints(stack);
        assertThat(storedDatapoints).isEqualTo(expected.datapoints());

        List<Message> messages = Emulators.sqs().drain(stack.queueUrl);
        assertThat(messages).hasSize(1);
        JsonNode body = JSON.readTree(messages.get(0).body());
        String poisonSeq = expected.poisonSequenceNumbers().get(0);
        KinesisEvent.Record poison = record(event, poisonSeq);
        byte[] data = bytes(poison.getData());
        assertThat(body.get("kind").asText()).isEqualTo("poison");
        assertThat(body.get("source").asText()).isEqualTo("IngestFunction");
        assertThat(body.get("sequenceNumber").asText()).isEqualTo(poisonSeq);
        assertThat(body.get("shardId").asText()).isEqualTo("shardId-000000000000");
        assertThat(body.get("partitionKey").asText()).isEqualTo(poison.getPartitionKey());
        assertThat(body.get("reason").asText()).startsWith("invalid JSON");
        assertThat(body.get("payloadBytes").asInt()).isEqualTo(data.length);
        assertThat(Base64.getDecoder().decode(body.get("payloadHeadBase64").asText()))
                .isEqualTo(Arrays.copyOf(data, Math.min(1024, data.length)));
        assertThat(messages.get(0).messageAttributes().get("sequenceNumber").stringValue())
                .isEqualTo(poisonSeq);
    }

    @Test
    void handleRequest_whenRecordHasNoArrivalTimestamp_sendsItToDlqWithThatReasonAndStoresTheRest() throws Exception {
        // The fixture's invalid-JSON record, without its arrival time: refused for that before it is decoded, so
        // every attempt refuses it the same way whatever the clock says.
        String eventFile = "ingest-kinesis-poison.json";
        ExpectedResults expected = ExpectedResults.forEvent(eventFile);
        Stack stack = new Stack(expected.now());
        KinesisEvent event =
                EventLoader.loadKinesisEvent(ExpectedResults.event(eventFile).toString());
        String poisonSeq = expected.poisonSequenceNumbers().get(0);
        KinesisEvent.Record poison = record(event, poisonSeq);
        poison.setApproximateArrivalTimestamp(null);

        StreamsEventResponse response =
                stack.handler.handleRequest(event, new TestContext("req-no-arrival", 60_000, 1024));

        assertThat(response.getBatchItemFailures()).isEmpty();
        long storedDatapoints = storedDatapoints(stack);
        assertThat(storedDatapoints).isEqualTo(expected.datapoints());
        List<Message> messages = Emulators.sqs().drain(stack.queueUrl);
        assertThat(messages).hasSize(1);
        JsonNode body = JSON.readTree(messages.get(0).body());
        assertThat(body.get("kind").asText()).isEqualTo("poison");
        assertThat(body.get("sequenceNumber").asText()).isEqualTo(poisonSeq);
        assertThat(body.get("reason").asText())
                .isEqualTo(IngestService.NO_ARRIVAL)
                .startsWith("record without approximateArrivalTimestamp");
        assertThat(body.get("payloadBytes").asInt()).isEqualTo(bytes(poison.getData()).length);
    }

    @Test
    void handleRequest_whenBatchesHavePoison_logsOneWarnLinePerBatchWithTheCountAndTheFirstReason() throws Exception {
        String eventFile = "ingest-kinesis-poison.json";
        ExpectedResults expected = ExpectedResults.forEvent(eventFile);
        Stack stack = new Stack(expected.now());
        // Two poison records in the batch: a good record without its arrival time, ahead of the invalid JSON one.
        KinesisEvent first = shifted(eventFile, 0);
        KinesisEvent.Record noArrival = first.getRecords().get(0).getKinesis();
        assertThat(noArrival.getSequenceNumber())
                .isNotEqualTo(expected.poisonSequenceNumbers().get(0));
        noArrival.setApproximateArrivalTimestamp(null);
        // The next batch of the shard: the same data under later sequence numbers, only the invalid JSON poison.
        KinesisEvent second = shifted(eventFile, 1_000);
        // And one without poison.
        KinesisEvent clean = shifted("ingest-kinesis-native.json", 1_000_000);

        List<JsonNode> firstLines =
                jsonLines(() -> stack.handler.handleRequest(first, new TestContext("req-1", 60_000, 1024)));
        List<JsonNode> secondLines =
                jsonLines(() -> stack.handler.handleRequest(second, new TestContext("req-2", 60_000, 1024)));
        List<JsonNode> cleanLines =
                jsonLines(() -> stack.handler.handleRequest(clean, new TestContext("req-3", 60_000, 1024)));

        List<JsonNode> firstWarns = warnings(firstLines);
        assertThat(firstWarns).hasSize(1);
        assertThat(firstWarns.get(0).get("message").asText())
                .startsWith("2 poison record(s) sent to the dead-letter queue; first: shardId-000000000000 "
                        + noArrival.getSequenceNumber() + ": " + IngestService.NO_ARRIVAL);
        List<JsonNode> secondWarns = warnings(secondLines);
        assertThat(secondWarns).hasSize(1);
        String shiftedPoison = new java.math.BigInteger(
                        expected.poisonSequenceNumbers().get(0))
                .add(java.math.BigInteger.valueOf(1_000))
                .toString();
        assertThat(secondWarns.get(0).get("message").asText())
                .startsWith("1 poison record(s) sent to the dead-letter queue; first: shardId-000000000000 "
                        + shiftedPoison + ": invalid JSON");
        assertThat(warnings(cleanLines)).isEmpty();
        assertThat(Emulators.sqs().drain(stack.queueUrl)).hasSize(3);
    }

    @Test
    void handleRequest_whenTheSameBatchIsDeliveredTwice_theSecondWritesNothingAndCountsAlreadyStoredRecords()
            throws Exception {
        String eventFile = "ingest-kinesis-poison.json";
        ExpectedResults expected = ExpectedResults.forEvent(eventFile);
        Stack stack = new Stack(expected.now());

        List<JsonNode> first = emfDocuments(() -> stack.invoke(eventFile));
        Map<String, Map<String, AttributeValue>> before = items(stack);
        Emulators.sqs().drain(stack.queueUrl);
        List<JsonNode> second = emfDocuments(() -> stack.invoke(eventFile));

        assertThat(first).hasSize(1);
        assertThat(first.get(0).get("AlreadyStoredRecords").asDouble()).isZero();
        assertThat(first.get(0).get("PoisonRecords").asDouble()).isEqualTo(expected.poisonRecords());
        JsonNode doc = second.get(0);
        assertThat(second).hasSize(1);
        assertThat(doc.get("RecordsIn").asDouble()).isEqualTo(expected.records());
        assertThat(doc.get("AlreadyStoredRecords").asDouble()).isEqualTo(expected.records());
        assertThat(doc.get("DatapointsIn").asDouble()).isZero();
        assertThat(doc.get("ItemsWritten").asDouble()).isZero();
        assertThat(doc.get("MarksWritten").asDouble()).isZero();
        assertThat(doc.get("PoisonRecords").asDouble())
                .as("poison went to the DLQ with the first delivery")
                .isZero();
        assertThat(doc.get("BatchFailures").asDouble()).isZero();
        assertThat(doc.get("SupersededAttempts").asDouble()).isZero();
        assertThat(Emulators.sqs().drain(stack.queueUrl)).isEmpty();

        // The table is as the first delivery left it, but for the generation the second attempt took.
        Map<String, Map<String, AttributeValue>> after = items(stack);
        String checkpoint = "W#pulse-stream#shardId-000000000000|w";
        assertThat(after.keySet()).isEqualTo(before.keySet()).contains(checkpoint);
        Map<String, Map<String, AttributeValue>> unchangedBefore = new TreeMap<>(before);
        Map<String, Map<String, AttributeValue>> unchangedAfter = new TreeMap<>(after);
        unchangedBefore.remove(checkpoint);
        unchangedAfter.remove(checkpoint);
        assertThat(unchangedAfter).isEqualTo(unchangedBefore);
        String last = shifted(eventFile, 0)
                .getRecords()
                .get(expected.records() - 1)
                .getKinesis()
                .getSequenceNumber();
        assertThat(after.get(checkpoint).get("w").s())
                .isEqualTo(before.get(checkpoint).get("w").s())
                .isEqualTo(last);
        assertThat(Long.parseLong(after.get(checkpoint).get("g").n()))
                .isEqualTo(Long.parseLong(before.get(checkpoint).get("g").n()) + 1);
    }

    @Test
    void handleRequest_whenInvokedTwice_printsOneEmfDocumentPerInvocationWithTheCounters() throws Exception {
        String eventFile = "ingest-kinesis-cwlogs.json";
        ExpectedResults expected = ExpectedResults.forEvent(eventFile);
        Stack stack = new Stack(expected.now());

        List<JsonNode> first = emfDocuments(() -> stack.invoke(eventFile));
        // The shard's next batch, with the same data (the same series and periods) under later sequence numbers:
        // a redelivery of the first one would be skipped as already stored.
        KinesisEvent next = shifted(eventFile, 1_000);
        List<JsonNode> second =
                emfDocuments(() -> stack.handler.handleRequest(next, new TestContext("req-next", 60_000, 1024)));

        assertThat(first).hasSize(1);
        assertThat(second).hasSize(1);
        JsonNode doc = first.get(0);
        JsonNode directive = doc.get("_aws").get("CloudWatchMetrics").get(0);
        assertThat(directive.get("Namespace").asText()).isEqualTo("PulseTest");
        List<String> names = new ArrayList<>();
        directive.get("Metrics").forEach(m -> names.add(m.get("Name").asText()));
        assertThat(names)
                .containsExactlyInAnyOrder(
                        "RecordsIn",
                        "DatapointsIn",
                        "PoisonRecords",
                        "SkippedEvents",
                        "ItemsWritten",
                        "MarksWritten",
                        "WriteRetries",
                        "Throttles",
                        "UnprocessedItems",
                        "BatchFailures",
                        "AlreadyStoredRecords",
                        "ResentRecords",
                        "SupersededAttempts",
                        "RecordFailures",
                        "RecordsSetAside",
                        "RecoveryAttempts",
                        "BatchesEndedEarly",
                        "IngestLagMs",
                        "ColdStart");
        // One C# entry per series, one N# entry per metric name, and the catalog's version after them.
        int catalogEntries = 1
                + expected.series().size()
                + (int) expected.series().keySet().stream()
                        .map(k -> k.substring(0, k.indexOf('{')))
                        .distinct()
                        .count();
        assertThat(doc.get("RecordsIn").asDouble()).isEqualTo(expected.records());
        assertThat(doc.get("DatapointsIn").asDouble()).isEqualTo(expected.datapoints());
        assertThat(doc.get("SkippedEvents").asDouble()).isEqualTo(expected.skippedEvents());
        assertThat(doc.get("PoisonRecords").asDouble()).isZero();
        assertThat(doc.get("ItemsWritten").asDouble()).isEqualTo(expected.partials() + catalogEntries);
        assertThat(doc.get("BatchFailures").asDouble()).isZero();
        assertThat(doc.get("ColdStart").asDouble()).isEqualTo(1);
        assertThat(doc.get("IngestLagMs").asDouble()).isNotNegative();

        // One mark per (series, hour) and (series, day) the batch touches.
        List<CompactMarks.Mark> marks = marks(expected, stack.config);
        assertThat(doc.get("MarksWritten").asDouble()).isEqualTo(marks.size());

        // Warm container: no cold start, the catalog is not written again, and neither is a mark the container
        // set for a period no build can have consumed yet (the rest are written again).
        assertThat(second.get(0).get("ColdStart").asDouble()).isZero();
        assertThat(second.get(0).get("AlreadyStoredRecords").asDouble()).isZero();
        assertThat(second.get(0).get("DatapointsIn").asDouble()).isEqualTo(expected.datapoints());
        assertThat(second.get(0).get("ItemsWritten").asDouble()).isEqualTo(expected.partials());
        MarkMemory memory = new MarkMemory(
                1000,
                stack.config.compactGrace().toMillis(),
                stack.config.ingestTimeout().toMillis() + 5_000);
        memory.remember(marks);
        assertThat(second.get(0).get("MarksWritten").asDouble())
                .isEqualTo(memory.toWrite(marks, expected.now()).size());
    }

    @Test
    void handleRequest_whenFixtureEvent_marksTheRollupItemOfEveryHourAndDayItTouches() {
        String eventFile = "ingest-kinesis-native.json";
        ExpectedResults expected = ExpectedResults.forEvent(eventFile);
        Stack stack = new Stack(expected.now());

        stack.invoke(eventFile);

        Map<String, Long> marked = new TreeMap<>();
        stack.reader.scanPaginator(b -> b.tableName(stack.table)).items().forEach(i -> {
            if (i.containsKey(CompactMarks.MARKED)) {
                assertThat(i)
                        .as("a mark's item carries its queue key and TTL")
                        .containsKeys(CompactMarks.DUE, RollupItems.TTL);
                assertThat(i).as("a mark alone is not a built rollup").doesNotContainKey(RollupItems.VERSION);
                marked.put(
                        i.get("pk").s() + '|' + i.get("sk").s(),
                        Long.parseLong(i.get(CompactMarks.MARKED).n()));
            }
        });
        assertThat(marked.keySet())
                .containsExactlyInAnyOrderElementsOf(marks(expected, stack.config).stream()
                        .map(CompactMarks.Mark::id)
                        .toList());
        assertThat(marked.values()).as("marked at the invocation's time").containsOnly(expected.now());
    }

    /** The compaction marks the fixture's data needs: one per (series, hour) and (series, day). */
    private static List<CompactMarks.Mark> marks(ExpectedResults expected, PulseConfig config) {
        Map<String, CompactMarks.Mark> marks = new TreeMap<>();
        expected.series()
                .forEach((series, byMinute) -> byMinute.keySet().forEach(minute -> {
                    CompactMarks.Mark hour = CompactMarks.hourMark(
                            series,
                            Math.floorDiv(minute, 3_600_000L) * 3_600_000L,
                            config.hourlyTtl().toSeconds());
                    CompactMarks.Mark day = CompactMarks.dayMark(
                            series,
                            Math.floorDiv(minute, 86_400_000L) * 86_400_000L,
                            config.dailyTtl().toSeconds());
                    marks.put(hour.id(), hour);
                    marks.put(day.id(), day);
                }));
        return List.copyOf(marks.values());
    }

    private static List<String> catalog(Stack stack) {
        List<String> out = new ArrayList<>();
        stack.reader.scanPaginator(b -> b.tableName(stack.table)).items().forEach(i -> {
            if (i.get("pk").s().startsWith("C#")) {
                out.add(i.get("sk").s());
            }
        });
        return out;
    }

    @Test
    void handleRequest_whenBatchIngested_logsOneJsonSummaryLine() throws Exception {
        ExpectedResults expected = ExpectedResults.forEvent("ingest-kinesis-native.json");
        Stack stack = new Stack(expected.now());

        List<JsonNode> lines = jsonLines(() -> stack.invoke("ingest-kinesis-native.json"));

        List<JsonNode> logs = lines.stream().filter(n -> !n.has("_aws")).toList();
        assertThat(logs).hasSize(1);
        JsonNode summary = logs.get(0);
        assertThat(summary.get("level").asText()).isEqualTo("INFO");
        assertThat(summary.get("message").asText()).isEqualTo("batch ingested");
        assertThat(summary.get("records").asInt()).isEqualTo(expected.records());
        assertThat(summary.get("datapoints").asInt()).isEqualTo(expected.datapoints());
        assertThat(summary.get("function_request_id").asText()).isEqualTo("req-ingest-kinesis-native.json");
    }

    /** Every item of the stack's table by {@code pk|sk}. */
    private static Map<String, Map<String, AttributeValue>> items(Stack stack) {
        Map<String, Map<String, AttributeValue>> out = new TreeMap<>();
        stack.reader
                .scanPaginator(b -> b.tableName(stack.table).consistentRead(true))
                .items()
                .forEach(i -> out.put(i.get("pk").s() + '|' + i.get("sk").s(), i));
        return out;
    }

    /** The fixture's event with every sequence number raised by {@code by} (the same number of digits). */
    private static KinesisEvent shifted(String eventFile, long by) {
        KinesisEvent event =
                EventLoader.loadKinesisEvent(ExpectedResults.event(eventFile).toString());
        for (KinesisEvent.KinesisEventRecord r : event.getRecords()) {
            String seq = new java.math.BigInteger(r.getKinesis().getSequenceNumber())
                    .add(java.math.BigInteger.valueOf(by))
                    .toString();
            r.getKinesis().setSequenceNumber(seq);
            r.setEventID("shardId-000000000000:" + seq);
        }
        return event;
    }

    /** The WARN log lines among {@code lines}. */
    private static List<JsonNode> warnings(List<JsonNode> lines) {
        return lines.stream()
                .filter(n -> !n.has("_aws") && "WARN".equals(n.path("level").asText()))
                .toList();
    }

    /** Runs {@code body} and returns the EMF documents it printed to stdout. */
    private static List<JsonNode> emfDocuments(Runnable body) throws Exception {
        return jsonLines(body).stream().filter(n -> n.has("_aws")).toList();
    }

    /** Runs {@code body} and returns every JSON line it printed to stdout (EMF documents and logs). */
    private static List<JsonNode> jsonLines(Runnable body) throws Exception {
        List<String> lines = StdoutCapture.lines(body);
        List<JsonNode> docs = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("{")) {
                docs.add(JSON.readTree(line));
            }
        }
        // Shown again so that a failing test's report still has the handler's output.
        lines.forEach(System.out::println);
        return docs;
    }

    private static byte[] bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    /** A table, a queue and a handler wired to them, as the template wires them in AWS. */
    private static final class Stack {
        final String table = "pulse-handler-" + STACKS.incrementAndGet();
        final String queueUrl = Emulators.sqs().createQueue(table + "-dlq");
        final DynamoDbClient reader = Emulators.dynamo().client();
        final PulseConfig config;
        final IngestHandler handler;

        Stack(long nowMillis) {
            LocalDynamoDb.createTable(reader, table);
            config = TestConfig.of(table, queueUrl, Map.of());
            IngestService service = IngestFunction.service(
                    config,
                    Emulators.dynamoAsync(),
                    Emulators.sqs().client(),
                    Clock.fixed(Instant.ofEpochMilli(nowMillis), ZoneOffset.UTC));
            Metrics metrics = PulseMetrics.create("PulseTest", "ingest");
            handler = IngestFunction.handler(service, metrics, config.safetyMarginMillis());
        }

        StreamsEventResponse invoke(String eventFile) {
            KinesisEvent event = EventLoader.loadKinesisEvent(
                    ExpectedResults.event(eventFile).toString());
            return handler.handleRequest(event, new TestContext("req-" + eventFile, 60_000, 1024));
        }
    }

    private static long storedDatapoints(Stack stack) {
        return StoredPartials.read(stack.reader, stack.table).values().stream()
                .flatMap(m -> m.values().stream())
                .mapToLong(Summary::count)
                .sum();
    }

    private static KinesisEvent.Record record(KinesisEvent event, String sequenceNumber) {
        return event.getRecords().stream()
                .map(KinesisEvent.KinesisEventRecord::getKinesis)
                .filter(k -> k.getSequenceNumber().equals(sequenceNumber))
                .findFirst()
                .orElseThrow();
    }
}
