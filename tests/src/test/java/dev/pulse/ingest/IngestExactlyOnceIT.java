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
import dev.pulse.model.SeriesKey;
import dev.pulse.retry.Deadline;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.CompactMarks;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.FaultInjectingDynamoDb;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.StoredPartials;
import dev.pulse.testing.StoredPartials.Summary;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The stored per-(series, minute) count/sum/min/max equal a direct computation from the input while faults
 * are injected around the real client (DynamoDB Local over HTTP), and the batches are driven the way the
 * Kinesis event source mapping drives them: a failed batch is retried from its first record, sometimes
 * bisected into halves, and a successful batch is sometimes delivered again. Through all of it, no partial is
 * written before the compaction marks of its hour and day are stored.
 *
 * <p>The write path: per attempt, one UpdateItem claims the shard, UpdateItems set the compaction marks, the partials
 * (keyed by their generation) and new catalog entries go in BatchWriteItems, and one UpdateItem commits. Throttles
 * and UnprocessedItems hit the batch writes, and a crash counts every write call (so it can also kill the claim, a
 * mark or the commit). Arbitrary redelivery, stale writes and discarded batches are IngestModelIT's.
 */
@ExtendWith(Emulators.class)
class IngestExactlyOnceIT {

    private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");
    private static final String SHARD = "shardId-000000000000";
    private static final long HOUR = 3_600_000L;
    private static final long DAY = 86_400_000L;

    private static final AtomicInteger TABLES = new AtomicInteger();

    /** What the driver does around each batch. */
    enum Faults {
        THROTTLING(0.3, 0, 0, 0, 0),
        UNPROCESSED_ITEMS(0, 0.4, 0, 0, 0),
        CRASH_AFTER_SOME_WRITES(0, 0, 0.4, 0, 0),
        REDELIVERY(0, 0, 0, 0.3, 0),
        BISECTION(0, 0, 0.4, 0, 1.0),
        ALL_AT_ONCE(0.15, 0.2, 0.2, 0.15, 0.5);

        final double throttle;
        final double unprocessed;
        final double crash;
        final double redeliver;
        final double bisect;

        Faults(double throttle, double unprocessed, double crash, double redeliver, double bisect) {
            this.throttle = throttle;
            this.unprocessed = unprocessed;
            this.crash = crash;
            this.redeliver = redeliver;
            this.bisect = bisect;
        }
    }

    @ParameterizedTest
    @EnumSource(Faults.class)
    void ingest_whenFaultsInjected_storedCountsEqualInput(Faults faults) {
        Run run = new Run(faults, 42 + faults.ordinal(), false);
        run.drive();

        assertStoredEqualsInput(run, faults);
        assertThat(run.metricTotal(IngestMetric.POISON_RECORDS)).isZero();
    }

    /**
     * The same with KPL aggregates among plain records: partials whose first contributor is a user record inside an
     * aggregate are keyed by its sub-sequence, an aggregate is stored all or nothing with its batch (retries and
     * bisection resume at a Kinesis record, never inside one), a bad user record is poison alone and a corrupt
     * aggregate is poison whole.
     */
    @ParameterizedTest
    @EnumSource(Faults.class)
    void ingest_whenKplAggregatesAndFaultsInjected_storedCountsEqualInputAndEachPoisonUserRecordIsInTheDlq(
            Faults faults) {
        Run run = new Run(faults, 1000 + faults.ordinal(), true);
        run.drive();

        assertStoredEqualsInput(run, faults);
        assertThat(run.aggregates).isGreaterThan(100);
        assertThat(run.expectedPoison).anyMatch(q -> q.contains(".")).anyMatch(q -> !q.contains("."));
        Set<String> dlq = new java.util.TreeSet<>();
        Emulators.sqs().drain(run.dlq).forEach(m -> dlq.add(sequenceOf(m.body())));
        assertThat(dlq).isEqualTo(run.expectedPoison);
        // Some slots are named by a user record inside an aggregate: m<mm>#<shard>#<seq>.<sub>#<generation>.
        assertThat(StoredPartials.live(run.reader, run.table))
                .extracting(i -> i.get(KeyScheme.SK).s())
                .anyMatch(sk -> sk.matches("m\\d\\d#[^#]+#[A-Za-z0-9_-]+\\.\\d+#\\d+"));
    }

