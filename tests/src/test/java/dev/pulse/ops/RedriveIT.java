package dev.pulse.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.dlq.DeadLetterQueue;
import dev.pulse.dlq.PoisonRecord;
import dev.pulse.local.emulator.KinesisEmulator;
import dev.pulse.local.emulator.MotoSqs;
import dev.pulse.ops.StreamRecords.Rec;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * {@code make redrive} (scripts/redrive.py) against kinesalite and moto on 127.0.0.1: a discarded batch's records
 * go back on the stream with their data and partition keys and its message is deleted; poison and compaction
 * messages stay (poison ones go with --delete-poison); expired records keep the message; --dry-run changes
 * nothing; the stack's outputs name the queue and stream; bad arguments exit 2 with the usage.
 */
class RedriveIT {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private static KinesisEmulator kinesis;
    private static MotoSqs sqs;
    private static KinesisAsyncClient client;
    private static RedriveScript script;

    @BeforeAll
    static void start() throws Exception {
        kinesis = KinesisEmulator.start();
        try {
            sqs = MotoSqs.start();
        } catch (Exception e) {
            kinesis.close();
            throw e;
        }
        client = kinesis.client();
        script = RedriveScript.against(kinesis.endpoint(), sqs.endpoint());
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            try {
                if (sqs != null) {
                    sqs.close();
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
                    .max(Comparator.comparingInt(List::size)).orElseThrow();
        }

        /** What Lambda sends when it discards {@code batch} (consecutive records of one shard). */
        String failureRecord(List<Rec> batch) {
            return failureRecord(batch.getFirst().sequenceNumber(), batch, batch.size());
        }

        String failureRecord(String start, List<Rec> batch, int batchSize) {
            return FailureRecords.kinesis(streamArn, batch.getFirst().shardId(), start, batch.getLast().sequenceNumber(),
                    batchSize, batch.getFirst().arrival(), batch.getLast().arrival());
        }

        void send(String body) {
            sqs.client().sendMessage(b -> b.queueUrl(queueUrl).messageBody(body));
        }

        /** A poison record of the stream, sent to the DLQ by the function's own sender. */
        void sendPoison(Rec r, String reason) {
            new DeadLetterQueue(sqs.client(), queueUrl, new Backoff(20, 200)).sendAll(List.of(new PoisonRecord(
                    "IngestFunction", r.shardId(), r.sequenceNumber(), r.partitionKey(), r.arrival().toEpochMilli(), reason,
                    r.data())), Deadline.inMillis(10_000));
        }

        /** The messages now visible in the DLQ, left visible. */
        List<Message> visible() {
            return sqs.client().receiveMessage(b -> b.queueUrl(queueUrl).maxNumberOfMessages(10).visibilityTimeout(0)
                    .waitTimeSeconds(0).messageAttributeNames("All")).messages();
        }

        /** Records on the stream now that were not there at the start. */
        List<Rec> added() {
            Set<String> before = records.stream().map(r -> r.shardId() + "/" + r.sequenceNumber()).collect(Collectors.toSet());
            return StreamRecords.all(client, stream).stream()
                    .filter(r -> !before.contains(r.shardId() + "/" + r.sequenceNumber())).toList();
        }

        String[] args(String... more) {
            return Stream.concat(Stream.of("--queue-url", queueUrl, "--stream-name", stream), Stream.of(more))
                    .toArray(String[]::new);
        }
    }

    private static Fixture fixture() throws Exception {
        int n = NAMES.incrementAndGet();
        String stream = "redrive-" + n;
        kinesis.createStream(stream, 2);
        String arn = client.describeStreamSummary(b -> b.streamName(stream)).join().streamDescriptionSummary().streamARN();
        List<PutRecordsRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String json = "{\"name\":\"checkout.latency\",\"dims\":{\"host\":\"h" + (i % 8) + "\"},\"ts\":1795262400000,\"value\":"
                    + i + "}";
            entries.add(PutRecordsRequestEntry.builder().partitionKey("host-" + (i % 8))
                    .data(SdkBytes.fromByteArray(gzip(json))).build());
        }
        PutRecordsResponse put = client.putRecords(b -> b.streamName(stream).records(entries)).join();
        assertThat(put.failedRecordCount()).isZero();
        List<Rec> records = StreamRecords.all(client, stream);
        assertThat(records).hasSize(40);
        return new Fixture(stream, arn, sqs.createQueue("redrive-dlq-" + n), records);
    }

