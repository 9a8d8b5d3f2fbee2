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

import static dev.pulse.ingest.IngestFixture.expected;
import static dev.pulse.ingest.IngestFixture.record;
import static dev.pulse.ingest.IngestFixture.records;
import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.pulse.store.write.ShardCheckpoints;
import dev.pulse.testing.DynamoDbLocalExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * {@link IngestService} under the failures DynamoDB and SQS produce, injected around the real client
 * ({@link dev.pulse.testing.FaultInjectingDynamoDb}): throttling and UnprocessedItems are retried until everything is
 * written; a failure that outlasts the attempt fails the whole batch and takes its attempt count back; a crash at any
 * write leaves nothing a retry cannot make exact.
 */
class IngestFaultsTest {

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    private IngestFixture f;

    @BeforeEach
    void newTable() {
        f = new IngestFixture(DYNAMO.local(), DYNAMO.async(), DYNAMO.reader(), Map.of());
    }

    /** 200 records over 20 series and 5 minutes: 100 partials and 21 index items, five BatchWriteItem calls. */
    private static List<KinesisEvent.KinesisEventRecord> wideBatch() {
        return records(0, 200, 20, 5);
    }

    @Test
    void ingest_whenBatchWritesAreThrottled_retriesThemAndStoresEverythingOnce() {
        List<KinesisEvent.KinesisEventRecord> batch = wideBatch();
        f.dynamo.rates(0.5, 0);

        IngestResult r = f.attempt(f.service(), batch);

        assertThat(r.failed()).isFalse();
        assertThat(f.dynamo.throttlesInjected.get()).isPositive();
        assertThat(r.write().throttles()).isEqualTo(f.dynamo.throttlesInjected.get());
        assertThat(r.write().retries()).isGreaterThanOrEqualTo(r.write().throttles());
        // Partials, catalog entries, the name's index entry and the catalog's version.
        assertThat(r.write().itemsWritten()).isEqualTo(100 + 20 + 1 + 1);
        assertThat(f.total(IngestMetric.THROTTLES)).isEqualTo(f.dynamo.throttlesInjected.get());
        assertThat(f.stored()).isEqualTo(expected(batch));
        assertThat(f.committed()).isEqualTo(batch.get(199).getKinesis().getSequenceNumber());
    }

    @Test
    void ingest_whenBatchWritesReturnUnprocessedItems_writesTheRestAndLosesNothing() {
        List<KinesisEvent.KinesisEventRecord> batch = wideBatch();
        f.dynamo.rates(0, 1.0); // every call of more than one item writes only some of them

        IngestResult r = f.attempt(f.service(), batch);

        assertThat(r.failed()).isFalse();
        assertThat(f.dynamo.unprocessedInjected.get()).isPositive();
        assertThat(r.write().unprocessedItems()).isEqualTo(f.dynamo.unprocessedInjected.get());
        assertThat(f.total(IngestMetric.UNPROCESSED_ITEMS)).isEqualTo(f.dynamo.unprocessedInjected.get());
        // Partials, catalog entries, the name's index entry and the catalog's version.
        assertThat(r.write().itemsWritten()).isEqualTo(100 + 20 + 1 + 1);
        assertThat(f.stored()).isEqualTo(expected(batch));
    }

    /**
     * Throttling that lasts past the attempt's deadline: the writes stop before it (backing off, not spinning), the
     * whole batch fails from its first record, and the attempt takes its count back, because throttling says nothing
     * about the records: the next attempt takes the whole batch again, not a shrunk one.
     */
    @Test
    void ingest_whenThrottledUntilTheDeadline_failsTheBatchBeforeItAndTakesTheAttemptBack() {
        List<KinesisEvent.KinesisEventRecord> batch = wideBatch();
        f.dynamo.rates(1.0, 0);
        IngestService service = f.service();

        long started = System.nanoTime();
        IngestResult r = f.attempt(service, batch, 3_000);
        long tookMs = (System.nanoTime() - started) / 1_000_000;

        assertThat(r.failed()).isTrue();
        assertThat(r.failureReason()).startsWith("storage: could not write").contains("injected throttle");
        assertThat(r.failedSequence()).isEqualTo(batch.get(0).getKinesis().getSequenceNumber());
        assertThat(tookMs)
                .as("the attempt ends by its deadline (and the release budget)")
                .isLessThan(3_000 + 1_000);
        // Backing off (5 ms first, 100 ms largest delays), not spinning: five lanes, at most a few dozen calls each.
        assertThat(r.write().retries()).isBetween(5L, 5L * 120);
        assertThat(f.committed()).isNull();
        assertThat(f.checkpointNumber(ShardCheckpoints.ATTEMPTS)).isZero();

        f.dynamo.rates(0, 0);
        IngestResult retry = f.attempt(service, batch);

        assertThat(retry.failed()).isFalse();
        assertThat(retry.endedEarly())
                .as("a whole attempt, not a recovery attempt")
                .isNull();
        assertThat(f.attempts.get(1).count(IngestMetric.RECOVERY_ATTEMPTS)).isZero();
        assertThat(f.stored()).isEqualTo(expected(batch));
    }

