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
package dev.pulse.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.query.QueryHandler;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.CompactMarks;
import dev.pulse.testing.ControlledPuts;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.RawData;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.TestContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Kinesis records -> ingest (compaction marks, then partials) -> DynamoDB Local -> the scheduled compactor on a
 * clock the test moves -> hourly and daily rollups. Every minute, hour and day summary is checked against a
 * direct computation from the raw datapoints across an hour and a day boundary; late data rebuilds what it
 * touches and nothing else; runs are idempotent and build each closed period once; an older build that lands
 * after a newer one is dropped; a run stops at its deadline with nothing left running.
 */
@ExtendWith(Emulators.class)
class CompactIT {

    private static final long HOUR = 3_600_000L;
    private static final long DAY = 86_400_000L;
    /** The data: three hours across midnight. */
    private static final long START = Instant.parse("2026-11-20T22:30:00Z").toEpochMilli();

    private static final long END = Instant.parse("2026-11-21T01:30:00Z").toEpochMilli();
    /** Ingested the next day, so every hour and both days have closed. */
    private static final Instant INGESTED = Instant.parse("2026-11-22T00:10:00Z");

    private final RawData raw = new RawData();
    private long sequence;

    @Test
    void build_whenHoursAndDaysHaveClosed_everyMinuteHourAndDaySummaryEqualsTheRawData() {
        try (Pipeline p = new Pipeline("pulse-compact", INGESTED, Duration.ofDays(14))) {
            p.ingest(generate(new Random(11), 1200, START, END, 4));

            CompactResult r = p.compactAll();

            assertThat(r.hoursBuilt()).isEqualTo(periods(HOUR).size());
            assertThat(r.daysBuilt()).isEqualTo(periods(DAY).size());
            assertThat(r.periodsQueued()).isEqualTo(r.hoursBuilt() + r.daysBuilt());
            assertRollupsMatch(p);
        }
    }

    @Test
    void build_whenLateDataArrivesAfterHoursAndDaysWereBuilt_rebuildsOnlyWhatItTouchesAndTheQueryServesItExactly() {
        try (Pipeline p = new Pipeline("pulse-compact-late", INGESTED, Duration.ofDays(14))) {
            Random random = new Random(12);
            p.ingest(generate(random, 600, START, END, 4));
            p.compactAll();

            // Late points for two series around midnight, after their hours and days were built.
            p.clock().advance(Duration.ofMinutes(30));
            RawData late = new RawData();
            p.ingest(generate(random, 150, START + HOUR / 2, START + 2 * HOUR, 2, late));
            CompactResult r = p.compactAll();

            assertThat(r.hoursBuilt())
                    .isEqualTo(periods(late, HOUR).size())
                    .isLessThan(periods(HOUR).size());
            assertThat(r.daysBuilt())
                    .isEqualTo(periods(late, DAY).size())
                    .isLessThan(periods(DAY).size());
            assertRollupsMatch(p);
            RecordingMetrics metrics = new RecordingMetrics();
            QueryHandler query = p.queryHandler(metrics);
            raw.assertQueryMatches(query, "2026-11-20T00:00:00Z", "2026-11-22T00:00:00Z", "P1D");
            raw.assertQueryMatches(query, "2026-11-20T22:00:00Z", "2026-11-21T02:00:00Z", "PT1H");
            raw.assertQueryMatches(query, "2026-11-20T22:30:00Z", "2026-11-21T01:30:00Z", "PT5M");
            assertThat(metrics.documents())
                    .allSatisfy(d -> assertThat(d.get("RollupFallbacks")).isZero());
        }
    }

    @Test
    void build_whenEverythingIsBuilt_laterRunsBuildNothingAndChangeNothing() {
        try (Pipeline p = new Pipeline("pulse-compact-idle", INGESTED, Duration.ofDays(14))) {
            p.ingest(generate(new Random(13), 400, START, END, 4));
            p.compactAll();
            Map<String, Map<String, AttributeValue>> built = rollups(p);

            for (int run = 0; run < 3; run++) {
                p.clock().advance(Duration.ofMinutes(5));
                CompactResult r = p.build();
                assertThat(r.periodsQueued()).isZero();
                assertThat(r.hoursBuilt() + r.daysBuilt()).isZero();
            }

            assertThat(rollups(p)).isEqualTo(built);
        }
    }

