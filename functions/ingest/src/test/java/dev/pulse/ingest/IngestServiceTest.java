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
import static dev.pulse.ingest.IngestFixture.datapoint;
import static dev.pulse.ingest.IngestFixture.expected;
import static dev.pulse.ingest.IngestFixture.record;
import static dev.pulse.ingest.IngestFixture.records;
import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.pulse.store.write.ShardCheckpoints;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.DynamoDbLocalExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;

/**
 * {@link IngestService} on DynamoDB Local (in-process, 127.0.0.1): what one batch stores, what a redelivery and a
 * stale attempt can and cannot change, and the poison mix. Faults of the storage and the DLQ are
 * {@link IngestFaultsTest}'s; a record that fails every attempt is {@link IngestSetAsideTest}'s.
 */
class IngestServiceTest {

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    private IngestFixture f;

    @BeforeEach
    void newTable() {
        f = new IngestFixture(DYNAMO.local(), DYNAMO.async(), DYNAMO.reader(), Map.of());
    }

    @Test
    void ingest_whenBatchIsValid_storesEachSeriesMinuteOnceAndCommitsTheLastRecord() {
        List<KinesisEvent.KinesisEventRecord> batch = records(0, 60, 4, 3);

        IngestResult r = f.attempt(f.service(), batch);

        assertThat(r.failed()).isFalse();
        assertThat(r.endedEarly()).isNull();
        assertThat(r.failedSequence()).isNull();
        assertThat(r.datapoints()).isEqualTo(60);
        assertThat(r.partials()).isEqualTo(4 * 3);
        assertThat(f.stored()).isEqualTo(expected(batch));
        assertThat(f.committed()).isEqualTo(batch.get(59).getKinesis().getSequenceNumber());
        assertThat(f.checkpointNumber(ShardCheckpoints.ATTEMPTS))
                .as("the commit clears the attempt count")
                .isZero();
        assertThat(f.total(IngestMetric.RECORDS_IN)).isEqualTo(60);
        assertThat(f.total(IngestMetric.DATAPOINTS_IN)).isEqualTo(60);
        // 12 partials, 4 new catalog entries, the metric name's index entry and the catalog's version; an hour and a
        // day
        // mark per series.
        assertThat(f.total(IngestMetric.ITEMS_WRITTEN)).isEqualTo(12 + 4 + 1 + 1);
        assertThat(f.total(IngestMetric.MARKS_WRITTEN)).isEqualTo(8);
        assertThat(f.sqs.messages()).isEmpty();
    }

    @Test
    void ingest_whenTheSameBatchIsDeliveredAgain_skipsEveryRecordAndWritesNothing() {
        List<KinesisEvent.KinesisEventRecord> batch = records(0, 40, 3, 2);
        IngestService service = f.service();
        f.attempt(service, batch);
        List<?> itemsAfterFirst = f.items();

        IngestResult again = f.attempt(service, batch);

        assertThat(again.failed()).isFalse();
        assertThat(again.alreadyStored()).isEqualTo(40);
        assertThat(again.datapoints()).isZero();
        assertThat(f.attempts.get(1).count(IngestMetric.ALREADY_STORED_RECORDS)).isEqualTo(40);
        assertThat(f.attempts.get(1).count(IngestMetric.ITEMS_WRITTEN)).isZero();
        assertThat(f.stored()).isEqualTo(expected(batch));
        // Only the checkpoint changed: its generation (the claim), with the count taken back.
        assertThat(f.items()).hasSameSizeAs(itemsAfterFirst);
        assertThat(f.checkpointNumber(ShardCheckpoints.ATTEMPTS)).isZero();
    }

    /**
     * A redelivery whose boundaries differ from the committed batch's (Lambda resumed, bisected or retried from
     * elsewhere): the records at or below the committed position are skipped, the rest stored, none twice.
     */
    @ParameterizedTest(name = "committed {0} records, redelivered from {1} to {2}")
    @CsvSource({"30, 0, 50", "30, 20, 50", "30, 29, 31", "30, 30, 60", "1, 0, 2"})
    void ingest_whenRedeliveryStartsBelowTheCommittedPosition_storesOnlyTheRecordsAboveIt(
            int committed, int from, int to) {
        List<KinesisEvent.KinesisEventRecord> all = records(0, 60, 3, 4);
        IngestService service = f.service();
        f.attempt(service, all.subList(0, committed));

        IngestResult r = f.attempt(service, all.subList(from, to));

        int below = Math.max(0, committed - from);
        assertThat(r.failed()).isFalse();
        assertThat(r.alreadyStored()).isEqualTo(below);
        assertThat(r.datapoints()).isEqualTo(to - from - below);
        assertThat(f.stored()).isEqualTo(expected(all.subList(0, Math.max(committed, to))));
        assertThat(f.committed())
                .isEqualTo(all.get(Math.max(committed, to) - 1).getKinesis().getSequenceNumber());
    }

