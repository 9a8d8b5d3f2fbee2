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
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.query.QueryHandler;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.SummaryAttributes;
import dev.pulse.store.read.LatestPartials;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.ShardCheckpoints;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.RawData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * Edge cases of exactly-once ingest (docs/design.md, "Exactly once"): generations of different digit counts, short
 * sequence numbers, legacy partials, a redrive while a live attempt holds the current generation, lost claim and
 * commit responses, an out-of-order hand-made batch, poison re-sent after a failed commit, a late compaction mark. Every
 * scenario drives the real IngestService against DynamoDB Local and reads back through the real readers: the query
 * API (open hour: partials through LatestPartials) and the compactor (hourly rollup), then the query again (from
 * the rollup).
 */
@ExtendWith(Emulators.class)
class IngestEdgeCasesIT {

    private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");
    private static final long MINUTE = Instant.parse("2026-11-21T11:30:00Z").toEpochMilli();
    private static final String SHARD = "shardId-000000000000";
    private static final String STREAM_ARN = "arn:aws:kinesis:us-east-1:123456789012:stream/pulse-test";
    private static final String CP_KEY = ShardCheckpoints.key("pulse-test", SHARD);

    /** A client wrapper: holds batch writes (a zombie: reported as a crash, landed later), fails or repeats calls. */
    static final class Ctl extends DelegatingDynamoDb {
        final List<Supplier<CompletableFuture<?>>> held = new ArrayList<>();
        volatile boolean holdWrites;
        volatile boolean failCommit;
        volatile int claimLostResponses; // claims applied, then reported as a (retryable) connection error
        volatile int commitLostResponses;
        volatile boolean holdMarks; // a mark UpdateItem is held (reported as a crash) and lands later
        volatile CompletableFuture<Void> gate; // batch writes wait for it (an attempt in flight)
        final java.util.concurrent.CountDownLatch atGate = new java.util.concurrent.CountDownLatch(1);

        Ctl(DynamoDbAsyncClient delegate) {
            super(delegate);
        }

        @Override
        public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
            CompletableFuture<Void> g = gate;
            if (g != null) {
                atGate.countDown();
                return g.thenCompose(v -> delegate.batchWriteItem(request));
            }
            if (holdWrites) {
                synchronized (held) {
                    held.add(() -> delegate.batchWriteItem(request));
                }
                return CompletableFuture.failedFuture(new IllegalStateException("simulated crash (write held)"));
            }
            return delegate.batchWriteItem(request);
        }

