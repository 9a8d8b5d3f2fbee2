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
package dev.pulse.ops;

import static dev.pulse.testing.Gzip.gzip;
import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.pulse.config.PulseConfig;
import dev.pulse.dlq.DeadLetterQueue;
import dev.pulse.dlq.PoisonRecord;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestHandler;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.ingest.IngestResult;
import dev.pulse.ingest.IngestService;
import dev.pulse.local.emulator.KinesisEmulator;
import dev.pulse.local.emulator.MotoSqs;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.ops.StreamRecords.Rec;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.store.write.ShardCheckpoints;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.FaultInjectingDynamoDb.SimulatedCrashException;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.StoredPartials;
import dev.pulse.testing.StoredPartials.Summary;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * {@code make redrive} (scripts/redrive.py) against kinesalite, moto and DynamoDB Local on 127.0.0.1, with the
 * Lambda Invoke API served by {@link LambdaInvokeServer} around the real IngestHandler.
 *
 * <p>The default, exact mode: a discarded batch (the bisected half of a batch whose first attempt stored its partials
 * and crashed before committing) is read back from the stream with its original sequence numbers and arrival
 * times and sent to IngestFunction as one redrive batch; afterwards the stored count/sum/min/max equal the input and
 * the message is gone. Refused, with the message kept: a redrive before the shard's committed position has passed
 * the batch (the function refuses it), records past the stream's retention, a function error or batch item
 * failure. A record that ingest set aside after it failed every attempt (produced by the real IngestService, its
 * commits crashing) is redriven alone with {@code --set-aside}: stored exactly once, also when its message is
 * delivered twice; listed apart and left without the option, and never deleted by --delete-poison.
 * {@code --reput} still puts the records back on the stream, with its warning. Poison and compaction messages stay
 * (poison ones go with --delete-poison, and also with --set-aside); --dry-run changes nothing; the stack's outputs
 * name the queue, stream and function; bad arguments exit 2 with the usage.
 */
@ExtendWith(Emulators.class)
class RedriveIT {

    private static final AtomicInteger NAMES = new AtomicInteger();
    /** A function name nothing serves: a test that reaches the Invoke API with it fails. */
    private static final String NO_FUNCTION = "pulse-IngestFunction-none";

    private static KinesisEmulator kinesis;
    private static MotoSqs sqs;
    private static KinesisAsyncClient client;
    private static LambdaInvokeServer lambda;
    private static RedriveScript script;

