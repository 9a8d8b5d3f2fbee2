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

import static dev.pulse.compact.CompactFixture.DAY;
import static dev.pulse.compact.CompactFixture.HOUR;
import static dev.pulse.compact.CompactFixture.at;
import static dev.pulse.compact.CompactFixture.buckets;
import static dev.pulse.compact.CompactFixture.version;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.CompactMarks;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.DynamoDbLocalExtension;
import java.time.Instant;
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
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;

/**
 * The compactor ({@link CompactService}) on DynamoDB Local (in-process, 127.0.0.1): a closed, settled hour is
 * built once from the newest partial of each slot and its day from its hours; a build that lost its race (a newer
 * build, a newer mark) never replaces what is there; marks that can no longer be built are resolved; and a rollup
 * is served only while it carries no mark, which is what the query's fallback to partials relies on.
 */
class CompactServiceTest {

    private static final long MINUTE = 60_000L;

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    private CompactFixture f;

    @BeforeEach
    void newTable() {
        f = new CompactFixture(DYNAMO.async(), DYNAMO.reader());
    }

    /** Data at 10:05 and 10:30, its marks set at 10:31. */
    private void ingestTwoMinutes() {
        f.clock.set(at("2026-11-21T10:31:00Z"));
        f.ingest(HOUR + 5 * MINUTE, 1, 1, 4, 6);
        f.ingest(HOUR + 30 * MINUTE, 2, 1, 10);
    }

    @Test
    void build_whenTheHourIsClosedAndItsMarkSettled_buildsItOnceAndRemovesTheMark() {
        ingestTwoMinutes();
        Instant run = at("2026-11-21T11:06:00Z");

        CompactResult first = f.run(run);

        assertThat(first.stopped()).isFalse();
        assertThat(first.periodsQueued()).as("the hour; its day is not closed").isEqualTo(1);
        assertThat(first.hoursBuilt()).isEqualTo(1);
        Map<String, AttributeValue> hourly = f.hourly(HOUR);
        assertThat(buckets(hourly, RollupItems.MINUTES))
                .isEqualTo(Map.of(
                        5, List.of(2.0, 10.0, 4.0, 6.0),
                        30, List.of(1.0, 10.0, 10.0, 10.0)));
        assertThat(hourly.get("count").n()).isEqualTo("3");
        assertThat(hourly).doesNotContainKeys(CompactMarks.MARKED, CompactMarks.DUE);
        assertThat(version(hourly)).isEqualTo(run.toEpochMilli());

        CompactResult second = f.run(at("2026-11-21T11:11:00Z"));

        assertThat(second.periodsQueued()).isZero();
        assertThat(second.hoursBuilt()).isZero();
        assertThat(version(f.hourly(HOUR))).as("built once").isEqualTo(run.toEpochMilli());
        assertThat(f.total(CompactMetric.HOURS_BUILT)).isEqualTo(1);
        assertThat(f.total(CompactMetric.ROLLUPS_WRITTEN)).isEqualTo(1);
    }

    /** Of the partials of one slot (retries of the same records), only the newest generation counts. */
    @Test
    void build_whenASlotHasPartialsOfSeveralAttempts_takesOnlyTheNewestGeneration() {
        f.clock.set(at("2026-11-21T10:31:00Z"));
        f.ingest(HOUR + 5 * MINUTE, 1, 1, 1, 2, 3); // an attempt that failed after writing
        f.ingest(HOUR + 5 * MINUTE, 1, 3, 1, 2); // the retry that stored the slot's records (bisected)
        f.ingest(HOUR + 5 * MINUTE, 3, 4, 3); // the other half, its own slot
        f.ingest(HOUR + 5 * MINUTE, 1, 2, 100); // a stale attempt whose write landed late

        f.run(at("2026-11-21T11:06:00Z"));

        assertThat(buckets(f.hourly(HOUR), RollupItems.MINUTES)).isEqualTo(Map.of(5, List.of(3.0, 6.0, 1.0, 3.0)));
    }