    private static String sequenceOf(String dlqBody) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(dlqBody)
                    .get("sequenceNumber")
                    .asText();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void assertStoredEqualsInput(Run run, Faults faults) {

        Map<String, Map<Long, Summary>> stored = StoredPartials.read(run.reader, run.table);
        assertThat(stored.keySet()).isEqualTo(run.expected.keySet());
        run.expected.forEach((series, minutes) -> {
            assertThat(stored.get(series).keySet()).as(series).isEqualTo(minutes.keySet());
            minutes.forEach((minute, want) -> {
                Summary got = stored.get(series).get(minute);
                String at = series + " @ " + Instant.ofEpochMilli(minute);
                assertThat(got.count()).as(at + " count").isEqualTo(want.count());
                assertThat(got.min()).as(at + " min").isEqualTo(want.min());
                assertThat(got.max()).as(at + " max").isEqualTo(want.max());
                // Exact: the stored sums are exact whatever order retries and bisection combined them in.
                assertThat(got.sum()).as(at + " sum").isEqualTo(want.sum());
            });
        });

        assertThat(StoredPartials.sketchMismatches(run.reader, run.table)).isEmpty();
        // Marks first: the query trusts an unmarked rollup to hold everything stored for its period.
        assertThat(run.markOrder.unannounced).isEmpty();
        assertThat(run.markOrder.partialWrites.get()).isPositive();
        assertThat(markedPeriods(run)).containsAll(periodsWithPartials(run));

        // The faults really happened: a run that injected nothing would prove nothing.
        if (faults.throttle > 0) {
            assertThat(run.faulty.throttlesInjected.get()).isPositive();
            assertThat(run.metricTotal(IngestMetric.THROTTLES)).isEqualTo(run.faulty.throttlesInjected.get());
        }
        if (faults.unprocessed > 0) {
            assertThat(run.faulty.unprocessedInjected.get()).isPositive();
            assertThat(run.metricTotal(IngestMetric.UNPROCESSED_ITEMS)).isEqualTo(run.faulty.unprocessedInjected.get());
        }
        if (faults.crash > 0) {
            assertThat(run.faulty.crashesInjected.get()).isPositive();
            assertThat(run.failedAttempts).isPositive();
            assertThat(run.metricTotal(IngestMetric.BATCH_FAILURES)).isEqualTo(run.failedAttempts);
        }
        if (faults.redeliver > 0) {
            assertThat(run.redeliveries).isPositive();
        }
        if (faults.bisect > 0) {
            assertThat(run.bisections).isPositive();
        }
    }

    @Test
    void ingest_whenSameBatchDeliveredTwice_secondDeliveryOverwritesInsteadOfAdding() {
        Run run = new Run(Faults.THROTTLING, 7, false);
        run.faulty.rates(0, 0);
        List<KinesisEvent.KinesisEventRecord> batch = run.records.subList(0, 200);
        IngestResult first = run.attempt(batch);
        long itemsAfterFirst = StoredPartials.partialItemCount(run.reader, run.table);
        IngestResult second = run.attempt(batch);

        assertThat(first.failed()).isFalse();
        assertThat(second.failed()).isFalse();
        assertThat(StoredPartials.partialItemCount(run.reader, run.table)).isEqualTo(itemsAfterFirst);
        long storedCount = StoredPartials.read(run.reader, run.table).values().stream()
                .flatMap(m -> m.values().stream())
                .mapToLong(Summary::count)
                .sum();
        assertThat(storedCount).isEqualTo(first.datapoints());
    }

