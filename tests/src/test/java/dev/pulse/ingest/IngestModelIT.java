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
import dev.pulse.aggregate.ExactSum;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.model.SeriesKey;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.SummaryAttributes;
import dev.pulse.store.read.LatestPartials;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.ShardCheckpoints;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.FaultInjectingDynamoDb;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.StoredPartials.Summary;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Disabled;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Group;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Model-based test of exactly-once ingest (issue 13, docs/design.md "Exactly once"): the real {@link IngestService}
 * against DynamoDB Local, driven by generated adversarial delivery schedules on one shard, and checked against the
 * direct computation. jqwik runs it (a JUnit Platform engine beside Jupiter, picked up by failsafe).
 *
 * <p><b>The model.</b> A try has records r1..rN (1 &le; N &le; {@value #MAX_RECORDS}) on one shard of its own
 * stream, each with 1-3 native JSON datapoints over {@value #SERIES} series of its own and {@value #MINUTES}
 * minutes, with an arrival time; after them comes one tail record, delivered only at the end (so the shard always
 * moves past every discarded range, which the redrive requires). A simulated event source mapping keeps a
 * checkpoint {@code cp} and plays a generated list of up to 20 steps; each step delivers one batch, the head of the
 * pending queue (retries, bisection halves) or {@code [cp, cp+size)}, with one outcome:
 * <ul>
 *   <li>OK: no fault;</li>
 *   <li>CRASH: the attempt dies after {@code k} successful DynamoDB write calls (claim, marks, the partials' and
 *       catalog's batch writes, and commit all count): everything after fails like a dead process, and the next
 *       attempt runs on a new instance ({@link FaultInjectingDynamoDb});</li>
 *   <li>STALE ({@link Control}): some write calls ({@code BatchWriteItem}, {@code UpdateItem}) are not sent and the
 *       caller sees an {@link ApiCallTimeoutException}; the held requests are executed against DynamoDB Local
 *       later, once at least one later batch has succeeded: between two attempts, in the middle of a later attempt
 *       (before its n-th write call), or at the end. Two in three such attempts die at their first partial batch
 *       write (an invocation killed with requests in flight): its first {@code k} (0-3) items are applied at once,
 *       the caller sees a timeout, the whole request lands later, and every call after it fails; the others have
 *       calls chosen by a bit mask time out (the claim, a mark, a batch write, the commit...), retry them and may
 *       succeed.</li>
 * </ul>
 * A failed attempt reports one record as its batch item failure ({@link IngestResult#failedSequence}): the batch's
 * first, or, in a redelivery that starts below the shard's committed position, its first record above it. As
 * Lambda does with {@code ReportBatchItemFailures}, the mapping then checkpoints the records before the reported one
 * and continues from it: {@code [reported, end)} is retried with the same end or new boundaries, or bisected into
 * halves, and past the schedule's retry budget (0-3, counted per first record) it is <em>discarded</em>: the
 * checkpoint moves past it and the range, starting at the reported record, is remembered. The model checks that
 * every record before a reported one is at or below the committed position. After any attempt the checkpoint may
 * fall back to an earlier position (redelivery with new boundaries). The schedule ends by delivering everything up to the end without faults, landing every held write,
 * then redriving each discarded range as one batch with {@link IngestService#redrive}, which must succeed. Then
 * every (series, minute) count, sum, min and max read back from the table the way readers do (of the partials of a
 * slot, only the newest generation: {@link LatestPartials}) equals the direct computation, with no extra series or
 * minute. {@link #everySchedule_storesEachDatapointExactlyOnce} runs {@value #TRIES} schedules
 * (about a minute on two busy cores; the class prints how many attempts, crashes, discards, fallbacks and late
 * writes they made).
 *
 * <p><b>What the model keeps out</b> ({@link RedriveGap}): the redrive is not exact when a checkpoint fallback
 * takes delivery back into or before a discarded range (its records are delivered again and committed live, with
 * other boundaries), so the model's fallbacks never go back past the end of a discarded range. RedriveGap has a
 * minimal reproduction of it, disabled, and of the gap the reported record closed (a redelivered batch reaching
 * below the committed position, discarded and redriven), enabled: the generated schedules discard such batches too.
 * Not when the failed attempts never learnt the committed position (the claim itself failed, or, in AWS, a crash or
 * timeout: Lambda then retries from the batch's first record): the batch is discarded from a committed record, and
 * the redrive stores committed records again (over-counted under a new slot, or under-counted when the redrive's
 * partial outvotes a live one holding more). The model keeps this shape out too (a range that would be discarded
 * from a committed record is retried instead); RedriveGap has a minimal reproduction, disabled, and docs/design.md
 * lists it under "What this does not cover".
 *
 * <p><b>Fixed examples</b>: the three scenarios of issue 13 (ten records adding 1..10 to one (series, minute), true
 * sum 55), scenario 2 through the function as the redrive tool invokes it, and a stale batch write landing after
 * later batches.
 *
 * <p><b>Mutation checks</b>: the test must be able to fail. The mutations live in the test's client wrapper
 * ({@link Control}), not in production code.
 * <ul>
 *   <li>Watermark dropped ({@link Mutation#NO_WATERMARK}): {@code w} is stripped from the claim's {@code UpdateItem}
 *       (ALL_NEW) response, so the service never skips a redelivered record. {@link #mutation_withoutWatermark_isCaught}
 *       runs scenario 3 with it (stored 95, not 55) and {@link #mutation_withoutWatermark_failsGeneratedSchedules}
 *       30 generated schedules, and both assert a wrong result (typically a third to a half of the schedules).</li>
 *   <li>Every generation summed ({@link Mutation#ALL_GENERATIONS}): the table is read back without
 *       {@link LatestPartials}, as a reader that ignored the generation in the key would, so outvoted partials of
 *       failed and stale attempts count beside the newer ones. {@link #mutation_summingEveryGeneration_isCaught}
 *       runs the stale example with it (stored 110, not 55) and
 *       {@link #mutation_summingEveryGeneration_failsGeneratedSchedules} 30 generated schedules.</li>
 * </ul>
 */
class IngestModelIT {

    static final int TRIES = 500;
    private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");
    private static final long MINUTE0 = NOW.toEpochMilli() - 30 * 60_000L; // 11:30, all minutes in hour 11
    private static final String SHARD = "shardId-000000000000";
    private static final int SERIES = 3;
    private static final int MINUTES = 3;
    private static final int MAX_RECORDS = 30;
    private static final int MAX_HELD = 3;

    private static final AtomicInteger IDS = new AtomicInteger();
    private static final AtomicLong SCHEDULES = new AtomicLong();
    private static final AtomicLong ATTEMPTS = new AtomicLong();
    private static final AtomicLong DISCARDS = new AtomicLong();
    private static final AtomicLong KEPT_FROM_DISCARD = new AtomicLong();
    private static final AtomicLong REPORTED_LATER = new AtomicLong();
    private static final AtomicLong REDRIVEN_SCHEDULES = new AtomicLong();
    private static final AtomicLong FALLBACKS = new AtomicLong();
    private static final AtomicLong LATE_WRITES = new AtomicLong();
    private static final AtomicLong LATE_REJECTED = new AtomicLong();
    private static final AtomicLong SET_ASIDE = new AtomicLong();
    private static final AtomicLong CRASHES = new AtomicLong();
    private static volatile String table;
    private static volatile String dlq;
    private static volatile DynamoDbClient reader;

    @BeforeContainer
    static void emulators() {
        Emulators.ensureStarted();
        reader = Emulators.dynamo().client();
        table = "pulse-model-" + System.nanoTime();
        LocalDynamoDb.createTable(reader, table);
        dlq = Emulators.sqs().createQueue(table + "-dlq");
    }

    @AfterContainer
    static void summary() {
        System.out.printf(
                Locale.ROOT,
                "IngestModelIT: %d schedules, %d attempts, %d crashes, %d discarded ranges"
                        + " (%d schedules redriven; %d ranges from a committed record retried instead), %d failed attempts reporting a record after the batch's first"
                        + " (a redelivery below the committed position), %d fallbacks, %d late writes landed"
                        + " (%d of them failed: a stale commit's condition), %d records set aside and redriven%n",
                SCHEDULES.get(),
                ATTEMPTS.get(),
                CRASHES.get(),
                DISCARDS.get(),
                REDRIVEN_SCHEDULES.get(),
                KEPT_FROM_DISCARD.get(),
                REPORTED_LATER.get(),
                FALLBACKS.get(),
                LATE_WRITES.get(),
                LATE_REJECTED.get(),
                SET_ASIDE.get());
    }

    // ---------------------------------------------------------------------------------------------------------
    // The property

    @Property(tries = TRIES, edgeCases = EdgeCasesMode.NONE, shrinking = ShrinkingMode.BOUNDED)
    void everySchedule_storesEachDatapointExactlyOnce(@ForAll("schedules") Schedule schedule) {
        Model m = new Model(schedule.records(), Mutation.NONE, true);
        m.play(schedule);
        assertThat(m.mismatches()).as(m.log()).isEmpty();
    }

    @Example
    void mutation_withoutWatermark_failsGeneratedSchedules() {
        assertThat(caught(Mutation.NO_WATERMARK, 30))
                .as("generated schedules caught without the watermark check")
                .isPositive();
    }

    @Example
    void mutation_summingEveryGeneration_failsGeneratedSchedules() {
        assertThat(caught(Mutation.ALL_GENERATIONS, 30))
                .as("generated schedules caught when every generation is summed")
                .isPositive();
    }

    /** How many of {@code samples} generated schedules store a wrong result with {@code mutation} in place. */
    private int caught(Mutation mutation, int samples) {
        List<Schedule> sample = schedules().sampleStream().limit(samples).toList();
        int wrong = 0;
        for (Schedule s : sample) {
            Model m = new Model(s.records(), mutation, true);
            try {
                m.play(s);
            } catch (AssertionError e) {
                wrong++; // a delivery or redrive the model needs failed: also caught
                continue;
            }
            if (!m.mismatches().isEmpty()) {
                wrong++;
            }
        }
        System.out.printf(
                Locale.ROOT,
                "IngestModelIT mutation %s: %d of %d generated schedules caught%n",
                mutation,
                wrong,
                sample.size());
        return wrong;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Fixed examples: issue 13's three scenarios, ten records adding 1..10 to one (series, minute)

    /** (1) [r1..r10] writes then crashes; bisection's [r1..r5] keeps failing and is discarded; [r6..r10] succeeds. */
    @Example
    void scenario1_discardedHalfAfterBisection_thenRedrive() {
        Model m = Model.tenRecords(Mutation.NONE);
        assertThat(m.deliver(0, 10, Fault.crashBeforeCommit())).isFalse();
        for (int i = 0; i < 3; i++) {
            assertThat(m.deliver(0, 5, Fault.crashAfter(1))).isFalse(); // dies at its marks; retries run out: discarded
        }
        assertThat(m.deliver(5, 10, Fault.none())).isTrue();
        // The hole: the first attempt's partial (keyed by r1, holding r1..r10) is still there beside r6..r10's.
        assertThat(m.storedSumOfTheOneMinute()).isEqualTo(95.0).isNotEqualTo(55.0);
        assertThat(m.mismatches()).isNotEmpty();

        assertThat(m.redrive(0, 5)).isTrue();
        assertThat(m.storedSumOfTheOneMinute()).isEqualTo(55.0);
        assertThat(m.mismatches()).isEmpty();
    }

    /**
     * (2) The same discarded half, redriven the way {@code make redrive} does it: IngestFunction invoked
     * synchronously with the original records (their sequence numbers and arrival times) as one batch; a redrive
     * before the shard has passed the batch is refused, and a repeated redrive (the DLQ message seen twice) stays
     * exact.
     */
    @Example
    void scenario2_redriveThroughTheFunction_isExact() {
        Model m = Model.tenRecords(Mutation.NONE);
        assertThat(m.deliver(0, 10, Fault.crashAfter(4))).isFalse(); // claim, 2 marks, the partial; dies at the catalog
        assertThat(m.storedSumOfTheOneMinute()).isEqualTo(55.0); // only the failed attempt's partial, uncommitted

        // Refused while live delivery may still store these records: the shard has committed nothing yet.
        assertThatRedriveViaHandler(m, 0, 5, false);
        for (int i = 0; i < 2; i++) {
            assertThat(m.deliver(0, 5, Fault.crashAfter(1))).isFalse();
        }
        assertThat(m.deliver(5, 10, Fault.none())).isTrue();
        assertThat(m.storedSumOfTheOneMinute()).isNotEqualTo(55.0);

        assertThatRedriveViaHandler(m, 0, 5, true);
        assertThat(m.storedSumOfTheOneMinute()).isEqualTo(55.0);
        assertThatRedriveViaHandler(m, 0, 5, true);
        assertThat(m.storedSumOfTheOneMinute()).isEqualTo(55.0);
        assertThat(m.mismatches()).isEmpty();
    }

    /** A record crashed alone three times is set aside; the DLQ message redriven stores it exactly once. */
    @Example
    void setAside_afterThreeCrashesAlone_redriveStoresItOnce() {
        Model m = Model.ofValues(Mutation.NONE, 3);
        m.attempt(0, 1, Fault.crashAfter(0));
        m.attempt(0, 1, Fault.crashAfter(1));
        m.attempt(0, 2, Fault.crashAfter(2));
        m.attempt(0, 1, new Fault(-1, false, 0, 2, -1));
        // [0,1) discarded
        m.attempt(1, 2, new Fault(-1, false, 0, 3, -1));
        m.attempt(1, 2, Fault.crashAfter(4));
        m.attempt(1, 2, Fault.crashAfter(3));
        int at = m.attempt(1, 3, Fault.none()); // r1 failed three attempts alone
        assertThat(at).isEqualTo(2);
        assertThat(m.setAside).containsExactly(new Range(1, 2)); // crashes alone count: the record is set aside
        assertThat(m.mismatches()).isNotEmpty();
        assertThat(m.attempt(2, 3, Fault.none())).isEqualTo(-1);
        m.landHeld();
        assertThat(m.redrive(0, 1)).isTrue();
        assertThat(m.redrive(1, 2)).isTrue();
        assertThat(m.mismatches()).isEmpty();
    }

    /** (3) [r1..r5] and [r6..r10] succeed, the checkpoint falls back, [r1..r10] and [r1..r7] are delivered again. */
    @Example
    void scenario3_redeliveryWithOtherBoundaries() {
        Model m = Model.tenRecords(Mutation.NONE);
        scenario3(m);
        assertThat(m.storedSumOfTheOneMinute()).isEqualTo(55.0);
        assertThat(m.mismatches()).isEmpty();
    }

    /** Scenario 3 with the watermark check dropped (the mutation): the test sees the double count. */
    @Example
    void mutation_withoutWatermark_isCaught() {
        Model m = Model.tenRecords(Mutation.NO_WATERMARK);
        scenario3(m);
        // r1..r7 (the last redelivery's, over r1's key) + r6..r10 + r8..r10: 28 + 40 + 27.
        assertThat(m.storedSumOfTheOneMinute()).isEqualTo(95.0).isNotEqualTo(55.0);
        assertThat(m.mismatches()).isNotEmpty();
    }

    private static void scenario3(Model m) {
        assertThat(m.deliver(0, 5, Fault.none())).isTrue();
        assertThat(m.deliver(5, 10, Fault.none())).isTrue();
        // The checkpoint falls back: the same records again, with other boundaries.
        assertThat(m.deliver(0, 10, Fault.none())).isTrue();
        assertThat(m.deliver(0, 7, Fault.none())).isTrue();
        assertThat(m.deliver(7, 10, Fault.none())).isTrue();
    }

    /**
     * A stale attempt: [r1..r10]'s batch write (its partial, keyed by r1, and the catalog) is held (the client
     * times out and retries, and the retry lands), then the attempt dies before its commit. [r1..r4] and [r5..r10]
     * succeed; then the held batch lands, with the old generation, in the slot [r1..r4] rewrote with a newer one:
     * outvoted, it changes nothing. Exact.
     */
    @Example
    void staleAttempt_writesLandingAfterLaterBatches_changeNothing() {
        Model m = Model.tenRecords(Mutation.NONE);
        Control.Landing landing = staleAttempt(m);
        assertThat(landing.landed()).isEqualTo(1);
        assertThat(landing.rejected())
                .as("a late batch write has no condition: it lands")
                .isZero();
        assertThat(m.storedSumOfTheOneMinute()).isEqualTo(55.0);
        assertThat(m.mismatches()).isEmpty();
        // Slot r1 holds two generations (the stale attempt's 1 and [r1..r4]'s 2), slot r5 one ([r5..r10]'s 3): the
        // generation is the last part of the key, and readers sum the newest of each slot.
        List<String> sks =
                m.partialItems().stream().map(i -> i.get(KeyScheme.SK).s()).toList();
        assertThat(sks).hasSize(3);
        assertThat(sks.stream().map(KeyScheme::partialGeneration).sorted().toList())
                .containsExactly(1L, 2L, 3L);
        assertThat(sks.stream().map(KeyScheme::partialSlot).distinct().count()).isEqualTo(2);
        assertThat(sks)
                .allMatch(
                        sk -> sk.matches("m\\d\\d#" + java.util.regex.Pattern.quote(KeyScheme.compactShard(SHARD))
                                + "#[A-Za-z0-9_-]+#[123]"),
                        "m<mm>#<shard>#<seq>#<g>");
    }

    /**
     * Where the redrive was or is not exact: found by this test's model (issue 13). The argument for exactness needs
     * the shard to be partitioned into committed pieces and discarded holes, and a checkpoint that falls back (issue
     * 13, scenario 3) can break the partition in two ways:
     * <ul>
     *   <li>records of a discarded batch are delivered again after the discard and committed live, with other
     *       boundaries; the redrive then stores them a second time (or, when a live partial keyed by the batch's
     *       first record holds more than the batch, overwrites it and loses the rest). Still open: the example is
     *       disabled, and the property's fallbacks never go back past the end of a discarded range.</li>
     *   <li>a redelivered batch reaching below the committed position is discarded: its failed attempts skipped
     *       the committed records and keyed their partials by the first record above the position. Closed: such an
     *       attempt reports that record, so Lambda checkpoints the committed ones and discards (and the redrive
     *       stores) the range from it, keyed as the failed attempts' partials are, which it replaces. The example
     *       passes, and the property discards such ranges too.</li>
     *   <li>Still open, a variant of the previous one: the redelivered batch fails before its claim returns the
     *       committed position (the claim itself fails), so it reports its first record, at or below the position;
     *       Lambda discards the batch from there and the redrive, which skips nothing, stores committed records
     *       again: a second time under a slot of their own (the example), or in the slot of a live partial that
     *       holds more than the batch, outvoting it and losing the rest. The example is disabled and the property
     *       keeps the shape out (a documented residual, docs/design.md).</li>
     * </ul>
     */
    @Group
    class RedriveGap {

        @Example
        @Disabled("redrive not exact when a checkpoint fallback takes delivery back into a discarded range and its"
                + " records are committed live with other boundaries (issue 13; the property's fallbacks stay past"
                + " every discarded range)")
        void discardedBatchDeliveredAgainWithOtherBoundaries_thenRedriven() {
            Model m = Model.ofValues(Mutation.NONE, 2); // r1 = 1, r2 = 2, one (series, minute)
            assertThat(m.deliver(0, 2, Fault.crashAfter(0))).isFalse(); // retries exhausted: [r1, r2] discarded
            // The checkpoint falls back to before the discarded batch; its records come again, other boundaries.
            assertThat(m.deliver(0, 1, Fault.none())).isTrue();
            assertThat(m.deliver(1, 2, Fault.none())).isTrue();
            assertThat(m.mismatches()).isEmpty();
            assertThat(m.redrive(0, 2)).isTrue(); // the DLQ still holds [r1, r2]
            // Stored: partial r1 = {1, 2} (the redrive's), partial r2 = {2} (live): count 3, sum 5.
            assertThat(m.mismatches()).as(m.log()).isEmpty();
        }

        @Example
        void redeliveredBatchBelowCommittedPosition_discarded_thenRedriven() {
            Model m = Model.ofValues(Mutation.NONE, 3); // r1 = 1, r2 = 2, r3 = 3, one (series, minute)
            assertThat(m.deliver(0, 1, Fault.none())).isTrue(); // committed: r1
            // The checkpoint falls back; [r1, r2] skips r1, puts partial r2 = {2}, dies before its commit and
            // reports r2: Lambda checkpoints r1, and with no retries left discards [r2]. Then [r3] commits.
            assertThat(m.attempt(0, 2, Fault.crashBeforeCommit())).isEqualTo(1);
            assertThat(m.deliver(2, 3, Fault.none())).isTrue();
            assertThat(m.redrive(1, 2)).isTrue(); // the DLQ holds [r2]
            // Stored: partial r1 = {1} (live), partial r2 = {2} (the redrive's, replacing the failed attempt's),
            // r3 = {3}.
            assertThat(m.mismatches()).as(m.log()).isEmpty();
        }

        @Example
        @Disabled("redrive not exact when a redelivered batch fails before its claim returns the committed position"
                + " (it then reports its first record, below that position) and is discarded: the redrive stores"
                + " committed records again (a documented residual, docs/design.md; the property keeps it out)")
        void redeliveredCommittedBatch_failingAtItsClaim_discarded_thenRedriven() {
            Model m = Model.ofValues(Mutation.NONE, 3); // r1 = 1, r2 = 2, r3 = 3, one (series, minute)
            assertThat(m.deliver(0, 2, Fault.none())).isTrue(); // committed: r1, r2 (partial r1 = {1, 2})
            // The checkpoint falls back to r2; [r2]'s claim fails, so the attempt does not know the committed
            // position and reports r2, its first record; with no retries left Lambda discards [r2]. Then [r3] commits.
            assertThat(m.attempt(1, 2, Fault.crashAfter(0))).isEqualTo(1);
            assertThat(m.deliver(2, 3, Fault.none())).isTrue();
            assertThat(m.redrive(1, 2)).isTrue(); // the DLQ holds [r2], committed live before the discard
            // Stored: partial r1 = {1, 2} (live), partial r2 = {2} (the redrive's), r3 = {3}: r2 twice.
            assertThat(m.mismatches()).as(m.log()).isEmpty();
        }
    }

    /**
     * The stale example read back summing every generation (the second mutation): the stale attempt's partial
     * (r1..r10, generation 1) counts beside [r1..r4]'s in the same slot and [r5..r10]'s.
     */
    @Example
    void mutation_summingEveryGeneration_isCaught() {
        Model m = Model.tenRecords(Mutation.ALL_GENERATIONS);
        staleAttempt(m);
        assertThat(m.storedSumOfTheOneMinute()).isEqualTo(110.0).isNotEqualTo(55.0); // 55 + 10 + 45
        assertThat(m.mismatches()).isNotEmpty();
    }

    private static Control.Landing staleAttempt(Model m) {
        // Write calls of this attempt: 0 claim, 1-2 marks, 3 the batch write (held), 4 its retry, then the commit.
        assertThat(m.deliver(0, 10, new Fault(-1, true, 1 << 3, -1, -1))).isFalse();
        assertThat(m.control.heldCount()).isEqualTo(1);
        assertThat(m.deliver(0, 4, Fault.none())).isTrue();
        assertThat(m.deliver(4, 10, Fault.none())).isTrue();
        if (m.mutation == Mutation.NONE) {
            assertThat(m.storedSumOfTheOneMinute()).isEqualTo(55.0);
        }
        return m.control.land();
    }

    private static void assertThatRedriveViaHandler(Model m, int from, int to, boolean succeeds) {
        List<KinesisEvent.KinesisEventRecord> batch = new ArrayList<>();
        for (KinesisEvent.KinesisEventRecord r : m.records.subList(from, to)) {
            KinesisEvent.KinesisEventRecord copy = KinesisRecords.record(
                    SHARD,
                    m.records.indexOf(r),
                    r.getKinesis().getPartitionKey(),
                    bytes(r),
                    r.getKinesis().getApproximateArrivalTimestamp().getTime());
            copy.setEventSourceARN(r.getEventSourceARN());
            copy.setEventName(IngestHandler.REDRIVE_EVENT_NAME);
            batch.add(copy);
        }
        KinesisEvent event = new KinesisEvent();
        event.setRecords(batch);
        IngestHandler handler = IngestFunction.handler(m.newService(), new RecordingMetrics(), 200);
        if (succeeds) {
            assertThat(handler.handleRequest(event, new TestContext("redrive", 10_000, 1024))
                            .getBatchItemFailures())
                    .isEmpty();
        } else {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> handler.handleRequest(event, new TestContext("redrive", 10_000, 1024)))
                    .isInstanceOf(IngestHandler.RedriveFailedException.class);
        }
    }

    private static byte[] bytes(KinesisEvent.KinesisEventRecord r) {
        java.nio.ByteBuffer b = r.getKinesis().getData().duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Generators

    /** One datapoint: series index, minute index, value in quarters. */
    record Dp(int series, int minute, int quarters) {}

    enum Kind {
        OK,
        CRASH,
        STALE
    }

    /**
     * Deliberate bugs, put in by the client wrapper ({@link Control}) or the model's reader ({@link Model#stored})
     * to show the test can fail.
     */
    enum Mutation {
        NONE,
        /** The claim's response loses {@code w}: the service never skips a committed record. */
        NO_WATERMARK,
        /**
         * Readers sum every partial, not only the newest generation of each slot: outvoted partials of failed and
         * stale attempts count again.
         */
        ALL_GENERATIONS
    }

    /**
     * One delivery: the batch size (when not retrying), its outcome, the crash point or late-landing call index
     * {@code k}, the held-call mask, whether a failure is bisected, the fallback after it (-1: none, else the
     * per cent of the way from the start to the checkpoint), and when held writes land (0 not now, 1 after this
     * step, 2 during the next attempt before its k-th write call).
     */
    record Step(int size, Kind kind, int k, int mask, boolean bisect, int fallback, int release) {}

    record Schedule(List<List<Dp>> records, int retryBudget, List<Step> steps) {
        @Override
        public String toString() {
            return "Schedule[" + records.size() + " records, budget " + retryBudget + ", steps " + steps + ", records "
                    + records + "]";
        }
    }

    @Provide
    Arbitrary<Schedule> schedules() {
        Arbitrary<Dp> dp = Combinators.combine(
                        Arbitraries.integers().between(0, SERIES - 1),
                        Arbitraries.integers().between(0, MINUTES - 1),
                        Arbitraries.integers().between(-40, 400))
                .as(Dp::new);
        Arbitrary<List<List<Dp>>> records =
                dp.list().ofMinSize(1).ofMaxSize(3).list().ofMinSize(1).ofMaxSize(MAX_RECORDS);
        Arbitrary<Step> step = Combinators.combine(
                        Arbitraries.integers().between(1, MAX_RECORDS),
                        Arbitraries.frequency(Tuple.of(3, Kind.OK), Tuple.of(4, Kind.CRASH), Tuple.of(3, Kind.STALE)),
                        Arbitraries.integers().between(0, 7),
                        Arbitraries.integers().between(1, 0xFFF),
                        Arbitraries.of(true, false),
                        Arbitraries.frequencyOf(
                                Tuple.of(3, Arbitraries.just(-1)),
                                Tuple.of(1, Arbitraries.integers().between(0, 100))),
                        Arbitraries.frequency(Tuple.of(2, 0), Tuple.of(1, 1), Tuple.of(1, 2)))
                .as(Step::new);
        Arbitrary<Integer> retryBudget =
                Arbitraries.frequency(Tuple.of(4, 0), Tuple.of(2, 1), Tuple.of(1, 2), Tuple.of(1, 3));
        return Combinators.combine(
                        records, retryBudget, step.list().ofMinSize(1).ofMaxSize(20))
                .as(Schedule::new);
    }

    // ---------------------------------------------------------------------------------------------------------
    // The fault of one attempt

    /**
     * What happens to one attempt: nothing, a crash after {@code crashAt} write calls or at the commit, or held
     * calls (up to {@value #MAX_HELD} per attempt): those of {@code holdMask} (bit i: the attempt's i-th write
     * call; the service retries them), or, with {@code holdPut} &ge; 0, the attempt's first batch write of
     * partials, of which the first {@code holdPut} items are applied at once and the whole request is held, and
     * every call after it, after which it dies: an invocation that timed out with requests in flight.
     * {@code landAt}: held writes of earlier attempts land just before this attempt's n-th write call.
     */
    record Fault(int crashAt, boolean failCommit, int holdMask, int holdPut, int landAt) {
        static Fault none() {
            return new Fault(-1, false, 0, -1, -1);
        }

        static Fault crashAfter(int k) {
            return new Fault(k, false, 0, -1, -1);
        }

        static Fault crashBeforeCommit() {
            return new Fault(-1, true, 0, -1, -1);
        }

        Fault landingAt(int call) {
            return new Fault(crashAt, failCommit, holdMask, holdPut, call);
        }
    }

    /**
     * The client wrapper of one try: holds write calls of a stale attempt (reporting a timeout to the caller) and
     * lands them later; fails the commit (a crash just before it); and, for the mutation, strips the committed
     * position from the claim's response.
     */
    static final class Control extends DelegatingDynamoDb {
        private final DynamoDbAsyncClient real;
        private final Mutation mutation;
        private final List<Supplier<CompletableFuture<?>>> held = new ArrayList<>();
        private final AtomicInteger calls = new AtomicInteger();
        private final AtomicInteger heldThisAttempt = new AtomicInteger();
        private volatile int holdMask;
        private final AtomicInteger partialWrites = new AtomicInteger();
        private volatile int holdPut = -1;
        private volatile boolean dying;
        private volatile boolean failCommit;
        private volatile int landAtCall = -1;

        record Landing(int landed, int rejected) {}

        Control(DynamoDbAsyncClient delegate, DynamoDbAsyncClient real, Mutation mutation) {
            super(delegate);
            this.real = real;
            this.mutation = mutation;
        }

        void arm(Fault f) {
            calls.set(0);
            heldThisAttempt.set(0);
            holdMask = f.holdMask();
            partialWrites.set(0);
            holdPut = f.holdPut();
            dying = false;
            failCommit = f.failCommit();
        }

        void landDuring(int callIndex) {
            landAtCall = callIndex;
        }

        void disarm() {
            holdMask = 0;
            failCommit = false;
            holdPut = -1;
            dying = false;
            landAtCall = -1;
        }

        boolean died() {
            return dying;
        }

        int heldThisAttempt() {
            return heldThisAttempt.get();
        }

        synchronized int heldCount() {
            return held.size();
        }

        /** Executes every held request against DynamoDB Local, in the order they were sent. */
        Landing land() {
            return landAsync().join();
        }

        private CompletableFuture<Landing> landAsync() {
            List<Supplier<CompletableFuture<?>>> now;
            synchronized (this) {
                now = new ArrayList<>(held);
                held.clear();
            }
            CompletableFuture<int[]> chain = CompletableFuture.completedFuture(new int[2]);
            for (Supplier<CompletableFuture<?>> h : now) {
                chain = chain.thenCompose(acc -> h.get().handle((r, e) -> {
                    acc[0]++;
                    if (e != null) {
                        acc[1]++;
                    }
                    return acc;
                }));
            }
            return chain.thenApply(acc -> new Landing(acc[0], acc[1]));
        }

        /**
         * The write call's fate: held (a timeout to the caller), or sent, after any writes due to land first.
         * {@code partial}: a batch write holding partials; {@code applyNow}, the part of it applied at once when the
         * attempt dies at it.
         */
        private <T> CompletableFuture<T> write(
                boolean partial,
                Supplier<CompletableFuture<T>> send,
                Supplier<CompletableFuture<?>> late,
                java.util.function.IntFunction<CompletableFuture<?>> applyNow) {
            int i = calls.getAndIncrement();
            int p = partial ? partialWrites.getAndIncrement() : -1;
            int mask = holdMask;
            boolean diesHere = p == 0 && holdPut >= 0;
            if (diesHere) {
                dying = true;
            }
            if (dying || (i < 31 && (mask & (1 << i)) != 0)) {
                if (heldThisAttempt.incrementAndGet() <= MAX_HELD) {
                    synchronized (this) {
                        held.add(late);
                    }
                    CompletableFuture<?> before =
                            diesHere && holdPut > 0 ? applyNow.apply(holdPut) : CompletableFuture.completedFuture(null);
                    return before.handle((r, e) -> null)
                            .thenCompose(v -> CompletableFuture.failedFuture(ApiCallTimeoutException.create(1000)));
                }
                heldThisAttempt.decrementAndGet();
                if (dying) {
                    return CompletableFuture.failedFuture(new FaultInjectingDynamoDb.SimulatedCrashException());
                }
            }
            if (i == landAtCall) {
                landAtCall = -1;
                return landAsync().thenCompose(l -> {
                    LATE_WRITES.addAndGet(l.landed());
                    LATE_REJECTED.addAndGet(l.rejected());
                    return send.get();
                });
            }
            return send.get();
        }

        @Override
        public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
            boolean partial = request.requestItems().values().stream()
                    .flatMap(List::stream)
                    .anyMatch(w -> w.putRequest() != null
                            && w.putRequest().item().get(KeyScheme.PK).s().startsWith("P#"));
            return write(
                    partial,
                    () -> delegate.batchWriteItem(request),
                    () -> real.batchWriteItem(request),
                    n -> real.batchWriteItem(firstItems(request, n)));
        }

        /** The request cut to its first {@code n} items (what DynamoDB applied of it before the invocation died). */
        private static BatchWriteItemRequest firstItems(BatchWriteItemRequest request, int n) {
            Map<String, List<WriteRequest>> cut = new HashMap<>();
            request.requestItems().forEach((t, writes) -> cut.put(t, writes.subList(0, Math.min(n, writes.size()))));
            return request.toBuilder().requestItems(cut).build();
        }

        @Override
        public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
            boolean commit = request.updateExpression().startsWith("SET #w");
            if (commit && failCommit) {
                return CompletableFuture.failedFuture(new FaultInjectingDynamoDb.SimulatedCrashException());
            }
            boolean claim = request.returnValues() == ReturnValue.ALL_NEW
                    && request.key().get(KeyScheme.PK).s().startsWith("W#");
            CompletableFuture<UpdateItemResponse> r = write(
                    false,
                    () -> delegate.updateItem(request),
                    () -> real.updateItem(request),
                    n -> CompletableFuture.completedFuture(null));
            if (claim && mutation == Mutation.NO_WATERMARK) {
                // The mutation: the service never learns the committed position, so it skips nothing.
                return r.thenApply(resp -> {
                    Map<String, AttributeValue> attrs = new HashMap<>(resp.attributes());
                    attrs.remove(ShardCheckpoints.COMMITTED);
                    return resp.toBuilder().attributes(attrs).build();
                });
            }
            return r;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // The model: one try's records, the simulated event source mapping, and the check

    record Range(int from, int to) {
        int size() {
            return to - from;
        }
    }

    static final class Model {
        final int id = IDS.incrementAndGet();
        final Mutation mutation;
        final String stream = "model-" + id;
        final List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        final Map<String, Map<Long, List<Double>>> values = new TreeMap<>();
        final List<String> allSeries = new ArrayList<>();
        final FaultInjectingDynamoDb faulty = new FaultInjectingDynamoDb(Emulators.dynamoAsync(), 0);
        final Control control;
        final InvocationMetrics<IngestMetric> metrics = new InvocationMetrics<>(IngestMetric.class);
        final StringBuilder log = new StringBuilder();
        final Set<Range> discarded = new LinkedHashSet<>();
        final int scheduled; // records the schedule's steps deliver; a tail record after them comes only at the end
        IngestService service;
        int laterSuccesses; // batches that succeeded since the oldest held write was held
        int attempts;

        Model(List<List<Dp>> input, Mutation mutation) {
            this(input, mutation, false);
        }

        /**
         * {@code tail}: one more record after the input, delivered only at the end, so that the shard always moves
         * past every discarded range and its redrive is not refused (records past the last one cannot be redriven
         * until the stream moves on: correct, but then the model's data would stay missing).
         */
        Model(List<List<Dp>> input, Mutation mutation, boolean tail) {
            this.mutation = mutation;
            control = new Control(faulty, Emulators.dynamoAsync(), mutation);
            scheduled = input.size();
            if (tail) {
                input = new ArrayList<>(input);
                input.add(List.of(new Dp(0, 0, 1)));
            }
            for (int s = 0; s < SERIES; s++) {
                allSeries.add(SeriesKey.of(name(s), Map.of("lane", "a")));
            }
            for (int i = 0; i < input.size(); i++) {
                StringBuilder ndjson = new StringBuilder();
                for (Dp dp : input.get(i)) {
                    long minute = MINUTE0 + dp.minute() * 60_000L;
                    double value = dp.quarters() / 4.0;
                    ndjson.append(String.format(
                            Locale.ROOT,
                            "{\"name\":\"%s\",\"dims\":{\"lane\":\"a\"},\"ts\":%d,\"value\":%s}%n",
                            name(dp.series()),
                            minute + 1_000L * ((i * 7 + dp.series()) % 60),
                            Double.toString(value)));
                    values.computeIfAbsent(allSeries.get(dp.series()), k -> new TreeMap<>())
                            .computeIfAbsent(minute, k -> new ArrayList<>())
                            .add(value);
                }
                KinesisEvent.KinesisEventRecord r = KinesisRecords.record(
                        SHARD,
                        i,
                        "pk-" + (i % 5),
                        ndjson.toString().getBytes(StandardCharsets.UTF_8),
                        NOW.toEpochMilli() - 60_000L + i);
                r.setEventSourceARN("arn:aws:kinesis:us-east-1:123456789012:stream/" + stream);
                records.add(r);
            }
            service = newService();
        }

        /** Ten records, one datapoint each, values 1..10, all in one (series, minute). */
        static Model tenRecords(Mutation mutation) {
            return ofValues(mutation, 10);
        }

        /** {@code n} records, one datapoint each, values 1..n, all in one (series, minute). */
        static Model ofValues(Mutation mutation, int n) {
            List<List<Dp>> in = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                in.add(List.of(new Dp(0, 0, 4 * i)));
            }
            return new Model(in, mutation);
        }

        private String name(int s) {
            return "model.t" + id + ".s" + s;
        }

        IngestService newService() {
            return IngestFunction.service(
                    TestConfig.of(
                            table, dlq, Map.of("WRITE_CONCURRENCY", "4", "RETRY_BASE_MS", "1", "RETRY_CAP_MS", "10")),
                    control,
                    Emulators.sqs().client(),
                    Clock.fixed(NOW, ZoneOffset.UTC));
        }

        /** One attempt at {@code [from, to)} with {@code fault}; true when it succeeded. */
        boolean deliver(int from, int to, Fault fault) {
            int at = attempt(from, to, fault);
            while (at >= 0 && endedEarly) {
                at = attempt(at, to, Fault.none()); // a partial batch response: Lambda resumes at the reported record
            }
            return at < 0;
        }

        /**
         * One attempt at {@code [from, to)} with {@code fault}: -1 when it succeeded, else the index of the record
         * it reported as the batch item failure (the batch's first record, or in a batch starting below the
         * committed position its first record above it). Checks that every record before the reported one is at or
         * below the committed position: the records Lambda checkpoints are stored.
         */
        /** The last attempt stored and committed its first records and reported the next one (not a failure). */
        boolean endedEarly;
        /** Records an attempt set aside (sent to the DLQ after failing alone), in order. */
        final List<Range> setAside = new ArrayList<>();

        int attempt(int from, int to, Fault fault) {
            attempts++;
            ATTEMPTS.incrementAndGet();
            if (fault.crashAt() >= 0) {
                faulty.crashAfter(fault.crashAt());
            }
            control.arm(fault);
            if (fault.landAt() >= 0) {
                control.landDuring(fault.landAt());
            }
            List<KinesisEvent.KinesisEventRecord> batch = records.subList(from, to);
            IngestResult r = service.ingest(batch, Deadline.inMillis(5_000), metrics);
            boolean crashed = faulty.crashed() || fault.failCommit() || control.died();
            boolean heldNow = control.heldThisAttempt() > 0;
            if (heldNow) {
                laterSuccesses = 0; // this attempt held writes of its own: they wait for a later success too
            }
            faulty.disarmCrash();
            control.disarm();
            if (crashed) {
                CRASHES.incrementAndGet();
                service = newService(); // the process died: the next attempt runs on a new instance
            }
            log.append(String.format(
                    Locale.ROOT,
                    "  [%d,%d) %s -> %s%n",
                    from,
                    to,
                    fault,
                    r.failed() ? "failed: " + r.failureReason() : "ok"));
            endedEarly = !r.failed() && r.failedSequence() != null;
            if (r.poisonRecords() > 0) {
                // Every record of the model is valid: poison is the attempt's first uncommitted record, set aside
                // after failing alone, and the attempt committed exactly up to it. It is in the DLQ; the operator
                // redrives it at the end.
                assertThat(r.poisonRecords())
                        .as("one record set aside at a time\n%s", log)
                        .isEqualTo(1);
                String w = committed();
                int firstFresh = from;
                while (firstFresh < to - 1
                        && !records.get(firstFresh)
                                .getKinesis()
                                .getSequenceNumber()
                                .equals(w)) {
                    firstFresh++;
                }
                assertThat(records.get(firstFresh).getKinesis().getSequenceNumber())
                        .as("committed up to the set-aside" + " record\n%s", log)
                        .isEqualTo(w);
                setAside.add(new Range(firstFresh, firstFresh + 1));
                SET_ASIDE.incrementAndGet();
                log.append("    record ").append(firstFresh).append(" set aside\n");
            }
            if (r.failed() || endedEarly) {
                int at = -1;
                for (int i = from; i < to; i++) {
                    if (records.get(i).getKinesis().getSequenceNumber().equals(r.failedSequence())) {
                        at = i;
                    }
                }
                assertThat(at)
                        .as("a failed batch reports one of its records: %s\n%s", r.failedSequence(), log)
                        .isBetween(from, to - 1);
                if (at > from) {
                    REPORTED_LATER.incrementAndGet();
                    log.append("    reported record ")
                            .append(at)
                            .append(": ")
                            .append(from)
                            .append("..")
                            .append(at - 1)
                            .append(" are committed\n");
                    assertThat(covered(at - 1))
                            .as("records before the reported one are committed\n%s", log)
                            .isTrue();
                }
                return at;
            }
            if (!heldNow) {
                laterSuccesses++; // every write still held was held before this batch succeeded
            }
            return -1;
        }

        /** {@link IngestService#redrive} of {@code [from, to)} as one batch; true when it succeeded. */
        boolean redrive(int from, int to) {
            IngestResult r = newService().redrive(records.subList(from, to), Deadline.inMillis(5_000), metrics);
            log.append(String.format(
                    Locale.ROOT,
                    "  redrive [%d,%d) -> %s%n",
                    from,
                    to,
                    r.failed() ? "failed: " + r.failureReason() : "ok"));
            return !r.failed();
        }

        void landHeld() {
            Control.Landing l = control.land();
            LATE_WRITES.addAndGet(l.landed());
            LATE_REJECTED.addAndGet(l.rejected());
            if (l.landed() > 0) {
                log.append("  ")
                        .append(l.landed())
                        .append(" held writes landed, ")
                        .append(l.rejected())
                        .append(" rejected\n");
            }
            laterSuccesses = 0;
        }

        /** The simulated event source mapping playing {@code s}, then the final delivery and the redrives. */
        void play(Schedule s) {
            SCHEDULES.incrementAndGet();
            int n = scheduled;
            int total = records.size();
            int cp = 0;
            Deque<Range> pending = new ArrayDeque<>();
            Map<Integer, Integer> failures = new HashMap<>();
            int landDuringNext = -1;
            int floor = 0; // fallbacks stay at or past every discarded range (see RedriveGap)
            for (Step step : s.steps()) {
                if (pending.isEmpty() && cp >= n) {
                    if (step.fallback() < 0) {
                        continue;
                    }
                    if (floor >= n) {
                        continue;
                    }
                    int to = fallbackPoint(floor, cp, step.fallback());
                    log.append("  checkpoint falls back from ")
                            .append(cp)
                            .append(" to ")
                            .append(to)
                            .append('\n');
                    cp = to;
                    FALLBACKS.incrementAndGet();
                }
                Range range = pending.isEmpty() ? new Range(cp, Math.min(n, cp + step.size())) : pending.peek();
                Fault fault = switch (step.kind()) {
                    case OK -> Fault.none();
                    case CRASH -> Fault.crashAfter(step.k());
                    // Two in three stale attempts die at their partial batch write, k % 4 of its items applied at
                    // once, their requests landing later; the others have some calls time out, retry them, and may
                    // well succeed.
                    case STALE ->
                        step.mask() % 3 != 0
                                ? new Fault(-1, false, 0, step.k() % 4, -1)
                                : new Fault(-1, false, step.mask() & ~1, -1, -1);
                };
                if (landDuringNext >= 0 && laterSuccesses > 0) {
                    fault = fault.landingAt(landDuringNext);
                }
                landDuringNext = -1;
                int at = attempt(range.from(), range.to(), fault);
                pending.remove(range);
                if (at >= 0 && endedEarly) {
                    // Stored and committed up to the reported record: Lambda resumes there, the same end.
                    pending.addFirst(new Range(at, range.to()));
                    cp = at;
                } else if (at < 0) {
                    cp = range.to();
                } else {
                    // The batch item failure: Lambda checkpoints the records before the reported one, and retries,
                    // bisects or discards from it.
                    Range rest = new Range(at, range.to());
                    int failed = failures.merge(rest.from(), 1, Integer::sum); // retries of the batch starting here
                    if (failed > s.retryBudget() && covered(rest.from())) {
                        // Kept out (RedriveGap, a documented residual): a discarded range that starts at a committed
                        // record. The mapping retries it instead.
                        KEPT_FROM_DISCARD.incrementAndGet();
                        pending.addFirst(rest);
                        cp = rest.from();
                    } else if (failed > s.retryBudget()) {
                        discarded.add(rest); // retries exhausted: the mapping moves past the batch
                        floor = Math.max(floor, rest.to());
                        DISCARDS.incrementAndGet();
                        log.append("  discarded [")
                                .append(rest.from())
                                .append(',')
                                .append(rest.to())
                                .append(")\n");
                        cp = rest.to();
                    } else if (step.bisect() && rest.size() > 1) {
                        int mid = (rest.from() + rest.to()) / 2;
                        pending.addFirst(new Range(mid, rest.to()));
                        pending.addFirst(new Range(rest.from(), mid));
                        cp = rest.from();
                    } else if (pending.isEmpty() && (step.k() & 1) == 1) {
                        cp = rest.from(); // retried from the reported record, with new boundaries (the next
                        // step's size)
                    } else {
                        pending.addFirst(rest); // retried from the reported record, same end
                        cp = rest.from();
                    }
                }
                if (step.fallback() >= 0 && cp > floor) {
                    int to = fallbackPoint(floor, cp, step.fallback());
                    log.append("  checkpoint falls back from ")
                            .append(cp)
                            .append(" to ")
                            .append(to)
                            .append('\n');
                    cp = to;
                    pending.clear();
                    FALLBACKS.incrementAndGet();
                }
                if (laterSuccesses > 0 && control.heldCount() > 0) {
                    if (step.release() == 1) {
                        landHeld();
                    } else if (step.release() == 2) {
                        landDuringNext = step.k();
                    }
                }
            }

            // The end: everything up to the end delivered successfully, every held write landed, then the redrives.
            int guard = 0;
            boolean delivered = false;
            while (!pending.isEmpty() || cp < total || (!delivered && floor < total)) {
                assertThat(++guard)
                        .as("final delivery makes no progress\n" + log)
                        .isLessThan(50);
                Range range = !pending.isEmpty()
                        ? pending.poll()
                        : new Range(Math.max(floor, Math.min(cp, total - 1)), total);
                assertThat(deliver(range.from(), range.to(), Fault.none()))
                        .as("fault-free delivery of %s\n%s", range, log)
                        .isTrue();
                cp = range.to();
                delivered = true;
            }
            landHeld();
            if (!discarded.isEmpty()) {
                REDRIVEN_SCHEDULES.incrementAndGet();
            }
            for (Range d : discarded) {
                assertThat(redrive(d.from(), d.to()))
                        .as("redrive of discarded %s\n%s", d, log)
                        .isTrue();
            }
            for (Range d : setAside) {
                assertThat(redrive(d.from(), d.to()))
                        .as("redrive of set-aside %s\n%s", d, log)
                        .isTrue();
            }
        }

        /** An earlier checkpoint: {@code percent} of the way from {@code floor} to {@code cp}. */
        private static int fallbackPoint(int floor, int cp, int percent) {
            return floor + (cp - floor) * percent / 100;
        }

        /** True when record {@code index} is at or below the shard's committed position (read back). */
        boolean covered(int index) {
            String w = committed();
            return w != null
                    && ShardCheckpoints.compareSequences(
                                    records.get(index).getKinesis().getSequenceNumber(), w)
                            <= 0;
        }

        /** The shard's committed position (read back), or null. */
        String committed() {
            Map<String, AttributeValue> item = reader.getItem(b -> b.tableName(table)
                            .consistentRead(true)
                            .key(Map.of(
                                    KeyScheme.PK,
                                    AttributeValue.fromS(ShardCheckpoints.key(stream, SHARD)),
                                    KeyScheme.SK,
                                    AttributeValue.fromS("w"))))
                    .item();
            AttributeValue w = item == null ? null : item.get(ShardCheckpoints.COMMITTED);
            return w == null ? null : w.s();
        }

        /** Every partial item stored for this try's series, outvoted generations included, in key order. */
        List<Map<String, AttributeValue>> partialItems() {
            List<Map<String, AttributeValue>> out = new ArrayList<>();
            for (String series : allSeries) {
                reader.queryPaginator(b -> b.tableName(table)
                                .consistentRead(true)
                                .keyConditionExpression("pk = :pk")
                                .expressionAttributeValues(
                                        Map.of(":pk", AttributeValue.fromS(KeyScheme.partialPk(series, MINUTE0)))))
                        .items()
                        .forEach(out::add);
            }
            return out;
        }

        /**
         * series -> minute -> summary, read back from the table for every series this try could have written, as the
         * readers do: each partition queried in key order through {@link LatestPartials}. With
         * {@link Mutation#ALL_GENERATIONS}, every item is summed instead.
         */
        Map<String, Map<Long, Summary>> stored() {
            record Acc(long count, ExactSum sum, double min, double max) {}
            Map<String, Map<Long, Summary>> out = new TreeMap<>();
            for (String series : allSeries) {
                Map<Long, Acc> acc = new TreeMap<>();
                java.util.function.Consumer<Map<String, AttributeValue>> add = item -> {
                    dev.pulse.aggregate.Summary s = SummaryAttributes.read(item, false);
                    ExactSum sum = new ExactSum();
                    sum.add(s.exactSum());
                    acc.merge(
                            KeyScheme.partialMinute(
                                    MINUTE0 - Math.floorMod(MINUTE0, 3_600_000L),
                                    item.get(KeyScheme.SK).s()),
                            new Acc(s.count(), sum, s.min(), s.max()),
                            (x, y) -> {
                                x.sum().add(y.sum());
                                return new Acc(
                                        x.count() + y.count(),
                                        x.sum(),
                                        Math.min(x.min(), y.min()),
                                        Math.max(x.max(), y.max()));
                            });
                };
                LatestPartials latest = new LatestPartials(add);
                java.util.function.Consumer<Map<String, AttributeValue>> read =
                        mutation == Mutation.ALL_GENERATIONS ? add : latest;
                reader.queryPaginator(b -> b.tableName(table)
                                .consistentRead(true)
                                .keyConditionExpression("pk = :pk")
                                .expressionAttributeValues(
                                        Map.of(":pk", AttributeValue.fromS(KeyScheme.partialPk(series, MINUTE0)))))
                        .items()
                        .forEach(read);
                latest.finish();
                acc.forEach((minute, a) -> out.computeIfAbsent(series, k -> new TreeMap<>())
                        .put(minute, new Summary(a.count(), a.sum().value(), a.min(), a.max())));
            }
            return out;
        }

        Map<String, Map<Long, Summary>> expected() {
            Map<String, Map<Long, Summary>> out = new TreeMap<>();
            values.forEach((series, minutes) -> minutes.forEach((minute, vs) ->
                    out.computeIfAbsent(series, k -> new TreeMap<>()).put(minute, Summary.of(vs))));
            return out;
        }

        /** Every (series, minute) whose stored summary differs from the direct computation, or exists on one side only. */
        List<String> mismatches() {
            Map<String, Map<Long, Summary>> want = expected();
            Map<String, Map<Long, Summary>> got = stored();
            List<String> out = new ArrayList<>();
            Set<String> series = new java.util.TreeSet<>(want.keySet());
            series.addAll(got.keySet());
            for (String s : series) {
                Map<Long, Summary> w = want.getOrDefault(s, Map.of());
                Map<Long, Summary> g = got.getOrDefault(s, Map.of());
                Set<Long> minutes = new java.util.TreeSet<>(w.keySet());
                minutes.addAll(g.keySet());
                for (Long m : minutes) {
                    if (!same(w.get(m), g.get(m))) {
                        out.add(s + " @ " + Instant.ofEpochMilli(m) + ": want " + w.get(m) + ", stored " + g.get(m));
                    }
                }
            }
            return out;
        }

        private static boolean same(Summary a, Summary b) {
            return a != null
                    && b != null
                    && a.count() == b.count()
                    && Double.compare(a.sum(), b.sum()) == 0
                    && Double.compare(a.min(), b.min()) == 0
                    && Double.compare(a.max(), b.max()) == 0;
        }

        /** The stored sum of the only (series, minute) of {@link #tenRecords}. */
        double storedSumOfTheOneMinute() {
            Map<Long, Summary> minutes = stored().getOrDefault(allSeries.get(0), Map.of());
            assertThat(minutes.keySet()).containsOnly(MINUTE0);
            return minutes.get(MINUTE0).sum();
        }

        String log() {
            return "try " + id + " (" + records.size() + " records, " + attempts + " attempts, discarded " + discarded
                    + "):\n" + log + "expected " + expected() + "\nstored   " + stored();
        }
    }
}