        @Override
        public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
            boolean commit = request.updateExpression().startsWith("SET #w");
            boolean claim = request.updateExpression().startsWith("ADD #g");
            if (holdMarks && request.updateExpression().startsWith("SET #d")) {
                synchronized (held) {
                    held.add(() -> delegate.updateItem(request));
                }
                return CompletableFuture.failedFuture(new IllegalStateException("simulated crash (mark held)"));
            }
            if (commit && failCommit) {
                return CompletableFuture.failedFuture(new IllegalStateException("simulated crash before commit"));
            }
            if ((claim && claimLostResponses > 0) || (commit && commitLostResponses > 0)) {
                if (claim) {
                    claimLostResponses--;
                } else {
                    commitLostResponses--;
                }
                return delegate.updateItem(request)
                        .thenCompose(r -> CompletableFuture.failedFuture(SdkClientException.builder()
                                .message("simulated lost response")
                                .build()));
            }
            return delegate.updateItem(request);
        }

        void land() {
            List<Supplier<CompletableFuture<?>>> now;
            synchronized (held) {
                now = new ArrayList<>(held);
                held.clear();
            }
            for (Supplier<CompletableFuture<?>> h : now) {
                try {
                    h.get().join();
                } catch (java.util.concurrent.CompletionException e) {
                    // A late write refused by its own condition (a compaction mark older than the stored one) is the
                    // point.
                    if (!(e.getCause()
                            instanceof
                            software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException)) {
                        throw e;
                    }
                }
            }
        }
    }

    private static KinesisEvent.KinesisEventRecord rec(RawData raw, String seq, double... values) {
        StringBuilder nd = new StringBuilder();
        for (double v : values) {
            long ts = MINUTE + 1_000;
            nd.append(String.format(
                    Locale.ROOT,
                    "{\"name\":\"rev.x\",\"dims\":{\"k\":\"a\"},\"ts\":%d,\"value\":%s}%n",
                    ts,
                    Double.toString(v)));
            raw.add("rev.x", Map.of("k", "a"), ts, v);
        }
        KinesisEvent.KinesisEventRecord r = KinesisRecords.record(
                SHARD, 0, "pk", nd.toString().getBytes(StandardCharsets.UTF_8), NOW.toEpochMilli() - 60_000);
        r.getKinesis().setSequenceNumber(seq);
        r.setEventID(SHARD + ":" + seq);
        r.setEventSourceARN(STREAM_ARN);
        return r;
    }

    private static IngestResult run(IngestService s, List<KinesisEvent.KinesisEventRecord> batch, boolean redrive) {
        InvocationMetrics<IngestMetric> m = new InvocationMetrics<>(IngestMetric.class);
        try {
            return redrive
                    ? s.redrive(batch, Deadline.inMillis(10_000), m)
                    : s.ingest(batch, Deadline.inMillis(10_000), m);
        } catch (RuntimeException crash) {
            return null; // the invocation crashed: Lambda retries the batch
        }
    }

    private static boolean ok(IngestResult r) {
        return r != null && !r.failed();
    }

    private static IngestService service(Pipeline p, DynamoDbAsyncClient client) {
        return IngestFunction.service(p.config, client, Emulators.sqs().client(), p.clock());
    }

    private static void setGeneration(Pipeline p, long g) {
        p.reader()
                .putItem(b -> b.tableName(p.table)
                        .item(Map.of(
                                KeyScheme.PK,
                                AttributeValue.fromS(CP_KEY),
                                KeyScheme.SK,
                                AttributeValue.fromS("w"),
                                ShardCheckpoints.GENERATION,
                                AttributeValue.fromN(Long.toString(g)))));
    }

    private static List<String> partialSks(Pipeline p) {
        List<String> out = new ArrayList<>();
        p.reader().scanPaginator(b -> b.tableName(p.table)).items().forEach(i -> {
            if (i.get(KeyScheme.PK).s().startsWith("P#")) {
                out.add(i.get(KeyScheme.SK).s() + " count="
                        + SummaryAttributes.read(i, false).count());
            }
        });
        out.sort(null);
        return out;
    }

    /** The query before the build (open hour, from partials), the build, the query after (from the rollup). */
    private static void assertExactEverywhere(Pipeline p, RawData raw) {
        QueryHandler q = p.queryHandler();
        raw.assertQueryMatches(q, "2026-11-21T11:00:00Z", "2026-11-21T12:00:00Z", "60");
        p.clock().set(NOW.plus(Duration.ofHours(1)));
        p.compactAll();
        raw.assertQueryMatches(p.queryHandler(), "2026-11-21T11:00:00Z", "2026-11-21T12:00:00Z", "60");
        raw.assertQueryMatches(p.queryHandler(), "2026-11-21T00:00:00Z", "2026-11-22T00:00:00Z", "PT1H");
    }

    /**
     * Generations crossing a digit count (9 -> 10 -> 11), sequence numbers of different lengths (98, 99, 100,
     * 101: "100" sorts before "98" in the SK), a zombie of generation 9 landing after both commits, and a legacy
     * (generation-less) partial in the same slot.
     */
    @Test
    void ingest_whenGenerationsCrossDigitCountsAndSequencesDifferInLength_readersKeepNewestPerSlot() {
        try (Pipeline p = new Pipeline("rev-a", NOW, Duration.ofDays(1))) {
            RawData raw = new RawData();
            List<KinesisEvent.KinesisEventRecord> r =
                    List.of(rec(raw, "98", 1), rec(raw, "99", 2), rec(raw, "100", 3), rec(raw, "101", 4));
            setGeneration(p, 8);
            Ctl ctl = new Ctl(Emulators.dynamoAsync());
            IngestService svc = service(p, ctl);
            ctl.holdWrites = true;
            assertThat(ok(run(svc, r, false))).isFalse(); // gen 9: writes held
            ctl.holdWrites = false;
            assertThat(ok(run(svc, r.subList(0, 2), false))).isTrue(); // gen 10, bisected half
            assertThat(ok(run(svc, r.subList(2, 4), false))).isTrue(); // gen 11
            ctl.land(); // gen 9 lands: slot 98 holding 1..4
            // A generation-less partial in slot 98 (as written before generations) holding all four records.
            Map<String, AttributeValue> legacy = new HashMap<>();
            p.reader().scanPaginator(b -> b.tableName(p.table)).items().forEach(i -> {
                if (i.get(KeyScheme.SK).s().endsWith("#" + KeyScheme.compactSequence("98") + "#9")) {
                    legacy.putAll(i);
                }
            });
            assertThat(legacy).isNotEmpty();
            legacy.put(
                    KeyScheme.SK,
                    AttributeValue.fromS(
                            KeyScheme.partialSlot(legacy.get(KeyScheme.SK).s())));
            p.reader().putItem(b -> b.tableName(p.table).item(legacy));
            System.out.println("generationDigits partials: " + partialSks(p));
            assertExactEverywhere(p, raw);
        }
    }

    /**
     * A table written across the upgrade to compact partial keys: the earlier code stored a batch and crashed before
     * its commit, and the retry (the current code) stores the same records under the compact key of the same slot;
     * another batch stored only by the earlier code. Each record counts once, in the open hour, in the compactor's
     * hour and in the query of it.
     */
    @Test
    void ingest_whenTableHoldsPartialsInTheLayoutBeforeCompactKeys_countsEachRecordOnce() {
        try (Pipeline p = new Pipeline("rev-layout", NOW, Duration.ofDays(1))) {
            RawData raw = new RawData();
            List<KinesisEvent.KinesisEventRecord> first = List.of(rec(raw, "101", 1), rec(raw, "102", 2, 20));
            List<KinesisEvent.KinesisEventRecord> second = List.of(rec(raw, "105", 5), rec(raw, "106", 6));
            setGeneration(p, 8);
            Ctl ctl = new Ctl(Emulators.dynamoAsync());
            IngestService svc = service(p, ctl);
            ctl.failCommit = true;
            assertThat(ok(run(svc, first, false))).isFalse(); // gen 9 stores slot 101, then crashes before its commit
            toEarlierLayout(p, "101", 9);
            ctl.failCommit = false;
            assertThat(ok(run(svc, first, false))).isTrue(); // the retry, gen 10: slot 101 again, compact key
            assertThat(ok(run(svc, second, false))).isTrue(); // gen 11: slot 105
            toEarlierLayout(p, "105", 11);
            List<String> sks = partialSks(p);
            System.out.println("earlierLayout partials: " + sks);
            assertThat(sks)
                    .hasSize(3)
                    .anyMatch(sk -> sk.startsWith("2026-11-21T11:30#" + SHARD + "#101#9"))
                    .anyMatch(sk -> sk.startsWith("2026-11-21T11:30#" + SHARD + "#105#11"))
                    .anyMatch(sk -> sk.startsWith("m30#0#" + KeyScheme.compactSequence("101") + "#10"));
            assertExactEverywhere(p, raw);
        }
    }

    /** Rewrites the partial of slot {@code seq} as the code before compact keys wrote it (SK and minute attribute). */
    private static void toEarlierLayout(Pipeline p, String seq, long generation) {
        String current = KeyScheme.partialSk(MINUTE, SHARD, seq, generation);
        List<Map<String, AttributeValue>> found = new ArrayList<>();
        p.reader().scanPaginator(b -> b.tableName(p.table)).items().forEach(i -> {
            if (i.get(KeyScheme.PK).s().startsWith("P#")
                    && i.get(KeyScheme.SK).s().equals(current)) {
                found.add(i);
            }
        });
        assertThat(found).as("partial %s", current).hasSize(1);
        Map<String, AttributeValue> earlier = new HashMap<>(found.get(0));
        earlier.put(
                KeyScheme.SK,
                AttributeValue.fromS(KeyScheme.minute(MINUTE) + "#" + SHARD + "#" + seq + "#" + generation));
        earlier.put("minute", AttributeValue.fromN(Long.toString(MINUTE)));
        p.reader().putItem(b -> b.tableName(p.table).item(earlier));
        p.reader()
                .deleteItem(b -> b.tableName(p.table)
                        .key(Map.of(
                                KeyScheme.PK, earlier.get(KeyScheme.PK), KeyScheme.SK, AttributeValue.fromS(current))));
    }

    /**
     * A discarded batch redriven while a live attempt holds the current generation (it crashed before its commit,
     * and its retry commits after the redrive), plus a zombie of the live attempt landing after the redrive.
     */
    @Test
    void redrive_whileLiveAttemptHoldsCurrentGeneration_staysExact() {
        try (Pipeline p = new Pipeline("rev-b", NOW, Duration.ofDays(1))) {
            RawData raw = new RawData();
            List<KinesisEvent.KinesisEventRecord> r = new ArrayList<>();
            for (int i = 1; i <= 8; i++) {
                r.add(rec(raw, KinesisRecords.sequence(i), i));
            }
            Ctl ctl = new Ctl(Emulators.dynamoAsync());
            IngestService svc = service(p, ctl);
            ctl.failCommit = true;
            assertThat(ok(run(svc, r.subList(0, 6), false))).isFalse(); // g1: r1..r6 written, no commit
            assertThat(ok(run(svc, r.subList(0, 3), false))).isFalse(); // g2: bisected half, fails too: discarded
            ctl.failCommit = false;
            assertThat(ok(run(svc, r.subList(3, 6), false))).isTrue(); // g3: r4..r6 commits, w = r6
            ctl.failCommit = true;
            ctl.holdWrites = true;
            assertThat(ok(run(svc, r.subList(6, 8), false))).isFalse(); // g4 (current): zombie writes held
            ctl.holdWrites = false;
            ctl.failCommit = false;
            assertThat(ok(run(svc, r.subList(0, 3), true))).as("redrive").isTrue(); // at g4
            ctl.land(); // g4's late writes
            assertThat(ok(run(svc, r.subList(6, 8), false))).isTrue(); // g5
            System.out.println("redriveWhileLive partials: " + partialSks(p));
            assertExactEverywhere(p, raw);
        }
    }

    /** The claim's and the commit's responses lost (each applied, then retried): double ADD, repeated commit. */
    @Test
    void ingest_whenClaimAndCommitResponsesLost_staysExact() {
        try (Pipeline p = new Pipeline("rev-c", NOW, Duration.ofDays(1))) {
            RawData raw = new RawData();
            List<KinesisEvent.KinesisEventRecord> r = new ArrayList<>();
            for (int i = 1; i <= 6; i++) {
                r.add(rec(raw, KinesisRecords.sequence(i), i));
            }
            Ctl ctl = new Ctl(Emulators.dynamoAsync());
            IngestService svc = service(p, ctl);
            ctl.claimLostResponses = 1;
            ctl.commitLostResponses = 1;
            IngestResult a = run(svc, r.subList(0, 3), false);
            System.out.println("lost responses, first batch: " + (a == null ? "crashed" : a.failureReason()));
            assertThat(ok(a)).isTrue();
            assertThat(ok(run(svc, r.subList(0, 6), false))).isTrue(); // redelivered with other boundaries
            System.out.println("lostResponses partials: " + partialSks(p));
            assertExactEverywhere(p, raw);
        }
    }

    /** LatestPartials fed a legacy partial between two generations of the same slot. */
    @Test
    void latestPartials_whenKeysSortedAsDynamoDbSortsThem_keepsNewestPerSlot() {
        List<String> out = new ArrayList<>();
        LatestPartials lp = new LatestPartials(i -> out.add(i.get(KeyScheme.SK).s()));
        for (String sk : new String[] {
            "2026-11-21T11:30#s#100#11",
            "2026-11-21T11:30#s#98",
            "2026-11-21T11:30#s#98#10",
            "2026-11-21T11:30#s#98#9",
            "2026-11-21T11:30#s#99"
        }) {
            lp.accept(Map.of(KeyScheme.SK, AttributeValue.fromS(sk)));
        }
        lp.finish();
        assertThat(out)
                .containsExactly("2026-11-21T11:30#s#100#11", "2026-11-21T11:30#s#98#10", "2026-11-21T11:30#s#99");
    }

    /**
     * A hand-made (not ESM) batch whose records are out of shard order: the commit stores the batch's *last* record,
     * which here is below the committed position, so w moves backwards and a redelivery stores r3 and r4 again.
     */
    @Test
    void ingest_whenHandMadeBatchOutOfOrder_commitsItsHighestSequence() {
        try (Pipeline p = new Pipeline("rev-e", NOW, Duration.ofDays(1))) {
            RawData raw = new RawData();
            List<KinesisEvent.KinesisEventRecord> r = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                r.add(rec(raw, KinesisRecords.sequence(i), i));
            }
            IngestService svc = service(p, Emulators.dynamoAsync());
            assertThat(ok(run(svc, r.subList(0, 2), false))).isTrue(); // w = r2
            assertThat(ok(run(svc, List.of(r.get(3), r.get(2), r.get(1)), false)))
                    .isTrue(); // r4, r3 new; w = r2 again
            assertThat(ok(run(svc, r.subList(2, 5), false))).isTrue(); // r3, r4 stored a second time, r5
            System.out.println("outOfOrder partials: " + partialSks(p));
            raw.assertQueryMatches(p.queryHandler(), "2026-11-21T11:00:00Z", "2026-11-21T12:00:00Z", "60");
        }
    }

    /** Poison sent, then the commit fails: the retry sends the same poison record to the DLQ again. */
    @Test
    void ingest_whenCommitFailsAfterPoisonSent_retrySendsPoisonAgain() {
        try (Pipeline p = new Pipeline("rev-f", NOW, Duration.ofDays(1))) {
            RawData raw = new RawData();
            KinesisEvent.KinesisEventRecord good = rec(raw, KinesisRecords.sequence(1), 1);
            KinesisEvent.KinesisEventRecord bad = KinesisRecords.record(
                    SHARD, 2, "pk", "not json".getBytes(StandardCharsets.UTF_8), NOW.toEpochMilli() - 60_000);
            bad.setEventSourceARN(STREAM_ARN);
            Ctl ctl = new Ctl(Emulators.dynamoAsync());
            IngestService svc = service(p, ctl);
            ctl.failCommit = true;
            IngestResult a = run(svc, List.of(good, bad), false);
            ctl.failCommit = false;
            IngestResult b = run(svc, List.of(good, bad), false);
            int n = 0;
            String url = p.config.deadLetterUrl();
            for (int k = 0; k < 5; k++) {
                n += Emulators.sqs()
                        .client()
                        .receiveMessage(
                                x -> x.queueUrl(url).maxNumberOfMessages(10).visibilityTimeout(600))
                        .messages()
                        .size();
            }
            System.out.println("poisonResent: first attempt poison=" + (a == null ? "crash" : a.poisonRecords())
                    + ", retry poison=" + b.poisonRecords() + ", DLQ messages=" + n);
            assertThat(n).as("DLQ messages for one poison record").isEqualTo(2); // documents the duplicate
        }
    }

    /**
     * A failed attempt's build-mark write lands late (after markSettle) with an older {@code d}, after the mark of an
     * attempt still in flight. Marks only move forward (condition {@code d < :d}), so the late one is refused: the
     * period stays marked with the newer {@code d}, the builder leaves it until that settles, and the rebuilt hour
     * holds the in-flight attempt's partials. Before the condition, the older {@code d} made the period look settled,
     * it was built without them and its mark cleared for good.
     */
    @Test
    void buildMarks_whenOlderMarkLandsLate_periodStaysMarkedAndIsRebuilt() throws Exception {
        Instant t0 = Instant.parse("2026-11-21T13:00:00Z");
        try (Pipeline p = new Pipeline("rev-g", t0, Duration.ofDays(1))) {
            RawData raw = new RawData();
            List<KinesisEvent.KinesisEventRecord> r =
                    List.of(rec(raw, KinesisRecords.sequence(1), 1), rec(raw, KinesisRecords.sequence(2), 2));
            Ctl ctl = new Ctl(Emulators.dynamoAsync());
            IngestService svc = service(p, ctl);
            ctl.holdMarks = true;
            assertThat(ok(run(svc, r, false))).isFalse(); // A: its mark (d = t0) is held
            ctl.holdMarks = false;
            p.clock().advance(p.config.markSettle().plusSeconds(1));
            CompletableFuture<Void> gate = new CompletableFuture<>();
            ctl.gate = gate;
            CompletableFuture<IngestResult> b = CompletableFuture.supplyAsync(() -> run(svc, r, false)); // B in flight
            assertThat(ctl.atGate.await(10, java.util.concurrent.TimeUnit.SECONDS))
                    .isTrue(); // B's mark is set
            ctl.land(); // A's mark lands: d = t0, settled
            System.out.println("lateMark first build: " + p.build());
            gate.complete(null);
            assertThat(ok(b.get(10, java.util.concurrent.TimeUnit.SECONDS))).isTrue(); // B commits
            p.clock().advance(p.config.markSettle().plusSeconds(1));
            System.out.println("lateMark second build: " + p.build());
            raw.assertQueryMatches(p.queryHandler(), "2026-11-21T11:00:00Z", "2026-11-21T12:00:00Z", "60");
        }
    }

    /**
     * A validation setting changed between two attempts at one batch (a deploy while a batch is failing: here
     * ACCEPT_FUTURE_SECONDS from 2 h to 10 min; any decoder change has the same effect). The first record's datapoint
     * is accepted by attempt 1 (which keys the minute by it) and refused by attempt 2 (which keys it by r2), so
     * attempt 1's partial is never replaced: 5 datapoints stored where 2 or 3 are right.
     */
    @Test
    @org.junit.jupiter.api.Disabled(
            "known residual (docs/design.md, Exactly once, 'What this does not cover'): decoding that"
                    + " changes between two attempts at one batch (an ACCEPT_* or decoder change deployed while it fails) double counts")
    void ingest_whenValidationChangesBetweenAttempts_doubleCounts() {
        try (Pipeline p = new Pipeline("rev-h", NOW, Duration.ofDays(1))) {
            RawData raw = new RawData();
            KinesisEvent.KinesisEventRecord r1 = rec(raw, KinesisRecords.sequence(1), 1);
            r1.getKinesis()
                    .setApproximateArrivalTimestamp(new java.util.Date(MINUTE - 20 * 60_000L)); // ts 20 min ahead
            List<KinesisEvent.KinesisEventRecord> r =
                    List.of(r1, rec(raw, KinesisRecords.sequence(2), 2), rec(raw, KinesisRecords.sequence(3), 3));
            Ctl ctl = new Ctl(Emulators.dynamoAsync());
            ctl.failCommit = true;
            assertThat(ok(run(service(p, ctl), r, false))).isFalse(); // attempt 1, old setting: r1 accepted
            Map<String, String> env = new HashMap<>(dev.pulse.testing.TestConfig.acceptingPast(Duration.ofDays(1)));
            env.put("ACCEPT_FUTURE_SECONDS", "600");
            IngestService redeployed = IngestFunction.service(
                    dev.pulse.testing.TestConfig.of(p.table, p.config.deadLetterUrl(), env),
                    Emulators.dynamoAsync(),
                    Emulators.sqs().client(),
                    p.clock());
            IngestResult two = run(redeployed, r, false); // attempt 2, new setting: r1 refused
            assertThat(ok(two)).isTrue();
            System.out.println("validationChange: attempt 2 poison=" + two.poisonRecords() + " skipped="
                    + two.skippedEvents() + " partials " + partialSks(p));
            raw.assertQueryMatches(p.queryHandler(), "2026-11-21T11:00:00Z", "2026-11-21T12:00:00Z", "60");
        }
    }
}