    @Test
    void build_whenBatchesRedeliveredAfterTheBuild_nothingIsRebuiltAndARedriveRebuildsByteIdenticalExceptTheVersion() {
        try (Pipeline p = new Pipeline("pulse-compact-redeliver", INGESTED, Duration.ofDays(14))) {
            List<KinesisEvent.KinesisEventRecord> records = generate(new Random(14), 600, START, END, 4);
            p.ingest(records);
            CompactResult first = p.compactAll();
            Map<String, Map<String, AttributeValue>> built = rollups(p);

            // The same batches delivered again: at or below the shard's committed position, so skipped; no mark is
            // set and nothing is rebuilt.
            p.clock().advance(Duration.ofMinutes(10));
            p.ingest(records);
            CompactResult redelivered = p.compactAll();
            assertThat(redelivered.hoursBuilt()).isZero();
            assertThat(redelivered.daysBuilt()).isZero();
            assertThat(rollups(p)).isEqualTo(built);

            for (int again = 0; again < 2; again++) {
                p.clock().advance(Duration.ofMinutes(10));
                p.redrive(records); // the same batches stored again: marks set again, partials overwritten with
                // themselves
                CompactResult r = p.compactAll();

                assertThat(r.hoursBuilt()).isEqualTo(first.hoursBuilt());
                assertThat(r.daysBuilt()).isEqualTo(first.daysBuilt());
                Map<String, Map<String, AttributeValue>> before = built;
                built = rollups(p);
                assertThat(withoutVersion(built)).isEqualTo(withoutVersion(before));
                built.forEach((key, item) -> assertThat(version(item)).as(key).isGreaterThan(version(before.get(key))));
            }
        }
    }

    @Test
    void build_whenRunEveryFiveMinutesWhileDataArrives_buildsEachClosedHourAndDayExactlyOnce() {
        Instant first = Instant.parse("2026-11-20T22:00:00Z");
        // One day of late data accepted: the builder scans 3 days of queue, not 16.
        try (Pipeline p = new Pipeline("pulse-compact-live", first, Duration.ofDays(1))) {
            ControlledPuts puts = new ControlledPuts(Emulators.dynamoAsync());
            CompactService builder = p.builder(puts);
            Random random = new Random(15);
            int hoursBuilt = 0;
            int daysBuilt = 0;
            // Four hours of live traffic, each minute's records up to two minutes late, then half an hour quiet.
            for (int minute = 1; minute <= 4 * 60 + 30; minute++) {
                p.clock().advance(Duration.ofMinutes(1));
                long now = p.clock().millis();
                if (minute <= 4 * 60) {
                    p.ingest(generate(random, 12, now - 120_000, now, 4));
                }
                if (minute % 5 == 0) {
                    CompactResult r =
                            builder.build(Deadline.inMillis(60_000), new InvocationMetrics<>(CompactMetric.class));
                    assertThat(r.stopped()).as(r.stopReason()).isFalse();
                    assertThat(r.losingWrites()).isZero();
                    hoursBuilt += r.hoursBuilt();
                    daysBuilt += r.daysBuilt();
                }
            }

            // 22:00-02:00 is closed (and settled) by 02:30; of the days only the 20th has closed.
            Map<String, Integer> expected = new TreeMap<>();
            periods(HOUR).forEach(id -> expected.put(id, 1));
            periods(DAY).stream().filter(id -> id.endsWith("2026-11-20")).forEach(id -> expected.put(id, 1));
            assertThat(puts.landed()).isEqualTo(expected);
            assertThat(hoursBuilt).isEqualTo(periods(HOUR).size());
            assertThat(daysBuilt).isEqualTo(raw.keys().size());
            assertThat(p.build().hoursBuilt()).isZero();
        }
    }