    @Test
    void ingest_whenStorageFailsPastDeadline_reportsFirstRecordOfBatch() {
        Run run = new Run(Faults.THROTTLING, 9, false);
        run.faulty.rates(
                1.0,
                0); // every call throttled: the retries cannot outlive the deadline (1.5 s, not less: the claim and
        // marks come first, slow on a loaded machine)
        List<KinesisEvent.KinesisEventRecord> batch = run.records.subList(10, 60);
        IngestResult r = run.service.ingest(batch, Deadline.inMillis(1_500), run.metrics);

        assertThat(r.failed()).isTrue();
        assertThat(r.failedSequence()).isEqualTo(batch.get(0).getKinesis().getSequenceNumber());
        assertThat(r.failureReason()).contains("storage");
        assertThat(r.write().throttles()).isPositive();
        assertThat(run.metrics.count(IngestMetric.BATCH_FAILURES)).isEqualTo(1);
    }

    /** The (pk|sk) of every rollup item that carries a compaction mark. */
    private static Set<String> markedPeriods(Run run) {
        Set<String> out = new java.util.TreeSet<>();
        run.reader.scanPaginator(b -> b.tableName(run.table)).items().forEach(i -> {
            if (i.containsKey(CompactMarks.MARKED) && i.containsKey(CompactMarks.DUE)) {
                out.add(i.get(KeyScheme.PK).s() + '|' + i.get(KeyScheme.SK).s());
            }
        });
        return out;
    }

    /** The hour and day marks every stored partial needs. */
    private static Set<String> periodsWithPartials(Run run) {
        Set<String> out = new java.util.TreeSet<>();
        StoredPartials.read(run.reader, run.table)
                .forEach((series, minutes) -> minutes.keySet().forEach(minute -> {
                    out.add(CompactMarks.hourMark(series, Math.floorDiv(minute, HOUR) * HOUR, 0)
                            .id());
                    out.add(CompactMarks.dayMark(series, Math.floorDiv(minute, DAY) * DAY, 0)
                            .id());
                }));
        assertThat(out).isNotEmpty();
        return out;
    }

    /**
     * Checks every BatchWriteItem as it is sent: each partial in it must belong to an hour and a day whose marks
     * were already stored (an UpdateItem that succeeded before the call).
     */
    static final class MarkOrder extends DelegatingDynamoDb {
        final Set<String> stored = ConcurrentHashMap.newKeySet();
        final List<String> unannounced = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger partialWrites = new AtomicInteger();

        MarkOrder(software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient delegate) {
            super(delegate);
        }

        @Override
        public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
            String id = request.key().get(KeyScheme.PK).s()
                    + '|'
                    + request.key().get(KeyScheme.SK).s();
            return delegate.updateItem(request).thenApply(r -> {
                stored.add(id);
                return r;
            });
        }

