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
import com.amazonaws.services.lambda.runtime.serialization.PojoSerializer;
import com.amazonaws.services.lambda.runtime.serialization.events.LambdaEventSerializers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.config.PulseConfig;
import dev.pulse.local.esm.InvokeResult;
import dev.pulse.local.esm.ShardProcessor;
import dev.pulse.local.esm.ShardSource;
import dev.pulse.local.esm.ShardStats;
import dev.pulse.local.esm.StreamRecord;
import dev.pulse.local.template.Bindings;
import dev.pulse.local.template.MappingSpec;
import dev.pulse.local.template.PseudoParameters;
import dev.pulse.local.template.SamTemplate;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.store.write.ShardCheckpoints;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.StoredPartials;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * A record that fails every attempt, and the other ways a record, a batch or the service could hold a shard or break
 * exactly-once around setting a record aside (docs/design.md, "A record that fails every attempt"). Records reach the
 * real {@link IngestHandler} through the local event source mapping runner with the template's own mapping settings
 * (retries and record age -1: nothing is ever discarded; bisection on; partial batch responses), or the real
 * {@link IngestService} directly, on DynamoDB Local and the DLQ. A record that fails every attempt, whatever the
 * cause, is set aside to the DLQ after a bounded number of attempts, with its reason, and every record behind it is
 * stored exactly once. Throttling, a failure of the service, never sets a record aside. Each test states the
 * promised behaviour.
 */