    /** Binary record data (gzip, as CloudWatch Logs subscriptions deliver it), so the round trip must be byte-exact. */
    private static byte[] gzip(String text) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(bytes)) {
            z.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static List<StreamRecords.Content> contents(List<Rec> records) {
        return records.stream().map(Rec::content).toList();
    }

    @Test
    void redrive_whenFailedBatchInQueue_putsItsRecordsBackAndDeletesTheMessage() throws Exception {
        Fixture f = fixture();
        List<Rec> shard = f.busiestShard();
        assertThat(shard).hasSizeGreaterThanOrEqualTo(20);
        List<Rec> batch = shard.subList(3, 9);
        f.send(f.failureRecord(batch));

        RedriveScript.Run r = script.redrive(f.args());

        assertThat(r.status()).as(r.err()).isZero();
        List<Rec> added = f.added();
        // Exactly the batch's records, each once, byte for byte with its partition key: nothing before or after the
        // range, nothing from the other shard.
        assertThat(contents(added)).containsExactlyInAnyOrderElementsOf(contents(batch));
        assertThat(added).extracting(Rec::sequenceNumber)
                .doesNotContainAnyElementsOf(batch.stream().map(Rec::sequenceNumber).toList());
        assertThat(f.visible()).isEmpty();
        assertThat(r.summary()).contains("messages read 1, batches redriven 1, records put 6, records expired 0, batches left 0");
    }

    @Test
    void redrive_whenTwoBatchesOnBothShards_putsBothAndDeletesBothMessages() throws Exception {
        Fixture f = fixture();
        Map<String, List<Rec>> byShard = f.records().stream().collect(Collectors.groupingBy(Rec::shardId));
        assertThat(byShard).hasSize(2);
        List<Rec> expected = new ArrayList<>();
        for (List<Rec> shard : byShard.values()) {
            List<Rec> batch = shard.subList(0, Math.min(3, shard.size()));
            f.send(f.failureRecord(batch));
            expected.addAll(batch);
        }

        RedriveScript.Run r = script.redrive(f.args());

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
        String compaction = FailureRecords.dynamoDb("shardId-00000001700000000000-a1b2c3d4", "100000000000000000001",
                "100000000000000000003", 3);
        f.send(compaction);

        RedriveScript.Run r = script.redrive(f.args());

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("poison " + bad.shardId() + " " + bad.sequenceNumber())
                .contains("value must be a number, found VALUE_STRING")
                .contains("compaction batch shardId-00000001700000000000-a1b2c3d4");
        assertThat(r.summary()).contains("messages read 2, batches redriven 0, records put 0")
                .contains("poison listed 1, poison deleted 0, compaction listed 1");
        assertThat(f.added()).isEmpty();
        // Both stay, and are visible again at once (not hidden until their visibility timeout ends).
        List<Message> left = f.visible();
        assertThat(left).extracting(Message::body).contains(compaction).hasSize(2);
        assertThat(left).anySatisfy(m -> assertThat(m.messageAttributes().get("kind").stringValue()).isEqualTo("poison"));
    }

    @Test
    void redrive_withDeletePoison_deletesThePoisonMessagesOnly() throws Exception {
        Fixture f = fixture();
        f.sendPoison(f.records().get(1), "datapoint #0: ts outside the accepted window");
        f.sendPoison(f.records().get(2), "not JSON: unexpected character 'x'");
        String compaction = FailureRecords.dynamoDb("shardId-00000001700000000000-a1b2c3d4", "200000000000000000001",
                "200000000000000000002", 2);
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

        RedriveScript.Run r = script.redrive(f.args("--dry-run", "--delete-poison"));

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("would put 4 records");
        assertThat(r.summary()).startsWith("summary (dry run, nothing changed)")
                .contains("messages read 2, batches would be redriven 1, records would be put 4")
                .contains("poison listed 1, poison would be deleted 1");
        assertThat(f.added()).isEmpty();
        assertThat(f.visible()).extracting(Message::body).contains(failure).hasSize(2);
    }

    @Test
    void redrive_whenRecordsExpired_reportsThemLostPutsNothingAndKeepsTheMessage() throws Exception {
        Fixture f = fixture();
        List<Rec> shard = f.busiestShard();
        // kinesalite keeps every record, so expiry is staged: a batch of 5 whose range starts at the shard's very
        // first sequence number, before its first record, looks exactly like a batch whose two oldest records were
        // trimmed: the stream still holds 3 of them.
        String failure = f.failureRecord(shardStart(f, shard.getFirst().shardId()), shard.subList(0, 3), 5);
        f.send(failure);

        RedriveScript.Run r = script.redrive(f.args());

        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).contains("2 of 5 records lost (past the stream's retention), 3 still readable");
        assertThat(r.summary()).contains("batches redriven 0, records put 0, records expired 2, batches left 1");
        assertThat(f.added()).isEmpty();
        assertThat(f.visible()).extracting(Message::body).containsExactly(failure);
    }

    @Test
    void redrive_withAcceptLoss_putsTheRecordsStillReadableAndDeletesTheMessage() throws Exception {
        Fixture f = fixture();
        List<Rec> shard = f.busiestShard();
        String failure = f.failureRecord(shardStart(f, shard.getFirst().shardId()), shard.subList(0, 3), 5);
        f.send(failure);

        RedriveScript.Run r = script.redrive(f.args("--accept-loss"));

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("2 of 5 records lost (past the stream's retention); --accept-loss");
        assertThat(r.summary()).contains("batches redriven 1, records put 3, records expired 2, batches left 0");
        assertThat(contents(f.added())).containsExactlyInAnyOrderElementsOf(contents(shard.subList(0, 3)));
        assertThat(f.visible()).isEmpty();
    }

    /** The sequence number a shard starts at, before its first record. */
    private static String shardStart(Fixture f, String shardId) {
        return client.listShards(b -> b.streamName(f.stream())).join().shards().stream()
                .filter(s -> s.shardId().equals(shardId)).findFirst().orElseThrow()
                .sequenceNumberRange().startingSequenceNumber();
    }

    @Test
    void redrive_whenStackNameGiven_readsQueueAndStreamFromItsOutputs() throws Exception {
        String stack = "pulse-redrive-" + NAMES.incrementAndGet();
        Fixture streamOnly = fixture();
        // CloudFormation on the moto endpoint: the stack's DeadLetterQueue is created there, its StreamName output
        // names the kinesalite stream.
        RedriveScript.Run created = script.python("""
                import json, sys, boto3
                cfn = boto3.client("cloudformation")
                cfn.create_stack(StackName=sys.argv[1], TemplateBody=json.dumps({
                    "Resources": {"DeadLetterQueue": {"Type": "AWS::SQS::Queue",
                                                      "Properties": {"MessageRetentionPeriod": 1209600}}},
                    "Outputs": {"DeadLetterQueueUrl": {"Value": {"Ref": "DeadLetterQueue"}},
                                "StreamName": {"Value": sys.argv[2]}}}))
                outputs = cfn.describe_stacks(StackName=sys.argv[1])["Stacks"][0]["Outputs"]
                print([o["OutputValue"] for o in outputs if o["OutputKey"] == "DeadLetterQueueUrl"][0])
                """, stack, streamOnly.stream());
        assertThat(created.status()).as(created.err()).isZero();
        String queueName = created.out().strip().substring(created.out().strip().lastIndexOf('/') + 1);
        Fixture f = new Fixture(streamOnly.stream(), streamOnly.streamArn(),
                sqs.client().getQueueUrl(b -> b.queueName(queueName)).queueUrl(), streamOnly.records());
        List<Rec> batch = f.busiestShard().subList(10, 12);
        f.send(f.failureRecord(batch));

        RedriveScript.Run r = script.redrive("--stack-name", stack);

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("stream " + f.stream());
        assertThat(contents(f.added())).containsExactlyInAnyOrderElementsOf(contents(batch));
        assertThat(f.visible()).isEmpty();
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
                Arguments.of(List.of("--stack-name", "pulse", "extra")));
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