    @Test
    void build_whenTwoRunsOverlap_eachPeriodIsWrittenOnceAndTheOtherWriteLoses() throws Exception {
        try (Pipeline p = new Pipeline("pulse-compact-overlap", INGESTED, Duration.ofDays(14))) {
            p.ingest(generate(new Random(16), 600, START, END, 4));
            p.clock().advance(p.config.markSettle().plusMillis(1));
            ControlledPuts puts = new ControlledPuts(Emulators.dynamoAsync());
            CompactService a = p.builder(puts);
            CompactService b = p.builder(puts);

            // The schedule fired twice (EventBridge delivers at least once): two runs on the same queue at once.
            CompletableFuture<CompactResult> ra = CompletableFuture.supplyAsync(() -> run(a, 60_000));
            CompletableFuture<CompactResult> rb = CompletableFuture.supplyAsync(() -> run(b, 60_000));
            CompactResult x = ra.get(60, TimeUnit.SECONDS);
            CompactResult y = rb.get(60, TimeUnit.SECONDS);
            CompactResult rest = run(a, 60_000); // a day one run saw with an hour still marked

            int periods = periods(HOUR).size() + periods(DAY).size();
            assertThat(x.hoursBuilt() + y.hoursBuilt()).isEqualTo(periods(HOUR).size());
            assertThat(x.daysBuilt() + y.daysBuilt() + rest.daysBuilt())
                    .isEqualTo(periods(DAY).size());
            assertThat(puts.landed())
                    .hasSize(periods)
                    .allSatisfy((k, n) -> assertThat(n).as(k).isEqualTo(1));
            assertThat(puts.started()).isEqualTo(periods + x.losingWrites() + y.losingWrites() + rest.losingWrites());
            assertRollupsMatch(p);
        }
    }

    @Test
    void build_whenAnOlderBuildsWriteLandsAfterANewerBuild_theTableKeepsTheNewerOne() throws Exception {
        try (Pipeline p = new Pipeline("pulse-compact-order", INGESTED, Duration.ofDays(14))) {
            Random random = new Random(17);
            HeldRun a = startRunWithItsWriteHeld(p, random);

            // Meanwhile late data for that hour arrives and run B builds it with everything.
            p.clock().advance(Duration.ofMinutes(1));
            p.ingest(generate(random, 30, a.hour(), a.hour() + HOUR, 1));
            CompactResult runB = p.compactAll();
            assertThat(runB.hoursBuilt()).isEqualTo(1);
            Map<String, AttributeValue> newer = a.item(p);

            // A's write arrives last: it must lose.
            a.puts().release();
            CompactResult runA = a.result().get(30, TimeUnit.SECONDS);

            assertThat(runA.losingWrites()).isEqualTo(1);
            assertThat(runA.hoursBuilt()).isZero();
            assertThat(a.puts().landedTotal()).isZero();
            assertThat(a.item(p)).isEqualTo(newer);
            assertThat(Long.parseLong(a.write().item().get("count").n()))
                    .isEqualTo(a.countRead())
                    .isLessThan(raw.count());
            assertRollupsMatch(p);
        }
    }

    @Test
    void build_whenTheItemIsMarkedAgainWithTheStampTheOlderBuildRead_theVersionAloneRejectsTheOlderWrite()
            throws Exception {
        try (Pipeline p = new Pipeline("pulse-compact-version", INGESTED, Duration.ofDays(14))) {
            Random random = new Random(18);
            HeldRun a = startRunWithItsWriteHeld(p, random);
            p.clock().advance(Duration.ofMinutes(1));
            p.build(); // run B: the same data, a newer version
            Map<String, AttributeValue> newer = a.item(p);

            // An ingest whose clock is behind marks the hour again with exactly the stamp run A read: the mark
            // condition of A's write holds, only the version can stop it.
            p.clock().set(Instant.ofEpochMilli(a.markedAt()));
            p.ingest(generate(random, 10, a.hour(), a.hour() + HOUR, 1));
            p.clock()
                    .set(Instant.ofEpochMilli(a.markedAt())
                            .plus(p.config.markSettle())
                            .plus(Duration.ofMinutes(2)));
            a.puts().release();
            CompactResult runA = a.result().get(30, TimeUnit.SECONDS);

            assertThat(runA.losingWrites()).isEqualTo(1);
            Map<String, AttributeValue> after = a.item(p);
            assertThat(withoutMark(after)).isEqualTo(newer);
            assertThat(after.get(CompactMarks.MARKED).n()).isEqualTo(Long.toString(a.markedAt()));
            // And the mark is still there for the next run, which builds the hour with the last ten records too.
            assertThat(p.build().hoursBuilt()).isEqualTo(1);
            assertRollupsMatch(p);
        }
    }