    @ParameterizedTest(name = "run at {0}: {1} hours built")
    @CsvSource({
        "2026-11-21T10:59:00Z, 0", // the hour is open
        "2026-11-21T11:04:59Z, 0", // closed, but within the build grace (5 min): partials may still land
        "2026-11-21T11:05:00Z, 1"
    })
    void build_beforeTheHourEndsPlusTheGrace_doesNotBuildIt(String run, int built) {
        ingestTwoMinutes();

        CompactResult r = f.run(at(run));

        assertThat(r.hoursBuilt()).isEqualTo(built);
        assertThat(RollupItems.complete(f.hourly(HOUR))).isEqualTo(built == 1);
    }

    /** A mark is built only once every write it announces has landed (the settle time, 2 x (60 s + 5 s)). */
    @Test
    void build_whenTheMarkHasNotSettled_leavesItPendingAndBuildsItOnTheNextRun() {
        f.clock.set(at("2026-11-21T11:05:00Z")); // late data, marked after the hour closed
        f.ingest(HOUR + 59 * MINUTE, 1, 1, 7);

        CompactResult early = f.run(at("2026-11-21T11:06:00Z"));

        assertThat(early.hoursBuilt()).isZero();
        assertThat(early.periodsPending()).isEqualTo(1);
        assertThat(f.runs.get(0).count(CompactMetric.PERIODS_PENDING)).isEqualTo(1);

        CompactResult settled = f.run(at("2026-11-21T11:07:10Z"));

        assertThat(settled.hoursBuilt()).isEqualTo(1);
        assertThat(settled.periodsPending()).isZero();
        assertThat(buckets(f.hourly(HOUR), RollupItems.MINUTES)).isEqualTo(Map.of(59, List.of(1.0, 7.0, 7.0, 7.0)));
    }

    /** Late data marks a built hour again: the next run rebuilds it whole, with a newer version. */
    @Test
    void build_whenABuiltHourIsMarkedAgain_rebuildsItWithTheLateData() {
        ingestTwoMinutes();
        f.run(at("2026-11-21T11:06:00Z"));
        long firstVersion = version(f.hourly(HOUR));
        f.clock.set(at("2026-11-21T12:00:00Z"));
        f.ingest(HOUR + 5 * MINUTE, 9, 5, 20);

        assertThat(RollupItems.complete(f.hourly(HOUR)))
                .as("marked: the query reads its partials")
                .isFalse();
        CompactResult r = f.run(at("2026-11-21T12:03:00Z"));

        assertThat(r.hoursBuilt()).isEqualTo(1);
        Map<String, AttributeValue> hourly = f.hourly(HOUR);
        assertThat(version(hourly)).isGreaterThan(firstVersion);
        assertThat(buckets(hourly, RollupItems.MINUTES))
                .isEqualTo(Map.of(
                        5, List.of(3.0, 30.0, 4.0, 20.0),
                        30, List.of(1.0, 10.0, 10.0, 10.0)));
        assertThat(RollupItems.complete(hourly)).isTrue();
    }

    /**
     * The versioned write: a rollup already written by a build that started later (a newer version) is never
     * replaced; one written by a build that started earlier is.
     */
    @ParameterizedTest(name = "version on the item {0} ms from this build's -> replaced {1}")
    @CsvSource({"-60000, true", "-1, true", "0, false", "60000, false"})
    void build_whenTheRollupCarriesAVersion_replacesItOnlyIfThisBuildIsNewer(long offset, boolean replaced) {
        ingestTwoMinutes();
        Instant run = at("2026-11-21T11:06:00Z");
        Map<String, AttributeValue> hour = f.hourly(HOUR);
        DYNAMO.reader()
                .updateItem(b -> b.tableName(f.table)
                        .key(Map.of(KeyScheme.PK, hour.get(KeyScheme.PK), KeyScheme.SK, hour.get(KeyScheme.SK)))
                        .updateExpression("SET #v = :v, #c = :c")
                        .expressionAttributeNames(Map.of("#v", RollupItems.VERSION, "#c", "count"))
                        .expressionAttributeValues(Map.of(
                                ":v",
                                AttributeValue.fromN(Long.toString(run.toEpochMilli() + offset)),
                                ":c",
                                AttributeValue.fromN("999"))));

        CompactResult r = f.run(run);

        assertThat(r.hoursBuilt()).isEqualTo(replaced ? 1 : 0);
        assertThat(r.losingWrites()).isEqualTo(replaced ? 0 : 1);
        assertThat(f.runs.get(0).count(CompactMetric.LOSING_WRITES)).isEqualTo(replaced ? 0 : 1);
        Map<String, AttributeValue> after = f.hourly(HOUR);
        assertThat(after.get("count").n()).isEqualTo(replaced ? "3" : "999");
        assertThat(version(after)).isEqualTo(replaced ? run.toEpochMilli() : run.toEpochMilli() + offset);
    }

