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

import static dev.pulse.ingest.IngestFixture.NOW;
import static dev.pulse.ingest.IngestFixture.SHARD;
import static dev.pulse.ingest.IngestFixture.datapoint;
import static dev.pulse.ingest.IngestFixture.expected;
import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.pulse.codec.KplAggregate;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.dlq.DeadLetterQueue;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.model.DatapointValidator;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.SeriesCatalog;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.CompactMarks;
import dev.pulse.store.write.DynamoDbStore;
import dev.pulse.store.write.MarkMemory;
import dev.pulse.store.write.ShardCheckpoints;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.DynamoDbLocalExtension;
import dev.pulse.testing.FaultInjectingDynamoDb.SimulatedCrashException;
import dev.pulse.testing.KinesisRecords;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * Pushed records and their resends under every delivery schedule ingest meets: crashes after any number of writes,
 * bisection, batches that end early, a record set aside, a redrive, a zombie attempt, claims that throttle, lose their
 * answer or cannot finish before the deadline, and hostile batches. Each checks that what a reader sums is each
 * content once (and every other producer's record as often as it was put).
 */
class IngestResendScheduleTest {

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    private IngestFixture f;

    @BeforeEach
    void newTable() {
        f = new IngestFixture(DYNAMO.local(), DYNAMO.async(), DYNAMO.reader(), Map.of());
    }

    // ---- input ------------------------------------------------------------------------------------------------

    /** Content {@code c}: one datapoint of series {@code h<c>}, value {@code c + 1}. */
    private static byte[] content(int c) {
        long ts = NOW.toEpochMilli() - 60_000L * (1 + c % 3) + 1_000L * (c % 40);
        return datapoint("pushed", "h" + c, ts, 1 + c).getBytes(StandardCharsets.UTF_8);
    }

    /** Record {@code n}, content {@code c}, put by PushFunction, arrived {@code arrivalDelayMillis} after NOW. */
    private static KinesisEvent.KinesisEventRecord pushed(long n, int c, long arrivalDelayMillis) {
        return KinesisRecords.record(
                SHARD,
                n,
                ShardCheckpoints.PUSHED_PARTITION_KEY_PREFIX + (c % 4),
                content(c),
                NOW.toEpochMilli() + arrivalDelayMillis);
    }

    private static KinesisEvent.KinesisEventRecord pushed(long n, int c) {
        return pushed(n, c, 0);
    }

    /** Record {@code n} of another producer with content {@code c}: stored every time it is put. */
    private static KinesisEvent.KinesisEventRecord plain(long n, int c) {
        return KinesisRecords.record(SHARD, n, "pk-" + n, content(c), NOW.toEpochMilli());
    }

    private static final int[] MIXED = {0, 1, -100, 2, 0, 1, -100, 3, 2, 0, -101, 3, 4, 1};

    /** Pushed contents 0-4 with resends among them, and other producers' records (negative: content 100, 101). */
    private static List<KinesisEvent.KinesisEventRecord> mixed() {
        List<KinesisEvent.KinesisEventRecord> out = new ArrayList<>();
        for (int i = 0; i < MIXED.length; i++) {
            out.add(MIXED[i] < 0 ? plain(i, -MIXED[i]) : pushed(i, MIXED[i]));
        }
        return out;
    }

    /** What each content once (pushed) and every other record stores. */
    private static Map<String, Map<Long, List<Double>>> once(List<KinesisEvent.KinesisEventRecord> batch) {
        Set<String> seen = new HashSet<>();
        List<KinesisEvent.KinesisEventRecord> out = new ArrayList<>();
        for (KinesisEvent.KinesisEventRecord r : batch) {
            String pk = r.getKinesis().getPartitionKey();
            String body = StandardCharsets.UTF_8
                    .decode(r.getKinesis().getData().duplicate())
                    .toString();
            if (!ShardCheckpoints.isPushed(pk) || seen.add(body)) {
                out.add(r);
            }
        }
        return expected(out);
    }

    private static String seq(KinesisEvent.KinesisEventRecord r) {
        return r.getKinesis().getSequenceNumber();
    }

    /**
     * A client whose process dies after {@code budget} write calls (PutItem claims included): every call after
     * fails as a dead process's would.
     */
    private static final class Dying extends DelegatingDynamoDb {
        private final AtomicInteger budget;

        Dying(DynamoDbAsyncClient delegate, int budget) {
            super(delegate);
            this.budget = new AtomicInteger(budget);
        }

        private <T> CompletableFuture<T> write(java.util.function.Supplier<CompletableFuture<T>> call) {
            return budget.getAndDecrement() > 0
                    ? call.get()
                    : CompletableFuture.failedFuture(new SimulatedCrashException());
        }

        @Override
        public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest r) {
            return write(() -> delegate.batchWriteItem(r));
        }

        @Override
        public CompletableFuture<PutItemResponse> putItem(PutItemRequest r) {
            return write(() -> delegate.putItem(r));
        }

        @Override
        public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest r) {
            return write(() -> delegate.updateItem(r));
        }

        @Override
        public CompletableFuture<GetItemResponse> getItem(GetItemRequest r) {
            return budget.get() > 0
                    ? delegate.getItem(r)
                    : CompletableFuture.failedFuture(new SimulatedCrashException());
        }
    }

    private IngestService serviceOn(DynamoDbAsyncClient dynamo) {
        return IngestFunction.service(f.config, dynamo, f.sqs, f.clock);
    }

    private List<Map.Entry<String, String>> claims() {
        return f.items().stream()
                .filter(i -> i.get(KeyScheme.PK).s().startsWith(ShardCheckpoints.CONTENT_PREFIX))
                .map(i -> Map.entry(
                        i.get(KeyScheme.PK).s(), i.get(ShardCheckpoints.OWNER).s()))
                .toList();
    }

    // ---- schedules --------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "crash after {0} write calls")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14})
    void ingest_whenAnAttemptDiesAfterAnyNumberOfWritesAndTheBatchIsBisected_storesEachContentOnce(int writes) {
        List<KinesisEvent.KinesisEventRecord> batch = mixed();

        IngestResult crashed = f.attempt(serviceOn(new Dying(f.dynamo, writes)), batch);
        // Lambda bisects the failed batch: the first half, then the second, each until it succeeds.
        IngestService next = f.service();
        List<IngestResult> first = f.deliver(next, batch.subList(0, batch.size() / 2), 10);
        List<IngestResult> second = f.deliver(next, batch.subList(batch.size() / 2, batch.size()), 10);

        assertThat(crashed.failed() || crashed.failedSequence() == null).isTrue();
        assertThat(first.getLast().failedSequence()).as("%s", first).isNull();
        assertThat(second.getLast().failedSequence()).as("%s", second).isNull();
        assertThat(f.stored()).isEqualTo(once(batch));
        assertThat(f.committed()).isEqualTo(seq(batch.getLast()));
    }

    @ParameterizedTest(name = "partials per batch {0}")
    @ValueSource(ints = {1, 2, 3})
    void ingest_whenBatchesEndEarlyAtTheirLimits_storesEachContentOnce(int maxPartials) {
        Backoff backoff = new Backoff(5, 100);
        DynamoDbAsyncClient dynamo = f.dynamo;
        String table = f.config.tableName();
        IngestService service = new IngestService(
                new RecordDecoder(new DatapointValidator(f.clock, f.config.acceptPast(), f.config.acceptFuture()))
                        ::decodeUnits,
                maxPartials,
                IngestService.MAX_BATCH_DATAPOINTS,
                new DynamoDbStore(dynamo, table, 4, backoff),
                new SeriesCatalog(1000),
                new CompactMarks(dynamo, table, 8, backoff),
                new MarkMemory(1000, f.config.compactGrace().toMillis(), 65_000),
                new ShardCheckpoints(dynamo, table, backoff, f.config.redriveWindow()),
                new DeadLetterQueue(f.sqs, IngestFixture.DLQ_URL, backoff),
                f.config.partialTtl().toSeconds(),
                f.config.hourlyTtl().toSeconds(),
                f.config.dailyTtl().toSeconds(),
                f.clock);
        List<KinesisEvent.KinesisEventRecord> batch = mixed();

        List<IngestResult> results = f.deliver(service, batch, 40);

        assertThat(results.getLast().failedSequence()).as("%s", results).isNull();
        assertThat(results).hasSizeGreaterThan(1);
        assertThat(f.stored()).isEqualTo(once(batch));
    }

    /** A pushed record whose decoding throws every time, with its resend later in the batch. */
    @Test
    void ingest_whenAPushedRecordIsSetAsideAndItsResendFollows_sendsItToTheDeadLetterQueueOnceAndStoresTheRest() {
        List<KinesisEvent.KinesisEventRecord> batch = mixed(); // content 2 at 3, its resend at 8
        UnaryOperator<IngestService.UnitDecoder> pill = d -> (data, pk, ref) -> {
            if (new String(data, StandardCharsets.UTF_8).contains("\"host\":\"h2\"")) {
                throw new StackOverflowError();
            }
            return d.decodeUnits(data, pk, ref);
        };

        List<IngestResult> results = f.deliver(f.service(pill), batch, 30);

        assertThat(results.getLast().failedSequence()).as("%s", results).isNull();
        assertThat(f.deadLetterReasons()).containsOnlyKeys(seq(batch.get(3)));
        List<KinesisEvent.KinesisEventRecord> rest = new ArrayList<>(batch);
        rest.removeIf(r -> new String(content(2), StandardCharsets.UTF_8)
                .equals(StandardCharsets.UTF_8
                        .decode(r.getKinesis().getData().duplicate())
                        .toString()));
        assertThat(f.stored()).isEqualTo(once(rest));
    }

    /** Lambda discarded a batch after a partial write; live delivery stored the resends' batch; then the redrive. */
    @Test
    void redrive_whenADiscardedBatchHoldsContentWhoseResendsLiveDeliveryMet_storesEachContentOnce() {
        List<KinesisEvent.KinesisEventRecord> discarded = List.of(pushed(0, 0), pushed(1, 1), plain(2, 100));
        List<KinesisEvent.KinesisEventRecord> live = List.of(pushed(3, 1), pushed(4, 0), pushed(5, 2));
        // The discarded batch's attempt: claims, marks and some partials went in, then the process died.
        IngestResult died = f.attempt(serviceOn(new Dying(f.dynamo, 6)), discarded);
        // Live delivery goes on after the discard (from where each attempt ends, as the mapping does).
        List<IngestResult> stored = f.deliver(f.service(), live, 10);
        InvocationMetrics<IngestMetric> m = new InvocationMetrics<>(IngestMetric.class);
        f.attempts.add(m);
        IngestResult redriven = f.service().redrive(discarded, Deadline.inMillis(30_000), m);

        assertThat(died.failed()).isTrue();
        assertThat(stored.getLast().failedSequence()).as("%s", stored).isNull();
        assertThat(redriven.failed()).as("%s", redriven.failureReason()).isFalse();
        List<KinesisEvent.KinesisEventRecord> all = new ArrayList<>(discarded);
        all.addAll(live);
        assertThat(f.stored()).isEqualTo(once(all));
    }

    /**
     * A zombie: attempt A stops at {@code hook}, a newer attempt B runs the same batch to its commit, then A goes on
     * (its writes land late, its commit is refused).
     */
    @ParameterizedTest(name = "A paused at its {0}")
    @ValueSource(strings = {"first claim", "commit"})
    void ingest_whenAnOlderAttemptRunsOnAfterANewerOneCommitted_storesEachContentOnce(String hook) {
        List<KinesisEvent.KinesisEventRecord> batch = mixed();
        AtomicBoolean fired = new AtomicBoolean();
        List<IngestResult> newer = new ArrayList<>();
        IngestService b = f.service();
        DynamoDbAsyncClient paused = new DelegatingDynamoDb(f.dynamo) {
            private void maybeRunB() {
                if (fired.compareAndSet(false, true)) {
                    newer.add(f.attempt(b, batch));
                }
            }

            @Override
            public CompletableFuture<PutItemResponse> putItem(PutItemRequest r) {
                if (hook.equals("first claim")) {
                    maybeRunB();
                }
                return delegate.putItem(r);
            }

            @Override
            public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest r) {
                if (hook.equals("commit") && r.updateExpression().startsWith("SET #w")) {
                    maybeRunB();
                }
                return delegate.updateItem(r);
            }
        };

        IngestResult older = f.attempt(serviceOn(paused), batch);

        assertThat(newer).singleElement().satisfies(r -> assertThat(r.failed()).isFalse());
        assertThat(older.failed()).isTrue();
        assertThat(f.stored()).isEqualTo(once(batch));
    }

    // ---- the claims' own failures -----------------------------------------------------------------------------

    /**
     * 700 ms to go, claims that take {@code delay} ms each, 16 at once: 64 of 300 ms stop at the deadline with claims
     * unstarted; 16 of 900 ms all land, past it.
     */
    @ParameterizedTest(name = "{0} claims of {1} ms")
    @CsvSource({"64, 300", "16, 900"})
    void ingest_whenTheClaimsCannotFinishBeforeTheDeadline_failsTheBatchAsTheStoresAndStoresNothing(
            int records, long delay) {
        List<KinesisEvent.KinesisEventRecord> batch = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            batch.add(pushed(i, i));
        }
        DynamoDbAsyncClient slow = new DelegatingDynamoDb(f.dynamo) {
            @Override
            public CompletableFuture<PutItemResponse> putItem(PutItemRequest r) {
                return CompletableFuture.supplyAsync(
                                () -> null, CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS))
                        .thenCompose(x -> delegate.putItem(r));
            }
        };

        IngestResult late = f.attempt(serviceOn(slow), batch, 700);

        assertThat(late.failed()).isTrue();
        assertThat(late.failureReason())
                .as("a failure of the store, whether the claims stopped at the deadline or ended past it")
                .startsWith("storage: ")
                .contains("could not claim the content of pushed records")
                .contains("deadline");
        assertThat(f.storedCount()).isZero();
        assertThat(f.committed()).isNull();
        assertThat(f.checkpointNumber(ShardCheckpoints.ATTEMPTS))
                .as("a deadline says nothing about the records: the attempt takes its count back")
                .isZero();
        List<IngestResult> after = f.deliver(f.service(), batch, 5);
        assertThat(after.getLast().failedSequence()).isNull();
        assertThat(f.stored()).isEqualTo(once(batch));
    }

    /** Claims throttled, and claims whose write landed but whose answer was lost (a 500 after the write). */
    @Test
    void ingest_whenClaimsAreThrottledOrLoseTheirAnswers_storesEachContentOnceOwnedByItsFirstRecord() {
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger throttled = new AtomicInteger();
        AtomicInteger lost = new AtomicInteger();
        DynamoDbAsyncClient flaky = new DelegatingDynamoDb(f.dynamo) {
            @Override
            public CompletableFuture<PutItemResponse> putItem(PutItemRequest r) {
                // In turn: throttled, written with its answer lost, answered.
                int call = calls.getAndIncrement();
                if (call % 3 == 0) {
                    throttled.incrementAndGet();
                    return CompletableFuture.failedFuture(error(400, "ProvisionedThroughputExceededException"));
                }
                if (call % 3 == 1) {
                    lost.incrementAndGet();
                    return delegate.putItem(r)
                            .thenCompose(x -> CompletableFuture.failedFuture(error(500, "InternalServerError")));
                }
                return delegate.putItem(r);
            }
        };
        List<KinesisEvent.KinesisEventRecord> batch = mixed();

        List<IngestResult> results = f.deliver(serviceOn(flaky), batch, 10);

        assertThat(results.getLast().failedSequence()).as("%s", results).isNull();
        assertThat(throttled.get()).isPositive();
        assertThat(lost.get()).isPositive();
        assertThat(f.stored()).isEqualTo(once(batch));
        assertThat(claims())
                .extracting(Map.Entry::getValue)
                .containsExactlyInAnyOrder(
                        IngestFixture.CHECKPOINT + "#" + seq(batch.get(0)),
                        IngestFixture.CHECKPOINT + "#" + seq(batch.get(1)),
                        IngestFixture.CHECKPOINT + "#" + seq(batch.get(3)),
                        IngestFixture.CHECKPOINT + "#" + seq(batch.get(7)),
                        IngestFixture.CHECKPOINT + "#" + seq(batch.get(12)));
    }

    private static DynamoDbException error(int status, String code) {
        return (DynamoDbException) DynamoDbException.builder()
                .statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage("injected")
                        .build())
                .message("injected " + code)
                .build();
    }

    // ---- hostile batches --------------------------------------------------------------------------------------

    @Test
    void ingest_whenOneBatchHoldsThousandsOfTheSameRecord_claimsItOnceAndStoresItOnce() {
        AtomicInteger puts = new AtomicInteger();
        DynamoDbAsyncClient counting = new DelegatingDynamoDb(f.dynamo) {
            @Override
            public CompletableFuture<PutItemResponse> putItem(PutItemRequest r) {
                puts.incrementAndGet();
                return delegate.putItem(r);
            }
        };
        List<KinesisEvent.KinesisEventRecord> batch = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            batch.add(pushed(i, 3));
        }

        IngestResult r = f.attempt(serviceOn(counting), batch);

        assertThat(r.failed()).isFalse();
        assertThat(puts.get()).isEqualTo(1);
        assertThat(f.total(IngestMetric.RESENT_RECORDS)).isEqualTo(4_999);
        assertThat(f.stored()).isEqualTo(expected(batch.subList(0, 1)));
    }

    /** More pushed records than the mapping's default batch (500), each its own claim: all within the attempt. */
    @Test
    void ingest_whenOneBatchHoldsHundredsOfPushedRecords_claimsThemAllWithinTheAttempt() {
        List<KinesisEvent.KinesisEventRecord> batch = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            batch.add(pushed(i, i));
        }

        IngestResult r = f.attempt(f.service(), batch);

        assertThat(r.failed()).as("%s", r.failureReason()).isFalse();
        assertThat(r.failedSequence()).isNull();
        assertThat(claims()).hasSize(300);
        assertThat(f.storedCount()).isEqualTo(300);
    }

    @Test
    void ingest_whenAPushedPoisonRecordIsSentAgain_sendsItToTheDeadLetterQueueOnce() {
        byte[] bad = "{\"name\":\"pushed\",\"value\":\"not a number\"}".getBytes(StandardCharsets.UTF_8);
        List<KinesisEvent.KinesisEventRecord> batch = List.of(
                KinesisRecords.record(SHARD, 0, "push-0", bad, NOW.toEpochMilli()),
                pushed(1, 0),
                KinesisRecords.record(SHARD, 2, "push-0", bad, NOW.toEpochMilli()),
                KinesisRecords.record(SHARD, 3, "push-1", new byte[0], NOW.toEpochMilli()),
                KinesisRecords.record(SHARD, 4, "push-1", new byte[0], NOW.toEpochMilli()));

        IngestResult r = f.attempt(f.service(), batch);

        assertThat(r.failed()).isFalse();
        assertThat(f.deadLetterReasons()).containsOnlyKeys(seq(batch.get(0)), seq(batch.get(3)));
        assertThat(f.stored()).isEqualTo(expected(List.of(batch.get(1))));
    }

    @Test
    void ingest_whenAKplAggregateUnderAPushKeyIsSentAgain_storesItsUserRecordsOnce() {
        byte[] aggregate = KplAggregate.write(
                List.of(Map.entry("a", content(0)), Map.entry("b", content(1)), Map.entry("a", content(0))));
        List<KinesisEvent.KinesisEventRecord> batch = List.of(
                KinesisRecords.record(SHARD, 0, "push-0", aggregate, NOW.toEpochMilli()),
                pushed(1, 2),
                KinesisRecords.record(SHARD, 2, "push-0", aggregate, NOW.toEpochMilli()));

        IngestResult r = f.attempt(f.service(), batch);

        assertThat(r.failed()).isFalse();
        assertThat(f.total(IngestMetric.RESENT_RECORDS)).isEqualTo(1);
        assertThat(f.storedCount())
                .as("three user records and one pushed record")
                .isEqualTo(4);
    }

    // ---- time ---------------------------------------------------------------------------------------------------

    /**
     * The resend arrived a minute after its original, as clients send again, but the shard stood still for more than a
     * day between them (an outage; MaximumRetryAttempts -1 retries until the records leave the stream, which may keep
     * them up to a year): it is still a resend.
     */
    @Test
    void ingest_whenAResendIsProcessedMoreThanADayAfterItsOriginal_storesItOnce() {
        IngestService service = f.service();
        f.attempt(service, List.of(pushed(0, 0, 0), pushed(1, 1, 0)));
        f.clock.advance(Duration.ofHours(25));

        IngestResult later = f.attempt(service, List.of(pushed(2, 0, 60_000), pushed(3, 2, 60_000)));

        assertThat(later.failed()).isFalse();
        assertThat(f.attempts.get(1).count(IngestMetric.RESENT_RECORDS)).isEqualTo(1);
        assertThat(f.stored()).isEqualTo(expected(List.of(pushed(0, 0), pushed(1, 1), pushed(3, 2))));
    }
}