    /**
     * The function dies after {@code n} successful write calls of the attempt (the claim, a compaction mark, a partial
     * write or the commit); Lambda then retries from the batch's first record in a new container. Whatever the
     * crash left behind, the stored counts end exact.
     */
    @ParameterizedTest(name = "crash after {0} write calls")
    @ValueSource(ints = {0, 1, 4, 7, 8})
    void ingest_whenTheFunctionCrashesMidBatch_theRetriesStoreEveryRecordExactlyOnce(int calls) {
        // 30 records, 3 series, 3 minutes of one hour: the claim, 6 marks, 1 BatchWriteItem, the commit.
        List<KinesisEvent.KinesisEventRecord> batch = records(0, 30, 3, 3);
        f.dynamo.crashAfter(calls);

        IngestResult crashed = f.attempt(f.service(), batch);
        assertThat(f.dynamo.crashed()).isTrue();
        assertThat(crashed.failed()).isTrue();
        f.dynamo.disarmCrash();

        List<IngestResult> retries = f.deliver(f.service(), batch, 10);

        assertThat(retries).last().satisfies(r -> assertThat(r.failedSequence()).isNull());
        assertThat(retries).noneMatch(IngestResult::failed);
        assertThat(f.stored()).isEqualTo(expected(batch));
        assertThat(f.committed()).isEqualTo(batch.get(29).getKinesis().getSequenceNumber());
        assertThat(f.sqs.messages()).isEmpty();
    }

    /**
     * With the DLQ unavailable a batch holding poison cannot commit (the poison would be lost): it fails and is
     * retried whole; once SQS answers, the poison is sent and the valid records end stored once.
     */
    @Test
    void ingest_whenTheDlqIsUnavailable_failsTheBatchAndSendsThePoisonOnTheRetry() {
        List<KinesisEvent.KinesisEventRecord> batch = new ArrayList<>(records(0, 10, 2, 2));
        KinesisEvent.KinesisEventRecord poison = record(100, "not json");
        batch.add(5, poison);
        f.sqs.refuseNext(1_000);
        IngestService service = f.service();

        IngestResult r = f.attempt(service, batch, 2_500);

        assertThat(r.failed()).isTrue();
        assertThat(r.failureReason()).startsWith("dead-letter queue: could not send 1 poison records");
        assertThat(f.committed()).isNull();
        assertThat(f.checkpointNumber(ShardCheckpoints.ATTEMPTS))
                .as("an outage of SQS is not the records' fault")
                .isZero();

        f.sqs.refuseNext(0);
        IngestResult retry = f.attempt(service, batch);

        assertThat(retry.failed()).isFalse();
        assertThat(f.sqs.sequenceNumbers()).containsExactly(poison.getKinesis().getSequenceNumber());
        List<KinesisEvent.KinesisEventRecord> valid = new ArrayList<>(batch);
        valid.remove(poison);
        assertThat(f.stored()).isEqualTo(expected(valid));
    }

    /**
     * A refusal that retrying cannot fix (a 400 other than throttling, as for an item too large) is not retried: the
     * batch fails, the reason is kept on the checkpoint and the attempt stays counted, so the next attempt is a
     * recovery attempt that takes only part of the batch.
     */
    @Test
    void ingest_whenDynamoDbRefusesItemsForGood_failsAtOnceAndTheNextAttemptShrinks() {
        List<KinesisEvent.KinesisEventRecord> batch = records(0, 40, 2, 2);
        java.util.concurrent.atomic.AtomicBoolean refuse = new java.util.concurrent.atomic.AtomicBoolean(true);
        DynamoDbAsyncClient refusing = new dev.pulse.testing.DelegatingDynamoDb(f.dynamo) {
            @Override
            public java.util.concurrent.CompletableFuture<
                            software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse>
                    batchWriteItem(software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest request) {
                if (refuse.get()) {
                    return java.util.concurrent.CompletableFuture.failedFuture(
                            software.amazon.awssdk.services.dynamodb.model.DynamoDbException.builder()
                                    .statusCode(400)
                                    .awsErrorDetails(software.amazon.awssdk.awscore.exception.AwsErrorDetails.builder()
                                            .errorCode("ValidationException")
                                            .errorMessage("Item size has exceeded the maximum allowed size")
                                            .build())
                                    .message("Item size has exceeded the maximum allowed size")
                                    .build());
                }
                return super.batchWriteItem(request);
            }
        };
        IngestService service = IngestFunction.service(f.config, refusing, f.sqs, f.clock);

        IngestResult r = f.attempt(service, batch);

        assertThat(r.failed()).isTrue();
        assertThat(r.failureReason()).startsWith("storage: ").contains("Item size has exceeded");
        assertThat(r.write().retries()).isZero();
        assertThat(f.checkpoint().get(ShardCheckpoints.FAILURE).s()).contains("Item size has exceeded");
        assertThat(f.checkpointNumber(ShardCheckpoints.ATTEMPTS)).isEqualTo(1);

        refuse.set(false);
        List<IngestResult> retries = f.deliver(service, batch, 10);

        assertThat(retries.get(0).endedEarly()).contains("this attempt processes only its first 20 record(s)");
        assertThat(f.total(IngestMetric.RECOVERY_ATTEMPTS)).isEqualTo(1);
        assertThat(f.stored()).isEqualTo(expected(batch));
    }
}