    @BeforeAll
    static void start() throws Exception {
        sqs = Emulators.sqs();
        kinesis = KinesisEmulator.start();
        try {
            lambda =
                    LambdaInvokeServer.start(() -> new TestContext("redrive-" + NAMES.incrementAndGet(), 60_000, 1024));
        } catch (Exception e) {
            kinesis.close();
            throw e;
        }
        client = kinesis.client();
        script = RedriveScript.against(kinesis.endpoint(), sqs.endpoint(), lambda.endpoint());
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            try {
                if (lambda != null) {
                    lambda.close();
                }
            } finally {
                if (kinesis != null) {
                    kinesis.close();
                }
            }
        }
    }

    /** A stream (two shards, 40 gzip-compressed records over 8 partition keys) and an empty DLQ. */
    private record Fixture(String stream, String streamArn, String queueUrl, List<Rec> records) {

        /** The shard holding the most records, with its records in shard order. */
        List<Rec> busiestShard() {
            return records.stream().collect(Collectors.groupingBy(Rec::shardId)).values().stream()
                    .max(Comparator.comparingInt(List::size))
                    .orElseThrow();
        }

        /** What Lambda sends when it discards {@code batch} (consecutive records of one shard). */
        String failureRecord(List<Rec> batch) {
            return failureRecord(batch.getFirst().sequenceNumber(), batch, batch.size());
        }

        String failureRecord(String start, List<Rec> batch, int batchSize) {
            return FailureRecords.kinesis(
                    streamArn,
                    batch.getFirst().shardId(),
                    start,
                    batch.getLast().sequenceNumber(),
                    batchSize,
                    batch.getFirst().arrival(),
                    batch.getLast().arrival());
        }

        void send(String body) {
            sqs.client().sendMessage(b -> b.queueUrl(queueUrl).messageBody(body));
        }

        /** A poison record of the stream, sent to the DLQ by the function's own sender. */
        void sendPoison(Rec r, String reason) {
            new DeadLetterQueue(sqs.client(), queueUrl, new Backoff(20, 200))
                    .sendAll(
                            List.of(new PoisonRecord(
                                    "IngestFunction",
                                    r.shardId(),
                                    r.sequenceNumber(),
                                    r.partitionKey(),
                                    r.arrival().toEpochMilli(),
                                    reason,
                                    r.data())),
                            Deadline.inMillis(10_000));
        }

        /** The messages now visible in the DLQ, left visible. */
        List<Message> visible() {
            return sqs.client()
                    .receiveMessage(b -> b.queueUrl(queueUrl)
                            .maxNumberOfMessages(10)
                            .visibilityTimeout(0)
                            .waitTimeSeconds(0)
                            .messageAttributeNames("All"))
                    .messages();
        }

        /** Records on the stream now that were not there at the start. */
        List<Rec> added() {
            Set<String> before = records.stream()
                    .map(r -> r.shardId() + "/" + r.sequenceNumber())
                    .collect(Collectors.toSet());
            return StreamRecords.all(client, stream).stream()
                    .filter(r -> !before.contains(r.shardId() + "/" + r.sequenceNumber()))
                    .toList();
        }

        /** The queue and stream, a function nothing serves, and {@code more}. */
        String[] args(String... more) {
            return Stream.concat(
                            Stream.of("--queue-url", queueUrl, "--stream-name", stream, "--function-name", NO_FUNCTION),
                            Stream.of(more))
                    .toArray(String[]::new);
        }
    }

    private static Fixture fixture() throws Exception {
        int n = NAMES.incrementAndGet();
        String stream = "redrive-" + n;
        kinesis.createStream(stream, 2);
        String arn = client.describeStreamSummary(b -> b.streamName(stream))
                .join()
                .streamDescriptionSummary()
                .streamARN();
        List<PutRecordsRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String json = "{\"name\":\"checkout.latency\",\"dims\":{\"host\":\"h" + (i % 8)
                    + "\"},\"ts\":1795262400000,\"value\":" + i + "}";
            // Binary record data (gzip, as CloudWatch Logs subscriptions deliver it): the round trip must be
            // byte-exact.
            entries.add(PutRecordsRequestEntry.builder()
                    .partitionKey("host-" + (i % 8))
                    .data(SdkBytes.fromByteArray(gzip(json)))
                    .build());
        }
        PutRecordsResponse put =
                client.putRecords(b -> b.streamName(stream).records(entries)).join();
        assertThat(put.failedRecordCount()).isZero();
        List<Rec> records = StreamRecords.all(client, stream);
        assertThat(records).hasSize(40);
        return new Fixture(stream, arn, sqs.createQueue("redrive-dlq-" + n), records);
    }

    private static List<StreamRecords.Content> contents(List<Rec> records) {
        return records.stream().map(Rec::content).toList();
    }

    @Test
    void redrive_withReput_putsItsRecordsBackWarnsAndDeletesTheMessage() throws Exception {
        Fixture f = fixture();
        List<Rec> shard = f.busiestShard();
        assertThat(shard).hasSizeGreaterThanOrEqualTo(20);
        List<Rec> batch = shard.subList(3, 9);
        f.send(f.failureRecord(batch));

        RedriveScript.Run r = script.redrive(f.args("--reput"));

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err())
                .startsWith("warning: --reput puts the failed batches' records back on the stream as NEW records")
                .contains("counted twice");
        assertThat(r.out()).contains("--reput (records put back on the stream)");
        List<Rec> added = f.added();
        // Exactly the batch's records, each once, byte for byte with its partition key: nothing before or after the
        // range, nothing from the other shard.
        assertThat(contents(added)).containsExactlyInAnyOrderElementsOf(contents(batch));
        assertThat(added)
                .extracting(Rec::sequenceNumber)
                .doesNotContainAnyElementsOf(
                        batch.stream().map(Rec::sequenceNumber).toList());
        assertThat(f.visible()).isEmpty();
        assertThat(r.summary())
                .contains("messages read 1, batches redriven 1, records put 6, records expired 0, batches left 0");
    }

    @Test
    void redrive_withReput_whenTwoBatchesOnBothShards_putsBothAndDeletesBothMessages() throws Exception {
        Fixture f = fixture();
        Map<String, List<Rec>> byShard = f.records().stream().collect(Collectors.groupingBy(Rec::shardId));
        assertThat(byShard).hasSize(2);
        List<Rec> expected = new ArrayList<>();
        for (List<Rec> shard : byShard.values()) {
            List<Rec> batch = shard.subList(0, Math.min(3, shard.size()));
            f.send(f.failureRecord(batch));
            expected.addAll(batch);
        }

        RedriveScript.Run r = script.redrive(f.args("--reput"));

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(contents(f.added())).containsExactlyInAnyOrderElementsOf(contents(expected));
        assertThat(f.visible()).isEmpty();
        assertThat(r.summary()).contains("messages read 2, batches redriven 2, records put " + expected.size());
    }

    @Test
    void redrive_whenPoisonAndCompactionMessagesInQueue_listsThemAndLeavesThem() throws Exception {
        Fixture f = fixture();
        Rec bad = f.records().get(5);
        f.sendPoison(bad, "datapoint #0: value must be a number, found VALUE_STRING");
        String compaction = FailureRecords.dynamoDb(
                "shardId-00000001700000000000-a1b2c3d4", "100000000000000000001", "100000000000000000003", 3);
        f.send(compaction);

        RedriveScript.Run r = script.redrive(f.args());

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("poison " + bad.shardId() + " " + bad.sequenceNumber())
                .contains("value must be a number, found VALUE_STRING")
                .contains("compaction batch shardId-00000001700000000000-a1b2c3d4");
        assertThat(r.summary())
                .contains("messages read 2, batches redriven 0, records redriven 0")
                .contains("poison listed 1, poison deleted 0, compaction listed 1");
        assertThat(f.added()).isEmpty();
        // Both stay, and are visible again at once (not hidden until their visibility timeout ends).
        List<Message> left = f.visible();
        assertThat(left).extracting(Message::body).contains(compaction).hasSize(2);
        assertThat(left)
                .anySatisfy(m -> assertThat(m.messageAttributes().get("kind").stringValue())
                        .isEqualTo("poison"));
    }

    @Test
    void redrive_withDeletePoison_deletesThePoisonMessagesOnly() throws Exception {
        Fixture f = fixture();
        f.sendPoison(f.records().get(1), "datapoint #0: ts outside the accepted window");
        f.sendPoison(f.records().get(2), "not JSON: unexpected character 'x'");
        String compaction = FailureRecords.dynamoDb(
                "shardId-00000001700000000000-a1b2c3d4", "200000000000000000001", "200000000000000000002", 2);
        f.send(compaction);

        RedriveScript.Run r = script.redrive(f.args("--delete-poison"));

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.summary()).contains("poison listed 2, poison deleted 2, compaction listed 1");
        assertThat(f.visible()).extracting(Message::body).containsExactly(compaction);
        assertThat(f.added()).isEmpty();
    }

    @Test
    void redrive_withMaxMessages_readsNoMoreThanThat() throws Exception {
        Fixture f = fixture();
        for (int i = 0; i < 3; i++) {
            f.sendPoison(f.records().get(i), "datapoint #0: value must be finite");
        }

        RedriveScript.Run r = script.redrive(f.args("--max-messages", "2", "--delete-poison"));

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.summary()).contains("messages read 2,").contains("poison deleted 2,");
        assertThat(f.visible()).hasSize(1);
    }

    @Test
    void redrive_whenDryRun_changesNothing() throws Exception {
        Fixture f = fixture();
        List<Rec> batch = f.busiestShard().subList(0, 4);
        String failure = f.failureRecord(batch);
        f.send(failure);
        f.sendPoison(f.records().get(7), "datapoint #1: name is missing");

        int invocations = lambda.invocations.size();

        RedriveScript.Run r = script.redrive(f.args("--dry-run", "--delete-poison"));

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("would invoke " + NO_FUNCTION + " with the 4 records");
        assertThat(r.summary())
                .startsWith("summary (dry run, nothing changed)")
                .contains("messages read 2, batches would be redriven 1, records would be redriven 4")
                .contains("poison listed 1, poison would be deleted 1");
        assertThat(f.added()).isEmpty();
        assertThat(lambda.invocations).hasSize(invocations);
        assertThat(f.visible()).extracting(Message::body).contains(failure).hasSize(2);
    }

    @Test
    void redrive_whenRecordsExpired_refusesInvokesNothingAndKeepsTheMessage() throws Exception {
        Fixture f = fixture();
        List<Rec> shard = f.busiestShard();
        // kinesalite keeps every record, so expiry is staged: a batch of 5 whose range starts at the shard's very
        // first sequence number, before its first record, looks exactly like a batch whose two oldest records were
        // trimmed: the stream still holds 3 of them.
        String start = shardStart(f, shard.getFirst().shardId());
        String failure = f.failureRecord(start, shard.subList(0, 3), 5);
        f.send(failure);
        int invocations = lambda.invocations.size();

        RedriveScript.Run r = script.redrive(f.args());

        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out())
                .contains("its first record " + new java.math.BigInteger(start) + " is past the stream's retention"
                        + " (the oldest still readable is " + shard.getFirst().sequenceNumber()
                        + "; 2 of 5 records lost); an exact"
                        + " redrive needs every record, not redriven, left in the queue");
        assertThat(r.summary()).contains("batches redriven 0, records redriven 0, records expired 2, batches left 1");
        assertThat(lambda.invocations).hasSize(invocations);
        assertThat(f.added()).isEmpty();
        assertThat(f.visible()).extracting(Message::body).containsExactly(failure);
    }

    @Test
    void redrive_withReput_whenRecordsExpired_reportsThemLostPutsNothingAndKeepsTheMessage() throws Exception {
        Fixture f = fixture();
        List<Rec> shard = f.busiestShard();
        String failure = f.failureRecord(shardStart(f, shard.getFirst().shardId()), shard.subList(0, 3), 5);
        f.send(failure);

        RedriveScript.Run r = script.redrive(f.args("--reput"));

        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).contains("2 of 5 records lost (past the stream's retention), 3 still readable");
        assertThat(r.summary()).contains("batches redriven 0, records put 0, records expired 2, batches left 1");
        assertThat(f.added()).isEmpty();
        assertThat(f.visible()).extracting(Message::body).containsExactly(failure);
    }

    @Test
    void redrive_withReputAndAcceptLoss_putsTheRecordsStillReadableAndDeletesTheMessage() throws Exception {
        Fixture f = fixture();
        List<Rec> shard = f.busiestShard();
        String failure = f.failureRecord(shardStart(f, shard.getFirst().shardId()), shard.subList(0, 3), 5);
        f.send(failure);

        RedriveScript.Run r = script.redrive(f.args("--reput", "--accept-loss"));

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("2 of 5 records lost (past the stream's retention); --accept-loss");
        assertThat(r.summary()).contains("batches redriven 1, records put 3, records expired 2, batches left 0");
        assertThat(contents(f.added())).containsExactlyInAnyOrderElementsOf(contents(shard.subList(0, 3)));
        assertThat(f.visible()).isEmpty();
    }

    /** The sequence number a shard starts at, before its first record. */
    private static String shardStart(Fixture f, String shardId) {
        return client.listShards(b -> b.streamName(f.stream())).join().shards().stream()
                .filter(s -> s.shardId().equals(shardId))
                .findFirst()
                .orElseThrow()
                .sequenceNumberRange()
                .startingSequenceNumber();
    }

    @Test
    void redrive_whenStackNameGiven_readsQueueStreamAndFunctionFromItsOutputsAndSendsTheRecordsAsTheMappingDoes()
            throws Exception {
        String stack = "pulse-redrive-" + NAMES.incrementAndGet();
        String function = stack + "-IngestFunction";
        List<KinesisEvent> received = new java.util.concurrent.CopyOnWriteArrayList<>();
        lambda.function(function, (event, context) -> {
            received.add(event);
            return StreamsEventResponse.builder()
                    .withBatchItemFailures(List.of())
                    .build();
        });
        Fixture streamOnly = fixture();
        // CloudFormation on the moto endpoint: the stack's DeadLetterQueue is created there, its StreamName output
        // names the kinesalite stream, IngestFunctionName the function the test serves.
        RedriveScript.Run created = script.python("""
                import json, sys, boto3
                cfn = boto3.client("cloudformation")
                cfn.create_stack(StackName=sys.argv[1], TemplateBody=json.dumps({
                    "Resources": {"DeadLetterQueue": {"Type": "AWS::SQS::Queue",
                                                      "Properties": {"MessageRetentionPeriod": 1209600}}},
                    "Outputs": {"DeadLetterQueueUrl": {"Value": {"Ref": "DeadLetterQueue"}},
                                "StreamName": {"Value": sys.argv[2]},
                                "IngestFunctionName": {"Value": sys.argv[3]}}}))
                outputs = cfn.describe_stacks(StackName=sys.argv[1])["Stacks"][0]["Outputs"]
                print([o["OutputValue"] for o in outputs if o["OutputKey"] == "DeadLetterQueueUrl"][0])
                """, stack, streamOnly.stream(), function);
        assertThat(created.status()).as(created.err()).isZero();
        String queueName = created.out().strip().substring(created.out().strip().lastIndexOf('/') + 1);
        Fixture f = new Fixture(
                streamOnly.stream(),
                streamOnly.streamArn(),
                sqs.client().getQueueUrl(b -> b.queueName(queueName)).queueUrl(),
                streamOnly.records());
        List<Rec> batch = f.busiestShard().subList(10, 14);
        f.send(f.failureRecord(batch));

        RedriveScript.Run r = script.redrive("--stack-name", stack);

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("stream " + f.stream())
                .contains("function " + function)
                .contains("4 records stored by " + function + ", message deleted");
        assertThat(r.summary())
                .contains("messages read 1, batches redriven 1, records redriven 4, records expired 0, batches left 0");
        assertThat(f.visible()).isEmpty();
        assertThat(f.added()).isEmpty();
        // One invocation, exactly the batch, each record as the event source mapping delivers it (same sequence
        // number, data, partition key and arrival time), marked as a redrive.
        assertThat(received).hasSize(1);
        List<KinesisEvent.KinesisEventRecord> got = received.getFirst().getRecords();
        assertThat(got).hasSize(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            Rec want = batch.get(i);
            KinesisEvent.KinesisEventRecord e = got.get(i);
            assertThat(e.getEventName()).isEqualTo(IngestHandler.REDRIVE_EVENT_NAME);
            assertThat(e.getEventSource()).isEqualTo("aws:kinesis");
            assertThat(e.getEventVersion()).isEqualTo("1.0");
            assertThat(e.getEventID()).isEqualTo(want.shardId() + ":" + want.sequenceNumber());
            assertThat(e.getEventSourceARN()).isEqualTo(f.streamArn());
            assertThat(e.getAwsRegion()).isEqualTo("us-east-1");
            assertThat(e.getKinesis().getKinesisSchemaVersion()).isEqualTo("1.0");
            assertThat(e.getKinesis().getSequenceNumber()).isEqualTo(want.sequenceNumber());
            assertThat(e.getKinesis().getPartitionKey()).isEqualTo(want.partitionKey());
            assertThat(bytes(e.getKinesis().getData())).isEqualTo(want.data());
            assertThat(e.getKinesis().getApproximateArrivalTimestamp().toInstant())
                    .isEqualTo(want.arrival());
        }
    }

    @Test
    void redrive_whenFunctionReportsBatchItemFailures_keepsTheMessage() throws Exception {
        String function = "pulse-failing-" + NAMES.incrementAndGet();
        lambda.function(
                function,
                (event, context) -> StreamsEventResponse.builder()
                        .withBatchItemFailures(List.of(new StreamsEventResponse.BatchItemFailure(
                                event.getRecords().getFirst().getKinesis().getSequenceNumber())))
                        .build());
        Fixture f = fixture();
        List<Rec> batch = f.busiestShard().subList(0, 2);
        String failure = f.failureRecord(batch);
        f.send(failure);

        RedriveScript.Run r =
                script.redrive("--queue-url", f.queueUrl(), "--stream-name", f.stream(), "--function-name", function);

        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out())
                .contains("redrive through " + function + " failed, left in the queue: the function reported"
                        + " batchItemFailures [{\"itemIdentifier\": \""
                        + batch.getFirst().sequenceNumber() + "\"}]");
        assertThat(r.summary()).contains("batches redriven 0, records redriven 0, records expired 0, batches left 1");
        assertThat(f.visible()).extracting(Message::body).containsExactly(failure);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    // ------------------------------------------------------------------------------------- the exact redrive

    /**
     * The async client of a function that dies mid-batch: from the first call {@code crashWhen} accepts, every call
     * fails as after a crash (not retried, not a DynamoDB error). Every call before it is a real write.
     */
    private static final class Crashing extends DelegatingDynamoDb {

        private volatile Predicate<SdkRequest> crashWhen = r -> false;
        private final AtomicBoolean crashed = new AtomicBoolean();
        volatile SdkRequest crashedAt;

        Crashing() {
            super(Emulators.dynamoAsync());
        }

        /** The next attempt dies at the first call {@code when} accepts. */
        void crashWhen(Predicate<SdkRequest> when) {
            crashedAt = null;
            crashed.set(false);
            crashWhen = when;
        }

        /** The next attempt dies after {@code calls} successful calls. */
        void crashAfter(int calls) {
            AtomicInteger n = new AtomicInteger();
            crashWhen(r -> n.getAndIncrement() >= calls);
        }

        void healthy() {
            crashWhen(r -> false);
        }

        private <T> CompletableFuture<T> call(
                SdkRequest request, java.util.function.Supplier<CompletableFuture<T>> real) {
            if (crashed.get() || crashWhen.test(request)) {
                if (crashed.compareAndSet(false, true)) {
                    crashedAt = request;
                }
                return CompletableFuture.failedFuture(new SimulatedCrashException());
            }
            return real.get();
        }

        @Override
        public CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
            return call(request, () -> delegate.putItem(request));
        }

        @Override
        public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
            return call(request, () -> delegate.updateItem(request));
        }

        @Override
        public CompletableFuture<GetItemResponse> getItem(GetItemRequest request) {
            return call(request, () -> delegate.getItem(request));
        }

        @Override
        public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
            return call(request, () -> delegate.batchWriteItem(request));
        }
    }

    /**
     * The commit of a batch: the conditional UpdateItem of the shard's checkpoint item that sets its committed position
     * (not the other conditional updates of that item, such as counting an attempt of a record alone).
     */
    private static boolean isCommit(SdkRequest request) {
        return request instanceof UpdateItemRequest u
                && u.key().get(dev.pulse.store.schema.KeyScheme.PK).s().startsWith("W#")
                && u.conditionExpression() != null
                && u.updateExpression().startsWith("SET #w = :w,");
    }

    /**
     * Ten records r1..r10 on a one-shard stream, all adding to one (series, minute) with the values 1..10 (true sum
     * 55), read back with their real sequence numbers and arrival times; a table; the real IngestService driven the
     * way the event source mapping drives it through a client that can crash; and the same function, healthy, served
     * on the Invoke API for the redrive (a new container of the deployed fix).
     */
    private static final class Scenario implements AutoCloseable {

        static final Summary TRUE = new Summary(10, 55, 1, 10);
        /** Every record but r3 (value 3). */
        static final Summary WITHOUT_R3 = new Summary(9, 52, 1, 10);

        final String stream;
        final String streamArn;
        final String shardId;
        final String queueUrl;
        final String table;
        final String function;
        final List<Rec> records;
        final Crashing faulty = new Crashing();
        final IngestService live;
        final DynamoDbClient reader = Emulators.dynamo().client();
        String failure;

        Scenario() throws Exception {
            int n = NAMES.incrementAndGet();
            stream = "redrive-exact-" + n;
            kinesis.createStream(stream, 1);
            streamArn = client.describeStreamSummary(b -> b.streamName(stream))
                    .join()
                    .streamDescriptionSummary()
                    .streamARN();
            long ts = Instant.now()
                    .truncatedTo(ChronoUnit.MINUTES)
                    .minus(1, ChronoUnit.MINUTES)
                    .toEpochMilli();
            for (int i = 1; i <= 10; i++) {
                String json = "{\"name\":\"redrive.exact\",\"dims\":{\"run\":\"" + n + "\"},\"ts\":" + ts
                        + ",\"value\":" + i + ",\"unit\":\"Count\"}";
                // One at a time, so r1..r10 are in this order on the shard.
                client.putRecord(b -> b.streamName(stream)
                                .partitionKey("redrive.exact")
                                .data(SdkBytes.fromUtf8String(json)))
                        .join();
            }
            records = StreamRecords.all(client, stream);
            assertThat(records).hasSize(10);
            shardId = records.getFirst().shardId();
            table = "redrive-exact-" + n;
            LocalDynamoDb.createTable(reader, table);
            queueUrl = sqs.createQueue("redrive-exact-dlq-" + n);
            PulseConfig config = TestConfig.of(table, queueUrl, Map.of());
            live = IngestFunction.service(config, faulty, sqs.client(), Clock.systemUTC());
            function = "pulse-IngestFunction-" + n;
            lambda.function(
                    function,
                    IngestFunction.handler(
                            IngestFunction.service(config, Emulators.dynamoAsync(), sqs.client(), Clock.systemUTC()),
                            new RecordingMetrics(),
                            config.safetyMarginMillis()));
        }

        List<Rec> r(int from, int to) {
            return records.subList(from - 1, to);
        }

        /**
         * One attempt of the event source mapping at {@code batch}: true if it succeeded. A success that stored only
         * the records before its reported record (an attempt shrunk after earlier failures) is followed as Lambda
         * follows a partial batch response: the rest of the batch is invoked from that record.
         */
        boolean attempt(List<Rec> batch) {
            List<Rec> rest = batch;
            try {
                while (true) {
                    IngestResult r = live.ingest(
                            events(rest), Deadline.inMillis(30_000), new InvocationMetrics<>(IngestMetric.class));
                    if (r.failed()) {
                        return false;
                    }
                    if (r.failedSequence() == null) {
                        return true;
                    }
                    int from = -1;
                    for (int i = 0; i < rest.size(); i++) {
                        if (rest.get(i).sequenceNumber().equals(r.failedSequence())) {
                            from = i;
                        }
                    }
                    assertThat(from)
                            .as("the reported record is in the batch, after its first")
                            .isPositive();
                    rest = rest.subList(from, rest.size());
                }
            } catch (RuntimeException e) {
                return false; // a function error: Lambda retries the batch just the same
            }
        }

        /** [r1..r10] stores its partial (keyed by r1, holding all ten) and dies before its commit. */
        void crashBeforeCommit() {
            faulty.crashWhen(RedriveIT::isCommit);
            assertThat(attempt(r(1, 10))).isFalse();
            assertThat(faulty.crashedAt).matches(RedriveIT::isCommit, "the commit");
            assertThat(stored()).isEqualTo(TRUE);
        }

        /**
         * Bisection's [r1..r5] fails on every retry (after claiming the shard, before writing) until Lambda gives up
         * and sends its on-failure record to the DLQ.
         */
        void discardFirstHalf() {
            for (int attempt = 0; attempt < 3; attempt++) {
                faulty.crashAfter(1);
                assertThat(attempt(r(1, 5))).isFalse();
            }
            List<Rec> half = r(1, 5);
            failure = FailureRecords.kinesis(
                    streamArn,
                    shardId,
                    half.getFirst().sequenceNumber(),
                    half.getLast().sequenceNumber(),
                    half.size(),
                    half.getFirst().arrival(),
                    half.getLast().arrival());
            sqs.client().sendMessage(b -> b.queueUrl(queueUrl).messageBody(failure));
        }

        /**
         * r1..r2 are stored and committed; then every attempt that processes r3 dies at its commit (after writing its
         * partial) until r3 has failed three attempts alone; the next, healthy, attempt sets r3 aside (the DLQ, an empty
         * partial in its slot, committed past it) and r4..r10 are stored. r3's value (3) is then counted nowhere.
         */
        void setAsideR3() {
            faulty.healthy();
            assertThat(attempt(r(1, 2))).isTrue();
            for (int i = 0; aloneAttempts() < 3; i++) {
                assertThat(i)
                        .as("attempts before r3 has failed three times alone")
                        .isLessThan(12);
                faulty.crashWhen(RedriveIT::isCommit);
                assertThat(attempt(r(3, 10))).isFalse();
                assertThat(faulty.crashedAt).matches(RedriveIT::isCommit, "the commit");
            }
            faulty.healthy();
            assertThat(attempt(r(3, 10))).isTrue();
            assertThat(committed()).isEqualTo(records.getLast().sequenceNumber());
            assertThat(stored()).isEqualTo(WITHOUT_R3);
        }

        /** Attempts of the shard's first uncommitted record alone that failed since the last commit. */
        long aloneAttempts() {
            AttributeValue a = checkpoint().get(ShardCheckpoints.ALONE);
            return a == null ? 0 : Long.parseLong(a.n());
        }

        /** Bisection's [r6..r10] succeeds: its partial keyed by r6, the shard committed up to r10. */
        void secondHalfSucceeds() {
            faulty.healthy();
            assertThat(attempt(r(6, 10))).isTrue();
            assertThat(committed()).isEqualTo(records.getLast().sequenceNumber());
        }

        /** The one (series, minute) of the scenario, summed over its stored partials. */
        Summary stored() {
            Map<String, Map<Long, Summary>> all = StoredPartials.read(reader, table);
            assertThat(all).hasSize(1);
            Map<Long, Summary> minutes = all.values().iterator().next();
            assertThat(minutes).hasSize(1);
            return minutes.values().iterator().next();
        }

        /** Every item of the table. */
        Set<Map<String, AttributeValue>> items() {
            return reader.scanPaginator(b -> b.tableName(table).consistentRead(true)).items().stream()
                    .collect(Collectors.toSet());
        }

        /** The shard's committed position, or null. */
        String committed() {
            AttributeValue w = checkpoint().get(ShardCheckpoints.COMMITTED);
            return w == null ? null : w.s();
        }

        /** The shard's checkpoint item (empty if none). */
        Map<String, AttributeValue> checkpoint() {
            Map<String, AttributeValue> item = reader.getItem(b -> b.tableName(table)
                            .consistentRead(true)
                            .key(Map.of(
                                    dev.pulse.store.schema.KeyScheme.PK,
                                            AttributeValue.fromS(ShardCheckpoints.key(stream, shardId)),
                                    dev.pulse.store.schema.KeyScheme.SK, AttributeValue.fromS("w"))))
                    .item();
            return item == null ? Map.of() : item;
        }

        List<String> visible() {
            return sqs
                    .client()
                    .receiveMessage(b -> b.queueUrl(queueUrl)
                            .maxNumberOfMessages(10)
                            .visibilityTimeout(0)
                            .waitTimeSeconds(0))
                    .messages()
                    .stream()
                    .map(Message::body)
                    .toList();
        }

        String[] args(String... more) {
            return Stream.concat(
                            Stream.of("--queue-url", queueUrl, "--stream-name", stream, "--function-name", function),
                            Stream.of(more))
                    .toArray(String[]::new);
        }

        /** The records as the event source mapping delivers them. */
        List<KinesisEvent.KinesisEventRecord> events(List<Rec> batch) {
            List<KinesisEvent.KinesisEventRecord> out = new ArrayList<>();
            for (Rec r : batch) {
                out.add(KinesisRecords.record(
                        streamArn,
                        r.shardId(),
                        r.sequenceNumber(),
                        r.partitionKey(),
                        r.data(),
                        r.arrival().toEpochMilli()));
            }
            return out;
        }

        @Override
        public void close() {
            try {
                reader.deleteTable(b -> b.tableName(table));
            } finally {
                reader.close();
            }
        }
    }

    @Test
    void redrive_whenBisectedHalfWasDiscarded_storesItExactlyAndDeletesTheMessage() throws Exception {
        try (Scenario s = new Scenario()) {
            s.crashBeforeCommit();
            s.discardFirstHalf();
            s.secondHalfSucceeds();
            // The problem is real: r1's partial still holds r1..r10, r6's holds r6..r10 again.
            assertThat(s.stored()).isEqualTo(new Summary(15, 95, 1, 10));
            String committed = s.committed();

            RedriveScript.Run r = script.redrive(s.args());

            assertThat(r.status()).as(r.out() + r.err()).isZero();
            assertThat(r.out())
                    .contains("function " + s.function)
                    .contains("5 records stored by " + s.function + ", message deleted");
            assertThat(r.summary())
                    .contains(
                            "messages read 1, batches redriven 1, records redriven 5, records expired 0, batches left 0");
            assertThat(s.stored()).isEqualTo(Scenario.TRUE);
            assertThat(s.visible()).isEmpty();
            assertThat(s.committed())
                    .as("a redrive does not move the committed position")
                    .isEqualTo(committed);
            // Through the real handler, as a redrive, without a function error.
            LambdaInvokeServer.Invocation last = lambda.invocations.stream()
                    .filter(i -> i.function().equals(s.function))
                    .reduce((a, b) -> b)
                    .orElseThrow();
            assertThat(last.functionError()).isNull();
            assertThat(last.event().getRecords())
                    .extracting(e -> e.getKinesis().getSequenceNumber())
                    .containsExactlyElementsOf(
                            s.r(1, 5).stream().map(Rec::sequenceNumber).toList());

            // The same message again (delivered twice, or a rerun after a lost delete): the same partial again.
            sqs.client().sendMessage(b -> b.queueUrl(s.queueUrl).messageBody(s.failure));
            RedriveScript.Run again = script.redrive(s.args());
            assertThat(again.status()).as(again.out() + again.err()).isZero();
            assertThat(s.stored()).isEqualTo(Scenario.TRUE);
            assertThat(s.visible()).isEmpty();
        }
    }

    @Test
    void redrive_whenShardHasNotPassedTheBatch_isRefusedKeepsTheMessageAndChangesNothing() throws Exception {
        try (Scenario s = new Scenario()) {
            s.crashBeforeCommit();
            s.discardFirstHalf();
            // [r6..r10] has not run yet: nothing is committed on the shard, live delivery may still store r1..r5.
            assertThat(s.committed()).isNull();
            Set<Map<String, AttributeValue>> before = s.items();

            RedriveScript.Run r = script.redrive(s.args());

            assertThat(r.status()).isEqualTo(1);
            assertThat(r.out())
                    .contains("redrive through " + s.function + " failed, left in the queue: function error"
                            + " (Unhandled) " + IngestHandler.RedriveFailedException.class.getName()
                            + ": redrive of 5 records failed:"
                            + " redrive refused: shard " + ShardCheckpoints.key(s.stream, s.shardId)
                            + " has committed nothing, below"
                            + " the batch's last record " + s.r(1, 5).getLast().sequenceNumber());
            assertThat(r.summary())
                    .contains("batches redriven 0, records redriven 0, records expired 0, batches left 1");
            assertThat(s.items()).isEqualTo(before);
            assertThat(s.visible()).containsExactly(s.failure);

            // Once live delivery has passed the batch, the message kept is redriven exactly.
            s.secondHalfSucceeds();
            RedriveScript.Run later = script.redrive(s.args());
            assertThat(later.status()).as(later.out() + later.err()).isZero();
            assertThat(s.stored()).isEqualTo(Scenario.TRUE);
            assertThat(s.visible()).isEmpty();
        }
    }

    // ------------------------------------------------------------------------------- records set aside by ingest

    /** The one invocation of {@code function} since {@code before} invocations were served. */
    private static List<LambdaInvokeServer.Invocation> invocationsOf(String function, int before) {
        return lambda.invocations.subList(before, lambda.invocations.size()).stream()
                .filter(i -> i.function().equals(function))
                .toList();
    }

    @Test
    void redrive_withSetAside_whenARecordWasSetAside_storesItExactlyOnceAndDeletesTheMessage() throws Exception {
        try (Scenario s = new Scenario()) {
            s.setAsideR3();
            Rec r3 = s.r(3, 3).getFirst();
            List<String> dlq = s.visible();
            assertThat(dlq).hasSize(1);
            assertThat(dlq.getFirst())
                    .contains("\"sequenceNumber\":\"" + r3.sequenceNumber() + "\"")
                    .containsPattern("\"reason\":\"failed \\d+ attempts \\(3 of them with the record alone\\): ");
            String committed = s.committed();
            int before = lambda.invocations.size();

            RedriveScript.Run r = script.redrive(s.args("--set-aside"));

            assertThat(r.status()).as(r.out() + r.err()).isZero();
            assertThat(r.out())
                    .contains("set aside " + s.shardId + " " + r3.sequenceNumber() + " key=\"redrive.exact\"")
                    .contains("stored by " + s.function + " (data from the message), message deleted");
            assertThat(r.summary())
                    .contains("messages read 1, batches redriven 0, records redriven 0")
                    .contains("poison listed 0, poison deleted 0")
                    .endsWith("set aside listed 0, set aside redriven 1, set aside left 0");
            assertThat(s.stored()).isEqualTo(Scenario.TRUE);
            assertThat(s.visible()).isEmpty();
            assertThat(s.committed())
                    .as("a redrive does not move the committed position")
                    .isEqualTo(committed);
            // One invocation of the real handler, with r3 alone exactly as the event source mapping delivered it.
            List<LambdaInvokeServer.Invocation> calls = invocationsOf(s.function, before);
            assertThat(calls).hasSize(1);
            assertThat(calls.getFirst().functionError()).isNull();
            KinesisEvent.KinesisEventRecord e =
                    calls.getFirst().event().getRecords().getFirst();
            assertThat(calls.getFirst().event().getRecords()).hasSize(1);
            assertThat(e.getEventName()).isEqualTo(IngestHandler.REDRIVE_EVENT_NAME);
            assertThat(e.getEventID()).isEqualTo(s.shardId + ":" + r3.sequenceNumber());
            assertThat(e.getEventSourceARN()).isEqualTo(s.streamArn);
            assertThat(e.getKinesis().getSequenceNumber()).isEqualTo(r3.sequenceNumber());
            assertThat(e.getKinesis().getPartitionKey()).isEqualTo(r3.partitionKey());
            assertThat(bytes(e.getKinesis().getData())).isEqualTo(r3.data());
            assertThat(e.getKinesis().getApproximateArrivalTimestamp().toInstant())
                    .isEqualTo(r3.arrival());
        }
    }

    @Test
    void redrive_withSetAside_whenTheSameMessageIsDeliveredAgain_storesTheRecordOnce() throws Exception {
        try (Scenario s = new Scenario()) {
            s.setAsideR3();
            String message = s.visible().getFirst();
            // SQS delivers at least once: the same message twice in one run, then again in a later run.
            sqs.client().sendMessage(b -> b.queueUrl(s.queueUrl).messageBody(message));
            int before = lambda.invocations.size();

            RedriveScript.Run r = script.redrive(s.args("--set-aside"));

            assertThat(r.status()).as(r.out() + r.err()).isZero();
            assertThat(r.out()).contains("(repeat)");
            assertThat(r.summary()).endsWith("set aside redriven 2, set aside left 0");
            assertThat(invocationsOf(s.function, before))
                    .hasSize(2)
                    .allSatisfy(i -> assertThat(i.functionError()).isNull());
            assertThat(s.stored()).isEqualTo(Scenario.TRUE);
            assertThat(s.visible()).isEmpty();

            sqs.client().sendMessage(b -> b.queueUrl(s.queueUrl).messageBody(message));
            RedriveScript.Run again = script.redrive(s.args("--set-aside"));
            assertThat(again.status()).as(again.out() + again.err()).isZero();
            assertThat(s.stored()).isEqualTo(Scenario.TRUE);
            assertThat(s.visible()).isEmpty();
        }
    }

    @Test
    void redrive_withoutSetAside_listsSetAsideRecordsApartFromPoisonAndLeavesThemEvenWithDeletePoison()
            throws Exception {
        try (Scenario s = new Scenario()) {
            s.setAsideR3();
            Rec r3 = s.r(3, 3).getFirst();
            String message = s.visible().getFirst();
            int before = lambda.invocations.size();

            RedriveScript.Run r = script.redrive(s.args("--delete-poison"));

            assertThat(r.status()).as(r.out() + r.err()).isZero();
            assertThat(r.out())
                    .containsPattern("set aside " + s.shardId + " " + r3.sequenceNumber() + " key=\"redrive\\.exact\" "
                            + "\\d+ bytes: set aside after \\d+ attempts; redrive with --set-aside once the cause is fixed \\(left\\): "
                            + "\"failed \\d+ attempts \\(3 of them with the record alone\\): ");
            assertThat(r.summary())
                    .contains("poison listed 0, poison deleted 0")
                    .endsWith("set aside listed 1, set aside redriven 0, set aside left 0");
            assertThat(invocationsOf(s.function, before)).isEmpty();
            assertThat(s.visible()).containsExactly(message);
            assertThat(s.stored()).isEqualTo(Scenario.WITHOUT_R3);
        }
    }

    @Test
    void redrive_withSetAside_whenPoisonIsADecoderVerdict_leavesItAndRedrivesOnlyTheSetAsideRecord() throws Exception {
        try (Scenario s = new Scenario()) {
            s.setAsideR3();
            Rec r5 = s.r(5, 5).getFirst();
            new DeadLetterQueue(sqs.client(), s.queueUrl, new Backoff(20, 200))
                    .sendAll(
                            List.of(new PoisonRecord(
                                    "IngestFunction",
                                    r5.shardId(),
                                    r5.sequenceNumber(),
                                    r5.partitionKey(),
                                    r5.arrival().toEpochMilli(),
                                    "datapoint #0: value must be a number, found VALUE_STRING",
                                    r5.data())),
                            Deadline.inMillis(10_000));
            String decoderPoison = DeadLetterQueue.body(new PoisonRecord(
                    "IngestFunction",
                    r5.shardId(),
                    r5.sequenceNumber(),
                    r5.partitionKey(),
                    r5.arrival().toEpochMilli(),
                    "datapoint #0: value must be a number, found VALUE_STRING",
                    r5.data()));
            int before = lambda.invocations.size();

            RedriveScript.Run r = script.redrive(s.args("--set-aside"));

            assertThat(r.status()).as(r.out() + r.err()).isZero();
            assertThat(r.out())
                    .contains("poison " + r5.shardId() + " " + r5.sequenceNumber())
                    .contains("value must be a number, found VALUE_STRING\" (left)");
            assertThat(r.summary())
                    .contains("messages read 2,")
                    .contains("poison listed 1, poison deleted 0")
                    .endsWith("set aside listed 0, set aside redriven 1, set aside left 0");
            assertThat(invocationsOf(s.function, before)).hasSize(1);
            assertThat(s.visible()).containsExactly(decoderPoison);
            assertThat(s.stored()).isEqualTo(Scenario.TRUE);
        }
    }

    @Test
    void redrive_withSetAsideAndDryRun_changesNothing() throws Exception {
        try (Scenario s = new Scenario()) {
            s.setAsideR3();
            String message = s.visible().getFirst();
            Set<Map<String, AttributeValue>> items = s.items();
            int before = lambda.invocations.size();

            RedriveScript.Run r = script.redrive(s.args("--set-aside", "--dry-run"));

            assertThat(r.status()).as(r.out() + r.err()).isZero();
            assertThat(r.out())
                    .contains("would invoke " + s.function + " with the record alone (data from the message, ")
                    .contains("bytes) and delete the message");
            assertThat(r.summary())
                    .startsWith("summary (dry run, nothing changed)")
                    .endsWith("set aside listed 0, set aside would be redriven 1, set aside left 0");
            assertThat(invocationsOf(s.function, before)).isEmpty();
            assertThat(s.items()).isEqualTo(items);
            assertThat(s.visible()).containsExactly(message);
        }
    }

    /** The reason ingest gives a record it set aside (AttemptPlan), here for a record that crashed the function. */
    private static final String SET_ASIDE_REASON =
            "failed 6 attempts (3 of them with the record alone): the function crashed or timed out";

    @Test
    void redrive_withSetAside_whenTheFunctionFails_keepsTheMessageAndPrintsWhy() throws Exception {
        String function = "pulse-failing-" + NAMES.incrementAndGet();
        lambda.function(function, (event, context) -> {
            throw new IllegalStateException("still broken for "
                    + event.getRecords().getFirst().getKinesis().getSequenceNumber());
        });
        Fixture f = fixture();
        Rec rec = f.records().get(4);
        f.sendPoison(rec, SET_ASIDE_REASON);

        RedriveScript.Run r = script.redrive(
                "--queue-url", f.queueUrl(), "--stream-name", f.stream(), "--function-name", function, "--set-aside");

        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out())
                .contains("set aside " + rec.shardId() + " " + rec.sequenceNumber() + " key=\"" + rec.partitionKey()
                        + "\" " + rec.data().length + " bytes: redrive through " + function
                        + " failed, left in the queue: function error"
                        + " (Unhandled) java.lang.IllegalStateException: still broken for " + rec.sequenceNumber());
        assertThat(r.summary()).endsWith("set aside listed 0, set aside redriven 0, set aside left 1");
        assertThat(f.visible()).hasSize(1);
    }

    @Test
    void redrive_withSetAside_whenTheMessageHoldsOnlyTheHeadOfTheData_readsTheRecordFromTheStream() throws Exception {
        String function = "pulse-recording-" + NAMES.incrementAndGet();
        List<KinesisEvent> received = new java.util.concurrent.CopyOnWriteArrayList<>();
        lambda.function(function, (event, context) -> {
            received.add(event);
            return StreamsEventResponse.builder()
                    .withBatchItemFailures(List.of())
                    .build();
        });
        Fixture f = bigRecord();
        Rec rec = f.records().getFirst();
        byte[] data = rec.data();
        f.sendPoison(rec, SET_ASIDE_REASON);

        RedriveScript.Run r = script.redrive(
                "--queue-url", f.queueUrl(), "--stream-name", f.stream(), "--function-name", function, "--set-aside");

        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("stored by " + function + " (data from the stream), message deleted");
        assertThat(received).hasSize(1);
        KinesisEvent.KinesisEventRecord e = received.getFirst().getRecords().getFirst();
        assertThat(received.getFirst().getRecords()).hasSize(1);
        assertThat(bytes(e.getKinesis().getData())).isEqualTo(data);
        assertThat(e.getKinesis().getSequenceNumber()).isEqualTo(rec.sequenceNumber());
        assertThat(e.getKinesis().getApproximateArrivalTimestamp().toInstant()).isEqualTo(rec.arrival());
        assertThat(f.visible()).isEmpty();
    }

    /** A one-shard stream holding one record of about 3 KB: more than the 1 KB of data a poison message carries. */
    private static Fixture bigRecord() throws Exception {
        int n = NAMES.incrementAndGet();
        String stream = "redrive-sa-big-" + n;
        kinesis.createStream(stream, 1);
        String arn = client.describeStreamSummary(b -> b.streamName(stream))
                .join()
                .streamDescriptionSummary()
                .streamARN();
        byte[] data = new byte[3 * DeadLetterQueue.PAYLOAD_HEAD_BYTES + 17];
        new java.util.Random(7).nextBytes(data);
        client.putRecord(b -> b.streamName(stream).partitionKey("big").data(SdkBytes.fromByteArray(data)))
                .join();
        List<Rec> records = StreamRecords.all(client, stream);
        assertThat(records).hasSize(1);
        return new Fixture(stream, arn, sqs.createQueue("redrive-sa-big-dlq-" + n), records);
    }

    @Test
    void redrive_withSetAside_whenTheMessageHoldsOnlyTheHeadAndTheRecordIsGone_keepsTheMessageAndInvokesNothing()
            throws Exception {
        Fixture f = bigRecord();
        Rec onStream = f.records().getFirst();
        // kinesalite keeps every record, so expiry is staged: a record named by the shard's first sequence number,
        // which
        // precedes every record on it, is not there any more.
        Rec gone = new Rec(
                onStream.shardId(),
                shardStart(f, onStream.shardId()),
                onStream.partitionKey(),
                onStream.data(),
                onStream.arrival());
        f.sendPoison(gone, SET_ASIDE_REASON);
        int before = lambda.invocations.size();

        RedriveScript.Run r = script.redrive(f.args("--set-aside"));

        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out())
                .contains("set aside " + gone.shardId() + " " + gone.sequenceNumber() + " key=\"big\" "
                        + gone.data().length + " bytes: the message holds " + DeadLetterQueue.PAYLOAD_HEAD_BYTES
                        + " of its "
                        + gone.data().length + " bytes and the record is no longer on " + f.stream()
                        + " (past the stream's retention); not redriven, left in the queue");
        assertThat(r.summary()).endsWith("set aside listed 0, set aside redriven 0, set aside left 1");
        assertThat(lambda.invocations).hasSize(before);
        assertThat(f.visible()).hasSize(1);
    }

    @Test
    void redrive_whenEventWouldExceedTheSynchronousPayloadLimit_refusesAndKeepsTheMessage() throws Exception {
        int n = NAMES.incrementAndGet();
        String stream = "redrive-big-" + n;
        kinesis.createStream(stream, 1);
        String arn = client.describeStreamSummary(b -> b.streamName(stream))
                .join()
                .streamDescriptionSummary()
                .streamARN();
        byte[] data = new byte[1_000_000];
        new java.util.Random(5).nextBytes(data);
        for (int i = 0; i < 5; i++) {
            client.putRecord(b -> b.streamName(stream).partitionKey("big").data(SdkBytes.fromByteArray(data)))
                    .join();
        }
        List<Rec> batch = StreamRecords.all(client, stream);
        assertThat(batch).hasSize(5);
        Fixture f = new Fixture(stream, arn, sqs.createQueue("redrive-big-dlq-" + n), batch);
        String failure = f.failureRecord(batch);
        f.send(failure);
        int invocations = lambda.invocations.size();

        // 5 MB of data is 6.7 MB of base64: more than Invoke takes.
        RedriveScript.Run r = script.redrive(f.args());

        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out())
                .contains("more than Lambda's synchronous payload limit of 6291456; not redriven, left in the queue");
        assertThat(r.summary()).contains("batches redriven 0, records redriven 0, records expired 0, batches left 1");
        assertThat(lambda.invocations).hasSize(invocations);
        assertThat(f.visible()).extracting(Message::body).containsExactly(failure);
    }

    static Stream<Arguments> badArguments() {
        return Stream.of(
                Arguments.of(List.of()),
                Arguments.of(List.of("--queue-url", "http://127.0.0.1:1/123456789012/q")),
                Arguments.of(List.of("--stream-name", "s")),
                Arguments.of(List.of("--stack-name")),
                Arguments.of(List.of("--stack-name", "")),
                Arguments.of(List.of("--stack-name", "pulse", "--max-messages", "0")),
                Arguments.of(List.of("--stack-name", "pulse", "--max-messages", "ten")),
                Arguments.of(List.of("--stack-name", "pulse", "--redrive-everything")),
                Arguments.of(List.of("--stack-name", "pulse", "extra")),
                // The exact redrive needs the function; --accept-loss only means something when re-putting.
                Arguments.of(List.of("--queue-url", "http://127.0.0.1:1/123456789012/q", "--stream-name", "s")),
                Arguments.of(List.of("--stack-name", "pulse", "--function-name", "")),
                Arguments.of(List.of("--stack-name", "pulse", "--accept-loss")),
                // A set-aside record is redriven only through the function, into the slots its setting aside emptied.
                Arguments.of(List.of("--stack-name", "pulse", "--reput", "--set-aside")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badArguments")
    void redrive_whenArgumentsAreBad_exitsWith2AndPrintsUsage(List<String> args) {
        RedriveScript.Run r = script.redrive(args.toArray(String[]::new));

        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).startsWith("usage: redrive.py").contains("redrive.py: error:");
        assertThat(r.out()).isEmpty();
    }
}