    /**
     * Two overlapping runs: the one that started later writes first; the earlier one's write, landing late, loses
     * (its mark is gone and its version is older) and leaves the newer rollup as it is.
     */
    @Test
    void build_whenAnOlderBuildLandsAfterANewerOne_dropsTheOlderWrite() {
        ingestTwoMinutes();
        f.ingest(HOUR + 40 * MINUTE, 5, 1, 1); // the newer run sees it too: both read the same partials
        Instant older = at("2026-11-21T11:06:00Z");
        Instant newer = at("2026-11-21T11:07:00Z");
        AtomicBoolean overtaken = new AtomicBoolean();
        DynamoDbAsyncClient slow = new DelegatingDynamoDb(DYNAMO.async()) {
            @Override
            public CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
                if (!overtaken.compareAndSet(false, true)) {
                    return super.putItem(request);
                }
                // On another thread: this one may be the HTTP client's, which the newer run needs. The newer run moves
                // the shared clock; the older run's version was taken when it started reading.
                return CompletableFuture.supplyAsync(() -> f.run(newer)).thenCompose(n -> {
                    assertThat(n.hoursBuilt()).isEqualTo(1);
                    return super.putItem(request);
                });
            }
        };

        CompactResult r = f.run(f.service(slow), older);

        assertThat(overtaken).isTrue();
        assertThat(r.hoursBuilt()).isZero();
        assertThat(r.losingWrites()).isEqualTo(1);
        assertThat(version(f.hourly(HOUR))).isEqualTo(newer.toEpochMilli());
        assertThat(RollupItems.complete(f.hourly(HOUR))).isTrue();
    }

    /**
     * Data announced while a compaction runs (its mark set between the build's read and its write) keeps the rollup
     * marked: the write loses, the rollup stays unserved, and the next run builds it with that data.
     */
    @Test
    void build_whenMarkedAgainDuringTheBuild_losesTheWriteAndRebuildsOnTheNextRun() {
        ingestTwoMinutes();
        AtomicBoolean late = new AtomicBoolean();
        DynamoDbAsyncClient racing = new DelegatingDynamoDb(DYNAMO.async()) {
            @Override
            public CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
                if (!late.compareAndSet(false, true)) {
                    return super.putItem(request);
                }
                // Marked at the run's time, 11:06; on another thread, as the hook may run on the HTTP client's.
                return CompletableFuture.runAsync(() -> f.ingest(HOUR + 30 * MINUTE, 7, 1, 30))
                        .thenCompose(v -> super.putItem(request));
            }
        };

        CompactResult r = f.run(f.service(racing), at("2026-11-21T11:06:00Z"));

        assertThat(r.losingWrites()).isEqualTo(1);
        assertThat(r.hoursBuilt()).isZero();
        assertThat(RollupItems.complete(f.hourly(HOUR))).isFalse();

        CompactResult next = f.run(at("2026-11-21T11:08:10Z"));

        assertThat(next.hoursBuilt()).isEqualTo(1);
        assertThat(buckets(f.hourly(HOUR), RollupItems.MINUTES))
                .isEqualTo(Map.of(
                        5, List.of(2.0, 10.0, 4.0, 6.0),
                        30, List.of(2.0, 40.0, 10.0, 30.0)));
    }

    /** A day is built from its hourly rollups, after them, and waits while one of its hours is still marked. */
    @Test
    void build_whenTheDayHasAnHourStillMarked_waitsForItThenBuildsTheDayFromItsHours() {
        ingestTwoMinutes();
        f.run(at("2026-11-21T11:06:00Z"));
        f.clock.set(at("2026-11-22T00:05:00Z"));
        f.ingest(HOUR + 13 * 3_600_000L + 2 * MINUTE, 11, 1, 5); // 23:02, marked at 00:05: not settled at 00:06

        CompactResult waiting = f.run(at("2026-11-22T00:06:00Z"));

        assertThat(waiting.hoursBuilt()).isZero();
        assertThat(waiting.daysBuilt()).isZero();
        assertThat(waiting.periodsPending()).as("the hour and its day").isEqualTo(2);
        assertThat(RollupItems.complete(f.daily(DAY))).isFalse();

        CompactResult done = f.run(at("2026-11-22T00:07:10Z"));

        assertThat(done.hoursBuilt()).isEqualTo(1);
        assertThat(done.daysBuilt()).isEqualTo(1);
        Map<String, AttributeValue> daily = f.daily(DAY);
        assertThat(buckets(daily, RollupItems.HOURS))
                .isEqualTo(Map.of(
                        10, List.of(3.0, 20.0, 4.0, 10.0),
                        23, List.of(1.0, 5.0, 5.0, 5.0)));
        assertThat(RollupItems.complete(daily)).isTrue();
        assertThat(f.total(CompactMetric.DAYS_BUILT)).isEqualTo(1);
    }

    /**
     * A mark on an hour whose first partial may have expired (the builder was stopped past the retention) is resolved:
     * cleared, the rollup kept as it was, counted; rebuilding from what is left would shrink it.
     */
    @Test
    void build_whenTheHoursPartialsMayHaveExpired_resolvesTheMarkAndKeepsTheRollup() {
        ingestTwoMinutes();
        f.run(at("2026-11-21T11:06:00Z"));
        Map<String, AttributeValue> built = f.hourly(HOUR);
        f.clock.set(at("2026-11-21T12:00:00Z"));
        f.ingest(HOUR + 5 * MINUTE, 9, 5, 20); // late data, then the builder stops for three days

        CompactResult r = f.run(at("2026-11-24T10:00:00Z")); // partials live 3 days after their minute

        assertThat(r.marksResolved()).isEqualTo(1);
        assertThat(r.hoursBuilt()).isZero();
        assertThat(f.runs.get(1).count(CompactMetric.EXPIRED_MARKS)).isEqualTo(1);
        Map<String, AttributeValue> kept = f.hourly(HOUR);
        assertThat(RollupItems.complete(kept)).isTrue();
        assertThat(buckets(kept, RollupItems.MINUTES)).isEqualTo(buckets(built, RollupItems.MINUTES));
        assertThat(version(kept)).isEqualTo(version(built));
    }

    /**
     * What the query's read fallback relies on: a period whose rollup is not built, or marked again since, is not
     * complete (the query reads its partials instead); once built it is complete and holds everything stored.
     */
    @Test
    void complete_acrossAnHoursLife_isTrueOnlyWhileNoDataWasAnnouncedAfterTheBuild() {
        assertThat(f.hourly(HOUR)).as("no item before any data").isNull();
        ingestTwoMinutes();
        assertThat(RollupItems.complete(f.hourly(HOUR)))
                .as("marked, never built")
                .isFalse();
        assertThat(f.hourly(HOUR)).doesNotContainKey(RollupItems.BUCKETS);

        f.run(at("2026-11-21T11:06:00Z"));
        assertThat(RollupItems.complete(f.hourly(HOUR))).as("built").isTrue();

        f.clock.set(at("2026-11-21T11:30:00Z"));
        f.ingest(HOUR + 45 * MINUTE, 20, 2, 1);
        Map<String, AttributeValue> marked = f.hourly(HOUR);
        assertThat(RollupItems.complete(marked)).as("late data announced").isFalse();
        assertThat(buckets(marked, RollupItems.MINUTES))
                .as("the rollup alone misses it")
                .doesNotContainKey(45);

        f.run(at("2026-11-21T11:33:00Z"));
        assertThat(RollupItems.complete(f.hourly(HOUR))).isTrue();
        assertThat(buckets(f.hourly(HOUR), RollupItems.MINUTES)).containsKey(45);
    }

    /**
     * A record set aside after an attempt of it alone stored its partial leaves an empty placeholder in that slot
     * under a newer generation: the rebuilt hour holds none of the record's values.
     */
    @Test
    void build_whenASlotsNewestPartialIsAnEmptyPlaceholder_leavesTheSetAsideRecordsValuesOut() {
        f.clock.set(at("2026-11-21T10:31:00Z"));
        f.ingest(HOUR + 5 * MINUTE, 1, 1, 42); // stored by an attempt that then crashed
        f.tombstone(HOUR + 5 * MINUTE, 1, 2); // the attempt that set the record aside
        f.ingest(HOUR + 6 * MINUTE, 2, 3, 8); // the next record, stored normally

        CompactResult r = f.run(at("2026-11-21T11:06:00Z"));

        assertThat(r.hoursBuilt()).isEqualTo(1);
        Map<String, AttributeValue> hourly = f.hourly(HOUR);
        assertThat(hourly.get("count").n()).isEqualTo("1");
        assertThat(buckets(hourly, RollupItems.MINUTES).get(6)).isEqualTo(List.of(1.0, 8.0, 8.0, 8.0));
        assertThat(buckets(hourly, RollupItems.MINUTES)
                        .getOrDefault(5, List.of(0.0))
                        .get(0))
                .isZero();
    }
    /**
     * A cumulative counter's rollups carry the reset-corrected increase of all its samples: the hour's minutes and the
     * day's hours join to what the samples give in time order, whatever order the slots were stored in, with a reset by
     * value, one by OTLP start time, and a stale attempt's partial that does not count.
     */
    @Test
    void build_whenCumulativeCounter_rollupsCarryTheExactResetCorrectedIncrease() {
        long start = 1_795_000_000_000_000_000L;
        f.clock.set(at("2026-11-21T10:31:00Z"));
        // Minute 5 in two slots, stored out of time order; then a reset by value at minute 6 (12 after 40).
        f.ingestCounter(HOUR + 5 * MINUTE, 2, 1, start, new long[] {40, 50}, 30, 40);
        f.ingestCounter(HOUR + 5 * MINUTE, 1, 1, start, new long[] {10, 20}, 10, 25);
        f.ingestCounter(HOUR + 6 * MINUTE, 3, 1, start, new long[] {0}, 12);
        f.ingestCounter(HOUR + 6 * MINUTE, 3, 0, start, new long[] {0}, 1_000); // a stale generation of that slot
        // The writer restarted (newer start time) and passed its old total within a minute: a reset all the same.
        f.ingestCounter(HOUR + 20 * MINUTE, 4, 1, start + 60_000_000_000L, new long[] {0, 30}, 50, 55);

        f.run(at("2026-11-21T11:06:00Z"));
        f.run(at("2026-11-22T00:06:00Z"));

        // 10 -> 25 -> 30 -> 40 (+30), reset to 12 (+12), restart at 50 (+50) -> 55 (+5)
        dev.pulse.aggregate.Counter hour =
                RollupItems.total(f.hourly(HOUR), RollupItems.MINUTES).counter();
        assertThat(hour.increase()).isEqualTo(97);
        assertThat(hour.resets()).isEqualTo(2);
        assertThat(hour.firstValue()).isEqualTo(10);
        assertThat(hour.lastValue()).isEqualTo(55);
        assertThat(hour.lastTime() - hour.firstTime()).isEqualTo(15 * MINUTE + 20_000);
        assertThat(RollupItems.buckets(f.hourly(HOUR), RollupItems.MINUTES)
                        .get(5)
                        .counter()
                        .increase())
                .isEqualTo(30);
        dev.pulse.aggregate.Counter day =
                RollupItems.total(f.daily(DAY), RollupItems.HOURS).counter();
        assertThat(day).isEqualTo(hour);
    }
}