    /**
     * A stale attempt (one Lambda gave up on, still running) writes its partials after newer attempts stored the
     * same records in other batches: its partials are outvoted by their generation and its commit is refused, so
     * the stored counts and the committed position are the newer attempts'.
     */
    @Test
    void ingest_whenAStaleAttemptWritesAfterNewerAttemptsCommitted_cannotChangeWhatTheyStored() {
        // 2 series x 3 minutes: six slots, named by records 0-5 in the first half and by 10-15 in the second.
        List<KinesisEvent.KinesisEventRecord> batch = records(0, 20, 2, 3);
        IngestService newer = f.service();
        AtomicBoolean overtaken = new AtomicBoolean();
        List<IngestResult> newerResults = new ArrayList<>();
        // The stale attempt's partial writes wait until Lambda's retries of its records (bisected: 10 and 10) are
        // stored and committed. Its claim stays counted, as a timed-out attempt's does: the first retry is a
        // recovery attempt that takes half of its records and asks Lambda to resume after them.
        DynamoDbAsyncClient slow = new DelegatingDynamoDb(f.dynamo) {
            @Override
            public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
                if (!overtaken.compareAndSet(false, true)) {
                    return super.batchWriteItem(request);
                }
                // On another thread: the caller may be the HTTP client's, which the newer attempts need.
                return CompletableFuture.runAsync(() -> {
                            newerResults.addAll(f.deliver(newer, batch.subList(0, 10), 5));
                            newerResults.addAll(f.deliver(newer, batch.subList(10, 20), 5));
                        })
                        .thenCompose(v -> super.batchWriteItem(request));
            }
        };
        IngestService stale = IngestFunction.service(f.config, slow, f.sqs, f.clock);

        IngestResult r = f.attempt(stale, batch);

        assertThat(overtaken).isTrue();
        assertThat(newerResults).noneMatch(IngestResult::failed);
        assertThat(r.failed()).isTrue();
        assertThat(r.failureReason()).startsWith("superseded: ");
        assertThat(r.failedSequence()).isEqualTo(batch.get(0).getKinesis().getSequenceNumber());
        assertThat(f.attempts.get(0).count(IngestMetric.SUPERSEDED_ATTEMPTS)).isEqualTo(1);
        // The stale partials are there, under an older generation: a reader that summed them would count twice.
        assertThat(f.partialItems())
                .hasSize(r.partials()
                        + newerResults.stream().mapToInt(IngestResult::partials).sum());
        assertThat(f.stored()).isEqualTo(expected(batch));
        assertThat(f.committed()).isEqualTo(batch.get(19).getKinesis().getSequenceNumber());
        assertThat(f.checkpointNumber(ShardCheckpoints.GENERATION)).isEqualTo(1 + newerResults.size());