        @Override
        public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
            request.requestItems()
                    .values()
                    .forEach(writes -> writes.forEach(w -> {
                        String pk = w.putRequest().item().get(KeyScheme.PK).s();
                        if (!pk.startsWith("P#")) {
                            return;
                        }
                        partialWrites.incrementAndGet();
                        String series = KeyScheme.seriesKey(pk);
                        long hour = KeyScheme.hourStart(pk.substring(pk.lastIndexOf('#') + 1));
                        for (CompactMarks.Mark m : List.of(
                                CompactMarks.hourMark(series, hour, 0),
                                CompactMarks.dayMark(series, Math.floorDiv(hour, DAY) * DAY, 0))) {
                            if (!stored.contains(m.id())) {
                                unannounced.add(pk + " "
                                        + w.putRequest()
                                                .item()
                                                .get(KeyScheme.SK)
                                                .s() + " before " + m.id());
                            }
                        }
                    }));
            return delegate.batchWriteItem(request);
        }
    }

    /** One table, one faulty client, one generated shard, and an event-source-mapping driver. */
    private static final class Run {
        final Faults faults;
        final Random random;
        final String table = "pulse-it-" + TABLES.incrementAndGet();
        final FaultInjectingDynamoDb faulty;
        final MarkOrder markOrder;
        final software.amazon.awssdk.services.dynamodb.DynamoDbClient reader =
                Emulators.dynamo().client();
        final String dlq;
        IngestService service;
        final InvocationMetrics<IngestMetric> metrics = new InvocationMetrics<>(IngestMetric.class);
        final List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        final Map<String, Map<Long, List<Double>>> values = new TreeMap<>();
        final Map<String, Map<Long, Summary>> expected = new TreeMap<>();
        /** Sequence numbers ({@code <seq>.<sub>} for a user record) the DLQ must hold. */
        final Set<String> expectedPoison = new java.util.TreeSet<>();

        final boolean aggregated;
        long aggregates;
        long failedAttempts;
        long redeliveries;
        long bisections;

        Run(Faults faults, long seed, boolean aggregated) {
            this.aggregated = aggregated;
            this.faults = faults;
            this.random = new Random(seed);
            LocalDynamoDb.createTable(reader, table);
            faulty = new FaultInjectingDynamoDb(Emulators.dynamoAsync(), seed);
            faulty.rates(faults.throttle, faults.unprocessed);
            markOrder = new MarkOrder(faulty);
            dlq = Emulators.sqs().createQueue(table + "-dlq");
            service = newInstance();
            generate(1500);
        }

        /** The function on a fresh container: nothing remembered (marks written, series catalogued). */
        IngestService newInstance() {
            return IngestFunction.service(
                    TestConfig.of(
                            table, dlq, Map.of("WRITE_CONCURRENCY", "4", "RETRY_BASE_MS", "1", "RETRY_CAP_MS", "20")),
                    markOrder,
                    Emulators.sqs().client(),
                    Clock.fixed(NOW, ZoneOffset.UTC));
        }

        /** Records of 1-4 datapoints over 12 series and 15 minutes, irregular and out-of-order timestamps. */
        private void generate(int n) {
            for (int i = 0; i < n; i++) {
                long arrival = NOW.toEpochMilli() - 1000;
                if (!aggregated || random.nextDouble() < 0.3) {
                    byte[] data = userRecord(true); // before the key: the plain runs draw what they always drew
                    records.add(KinesisRecords.record(SHARD, i, "pk-" + random.nextInt(50), data, arrival));
                    continue;
                }
                String pk = "pk-" + random.nextInt(50);
                // An aggregate of 2-10 user records, as a KPL producer packs them; now and then a bad one inside.
                String seq = KinesisRecords.sequence(i);
                boolean corrupt = random.nextDouble() < 0.02;
                List<Map.Entry<String, byte[]>> users = new ArrayList<>();
                for (int u = 0, size = 2 + random.nextInt(9); u < size; u++) {
                    boolean bad = !corrupt && random.nextDouble() < 0.03;
                    users.add(Map.entry(
                            "pk-" + random.nextInt(50),
                            bad ? "{\"name\":".getBytes(StandardCharsets.UTF_8) : userRecord(!corrupt)));
                    if (bad) {
                        expectedPoison.add(seq + "." + u);
                    }
                }
                byte[] data = dev.pulse.codec.KplAggregate.write(users);
                if (corrupt) {
                    data[data.length - 1] ^= 1; // the MD5 trailer: none of its user records may be stored
                    expectedPoison.add(seq);
                }
                records.add(KinesisRecords.record(SHARD, i, pk, data, arrival));
                aggregates++;
            }
            values.forEach((series, minutes) -> minutes.forEach((minute, vs) ->
                    expected.computeIfAbsent(series, k -> new TreeMap<>()).put(minute, Summary.of(vs))));
        }

        /** 1-4 datapoints as NDJSON, added to the expectation when {@code counted}. */
        private byte[] userRecord(boolean counted) {
            String[] ops = {"Pay", "Browse", "Cart", "Login"};
            {
                StringBuilder ndjson = new StringBuilder();
                int dps = 1 + random.nextInt(4);
                for (int j = 0; j < dps; j++) {
                    String name = "svc" + random.nextInt(3) + ".latency";
                    String op = ops[random.nextInt(ops.length)];
                    long ts = NOW.toEpochMilli() - 15 * 60_000L + random.nextInt(15 * 60_000);
                    double value = Math.exp(random.nextDouble() * 14 - 5); // ~0.007 .. 8000
                    ndjson.append(String.format(
                            Locale.ROOT,
                            "{\"name\":\"%s\",\"dims\":{\"op\":\"%s\",\"region\":\"eu-west-1\"},\"ts\":%d,\"value\":%s}%n",
                            name,
                            op,
                            ts,
                            Double.toString(value)));
                    if (counted) {
                        String key = SeriesKey.of(name, Map.of("region", "eu-west-1", "op", op));
                        values.computeIfAbsent(key, k -> new TreeMap<>())
                                .computeIfAbsent(Math.floorDiv(ts, 60_000L) * 60_000L, k -> new ArrayList<>())
                                .add(value);
                    }
                }
                return ndjson.toString().getBytes(StandardCharsets.UTF_8);
            }
        }

        IngestResult attempt(List<KinesisEvent.KinesisEventRecord> batch) {
            return service.ingest(batch, Deadline.inMillis(5_000), metrics);
        }

        /** The event source mapping: checkpoint only on success, retry from the batch's first record. */
        void drive() {
            int cp = 0;
            Deque<int[]> pending = new ArrayDeque<>();
            int guard = 0;
            while (cp < records.size()) {
                assertThat(++guard).as("driver made no progress").isLessThan(20_000);
                int[] range = pending.isEmpty()
                        ? new int[] {cp, Math.min(records.size(), cp + 1 + random.nextInt(120))}
                        : pending.poll();
                int s = range[0];
                int e = range[1];
                if (random.nextDouble() < faults.crash) {
                    faulty.crashAfter(random.nextInt(4));
                } else {
                    faulty.disarmCrash();
                }
                IngestResult r = attempt(records.subList(s, e));
                faulty.disarmCrash();
                if (r.failed()) {
                    // The batch's first record, or, in a redelivery that starts below the committed position, its
                    // first record above it (the ones before are stored): Lambda resumes from the one reported.
                    int reported = indexOf(r.failedSequence());
                    assertThat(reported).isBetween(s, e - 1);
                    if (reported > s) {
                        assertThat(redeliveries).isPositive();
                        s = reported;
                    }
                    failedAttempts++;
                    pending.clear();
                    if (e - s > 1 && random.nextDouble() < faults.bisect) {
                        int m = (s + e) / 2;
                        pending.add(new int[] {s, m});
                        pending.add(new int[] {m, e});
                        bisections++;
                    }
                    cp = s;
                    continue;
                }
                if (r.failedSequence() != null) {
                    // Stored and committed its first records (recovering from failed attempts): a partial batch
                    // response, and Lambda resumes at the reported record with the rest of the batch.
                    int reported = indexOf(r.failedSequence());
                    assertThat(reported).isBetween(s + 1, e - 1);
                    pending.addFirst(new int[] {reported, e});
                    cp = reported;
                    continue;
                }
                if (random.nextDouble() < faults.redeliver) {
                    redeliveries++;
                    pending.clear();
                    cp = s;
                    continue;
                }
                cp = e;
            }
        }

        private int indexOf(String sequence) {
            for (int i = 0; i < records.size(); i++) {
                if (records.get(i).getKinesis().getSequenceNumber().equals(sequence)) {
                    return i;
                }
            }
            throw new AssertionError("reported sequence " + sequence + " is not in the input");
        }

        long metricTotal(IngestMetric m) {
            return metrics.count(m);
        }
    }
}