    /** Run A of the ordering tests: its hour, when it was marked, what A read, and A's write held in the network. */
    private record HeldRun(
            String key,
            long hour,
            long markedAt,
            long countRead,
            ControlledPuts puts,
            PutItemRequest write,
            CompletableFuture<CompactResult> result) {

        Map<String, AttributeValue> item(Pipeline p) {
            return get(p, KeyScheme.hourlyPk(key, hour), KeyScheme.hour(hour));
        }
    }

    /** One series' hour ingested and settled; a run starts, reads it, and its write of the hour is held. */
    private HeldRun startRunWithItsWriteHeld(Pipeline p, Random random) throws Exception {
        long hour = Instant.parse("2026-11-20T23:00:00Z").toEpochMilli();
        p.ingest(generate(random, 50, hour, hour + HOUR, 1));
        long markedAt = p.clock().millis();
        p.clock().advance(p.config.markSettle().plusMillis(1));
        ControlledPuts puts = new ControlledPuts(Emulators.dynamoAsync());
        CompletableFuture<PutItemRequest> held = puts.holdNext();
        CompletableFuture<CompactResult> result = CompletableFuture.supplyAsync(() -> run(p.builder(puts), 60_000));
        PutItemRequest write = held.get(30, TimeUnit.SECONDS);
        String key = raw.keys().get(0);
        assertThat(write.item().get(KeyScheme.PK).s()).isEqualTo(KeyScheme.hourlyPk(key, hour));
        return new HeldRun(key, hour, markedAt, raw.count(), puts, write, result);
    }

