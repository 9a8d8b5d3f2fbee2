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
import dev.pulse.local.emulator.LocalDynamoDb;
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
import dev.pulse.retry.Deadline;
import dev.pulse.store.ShardCheckpoints;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.StoredPartials;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.TestContext;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
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
 * A record that makes every attempt fail sits in the middle of a shard. Delivered by the local event source mapping
 * runner with the template's own mapping settings (retries and record age -1: nothing is ever discarded; bisection
 * on; partial batch responses) to the real {@link IngestHandler} on DynamoDB Local and the DLQ, it is set aside to
 * the DLQ once, with its reason, and every record behind it is stored exactly once. Throttling, a failure of the
 * service, never sets a record aside.
 */
@ExtendWith(Emulators.class)
class RecordFailingEveryAttemptIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PojoSerializer<KinesisEvent> EVENTS =
            LambdaEventSerializers.serializerFor(KinesisEvent.class, RecordFailingEveryAttemptIT.class.getClassLoader());
    private static final String SHARD = "shardId-000000000000";
    private static final String STREAM_ARN = "arn:aws:kinesis:us-east-1:123456789012:stream/pulse-test";
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final String SERIES_A = dev.pulse.model.SeriesKey.of("unblock", Map.of("op", "a"));
    private static final String SERIES_B = dev.pulse.model.SeriesKey.of("unblock", Map.of("op", "b"));
    private static final int RECORDS = 60;
    private static final int BAD = 29;
    /** How long the runner waits for an invocation before it reports a timeout (a function error). */
    private static final long INVOKE_TIMEOUT_MS = 1_500;

    private final DynamoDbClient reader = Emulators.dynamo().client();
    private final ExecutorService invocations = Executors.newCachedThreadPool();
    private final CountDownLatch releaseHung = new CountDownLatch(1);
    private final Instant minute = Instant.now().minus(Duration.ofMinutes(30)).truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
    private String table;
    private String queue;

    /** How the record fails each attempt that decodes it. */
    enum Failure {
        /** Its decoding throws an Error: the handler stores the records before it and reports it. */
        STACK_OVERFLOW,
        /** Its decoding runs out of the heap (an OutOfMemoryError, caught like any Throwable). */
        OUT_OF_MEMORY,
        /** Its decoding never returns: the invocation times out, a function error, and Lambda bisects. */
        HANG
    }

    @AfterEach
    void stop() throws InterruptedException {
        releaseHung.countDown();
        invocations.shutdown();
        assertThat(invocations.awaitTermination(30, TimeUnit.SECONDS)).as("hung invocations finished").isTrue();
        if (table != null) {
            reader.deleteTable(b -> b.tableName(table));
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Failure.class)
    void mapping_whenARecordFailsEveryAttempt_setsItAsideOnceAndStoresEveryOtherRecordOnce(Failure failure)
            throws Exception {
        PulseConfig config = stack();
        byte[] bad = data(BAD);
        UnaryOperator<IngestService.UnitDecoder> faulty = real -> (data, pk, arrival) -> {
            if (java.util.Arrays.equals(data, bad)) {
                switch (failure) {
                    case STACK_OVERFLOW -> throw new StackOverflowError("injected for record " + BAD);
                    case OUT_OF_MEMORY -> throw new OutOfMemoryError("Java heap space (injected)");
                    case HANG -> {
                        try {
                            releaseHung.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        throw new IllegalStateException("released after the test");
                    }
                }
            }
            return real.decodeUnits(data, pk, arrival);
        };
        RecordingMetrics metrics = new RecordingMetrics();
        IngestHandler handler = IngestHandlerAccess.handler(IngestHandlerAccess.service(config, Emulators.dynamoAsync(),
                Emulators.sqs().client(), Clock.systemUTC(), faulty), metrics, config.safetyMarginMillis());
        AtomicInteger calls = new AtomicInteger();

        run(handler, calls);

        assertThat(StoredPartials.read(reader, table)).as("every record but the bad one, once").isEqualTo(expected(BAD));
        List<Message> dlq = Emulators.sqs().drain(queue);
        assertThat(dlq).hasSize(1);
        JsonNode message = JSON.readTree(dlq.get(0).body());
        assertThat(message.get("sequenceNumber").asText()).isEqualTo(KinesisRecords.sequence(BAD));
        String reason = message.get("reason").asText();
        assertThat(reason).startsWith("failed ").contains("attempts (3 of them with the record alone): ");
        switch (failure) {
            case STACK_OVERFLOW -> assertThat(reason).contains("record " + KinesisRecords.sequence(BAD)
                    + " failed while decoding: java.lang.StackOverflowError: injected for record " + BAD);
            case OUT_OF_MEMORY -> assertThat(reason).contains("java.lang.OutOfMemoryError: Java heap space (injected)");
            case HANG -> assertThat(reason).endsWith(": the function crashed or timed out");
        }
        assertThat(sum(metrics, "RecordsSetAside")).isEqualTo(1);
        assertThat(sum(metrics, "PoisonRecords")).isEqualTo(1);
        Map<String, AttributeValue> checkpoint = checkpoint();
        assertThat(checkpoint.get(ShardCheckpoints.COMMITTED).s()).isEqualTo(KinesisRecords.sequence(RECORDS - 1));
        assertThat(checkpoint).as("the counts end with the commit past the record")
                .doesNotContainKeys(ShardCheckpoints.ATTEMPTS, ShardCheckpoints.ALONE, ShardCheckpoints.FAILURE);
        // Bisection (on function errors) and the attempts' own halving isolate it in a few attempts, not one per record.
        assertThat(calls.get()).isLessThan(25);
    }

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
                    return CompletableFuture.failedFuture(DynamoDbException.builder().statusCode(400)
                            .awsErrorDetails(AwsErrorDetails.builder().errorCode("ProvisionedThroughputExceededException")
                                    .errorMessage("injected throttle").build())
                            .message("injected throttle").build());
                }
                return super.batchWriteItem(request);
            }
        };
        RecordingMetrics metrics = new RecordingMetrics();
        IngestHandler handler = IngestHandlerAccess.handler(IngestHandlerAccess.service(config, dynamo,
                Emulators.sqs().client(), Clock.systemUTC(), UnaryOperator.identity()), metrics, config.safetyMarginMillis());
        AtomicInteger calls = new AtomicInteger();
        // Far more failed attempts than would set a record aside if they counted: the first record's throttled writes.
        AtomicInteger failedCalls = new AtomicInteger();

        // The handler's deadline (the context's time less the safety margin) passes while the writes are throttled,
        // well before the invocation would time out: a failure the function reports, as in Lambda.
        run(handler, calls, () -> {
            if (failedCalls.incrementAndGet() > 12) {
                throttling.set(false);
            }
        }, config.safetyMarginMillis() + 1_500, 30_000);

        assertThat(throttled.get()).isPositive();
        assertThat(sum(metrics, "BatchFailures")).isGreaterThanOrEqualTo(12);
        assertThat(Emulators.sqs().drain(queue)).isEmpty();
        assertThat(StoredPartials.read(reader, table)).as("every record, once").isEqualTo(expected(-1));
        assertThat(sum(metrics, "RecordsSetAside")).isZero();
        assertThat(sum(metrics, "RecoveryAttempts")).as("a throttled attempt takes its count back").isZero();
        assertThat(checkpoint().get(ShardCheckpoints.COMMITTED).s()).isEqualTo(KinesisRecords.sequence(RECORDS - 1));
    }

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
        IngestService service = IngestHandlerAccess.service(config, dynamo, Emulators.sqs().client(), Clock.systemUTC(),
                UnaryOperator.identity());
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            records.add(KinesisRecords.record(SHARD, i, "pk", data(i), arrival(i)));
        }
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
        assertThat(StoredPartials.read(reader, table)).as("before: record 0's values are in the table")
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
        assertThat(dlq.get(0).body()).contains("failed 5 attempts (3 of them with the record alone): the function"
                + " crashed or timed out");
    }

    /** The process dying: not an exception anything in the function catches. */
    private static final class Died extends Error {
        Died() {
            super("died", null, false, false);
        }
    }

    @Test
    void ingest_whenABatchReachesItsPartialLimit_storesTheFirstRecordsAndResumesAtTheNext() {
        PulseConfig config = stack();
        IngestService service = new IngestService((data, pk, arrival) -> new dev.pulse.codec.RecordDecoder(
                new dev.pulse.model.DatapointValidator(Clock.systemUTC(), config.acceptPast(), config.acceptFuture()))
                .decodeUnits(data, pk, arrival), 5, IngestService.MAX_BATCH_DATAPOINTS,
                new dev.pulse.store.DynamoDbStore(Emulators.dynamoAsync(), table, 4, new dev.pulse.retry.Backoff(5, 100)),
                new dev.pulse.store.SeriesCatalog(1000),
                new dev.pulse.store.BuildMarks(Emulators.dynamoAsync(), table, 4, new dev.pulse.retry.Backoff(5, 100)),
                new dev.pulse.store.MarkMemory(1000, 1000, 1000),
                new ShardCheckpoints(Emulators.dynamoAsync(), table, new dev.pulse.retry.Backoff(5, 100)),
                new dev.pulse.dlq.DeadLetterQueue(Emulators.sqs().client(), queue, new dev.pulse.retry.Backoff(5, 100)),
                config.partialTtl().toSeconds(), config.hourlyTtl().toSeconds(), config.dailyTtl().toSeconds(),
                Clock.systemUTC());
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            records.add(KinesisRecords.record(SHARD, i, "pk", data(i), arrival(i)));
        }
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

    // ---- the stack, the shard and the runner ----

    private PulseConfig stack() {
        table = "unblock-" + TABLES.incrementAndGet();
        LocalDynamoDb.createTable(reader, table);
        queue = Emulators.sqs().createQueue(table + "-dlq");
        return TestConfig.of(table, queue, Map.of());
    }

    private void run(IngestHandler handler, AtomicInteger calls) throws Exception {
        run(handler, calls, () -> { }, 60_000, INVOKE_TIMEOUT_MS);
    }

    /**
     * Delivers the shard's records through the template's mapping until all are done; {@code onFailure} runs per
     * failed call. An invocation has {@code functionMillis} (the context's remaining time) and is reported as timed
     * out after {@code timeoutMillis}.
     */
    private void run(IngestHandler handler, AtomicInteger calls, Runnable onFailure, long functionMillis,
            long timeoutMillis) throws Exception {
        MappingSpec spec = ingestMapping();
        assertThat(spec.maxRetryAttempts()).as("the template's default: never discard").isEqualTo(-1);
        assertThat(spec.bisectOnError()).isTrue();
        assertThat(spec.reportBatchItemFailures()).isTrue();
        List<StreamRecord> records = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
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
                List<StreamRecord> out = List.copyOf(records.subList(position, Math.min(records.size(), position + max)));
                position += out.size();
                return out;
            }

            @Override
            public boolean exhausted() {
                return position == records.size();
            }
        };
        ShardProcessor processor = new ShardProcessor(spec, source, payload -> {
            int n = calls.incrementAndGet();
            KinesisEvent event = EVENTS.fromJson(new ByteArrayInputStream(payload));
            Future<StreamsEventResponse> call = invocations.submit(
                    () -> handler.handleRequest(event, new TestContext("req-" + n, functionMillis, 1024)));
            try {
                StreamsEventResponse response = call.get(timeoutMillis, TimeUnit.MILLISECONDS);
                if (!response.getBatchItemFailures().isEmpty()) {
                    onFailure.run();
                }
                return new InvokeResult(JSON.writeValueAsBytes(response), null, "req-" + n);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (TimeoutException | ExecutionException e) {
                onFailure.run();
                return new InvokeResult("{\"errorMessage\":\"failed\"}".getBytes(StandardCharsets.UTF_8), "Unhandled",
                        "req-" + n);
            }
        }, json -> { throw new AssertionError("nothing may be discarded: " + json); }, Clock.systemUTC(),
                "arn:aws:lambda:us-east-1:123456789012:function:ingest", new ShardStats(),
                new ShardProcessor.Timing(Duration.ZERO, Duration.ofMillis(10), Duration.ofMillis(50)));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        processor.runUntil(() -> System.nanoTime() > until);
        assertThat(processor.finished()).as("every record done within 2 minutes").isTrue();
    }

    private static MappingSpec ingestMapping() throws Exception {
        PseudoParameters pseudo = PseudoParameters.local("unblock");
        Bindings bindings = new Bindings() {
            @Override
            public String ref(String logicalId) {
                return "unblock-" + logicalId;
            }

            @Override
            public String getAtt(String logicalId, String attribute) {
                return logicalId.endsWith("Stream") ? STREAM_ARN : "arn:aws:sqs:us-east-1:123456789012:unblock-" + logicalId;
            }

            @Override
            public PseudoParameters pseudo() {
                return pseudo;
            }
        };
        return SamTemplate.load(Path.of("..", "template.yaml").toAbsolutePath().normalize()).resolve(Map.of(), bindings)
                .mappings().stream().filter(m -> m.functionId().equals("IngestFunction")).findFirst().orElseThrow();
    }

    private long arrival(int i) {
        return minute.toEpochMilli() + 3 * 60_000L + i;
    }

    /** Record {@code i}: two series, one of three minutes, so records share (series, minute)s. */
    private byte[] data(int i) {
        long ts = minute.toEpochMilli() + (i % 3) * 60_000L + i;
        return ("{\"name\":\"unblock\",\"dims\":{\"op\":\"a\"},\"ts\":" + ts + ",\"value\":" + (i + 1) + "}\n"
                + "{\"name\":\"unblock\",\"dims\":{\"op\":\"b\"},\"ts\":" + ts + ",\"value\":" + (1000 + i) + "}\n")
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
        record.put("eventSource", "aws:kinesis").put("eventVersion", "1.0").put("eventID", SHARD + ":" + seq)
                .put("eventName", "aws:kinesis:record").put("awsRegion", "us-east-1").put("eventSourceARN", STREAM_ARN);
        return new StreamRecord(seq, "pk", Instant.ofEpochMilli(arrival(i)), data(i).length, record);
    }

    private Map<String, Map<Long, StoredPartials.Summary>> expected(int without) {
        return expected(without, RECORDS);
    }

    /** What records 0..n-1 but {@code without} sum to, per (series, minute), computed directly. */
    private Map<String, Map<Long, StoredPartials.Summary>> expected(int without, int n) {
        Map<String, Map<Long, List<Double>>> values = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            if (i == without) {
                continue;
            }
            long m = minute.toEpochMilli() + (i % 3) * 60_000L;
            values.computeIfAbsent(SERIES_A, k -> new TreeMap<>()).computeIfAbsent(m, k -> new ArrayList<>()).add(i + 1.0);
            values.computeIfAbsent(SERIES_B, k -> new TreeMap<>()).computeIfAbsent(m, k -> new ArrayList<>()).add(1000.0 + i);
        }
        Map<String, Map<Long, StoredPartials.Summary>> out = new TreeMap<>();
        values.forEach((series, byMinute) -> byMinute.forEach((m, v) ->
                out.computeIfAbsent(series, k -> new TreeMap<>()).put(m, StoredPartials.Summary.of(v))));
        return out;
    }

    private Map<String, AttributeValue> checkpoint() {
        return reader.getItem(b -> b.tableName(table).consistentRead(true).key(Map.of(
                dev.pulse.store.KeyScheme.PK, AttributeValue.fromS(ShardCheckpoints.key("pulse-test", SHARD)),
                dev.pulse.store.KeyScheme.SK, AttributeValue.fromS("w")))).item();
    }

    private static long sum(RecordingMetrics metrics, String name) {
        return (long) metrics.documents().stream().mapToDouble(d -> d.getOrDefault(name, 0.0)).sum();
    }
}