        // Lambda retries the stale attempt's batch from its first record: all of it is already stored.
        IngestResult retry = f.attempt(newer, batch);
        assertThat(retry.alreadyStored()).isEqualTo(20);
        assertThat(f.stored()).isEqualTo(expected(batch));
    }

    /** An attempt that claimed the shard before a newer one cannot commit, even with nothing left to write. */
    @Test
    void ingest_whenANewerAttemptClaimedTheShardMidBatch_failsWithoutCommitting() {
        List<KinesisEvent.KinesisEventRecord> batch = records(0, 10, 1, 1);
        ShardCheckpoints checkpoints = new ShardCheckpoints(f.dynamo, f.table, new dev.pulse.retry.Backoff(5, 100));
        AtomicBoolean claimed = new AtomicBoolean();
        DynamoDbAsyncClient racing = new DelegatingDynamoDb(f.dynamo) {
            @Override
            public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
                if (!claimed.compareAndSet(false, true)) {
                    return super.batchWriteItem(request);
                }
                return checkpoints
                        .claim(IngestFixture.CHECKPOINT, dev.pulse.retry.Deadline.inMillis(5_000))
                        .thenCompose(p -> super.batchWriteItem(request));
            }
        };

        IngestResult r = f.attempt(IngestFunction.service(f.config, racing, f.sqs, f.clock), batch);

        assertThat(r.failed()).isTrue();
        assertThat(r.failureReason()).contains("claimed by a newer attempt after generation 1");
        assertThat(f.committed()).isNull();
        assertThat(f.total(IngestMetric.BATCH_FAILURES)).isEqualTo(1);
    }

    /**
     * Valid and invalid records in one batch: every invalid one goes to the DLQ once, with the reason naming what is
     * wrong, the valid ones are stored, and the batch commits; a redelivery sends nothing again.
     */
    @Test
    void ingest_whenBatchMixesValidAndPoisonRecords_sendsEachPoisonWithItsReasonAndStoresTheRest() {
        long ts = NOW.toEpochMilli() - 90_000;
        List<KinesisEvent.KinesisEventRecord> valid = List.of(
                record(1, datapoint("cpu", "a", ts, 3)),
                record(4, datapoint("cpu", "a", ts + 1_000, 5)),
                record(7, datapoint("cpu", "b", ts, 11)));
        KinesisEvent.KinesisEventRecord truncated = record(2, "{\"name\":\"cpu\",\"dims\":{\"host\":\"a\"},\"ts\":");
        KinesisEvent.KinesisEventRecord tooOld =
                record(3, datapoint("cpu", "a", NOW.toEpochMilli() - 15L * 86_400_000, 1));
        KinesisEvent.KinesisEventRecord noArrival = record(5, datapoint("cpu", "a", ts, 2));
        noArrival.getKinesis().setApproximateArrivalTimestamp(null);
        KinesisEvent.KinesisEventRecord notFinite = record(6, "{\"name\":\"cpu\",\"ts\":" + ts + ",\"value\":1e400}");
        List<KinesisEvent.KinesisEventRecord> batch =
                List.of(valid.get(0), truncated, tooOld, valid.get(1), noArrival, notFinite, valid.get(2));

        IngestService service = f.service();
        IngestResult r = f.attempt(service, batch);

        assertThat(r.failed()).isFalse();
        assertThat(r.datapoints()).isEqualTo(3);
        assertThat(r.poisonRecords()).isEqualTo(4);
        assertThat(f.stored()).isEqualTo(expected(valid));
        Map<String, String> reasons = f.deadLetterReasons();
        assertThat(reasons).containsOnlyKeys(seq(truncated), seq(tooOld), seq(noArrival), seq(notFinite));
        assertThat(reasons.get(seq(tooOld))).contains("ts: ").contains("outside the accepted window");
        assertThat(reasons.get(seq(noArrival))).isEqualTo(IngestService.NO_ARRIVAL);
        assertThat(reasons.get(seq(notFinite))).contains("value");
        assertThat(reasons.get(seq(truncated))).isNotBlank();
        assertThat(f.sqs.messages()).allSatisfy(m -> assertThat(m.queueUrl()).isEqualTo(IngestFixture.DLQ_URL));
        assertThat(f.committed()).isEqualTo(seq(valid.get(2)));

        IngestResult again = f.attempt(service, batch);
        assertThat(again.alreadyStored()).isEqualTo(7);
        assertThat(f.sqs.messages()).hasSize(4);
        assertThat(f.total(IngestMetric.POISON_RECORDS)).isEqualTo(4);
    }

    /** Whether a datapoint is in the window depends on its record's arrival, never on the clock of the attempt. */
    @ParameterizedTest(name = "attempt clock {0} h after arrival")
    @CsvSource({"0", "3", "400"})
    void ingest_whenTheAttemptRunsLongAfterArrival_acceptsAndRefusesExactlyTheSameRecords(long hoursLater) {
        long arrival = NOW.toEpochMilli();
        List<KinesisEvent.KinesisEventRecord> batch = List.of(
                record(1, datapoint("cpu", "a", arrival + 3_600_000L, 1)), // within 2 h after its arrival
                record(2, datapoint("cpu", "a", arrival + 3 * 3_600_000L, 1)), // 3 h after: refused
                record(3, datapoint("cpu", "a", arrival - 13L * 86_400_000, 1))); // 13 days before: accepted
        f.clock.advance(java.time.Duration.ofHours(hoursLater));

        IngestResult r = f.attempt(f.service(), batch);

        assertThat(r.datapoints()).isEqualTo(2);
        assertThat(f.deadLetterReasons()).containsOnlyKeys(seq(batch.get(1)));
    }

    @Test
    void ingest_whenARecordHasNoSequenceNumber_sendsItToTheDlqAndStoresTheOthers() {
        KinesisEvent.KinesisEventRecord unkeyed = record(2, datapoint("cpu", "a", NOW.toEpochMilli() - 60_000, 1));
        unkeyed.getKinesis().setSequenceNumber(null);
        List<KinesisEvent.KinesisEventRecord> good = records(10, 5, 1, 1);
        List<KinesisEvent.KinesisEventRecord> batch = new ArrayList<>(good);
        batch.add(2, unkeyed);

        IngestResult r = f.attempt(f.service(), batch);

        assertThat(r.failed()).isFalse();
        assertThat(r.poisonRecords()).isEqualTo(1);
        assertThat(f.sqs.messages())
                .singleElement()
                .satisfies(m -> assertThat(m.body()).contains("record without Kinesis data or sequence number"));
        assertThat(f.stored()).isEqualTo(expected(good));
    }

    /** A hand-made batch out of shard order commits its highest record, never a lower one. */
    @Test
    void ingest_whenRecordsAreOutOfOrder_commitsTheHighestSequenceNumber() {
        List<KinesisEvent.KinesisEventRecord> batch = new ArrayList<>(records(0, 6, 1, 1));
        java.util.Collections.swap(batch, 2, 5);

        f.attempt(f.service(), batch);

        assertThat(f.committed()).isEqualTo(seq(batch.get(2)));
    }

    private static String seq(KinesisEvent.KinesisEventRecord r) {
        return r.getKinesis().getSequenceNumber();
    }
}