    @Test
    void build_whenTheDeadlinePassesWithWritesInFlight_startsNothingMoreAndReturnsOnlyAfterTheyEnded()
            throws Exception {
        // One day of late data accepted: the queue scan is short, so the run spends its time building.
        try (Pipeline p = new Pipeline("pulse-compact-deadline", INGESTED, Duration.ofDays(1))) {
            p.ingest(generate(new Random(19), 2000, START, END, 40));
            int hours = periods(HOUR).size();
            ControlledPuts slow = new ControlledPuts(Emulators.dynamoAsync());
            slow.latency(Duration.ofMillis(600)); // 32 builds in flight: at most two rounds of writes fit in the budget
            // A run before the marks settle only scans the queue: the budget is that, and a second for building.
            long scanning = System.nanoTime();
            assertThat(run(p.builder(slow), 60_000).hoursBuilt()).isZero();
            long budget = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - scanning) + 1_000;
            p.clock().advance(p.config.markSettle().plusMillis(1));

            long started = System.nanoTime();
            CompactResult r = run(p.builder(slow), budget);
            long returned = System.nanoTime();
            Thread.sleep(1_000);

            assertThat(r.stopped()).isTrue();
            assertThat(r.stopReason()).startsWith("deadline");
            assertThat(r.hoursBuilt()).isPositive().isLessThan(hours);
            assertThat(r.hoursBuilt() + r.periodsPending())
                    .as("every queued hour built or left queued")
                    .isEqualTo(hours);
            assertThat(slow.started()).as("builds started").isLessThan(hours);
            assertThat(slow.lastLandedNanos())
                    .as("no write landed after the run returned")
                    .isLessThanOrEqualTo(returned);
            assertThat(slow.landedTotal()).isEqualTo(r.hoursBuilt());
            assertThat(slow.callTimeouts())
                    .allSatisfy(t -> assertThat(t).isNotNull().isLessThanOrEqualTo(Duration.ofMillis(budget)));
            assertThat(TimeUnit.NANOSECONDS.toMillis(returned - started)).isLessThan(budget + 1_000);

            // The next run builds what was left, and only that.
            CompactResult next = p.build();
            assertThat(next.hoursBuilt()).isEqualTo(hours - r.hoursBuilt());
            assertThat(next.daysBuilt()).isEqualTo(periods(DAY).size());
            assertRollupsMatch(p);
        }
    }

    @Test
    void handleRequest_whenARunDiesOnADynamoDbError_failsTheInvocationAndTheNextRunBuildsWhatWasLeft() {
        try (Pipeline p = new Pipeline("pulse-compact-handler", INGESTED, Duration.ofDays(14))) {
            p.ingest(generate(new Random(20), 300, START, END, 4));
            p.clock().advance(p.config.markSettle().plusMillis(1));
            ControlledPuts dying = new ControlledPuts(Emulators.dynamoAsync());
            dying.failAfter(3);
            RecordingMetrics metrics = new RecordingMetrics();
            CompactHandler handler = CompactFunction.handler(p.config, dying, p.clock(), metrics);

            assertThatThrownBy(
                            () -> handler.handleRequest(new ScheduledEvent(), new TestContext("build", 60_000, 1024)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("compaction run failed");

            assertThat(metrics.last("HoursBuilt")).isEqualTo(3);
            assertThat(metrics.last("RunsStopped")).isEqualTo(1);
            CompactResult next = CompactFunction.handler(p.config, Emulators.dynamoAsync(), p.clock(), metrics)
                    .handleRequest(new ScheduledEvent(), new TestContext("build", 60_000, 1024));
            assertThat(next.hoursBuilt()).isEqualTo(periods(HOUR).size() - 3);
            assertThat(metrics.last("RunsStopped")).isZero();
            assertThat(metrics.last("PeriodsPending")).isZero();
            assertRollupsMatch(p);
        }
    }

    @Test
    void settings_whenConfiguredFromTheEnvironment_takeGraceSettleAndRetentionFromIt() {
        var config = TestConfig.of("t", "q", Map.of("INGEST_TIMEOUT_SECONDS", "30", "COMPACT_GRACE_SECONDS", "600"));

        CompactService.Settings s = CompactFunction.settings(config);

        assertThat(s.markSettle()).isEqualTo(Duration.ofSeconds(70));
        assertThat(s.grace()).isEqualTo(Duration.ofSeconds(600));
        assertThat(s.partialTtl()).isEqualTo(Duration.ofDays(17));
    }

    private static CompactResult run(CompactService builder, long budgetMillis) {
        return builder.build(Deadline.inMillis(budgetMillis), new InvocationMetrics<>(CompactMetric.class));
    }

    /**
     * NDJSON records of 1-3 datapoints each over {@code functions} series, timestamps uniform in [from, to),
     * values 1e-3..1e6, arriving at {@code to}. Every datapoint is noted in {@link #raw} and in {@code also}.
     */
    private List<KinesisEvent.KinesisEventRecord> generate(
            Random random, int n, long from, long to, int functions, RawData... also) {
        List<KinesisEvent.KinesisEventRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StringBuilder ndjson = new StringBuilder();
            for (int j = 0, dps = 1 + random.nextInt(3); j < dps; j++) {
                String fn = "fn" + random.nextInt(functions);
                long ts = from + (long) (random.nextDouble() * (to - from));
                double value = Math.pow(10, random.nextDouble() * 9 - 3);
                ndjson.append(String.format(
                        Locale.ROOT,
                        "{\"name\":\"lambda.duration\",\"dims\":{\"function\":\"%s\"}," + "\"ts\":%d,\"value\":%s}%n",
                        fn,
                        ts,
                        Double.toString(value)));
                raw.add("lambda.duration", Map.of("function", fn), ts, value);
                for (RawData r : also) {
                    r.add("lambda.duration", Map.of("function", fn), ts, value);
                }
            }
            out.add(KinesisRecords.record(
                    "shardId-000000000000",
                    sequence++,
                    "pk" + i,
                    ndjson.toString().getBytes(StandardCharsets.UTF_8),
                    to));
        }
        return out;
    }

    /** pk|sk of every (series, period) rollup the data needs, for periods of {@code size} (an hour, a day). */
    private TreeSet<String> periods(long size) {
        return periods(raw, size);
    }

    private static TreeSet<String> periods(RawData data, long size) {
        TreeSet<String> out = new TreeSet<>();
        for (String key : data.keys()) {
            for (long start : data.byPeriod(key, size).keySet()) {
                out.add(
                        size == HOUR
                                ? CompactMarks.hourMark(key, start, 0).id()
                                : CompactMarks.dayMark(key, start, 0).id());
            }
        }
        return out;
    }

    /** Every hourly and daily item is built, unmarked, and holds exactly the raw data of its minutes or hours. */
    private void assertRollupsMatch(Pipeline p) {
        for (String key : raw.keys()) {
            raw.byPeriod(key, HOUR).forEach((hour, byMinute) -> {
                Map<String, AttributeValue> item = get(p, KeyScheme.hourlyPk(key, hour), KeyScheme.hour(hour));
                String at = key + " hour " + KeyScheme.hour(hour);
                assertThat(RollupItems.complete(item)).as(at + " complete").isTrue();
                SortedMap<Integer, dev.pulse.aggregate.Summary> minutes =
                        RollupItems.buckets(item, RollupItems.MINUTES);
                assertThat(minutes.keySet())
                        .as(at + " minutes")
                        .containsExactlyElementsOf(byMinute.keySet().stream()
                                .map(m -> (int) ((m - hour) / 60_000L))
                                .toList());
                byMinute.forEach((minute, values) -> RawData.assertSummary(
                        key + " @ " + KeyScheme.minute(minute),
                        minutes.get((int) ((minute - hour) / 60_000L)),
                        values));
                RawData.assertSummary(at, RollupItems.total(item, RollupItems.MINUTES), RawData.flatten(byMinute));
            });
            raw.byPeriod(key, DAY).forEach((day, byMinute) -> {
                Map<String, AttributeValue> item = get(p, KeyScheme.dailyPk(key, day), KeyScheme.day(day));
                String at = key + " day " + KeyScheme.day(day);
                assertThat(RollupItems.complete(item)).as(at + " complete").isTrue();
                SortedMap<Integer, dev.pulse.aggregate.Summary> hours = RollupItems.buckets(item, RollupItems.HOURS);
                SortedMap<Long, SortedMap<Long, List<Double>>> byHour = new TreeMap<>();
                byMinute.forEach((m, vs) -> byHour.computeIfAbsent(Math.floorDiv(m, HOUR) * HOUR, k -> new TreeMap<>())
                        .put(m, vs));
                assertThat(hours).as(at + " hours").hasSize(byHour.size());
                byHour.forEach((hour, inHour) -> RawData.assertSummary(
                        key + " hour " + KeyScheme.hour(hour) + " of the day",
                        hours.get((int) ((hour - day) / HOUR)),
                        RawData.flatten(inHour)));
                RawData.assertSummary(at, RollupItems.total(item, RollupItems.HOURS), RawData.flatten(byMinute));
            });
        }
    }

    private static Map<String, AttributeValue> get(Pipeline p, String pk, String sk) {
        Map<String, AttributeValue> item = p.reader()
                .getItem(b -> b.tableName(p.table)
                        .consistentRead(true)
                        .key(Map.of(KeyScheme.PK, AttributeValue.fromS(pk), KeyScheme.SK, AttributeValue.fromS(sk))))
                .item();
        assertThat(item).as(pk + " / " + sk).isNotEmpty();
        return item;
    }

    /** Every rollup item (hourly and daily), by pk|sk. */
    private static Map<String, Map<String, AttributeValue>> rollups(Pipeline p) {
        Map<String, Map<String, AttributeValue>> out = new TreeMap<>();
        p.reader()
                .scanPaginator(b -> b.tableName(p.table).consistentRead(true))
                .items()
                .forEach(i -> {
                    String pk = i.get(KeyScheme.PK).s();
                    if (pk.startsWith("H#") || pk.startsWith("D#")) {
                        out.put(pk + "|" + i.get(KeyScheme.SK).s(), i);
                    }
                });
        assertThat(out).isNotEmpty();
        return out;
    }

    private static Map<String, Map<String, AttributeValue>> withoutVersion(
            Map<String, Map<String, AttributeValue>> items) {
        Map<String, Map<String, AttributeValue>> out = new TreeMap<>();
        items.forEach((k, item) -> {
            Map<String, AttributeValue> copy = new HashMap<>(item);
            copy.remove(RollupItems.VERSION);
            out.put(k, copy);
        });
        return out;
    }

    private static long version(Map<String, AttributeValue> item) {
        return Long.parseLong(item.get(RollupItems.VERSION).n());
    }

    private static Map<String, AttributeValue> withoutMark(Map<String, AttributeValue> item) {
        Map<String, AttributeValue> copy = new HashMap<>(item);
        copy.remove(CompactMarks.MARKED);
        copy.remove(CompactMarks.DUE);
        return copy;
    }
}
