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

import dev.pulse.store.write.ShardCheckpoints.Position;
import dev.pulse.store.write.StoreException;
import dev.pulse.store.write.WriteStats;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

class AttemptPlanTest {

    private static final String KEY = "W#s#shardId-000000000000";
    private static final String FIRST = "101";

    /** The checkpoint as the claim of generation {@code g} returns it. */
    private static Position claimed(
            long g, long attempts, long alone, String failure, long failureGeneration, boolean decoded) {
        return new Position(
                KEY, "100", g, attempts, failure, failureGeneration, alone, decoded, alone > 0 ? FIRST : null);
    }

    @Test
    void of_whenNoEarlierAttemptFailed_processesTheWholeBatch() {
        AttemptPlan plan = AttemptPlan.of(claimed(7, 1, 0, null, 0, false), 500, FIRST);

        assertThat(plan).isEqualTo(new AttemptPlan(500, false, false, 0, null, false));
    }

    @Test
    void of_whenOnlyOneRecordIsNewAndNothingFailed_isNotARecoveryAttempt() {
        AttemptPlan plan = AttemptPlan.of(claimed(7, 1, 0, null, 0, false), 1, FIRST);

        assertThat(plan.alone()).isFalse();
        assertThat(plan.limit()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0} failed attempts, {1} new records -> {2}")
    @CsvSource({"1,500,250", "2,500,125", "3,500,62", "8,500,1", "1,3,1", "40,500,1", "1,1,1"})
    void of_afterCrashes_halvesTheRecordsWithEachFailedAttempt(long failed, int records, int limit) {
        AttemptPlan plan = AttemptPlan.of(claimed(20, failed + 1, 0, null, 0, false), records, FIRST);

        assertThat(plan.limit()).isEqualTo(limit);
        assertThat(plan.alone()).isEqualTo(limit == 1);
        assertThat(plan.setAside()).isFalse();
        assertThat(plan.failed()).isEqualTo(failed);
    }

    @Test
    void of_whenThePreviousAttemptFailedDecodingItsFirstRecord_takesThatRecordAloneAtOnce() {
        AttemptPlan plan = AttemptPlan.of(
                claimed(20, 2, 0, "record 101 failed while decoding: java.lang.StackOverflowError", 19, false),
                500,
                FIRST);

        assertThat(plan.limit()).isEqualTo(1);
        assertThat(plan.alone()).isTrue();
        assertThat(plan.setAside()).isFalse();
    }

    @Test
    void of_whenARecordFailureIsOlderThanThePreviousAttempt_halvesInstead() {
        // The previous attempt (generation 19) crashed; the recorded failure is from 18.
        AttemptPlan plan =
                AttemptPlan.of(claimed(20, 3, 0, "record 101 failed while decoding: x", 18, false), 500, FIRST);

        assertThat(plan.limit()).isEqualTo(125);
    }

    @Test
    void of_whenItemsWereRefused_halvesRatherThanBlamingTheFirstRecord() {
        AttemptPlan plan =
                AttemptPlan.of(claimed(20, 2, 0, "storage: could not write 1 of 40 items", 19, false), 40, FIRST);

        assertThat(plan.limit()).isEqualTo(20);
    }

    @ParameterizedTest(name = "{0} failed attempts alone")
    @CsvSource({"0", "1", "2"})
    void of_beforeTheRecordFailedAloneThreeTimes_neverSetsItAside(long alone) {
        AttemptPlan plan = AttemptPlan.of(claimed(40, 30, alone, null, 0, false), 500, FIRST);

        assertThat(plan.alone()).isTrue();
        assertThat(plan.setAside()).isFalse();
    }

    @Test
    void of_whenTheRecordFailedAloneThreeTimesAndTheLastOneCrashed_setsItAsideSayingSo() {
        AttemptPlan plan = AttemptPlan.of(
                claimed(40, 9, 3, "record 101 failed while decoding: java.lang.OutOfMemoryError", 35, true),
                500,
                FIRST);

        assertThat(plan.setAside()).isTrue();
        assertThat(plan.limit()).isEqualTo(1);
        assertThat(plan.reason())
                .isEqualTo(
                        "failed 8 attempts (3 of them with the record alone): the function crashed or"
                                + " timed out; an earlier attempt: record 101 failed while decoding: java.lang.OutOfMemoryError");
        assertThat(plan.nameSlots()).as("an attempt of it alone decoded it").isTrue();
    }

    @Test
    void of_whenTheLastAttemptRecordedItsFailure_namesThatReason() {
        AttemptPlan plan = AttemptPlan.of(
                claimed(40, 5, 3, "record 101 failed while decoding: java.lang.StackOverflowError", 39, false),
                2,
                FIRST);

        assertThat(plan.setAside()).isTrue();
        assertThat(plan.reason())
                .isEqualTo("failed 4 attempts (3 of them with the record alone): record 101 failed while"
                        + " decoding: java.lang.StackOverflowError");
        assertThat(plan.nameSlots())
                .as("no attempt decoded it: nothing can carry its name")
                .isFalse();
    }

    @Test
    void of_whenTheRecordFailedAloneThreeTimes_setsItAsideEvenInABatchThatWouldOtherwiseBeShrunkOnly() {
        // One failed attempt would halve 500 records; the three failures alone decide first.
        AttemptPlan plan = AttemptPlan.of(claimed(40, 2, 3, null, 0, false), 500, FIRST);

        assertThat(plan.setAside()).isTrue();
        assertThat(plan.limit()).isEqualTo(1);
    }

    @Test
    void of_whenTheCountsAreAboutAnotherRecord_neverSetsThisOneAside() {
        // Lambda discarded the batch of record 101 (finite retries): the next attempt starts at 102.
        AttemptPlan plan = AttemptPlan.of(claimed(40, 9, 3, null, 0, true), 1, "102");

        assertThat(plan.setAside()).isFalse();
        assertThat(plan.alone()).isTrue();
    }

    @Test
    void of_whenNothingWasRecorded_reasonIsACrash() {
        AttemptPlan plan = AttemptPlan.of(claimed(40, 4, 3, null, 0, true), 2, FIRST);

        assertThat(plan.reason()).endsWith(": the function crashed or timed out");
    }

    /**
     * What the shard's counters go through while a record kills every attempt (no count taken back) in batches that
     * Lambda halves after each function error: the plan shrinks, then takes the record alone, then sets it aside
     * after its third failure alone; never earlier, never later.
     */
    @Test
    void of_whenEveryAttemptCrashes_setsTheRecordAsideAfterThreeAttemptsOfItAlone() {
        List<AttemptPlan> plans = new ArrayList<>();
        long attempts = 0;
        long alone = 0;
        int batch = 100;
        for (long g = 1; g < 100; g++) {
            attempts++; // the claim
            AttemptPlan plan = AttemptPlan.of(claimed(g, attempts, alone, null, 0, alone > 0), batch, FIRST);
            plans.add(plan);
            if (plan.setAside()) {
                break;
            }
            if (plan.alone()) {
                alone++; // counted before the record is touched
            }
            batch = Math.max(1, batch / 2); // Lambda bisects after a function error
        }

        assertThat(plans).last().satisfies(p -> assertThat(p.setAside()).isTrue());
        assertThat(plans.stream().filter(AttemptPlan::alone).count()).isEqualTo(4);
        assertThat(plans).extracting(AttemptPlan::limit).containsExactly(100, 25, 6, 1, 1, 1, 1);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "400, ValidationException, true",
        "413, RequestEntityTooLarge, true",
        "400, ProvisionedThroughputExceededException, false",
        "400, ThrottlingException, false",
        "400, RequestLimitExceeded, false",
        "500, InternalServerError, false",
        "503, ServiceUnavailable, false"
    })
    void refusedForGood_isTrueOnlyForClientErrorsThatAreNotThrottling(int status, String code, boolean refused) {
        DynamoDbException cause = (DynamoDbException) DynamoDbException.builder()
                .statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).build())
                .message(code)
                .build();

        assertThat(IngestService.refusedForGood(new StoreException("x", cause, new WriteStats(0, 0, 0, 0, 0))))
                .isEqualTo(refused);
    }

    @Test
    void refusedForGood_whenTheClientTimedOutOrTheDeadlinePassed_isFalse() {
        assertThat(IngestService.refusedForGood(new StoreException(
                        "x", SdkClientException.create("read timed out"), new WriteStats(0, 0, 0, 0, 0))))
                .isFalse();
        assertThat(IngestService.refusedForGood(new StoreException(
                        "x",
                        new IllegalStateException("deadline passed before all items were written"),
                        new WriteStats(0, 0, 0, 0, 0))))
                .isFalse();
    }
}