@ExtendWith(Emulators.class)
class RecordFailingEveryAttemptIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PojoSerializer<KinesisEvent> EVENTS = LambdaEventSerializers.serializerFor(
            KinesisEvent.class, RecordFailingEveryAttemptIT.class.getClassLoader());
    private static final String SHARD = "shardId-000000000000";
    private static final String STREAM_ARN = "arn:aws:kinesis:us-east-1:123456789012:stream/pulse-test";
    private static final AtomicInteger TABLES = new AtomicInteger();
    /** The metric name, table prefix and stack name of every test. */
    private static final String NAME = "hold";

    private static final String SERIES_A = dev.pulse.model.SeriesKey.of(NAME, Map.of("op", "a"));
    private static final String SERIES_B = dev.pulse.model.SeriesKey.of(NAME, Map.of("op", "b"));
    private static final int RECORDS = 60;
    private static final int BAD = 29;
    /** How long the runner waits for an invocation before it reports a timeout (a function error). */
    private static final long INVOKE_TIMEOUT_MS = 1_500;
    /** The function's own time budget past its safety margin: its deadline. */
    private static final long BUDGET_MS = 1_000;

    private final DynamoDbClient reader = Emulators.dynamo().client();
    private final ExecutorService invocations = Executors.newCachedThreadPool();
    /** Holds hanging decodes until the test ends. */
    private final CountDownLatch release = new CountDownLatch(1);

    private final Instant minute = Instant.now().minus(Duration.ofMinutes(30)).truncatedTo(ChronoUnit.MINUTES);
    /** The batches the runner discarded (JSON of the on-failure destination), with finite retries only. */
    private final List<String> discarded = new CopyOnWriteArrayList<>();

    private String table;
    private String queue;

    @AfterEach
    void stop() throws InterruptedException {
        release.countDown();
        invocations.shutdown();
        assertThat(invocations.awaitTermination(30, TimeUnit.SECONDS))
                .as("hung invocations finished")
                .isTrue();
        if (table != null) {
            reader.deleteTable(b -> b.tableName(table));
        }
    }

    // ---- whatever the cause, a record that fails every attempt is set aside after a bounded number of attempts ----

    /** How the record fails each attempt that decodes it. */
    enum Failure {
        /** Its decoding throws an Error: the handler stores the records before it and reports it. */
        STACK_OVERFLOW,
        /** Its decoding runs out of the heap (an OutOfMemoryError, caught like any Throwable). */
        OUT_OF_MEMORY,
        /** Its decoding never returns: the invocation times out, a function error, and Lambda bisects. */
        HANG
    }

    /**
     * A record in the middle of the shard fails every attempt that decodes it: it is set aside to the DLQ once, with
     * its reason, every record behind it is stored exactly once, and bisection isolates it in a few invocations.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Failure.class)
    void mapping_whenARecordFailsEveryAttempt_setsItAsideOnceAndStoresEveryOtherRecordOnce(Failure failure)
            throws Exception {
        PulseConfig config = stack();
        UnaryOperator<IngestService.UnitDecoder> faulty = faultOn(BAD, () -> {
            switch (failure) {
                case STACK_OVERFLOW -> throw new StackOverflowError("injected for record " + BAD);
                case OUT_OF_MEMORY -> throw new OutOfMemoryError("Java heap space (injected)");
                case HANG -> hang();
            }
        });
        RecordingMetrics metrics = new RecordingMetrics();
        IngestHandler handler = handler(config, Emulators.dynamoAsync(), faulty, metrics);
        AtomicInteger calls = new AtomicInteger();

        boolean finished = run(handler, calls, Delivery.of(60_000, INVOKE_TIMEOUT_MS, 120));

        assertThat(finished).as("every record done within 2 minutes").isTrue();
        assertThat(StoredPartials.read(reader, table))
                .as("every record but the bad one, once")
                .isEqualTo(expected(BAD, RECORDS));
        List<Message> dlq = Emulators.sqs().drain(queue);
        assertThat(dlq).hasSize(1);
        JsonNode message = JSON.readTree(dlq.get(0).body());
        assertThat(message.get("sequenceNumber").asText()).isEqualTo(KinesisRecords.sequence(BAD));
        String reason = message.get("reason").asText();
        assertThat(reason).startsWith("failed ").contains("attempts (3 of them with the record alone): ");
        switch (failure) {
            case STACK_OVERFLOW ->
                assertThat(reason)
                        .contains("record " + KinesisRecords.sequence(BAD)
                                + " failed while decoding: java.lang.StackOverflowError: injected for record " + BAD);
            case OUT_OF_MEMORY -> assertThat(reason).contains("java.lang.OutOfMemoryError: Java heap space (injected)");
            case HANG -> assertThat(reason).endsWith(": the function crashed or timed out");
        }
        assertThat(sum(metrics, "RecordsSetAside")).isEqualTo(1);
        assertThat(sum(metrics, "PoisonRecords")).isEqualTo(1);
        Map<String, AttributeValue> checkpoint = checkpoint();
        assertThat(checkpoint.get(ShardCheckpoints.COMMITTED).s()).isEqualTo(KinesisRecords.sequence(RECORDS - 1));
        assertThat(checkpoint)
                .as("the counts end with the commit past the record")
                .doesNotContainKeys(ShardCheckpoints.ATTEMPTS, ShardCheckpoints.ALONE, ShardCheckpoints.FAILURE);
        // Bisection (on function errors) and the attempts' own halving isolate it in a few attempts, not one per
        // record.
        assertThat(calls.get()).isLessThan(25);
    }

    /**
     * One record's decoding takes longer than the attempt's deadline (the invocation's time less the safety margin)
     * but less than the invocation's timeout: every attempt then fails its writes on the deadline, reports the batch
     * and returns in time. The record fails every attempt, so it must be set aside and the rest stored.
     */
    @Test
    void mapping_whenOneRecordsDecodingOutlastsTheDeadline_setsItAsideAndStoresEveryOtherRecord() throws Exception {
        PulseConfig config = stack();
        RecordingMetrics metrics = new RecordingMetrics();
        IngestHandler handler =
                handler(config, Emulators.dynamoAsync(), faultOn(BAD, () -> sleep(BUDGET_MS + 300)), metrics);
        AtomicInteger calls = new AtomicInteger();

        boolean finished = run(handler, calls, Delivery.of(config.safetyMarginMillis() + BUDGET_MS, 20_000, 40));

        assertThat(finished)
                .as(
                        "the shard moved past the slow record within 40 s (%d invocations, %d batch failures,"
                                + " %d recovery attempts, %d set aside, %d records stored)",
                        calls.get(),
                        sum(metrics, "BatchFailures"),
                        sum(metrics, "RecoveryAttempts"),
                        sum(metrics, "RecordsSetAside"),
                        storedRecords())
                .isTrue();
        assertThat(StoredPartials.read(reader, table)).isEqualTo(expected(BAD, RECORDS));
        assertThat(Emulators.sqs().drain(queue)).hasSize(1);
    }

    /**
     * No bad record at all: every record decodes in 40 ms, but the whole batch of 60 takes longer than the deadline.
     * Smaller attempts would each fit; the shard must not be held.
     */
    @Test
    void mapping_whenABatchsDecodingOutlastsTheDeadline_storesEveryRecordInSmallerAttempts() throws Exception {
        PulseConfig config = stack();
        UnaryOperator<IngestService.UnitDecoder> slow = real -> (data, pk, arrival) -> {
            sleep(40);
            return real.decodeUnits(data, pk, arrival);
        };
        RecordingMetrics metrics = new RecordingMetrics();
        IngestHandler handler = handler(config, Emulators.dynamoAsync(), slow, metrics);
        AtomicInteger calls = new AtomicInteger();

        boolean finished = run(handler, calls, Delivery.of(config.safetyMarginMillis() + BUDGET_MS, 20_000, 40));

        assertThat(finished)
                .as(
                        "every record stored within 40 s (%d invocations, %d batch failures, %d recovery"
                                + " attempts, %d records stored)",
                        calls.get(), sum(metrics, "BatchFailures"), sum(metrics, "RecoveryAttempts"), storedRecords())
                .isTrue();
        assertThat(StoredPartials.read(reader, table)).isEqualTo(expected(-1, RECORDS));
        assertThat(Emulators.sqs().drain(queue)).isEmpty();
    }

    /**
     * Record 0 decodes into a series whose key is longer than DynamoDB's 2048-byte partition key (a length limit
     * missed): DynamoDB refuses its partial for good on every attempt. It must be set aside after a bounded number
     * of attempts and the records behind it stored.
     */
    @Test
    void ingest_whenDynamoDbRefusesARecordsPartialForGood_setsItAsideAndStoresTheRest() {
        PulseConfig config = stack();
        byte[] bad = data(0);
        String huge = "x".repeat(3_000);
        IngestService service = service(config, Emulators.dynamoAsync(), real -> (data, pk, arrival) -> {
            if (Arrays.equals(data, bad)) {
                return List.of(new dev.pulse.codec.RecordDecoder.Unit(
                        -1,
                        pk,
                        data,
                        new dev.pulse.codec.Decoded(
                                List.of(new dev.pulse.model.Datapoint(
                                        NAME, Map.of("op", huge), minute.toEpochMilli(), 1.0, null)),
                                0),
                        null));
            }
            return real.decodeUnits(data, pk, arrival);
        });
        List<KinesisEvent.KinesisEventRecord> records = records(6);
        InvocationMetrics<IngestMetric> metrics = new InvocationMetrics<>(IngestMetric.class);

        List<String> failures = new ArrayList<>();
        boolean movedOn = false;
        int attempts = 0;
        for (; attempts < 20 && !movedOn; attempts++) {
            IngestResult r = service.ingest(records, Deadline.inMillis(5_000), metrics);
            movedOn = !r.failed() && KinesisRecords.sequence(1).equals(r.failedSequence());
            if (r.failed()) {
                failures.add(r.failureReason());
            }
        }

        assertThat(movedOn)
                .as(
                        "record 0 set aside within 20 attempts; checkpoint %s; the last failures: %s",
                        checkpoint(), failures.subList(Math.max(0, failures.size() - 2), failures.size()))
                .isTrue();
        assertThat(service.ingest(records.subList(1, 6), Deadline.inMillis(30_000), metrics)
                        .failedSequence())
                .isNull();
        assertThat(StoredPartials.read(reader, table)).isEqualTo(expected(0, 6));
        assertThat(Emulators.sqs().drain(queue)).hasSize(1);
    }

    /**
     * A batch of 10,000 records (the largest BatchSize) whose record 9,000 hangs every attempt that decodes it (the
     * invocation times out): isolated and set aside in a bounded number of invocations, every other record stored.
     */
    @Test
    void mapping_whenARecordInABatchOfTenThousandHangs_setsItAsideInFewInvocations() throws Exception {
        PulseConfig config = stack();
        int count = 10_000;
        int hanging = 9_000;
        RecordingMetrics metrics = new RecordingMetrics();
        IngestHandler handler = handler(config, Emulators.dynamoAsync(), faultOn(hanging, this::hang), metrics);
        AtomicInteger calls = new AtomicInteger();

        boolean finished =
                run(handler, calls, Delivery.of(60_000, 3_000, 150).with(count, Map.of("BatchSize", "10000")));

        System.out.printf(
                "10,000-record batch, record %d hanging: %d invocations, finished %s%n",
                hanging, calls.get(), finished);
        assertThat(finished)
                .as("done within 150 s (%d invocations)", calls.get())
                .isTrue();
        assertThat(StoredPartials.read(reader, table)).isEqualTo(expected(hanging, count));
        assertThat(Emulators.sqs().drain(queue)).hasSize(1);
        // Logarithmic: each halving costs at most two invocations (one that hangs, one that stores the first half),
        // 2 x 14 for 10,000 records, then three alone and the one that sets it aside: 37 on a quiet machine. Under
        // load a piece of thousands of good records can itself outlast the 3 s invocation timeout and be halved again.
        assertThat(calls.get()).as("invocations").isLessThan(60);
    }

    // ---- failures that are not the record's never set a record aside ----

    /**
     * Throttled writes fail the batch for far more attempts than would set a record aside if they counted: each such
     * attempt takes its count back, so the mapping keeps retrying, sets nothing aside and stores every record once.
     */
    @Test
    void mapping_whenWritesAreThrottledForManyAttempts_keepsRetryingAndSetsNothingAside() throws Exception {
        PulseConfig config = stack();
        AtomicBoolean throttling = new AtomicBoolean(true);
        AtomicInteger throttled = new AtomicInteger();
        DynamoDbAsyncClient dynamo = new DelegatingDynamoDb(Emulators.dynamoAsync()) {
            @Override
            public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
                if (throttling.get()) {
                    throttled.incrementAndGet();
                    return CompletableFuture.failedFuture(throttle());
                }
                return super.batchWriteItem(request);
            }
        };
        RecordingMetrics metrics = new RecordingMetrics();
        IngestHandler handler = handler(config, dynamo, UnaryOperator.identity(), metrics);
        AtomicInteger calls = new AtomicInteger();
        // Far more failed attempts than would set a record aside if they counted: the first record's throttled writes.
        AtomicInteger failedCalls = new AtomicInteger();

        // The handler's deadline (the context's time less the safety margin) passes while the writes are throttled,
        // well before the invocation would time out: a failure the function reports, as in Lambda.
        boolean finished = run(
                handler,
                calls,
                Delivery.of(config.safetyMarginMillis() + 1_500, 30_000, 120).onFailure(() -> {
                    if (failedCalls.incrementAndGet() > 12) {
                        throttling.set(false);
                    }
                }));

        assertThat(finished).as("every record done within 2 minutes").isTrue();
        assertThat(throttled.get()).isPositive();
        assertThat(sum(metrics, "BatchFailures")).isGreaterThanOrEqualTo(12);
        assertThat(Emulators.sqs().drain(queue)).isEmpty();
        assertThat(StoredPartials.read(reader, table)).as("every record, once").isEqualTo(expected(-1, RECORDS));
        assertThat(sum(metrics, "RecordsSetAside")).isZero();
        assertThat(sum(metrics, "RecoveryAttempts"))
                .as("a throttled attempt takes its count back")
                .isZero();
        assertThat(checkpoint().get(ShardCheckpoints.COMMITTED).s()).isEqualTo(KinesisRecords.sequence(RECORDS - 1));
    }

    /**
     * MaximumRetryAttempts 2 (a finite value the template allows): record 29 hangs every attempt, so Lambda discards
     * the batches holding it. No other record may be set aside, and every record outside the discarded batches is
     * stored once.
     */
    @Test
    void mapping_withFiniteRetries_whenARecordHangs_setsNoOtherRecordAside() throws Exception {
        PulseConfig config = stack();
        RecordingMetrics metrics = new RecordingMetrics();
        IngestHandler handler = handler(config, Emulators.dynamoAsync(), faultOn(BAD, this::hang), metrics);
        AtomicInteger calls = new AtomicInteger();

        boolean finished = run(
                handler,
                calls,
                Delivery.of(60_000, INVOKE_TIMEOUT_MS, 90).with(RECORDS, Map.of("MaximumRetryAttempts", "2")));

        assertThat(finished).isTrue();
        Set<Integer> notStored = new TreeSet<>();
        for (String json : discarded) {
            JsonNode info = JSON.readTree(json).get("KinesisBatchInfo");
            for (int i = 0; i < RECORDS; i++) {
                String seq = KinesisRecords.sequence(i);
                if (ShardCheckpoints.compareSequences(
                                        seq, info.get("startSequenceNumber").asText())
                                >= 0
                        && ShardCheckpoints.compareSequences(
                                        seq, info.get("endSequenceNumber").asText())
                                <= 0) {
                    notStored.add(i);
                }
            }
        }
        List<String> setAside = new ArrayList<>();
        for (Message m : Emulators.sqs().drain(queue)) {
            setAside.add(JSON.readTree(m.body()).get("sequenceNumber").asText());
        }
        System.out.printf(
                "finite retries: %d invocations, discarded %s, set aside %s%n", calls.get(), notStored, setAside);
        assertThat(setAside).as("only the hanging record may be set aside").isSubsetOf(KinesisRecords.sequence(BAD));
        if (!setAside.isEmpty()) {
            notStored.add(BAD);
        }
        assertThat(StoredPartials.read(reader, table)).isEqualTo(expected(notStored, RECORDS));
    }

    // ---- a set-aside record leaves nothing of it counted, and redriven it is stored once ----

    /**
     * Attempts that stored a record's values and then died (here: in their commit) leave partials named by it; when
     * it is set aside, the attempt that does so empties those slots, so its values are not counted, and the records
     * after it, which share its (series, minute)s, are counted once.
     */
    @Test
    void ingest_whenAttemptsDieAfterWritingARecordsPartials_settingItAsideEmptiesThem() {
        PulseConfig config = stack();
        AtomicBoolean dying = new AtomicBoolean(true);
        DynamoDbAsyncClient dynamo = new DelegatingDynamoDb(Emulators.dynamoAsync()) {
            @Override
            public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
                if (dying.get() && request.updateExpression().startsWith("SET #w")) {
                    throw new Died(); // the process ends in its commit, after every partial was written
                }
                return super.updateItem(request);
            }
        };
        IngestService service = service(config, dynamo, UnaryOperator.identity());
        List<KinesisEvent.KinesisEventRecord> records = records(6);
        InvocationMetrics<IngestMetric> metrics = new InvocationMetrics<>(IngestMetric.class);
        // Lambda retries a batch that died from its first record. The attempts: the whole batch, its first half, then
        // record 0 alone three times: five deaths, three of them alone.
        int died = 0;
        for (int attempt = 0; attempt < 10 && dying.get(); attempt++) {
            try {
                service.ingest(records, Deadline.inMillis(30_000), metrics);
            } catch (Died e) {
                died++;
            }
            if (died == 5) {
                dying.set(false); // whatever killed them is gone: the next attempt decides
            }
        }
        assertThat(died).isEqualTo(5);
        assertThat(StoredPartials.read(reader, table))
                .as("before: record 0's values are in the table")
                .isNotEqualTo(expected(0, 6));

        IngestResult setAside = service.ingest(records, Deadline.inMillis(30_000), metrics);
        assertThat(setAside.failed()).isFalse();
        assertThat(setAside.poisonRecords()).isEqualTo(1);
        assertThat(setAside.failedSequence()).as("Lambda resumes after it").isEqualTo(KinesisRecords.sequence(1));
        IngestResult rest = service.ingest(records.subList(1, 6), Deadline.inMillis(30_000), metrics);
        assertThat(rest.failed()).isFalse();
        assertThat(rest.failedSequence()).isNull();

        assertThat(StoredPartials.read(reader, table)).isEqualTo(expected(0, 6));
        List<Message> dlq = Emulators.sqs().drain(queue);
        assertThat(dlq).hasSize(1);
        assertThat(dlq.get(0).body())
                .contains(
                        "failed 5 attempts (3 of them with the record alone): the function" + " crashed or timed out");
    }

    /** How record 0 came to be set aside. */
    enum SetAsideBy {
        /** Its decoding threw on every attempt: nothing of it was ever written. */
        DECODE_THROWS,
        /** Five attempts decoded and wrote it, then died in their commit: its slots were emptied when set aside. */
        DIES_AFTER_WRITES,
        /** Its decoding threw, and the first attempt that set it aside died in its commit: two DLQ messages. */
        SET_ASIDE_TWICE
    }

    /**
     * Once whatever failed record 0 is gone, the operator redrives every DLQ message of it (the redrive tool, one
     * batch of the record read back from the stream): it is stored once and the counts are exact.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(SetAsideBy.class)
    void redrive_whenEveryDlqMessageOfASetAsideRecordIsRedriven_storesItOnce(SetAsideBy by) {
        PulseConfig config = stack();
        AtomicBoolean faulty = new AtomicBoolean(true);
        AtomicInteger commitsToKill = new AtomicInteger(by == SetAsideBy.DIES_AFTER_WRITES ? 5 : 0);
        AtomicBoolean killSetAsideCommit = new AtomicBoolean(by == SetAsideBy.SET_ASIDE_TWICE);
        DynamoDbAsyncClient dynamo = new DelegatingDynamoDb(Emulators.dynamoAsync()) {
            @Override
            public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
                if (request.updateExpression().startsWith("SET #w")
                        && (commitsToKill.getAndUpdate(n -> Math.max(0, n - 1)) > 0
                                || killSetAsideCommit.getAndSet(false))) {
                    throw new Died();
                }
                return super.updateItem(request);
            }
        };
        IngestService service = service(config, dynamo, faultOn(0, () -> {
            if (faulty.get() && by != SetAsideBy.DIES_AFTER_WRITES) {
                throw new StackOverflowError("injected for record 0");
            }
        }));
        List<KinesisEvent.KinesisEventRecord> records = records(6);
        InvocationMetrics<IngestMetric> metrics = new InvocationMetrics<>(IngestMetric.class);
        boolean movedOn = false;
        for (int attempt = 0; attempt < 12 && !movedOn; attempt++) {
            try {
                IngestResult r = service.ingest(records, Deadline.inMillis(30_000), metrics);
                movedOn = !r.failed() && KinesisRecords.sequence(1).equals(r.failedSequence());
            } catch (Died e) {
                // the invocation ended; Lambda retries the batch
            }
        }
        assertThat(movedOn).as("record 0 set aside").isTrue();
        assertThat(service.ingest(records.subList(1, 6), Deadline.inMillis(30_000), metrics)
                        .failedSequence())
                .isNull();
        assertThat(StoredPartials.read(reader, table)).as("before the redrive").isEqualTo(expected(0, 6));
        faulty.set(false);

        List<Message> dlq = Emulators.sqs().drain(queue);
        assertThat(dlq).isNotEmpty();
        for (Message m : dlq) {
            assertThat(m.body()).contains(KinesisRecords.sequence(0));
            IngestResult r = service.redrive(records.subList(0, 1), Deadline.inMillis(30_000), metrics);
            assertThat(r.failed()).as("redrive: %s", r.failureReason()).isFalse();
        }

        assertThat(StoredPartials.read(reader, table)).isEqualTo(expected(-1, 6));
    }

    // ---- per-batch limits ----

    /**
     * A batch that reaches its limit of (series, minute) partials stores the records before the one that would pass
     * it, commits, and names that record so Lambda resumes there; nothing is set aside.
     */
    @Test
    void ingest_whenABatchReachesItsPartialLimit_storesTheFirstRecordsAndResumesAtTheNext() {
        PulseConfig config = stack();
        IngestService service = serviceWithLimits(config, 5, IngestService.MAX_BATCH_DATAPOINTS);
        List<KinesisEvent.KinesisEventRecord> records = records(8);
        InvocationMetrics<IngestMetric> metrics = new InvocationMetrics<>(IngestMetric.class);

        // Each record touches 2 (series, minute)s over 3 minutes: the 5th partial is reached by record 2.
        IngestResult first = service.ingest(records, Deadline.inMillis(30_000), metrics);
        IngestResult second = service.ingest(records.subList(3, 8), Deadline.inMillis(30_000), metrics);
        IngestResult third = service.ingest(records.subList(6, 8), Deadline.inMillis(30_000), metrics);

        assertThat(first.failed()).isFalse();
        assertThat(first.failedSequence()).isEqualTo(KinesisRecords.sequence(3));
        assertThat(first.endedEarly()).contains("(series, minute) partials, the limit per batch is 5");
        assertThat(second.failedSequence()).isEqualTo(KinesisRecords.sequence(6));
        assertThat(third.failedSequence()).isNull();
        assertThat(metrics.count(IngestMetric.BATCHES_ENDED_EARLY)).isEqualTo(2);
        assertThat(StoredPartials.read(reader, table)).isEqualTo(expected(-1, 8));
        assertThat(Emulators.sqs().drain(queue)).isEmpty();
    }

    /** A first record that alone passes the per-batch partial limit is stored, and so is every record after it. */
    @Test
    void ingest_whenEachRecordAlonePassesThePartialLimit_storesEachInItsOwnAttempt() {
        PulseConfig config = stack();
        IngestService service = serviceWithLimits(config, 1, 1);
        List<KinesisEvent.KinesisEventRecord> records = records(5);
        InvocationMetrics<IngestMetric> metrics = new InvocationMetrics<>(IngestMetric.class);

        List<KinesisEvent.KinesisEventRecord> rest = records;
        int attempts = 0;
        for (; attempts < 20 && !rest.isEmpty(); attempts++) {
            IngestResult r = service.ingest(rest, Deadline.inMillis(30_000), metrics);
            assertThat(r.failed()).isFalse();
            rest = r.failedSequence() == null ? List.of() : from(records, r.failedSequence());
        }

        assertThat(attempts).isEqualTo(5);
        assertThat(StoredPartials.read(reader, table)).isEqualTo(expected(-1, 5));
        assertThat(Emulators.sqs().drain(queue)).isEmpty();
    }

    // ---- the stack, the faults, the shard and the runner ----

    /** The process dying: not an exception anything in the function catches. */
    private static final class Died extends Error {
        Died() {
            super("died", null, false, false);
        }
    }

    private static DynamoDbException throttle() {
        return (DynamoDbException) DynamoDbException.builder()
                .statusCode(400)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode("ProvisionedThroughputExceededException")
                        .errorMessage("injected throttle")
                        .build())
                .message("injected throttle")
                .build();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Never returns while the test runs, like a decode that loops forever; then throws. */
    private void hang() {
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("released after the test");
    }

    /** The real decoder, except that decoding record {@code record} first runs {@code fault} (throws, sleeps, hangs). */
    private UnaryOperator<IngestService.UnitDecoder> faultOn(int record, Runnable fault) {
        byte[] bad = data(record);
        return real -> (data, pk, arrival) -> {
            if (Arrays.equals(data, bad)) {
                fault.run();
            }
            return real.decodeUnits(data, pk, arrival);
        };
    }

    private PulseConfig stack() {
        table = NAME + "-" + TABLES.incrementAndGet();
        LocalDynamoDb.createTable(reader, table);
        queue = Emulators.sqs().createQueue(table + "-dlq");
        return TestConfig.of(table, queue, Map.of());
    }

    /** The production wiring on {@code dynamo} and the DLQ, its decoder wrapped by {@code decoder}. */
    private static IngestService service(
            PulseConfig config, DynamoDbAsyncClient dynamo, UnaryOperator<IngestService.UnitDecoder> decoder) {
        return IngestFunction.service(config, dynamo, Emulators.sqs().client(), Clock.systemUTC(), decoder);
    }

    private static IngestHandler handler(
            PulseConfig config,
            DynamoDbAsyncClient dynamo,
            UnaryOperator<IngestService.UnitDecoder> decoder,
            RecordingMetrics metrics) {
        return IngestFunction.handler(service(config, dynamo, decoder), metrics, config.safetyMarginMillis());
    }

    /** The service with a batch limit of {@code maxPartials} (series, minute) partials and {@code maxDatapoints}. */
    private IngestService serviceWithLimits(PulseConfig config, int maxPartials, long maxDatapoints) {
        Backoff backoff = new Backoff(5, 100);
        return new IngestService(
                (data, pk, arrival) -> new dev.pulse.codec.RecordDecoder(new dev.pulse.model.DatapointValidator(
                                Clock.systemUTC(), config.acceptPast(), config.acceptFuture()))
                        .decodeUnits(data, pk, arrival),
                maxPartials,
                maxDatapoints,
                new dev.pulse.store.write.DynamoDbStore(Emulators.dynamoAsync(), table, 4, backoff),
                new dev.pulse.store.codec.SeriesCatalog(1000),
                new dev.pulse.store.write.CompactMarks(Emulators.dynamoAsync(), table, 4, backoff),
                new dev.pulse.store.write.MarkMemory(1000, 1000, 1000),
                new ShardCheckpoints(Emulators.dynamoAsync(), table, backoff),
                new dev.pulse.dlq.DeadLetterQueue(Emulators.sqs().client(), queue, backoff),
                config.partialTtl().toSeconds(),
                config.hourlyTtl().toSeconds(),
                config.dailyTtl().toSeconds(),
                Clock.systemUTC());
    }

    private List<KinesisEvent.KinesisEventRecord> records(int n) {
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            records.add(KinesisRecords.record(SHARD, i, "pk", data(i), arrival(i)));
        }
        return records;
    }

    private static List<KinesisEvent.KinesisEventRecord> from(
            List<KinesisEvent.KinesisEventRecord> records, String sequence) {
        for (int i = 0; i < records.size(); i++) {
            if (records.get(i).getKinesis().getSequenceNumber().equals(sequence)) {
                return records.subList(i, records.size());
            }
        }
        throw new AssertionError("no record " + sequence);
    }

    /**
     * How the runner delivers the shard: records 0..{@code records}-1 through the template's mapping resolved with
     * {@code parameters}, for up to {@code seconds}. An invocation has {@code functionMillis} (the context's remaining
     * time) and is reported as timed out after {@code timeoutMillis}; {@code onFailure} runs per failed call.
     */
    private record Delivery(
            long functionMillis,
            long timeoutMillis,
            int seconds,
            int records,
            Map<String, String> parameters,
            Runnable onFailure) {

        /** The 60 records, the template's own settings. */
        static Delivery of(long functionMillis, long timeoutMillis, int seconds) {
            return new Delivery(functionMillis, timeoutMillis, seconds, RECORDS, Map.of(), () -> {});
        }

        Delivery with(int count, Map<String, String> templateParameters) {
            return new Delivery(functionMillis, timeoutMillis, seconds, count, templateParameters, onFailure);
        }

        Delivery onFailure(Runnable action) {
            return new Delivery(functionMillis, timeoutMillis, seconds, records, parameters, action);
        }

        /** With finite retries the mapping may discard a batch; with the template's default it never may. */
        boolean discards() {
            return parameters.containsKey("MaximumRetryAttempts");
        }
    }

    /** Delivers the shard's records as {@code delivery} says; true once all are done. */
    private boolean run(IngestHandler handler, AtomicInteger calls, Delivery delivery) throws Exception {
        MappingSpec spec = ingestMapping(delivery.parameters());
        if (!delivery.discards()) {
            assertThat(spec.maxRetryAttempts())
                    .as("the template's default: never discard")
                    .isEqualTo(-1);
        }
        assertThat(spec.bisectOnError()).isTrue();
        assertThat(spec.reportBatchItemFailures()).isTrue();
        List<StreamRecord> records = new ArrayList<>();
        for (int i = 0; i < delivery.records(); i++) {
            records.add(streamRecord(i));
        }
        ShardSource source = new ShardSource() {
            private int position;

            @Override
            public String shardId() {
                return SHARD;
            }

            @Override
            public String streamArn() {
                return STREAM_ARN;
            }

            @Override
            public List<StreamRecord> read(int max) {
                List<StreamRecord> out =
                        List.copyOf(records.subList(position, Math.min(records.size(), position + max)));
                position += out.size();
                return out;
            }

            @Override
            public boolean exhausted() {
                return position == records.size();
            }
        };
        ShardProcessor processor = new ShardProcessor(
                spec,
                source,
                payload -> {
                    int n = calls.incrementAndGet();
                    KinesisEvent event = EVENTS.fromJson(new ByteArrayInputStream(payload));
                    Future<StreamsEventResponse> call = invocations.submit(() ->
                            handler.handleRequest(event, new TestContext("req-" + n, delivery.functionMillis(), 1024)));
                    try {
                        StreamsEventResponse response = call.get(delivery.timeoutMillis(), TimeUnit.MILLISECONDS);
                        if (!response.getBatchItemFailures().isEmpty()) {
                            delivery.onFailure().run();
                        }
                        return new InvokeResult(JSON.writeValueAsBytes(response), null, "req-" + n);
                    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                        throw new java.io.UncheckedIOException(e);
                    } catch (TimeoutException | ExecutionException e) {
                        delivery.onFailure().run();
                        return new InvokeResult(
                                "{\"errorMessage\":\"failed\"}".getBytes(StandardCharsets.UTF_8),
                                "Unhandled",
                                "req-" + n);
                    }
                },
                json -> {
                    if (!delivery.discards()) {
                        throw new AssertionError("nothing may be discarded: " + json);
                    }
                    discarded.add(json);
                },
                Clock.systemUTC(),
                "arn:aws:lambda:us-east-1:123456789012:function:ingest",
                new ShardStats(),
                new ShardProcessor.Timing(Duration.ZERO, Duration.ofMillis(10), Duration.ofMillis(50)));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(delivery.seconds());
        processor.runUntil(() -> System.nanoTime() > until);
        return processor.finished();
    }

    private static MappingSpec ingestMapping(Map<String, String> parameters) throws Exception {
        PseudoParameters pseudo = PseudoParameters.local(NAME);
        Bindings bindings = new Bindings() {
            @Override
            public String ref(String logicalId) {
                return NAME + "-" + logicalId;
            }

            @Override
            public String getAtt(String logicalId, String attribute) {
                return logicalId.endsWith("Stream")
                        ? STREAM_ARN
                        : "arn:aws:sqs:us-east-1:123456789012:" + NAME + "-" + logicalId;
            }

            @Override
            public PseudoParameters pseudo() {
                return pseudo;
            }
        };
        return SamTemplate.load(Path.of("..", "template.yaml").toAbsolutePath().normalize())
                .resolve(parameters, bindings)
                .mappings()
                .stream()
                .filter(m -> m.functionId().equals("IngestFunction"))
                .findFirst()
                .orElseThrow();
    }

    private long arrival(int i) {
        return minute.toEpochMilli() + 3 * 60_000L + i;
    }

    /** Record {@code i}: two series, one of three minutes, so records share (series, minute)s. */
    private byte[] data(int i) {
        long ts = minute.toEpochMilli() + (i % 3) * 60_000L + i;
        return ("{\"name\":\"" + NAME + "\",\"dims\":{\"op\":\"a\"},\"ts\":" + ts + ",\"value\":" + (i + 1) + "}\n"
                        + "{\"name\":\"" + NAME + "\",\"dims\":{\"op\":\"b\"},\"ts\":" + ts + ",\"value\":" + (1000 + i)
                        + "}\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    private StreamRecord streamRecord(int i) {
        String seq = KinesisRecords.sequence(i);
        ObjectNode inner = JSON.createObjectNode()
                .put("kinesisSchemaVersion", "1.0")
                .put("partitionKey", "pk")
                .put("sequenceNumber", seq)
                .put("data", Base64.getEncoder().encodeToString(data(i)))
                .put("approximateArrivalTimestamp", arrival(i) / 1000.0);
        ObjectNode record = JSON.createObjectNode();
        record.set("kinesis", inner);
        record.put("eventSource", "aws:kinesis")
                .put("eventVersion", "1.0")
                .put("eventID", SHARD + ":" + seq)
                .put("eventName", "aws:kinesis:record")
                .put("awsRegion", "us-east-1")
                .put("eventSourceARN", STREAM_ARN);
        return new StreamRecord(seq, "pk", Instant.ofEpochMilli(arrival(i)), data(i).length, record);
    }

    /** What records 0..n-1 but {@code without} sum to, per (series, minute), computed directly. */
    private Map<String, Map<Long, StoredPartials.Summary>> expected(int without, int n) {
        return expected(Set.of(without), n);
    }

    private Map<String, Map<Long, StoredPartials.Summary>> expected(Set<Integer> without, int n) {
        Map<String, Map<Long, List<Double>>> values = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            if (without.contains(i)) {
                continue;
            }
            long m = minute.toEpochMilli() + (i % 3) * 60_000L;
            values.computeIfAbsent(SERIES_A, k -> new TreeMap<>())
                    .computeIfAbsent(m, k -> new ArrayList<>())
                    .add(i + 1.0);
            values.computeIfAbsent(SERIES_B, k -> new TreeMap<>())
                    .computeIfAbsent(m, k -> new ArrayList<>())
                    .add(1000.0 + i);
        }
        Map<String, Map<Long, StoredPartials.Summary>> out = new TreeMap<>();
        values.forEach((series, byMinute) -> byMinute.forEach(
                (m, v) -> out.computeIfAbsent(series, k -> new TreeMap<>()).put(m, StoredPartials.Summary.of(v))));
        return out;
    }

    /** How many datapoints of series A are stored: the records stored so far (each record has one). */
    private long storedRecords() {
        return StoredPartials.read(reader, table).getOrDefault(SERIES_A, Map.of()).values().stream()
                .mapToLong(StoredPartials.Summary::count)
                .sum();
    }

    private Map<String, AttributeValue> checkpoint() {
        return reader.getItem(b -> b.tableName(table)
                        .consistentRead(true)
                        .key(Map.of(
                                dev.pulse.store.schema.KeyScheme.PK,
                                        AttributeValue.fromS(ShardCheckpoints.key("pulse-test", SHARD)),
                                dev.pulse.store.schema.KeyScheme.SK, AttributeValue.fromS("w"))))
                .item();
    }

    private static long sum(RecordingMetrics metrics, String name) {
        return (long) metrics.documents().stream()
                .mapToDouble(d -> d.getOrDefault(name, 0.0))
                .sum();
    }
}
