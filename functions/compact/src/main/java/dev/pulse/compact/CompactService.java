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

import dev.pulse.aggregate.Summary;
import dev.pulse.concurrent.Bounded;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.codec.SummaryAttributes;
import dev.pulse.store.read.LatestPartials;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.CompactMarks;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * The compactor, run on a schedule. Each run takes the compaction queue (rollup items carrying a compaction mark,
 * found through the sparse index {@value CompactMarks#DUE_INDEX}) for every closed period, builds each marked
 * hour from its minute partials and then each marked day from its hourly rollups, once.
 *
 * <p>Every rollup write is a put conditional on two things: the mark is still the one the build read (data
 * announced since then keeps the item marked, and the next run rebuilds it), and the item's version {@code v}
 * (the time the build started reading, which only grows) is older than this build's. A losing write is counted
 * and dropped, so an old build that lands late can never replace a newer one. A run stops starting work at its
 * deadline, caps every call at the time left and awaits what is in flight before it returns.
 *
 * <p>A mark is built only once it has settled ({@link dev.pulse.config.PulseConfig#markSettle()}): every
 * partial it announces has landed by then. A rebuild replaces the whole rollup, so it never runs from a level that
 * may have lost items to its TTL: an hour whose first partial, or a day whose first hourly rollup, may have expired
 * keeps the rollup it has, and its mark is <em>resolved</em>: cleared without a rebuild and counted
 * ({@link CompactMetric#EXPIRED_MARKS}). Merging the late data into the rollup instead cannot be exact: a redrive
 * rewrites slots the rollup already counts, and what the outvoted partial added cannot be taken out of a summary
 * once that partial is gone. The retention rules ({@link dev.pulse.config.PulseConfig}) keep every partial until a
 * builder that lags by up to a day has built it, and a redrive that could bring data past that is refused
 * ({@link dev.pulse.store.schema.RedriveWindow}); so only a builder stopped for longer resolves marks.
 *
 * <p>Every mark is eventually built or resolved: a run that gets through its whole queue records where the next one
 * must start ({@link CompactMarks#SCAN_FROM}), and each run scans from there, or from the oldest hour whose partials
 * may still exist if that is older, however long the builder was stopped.
 */
public final class CompactService {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CompactService.class);
    private static final long HOUR_MS = 3_600_000L;
    private static final long DAY_MS = 86_400_000L;
    private static final Map<String, AttributeValue> CURSOR_KEY = Map.of(
            KeyScheme.PK,
            AttributeValue.fromS(CompactMarks.SCAN_PK),
            KeyScheme.SK,
            AttributeValue.fromS(CompactMarks.SCAN_SK));

    /** Timing and retention the builder needs; all from {@link dev.pulse.config.PulseConfig}. */
    public record Settings(
            Duration grace, Duration markSettle, Duration partialTtl, long hourlyTtlSeconds, long dailyTtlSeconds) {}

    /** A marked rollup item from the compaction queue. */
    record Queued(String pk, String sk, String seriesKey, long start, boolean day, long marked) {
        long end() {
            return start + (day ? DAY_MS : HOUR_MS);
        }
    }

    private final DynamoDbAsyncClient client;
    private final String table;
    private final int concurrency;
    private final Settings settings;
    private final Clock clock;

    public CompactService(DynamoDbAsyncClient client, String table, int concurrency, Settings settings, Clock clock) {
        this.client = client;
        this.table = table;
        this.concurrency = concurrency;
        this.settings = settings;
        this.clock = clock;
    }

    /** One run: builds what is buildable, reports what is left. */
    public CompactResult build(Deadline deadline, InvocationMetrics<CompactMetric> metrics) {
        Run run = new Run(clock.millis(), deadline, metrics);
        String failure = null;
        try {
            Long cursor = readScanFrom(run);
            long from = cursor == null ? defaultFrom(run.now) : Math.min(defaultFrom(run.now), cursor);
            List<Queued> hours = scan(hourQueues(run.now, from), false, run);
            run.queued.addAndGet(hours.size());
            run.execute(hours, q -> compactHour(q, run));
            List<Queued> days = scan(dayQueues(run.now, from), true, run);
            run.queued.addAndGet(days.size());
            run.execute(days, q -> compactDay(q, run));
            // The whole queue was seen: every mark it held is built, resolved or left pending (and the next run
            // starts no later than the oldest of those).
            long next = Math.min(defaultFrom(run.now), run.oldestPendingStart.get());
            if (cursor == null || next != cursor) {
                writeScanFrom(next, run); // moves once an hour in a steady state
            }
        } catch (RuntimeException e) {
            Throwable cause = Bounded.unwrap(e);
            failure = cause instanceof Bounded.StoppedException ? "deadline: " + cause.getMessage() : cause.toString();
        }
        long oldest = run.oldestPendingSince.get() == Long.MAX_VALUE
                ? 0
                : Math.max(0, (run.now - run.oldestPendingSince.get()) / 1000);
        metrics.add(CompactMetric.PERIODS_QUEUED, run.queued.get());
        metrics.add(CompactMetric.HOURS_BUILT, run.hoursBuilt.get());
        metrics.add(CompactMetric.DAYS_BUILT, run.daysBuilt.get());
        metrics.add(CompactMetric.PERIODS_PENDING, run.pending.get());
        metrics.add(CompactMetric.LOSING_WRITES, run.losing.get());
        metrics.set(CompactMetric.OLDEST_PENDING_BUILD_AGE_SECONDS, oldest);
        metrics.add(CompactMetric.RUNS_STOPPED, failure == null ? 0 : 1);
        metrics.add(CompactMetric.EXPIRED_MARKS, run.resolved.get());
        if (run.resolved.get() > 0) {
            // One line a run: what an operator needs to find the periods is in the table (docs/operations.md).
            LOG.warn(
                    "{} compaction mark(s) resolved without a rebuild: their partials (or a day's hourly rollups) may have"
                            + " expired, so the rollups keep what they held and the late data that marked them is not in them;"
                            + " first: {}",
                    run.resolved.get(),
                    run.firstResolved.get());
        }
        return new CompactResult(
                run.queued.get(),
                run.hoursBuilt.get(),
                run.daysBuilt.get(),
                run.pending.get(),
                run.losing.get(),
                run.resolved.get(),
                oldest,
                failure != null,
                failure);
    }

    /** The oldest hour whose partials may still exist: where a run scans from when nothing older is left. */
    private long defaultFrom(long now) {
        return Math.floorDiv(now - settings.partialTtl().toMillis(), HOUR_MS) * HOUR_MS;
    }

    /** The cursor the last complete run left ({@link CompactMarks#SCAN_FROM}), or {@code null} before the first. */
    private Long readScanFrom(Run run) {
        Map<String, AttributeValue> item = client.getItem(b -> b.tableName(table)
                        .key(CURSOR_KEY)
                        .consistentRead(true)
                        .overrideConfiguration(o -> o.apiCallTimeout(run.callTimeout())))
                .join()
                .item();
        AttributeValue cursor = item == null ? null : item.get(CompactMarks.SCAN_FROM);
        return cursor == null ? null : Long.parseLong(cursor.n());
    }

    /**
     * Records where the next run starts. Overlapping runs may write in either order: each value was justified by
     * its own complete scan, and an earlier value only makes the next run scan more.
     */
    private void writeScanFrom(long from, Run run) {
        client.updateItem(b -> b.tableName(table)
                        .key(CURSOR_KEY)
                        .updateExpression("SET #f = :f")
                        .expressionAttributeNames(Map.of("#f", CompactMarks.SCAN_FROM))
                        .expressionAttributeValues(Map.of(":f", AttributeValue.fromN(Long.toString(from))))
                        .overrideConfiguration(o -> o.apiCallTimeout(run.callTimeout())))
                .join();
    }

    /**
     * Queue keys of every closed hour from {@code from}, but none whose hourly rollup has expired: such an item
     * goes with its mark, and the query answers those hours from the daily rollups.
     */
    private List<String> hourQueues(long now, long from) {
        List<String> out = new ArrayList<>();
        long first = Math.max(from, Math.floorDiv(now - settings.hourlyTtlSeconds() * 1000, HOUR_MS) * HOUR_MS);
        for (long hour = first; hour + HOUR_MS + settings.grace().toMillis() <= now; hour += HOUR_MS) {
            for (int b = 0; b < CompactMarks.BUCKETS; b++) {
                out.add(CompactMarks.hourDue(hour, b));
            }
        }
        return out;
    }

    /** Queue keys of every closed day that holds an hour from {@code from} or the day before, within the daily retention. */
    private List<String> dayQueues(long now, long from) {
        List<String> out = new ArrayList<>();
        long first = Math.max(
                Math.floorDiv(from - DAY_MS, DAY_MS) * DAY_MS,
                Math.floorDiv(now - settings.dailyTtlSeconds() * 1000, DAY_MS) * DAY_MS);
        for (long day = first; day + DAY_MS + settings.grace().toMillis() <= now; day += DAY_MS) {
            for (int b = 0; b < CompactMarks.BUCKETS; b++) {
                out.add(CompactMarks.dayDue(day, b));
            }
        }
        return out;
    }

    /** Every marked item of the given queue partitions (the index is eventually consistent: a later run sees the rest). */
    private List<Queued> scan(List<String> queues, boolean day, Run run) {
        ConcurrentLinkedQueue<Queued> out = new ConcurrentLinkedQueue<>();
        run.execute(queues, q -> {
            QueryRequest request = QueryRequest.builder()
                    .tableName(table)
                    .indexName(CompactMarks.DUE_INDEX)
                    .keyConditionExpression("#q = :q")
                    .expressionAttributeNames(Map.of("#q", CompactMarks.DUE))
                    .expressionAttributeValues(Map.of(":q", AttributeValue.fromS(q)))
                    .overrideConfiguration(o -> o.apiCallTimeout(run.callTimeout()))
                    .build();
            return client.queryPaginator(request).items().subscribe(item -> {
                AttributeValue marked = item.get(CompactMarks.MARKED);
                if (marked != null) {
                    out.add(queued(
                            item.get(KeyScheme.PK).s(), item.get(KeyScheme.SK).s(), day, Long.parseLong(marked.n())));
                }
            });
        });
        return new ArrayList<>(out);
    }

    static Queued queued(String pk, String sk, boolean day, long marked) {
        long start = day ? KeyScheme.dayStart(sk) : KeyScheme.hourStart(sk);
        return new Queued(pk, sk, KeyScheme.seriesKey(pk), start, day, marked);
    }

    private CompletableFuture<Void> compactHour(Queued q, Run run) {
        // Checked before the settle time: nothing still landing could make the hour buildable again.
        if (!hourBuildable(q.start(), run.now)) {
            return resolve(q, run);
        }
        if (!run.settled(q)) {
            return CompletableFuture.completedFuture(null);
        }
        long version = clock.millis();
        SortedMap<Integer, Summary> minutes = new TreeMap<>();
        LatestPartials latest = new LatestPartials(item -> {
            long minute =
                    KeyScheme.partialMinute(q.start(), item.get(KeyScheme.SK).s());
            minutes.computeIfAbsent((int) ((minute - q.start()) / 60_000L), k -> new Summary())
                    .merge(SummaryAttributes.read(item));
        });
        return query(KeyScheme.partialPk(q.seriesKey(), q.start()), latest, run)
                .thenRun(latest::finish)
                .thenCompose(v -> put(
                        q,
                        minutes.isEmpty()
                                ? RollupItems.empty(
                                        q.pk(),
                                        q.sk(),
                                        q.seriesKey(),
                                        q.start(),
                                        q.end() / 1000 + settings.hourlyTtlSeconds())
                                : RollupItems.hourly(q.seriesKey(), q.start(), minutes, settings.hourlyTtlSeconds()),
                        version,
                        run,
                        run.hoursBuilt));
    }

    private CompletableFuture<Void> compactDay(Queued q, Run run) {
        // The day's first hourly rollup expires hourlyTtl after its hour ends: rebuilding from what is left would
        // shrink it.
        if (q.start() + HOUR_MS + settings.hourlyTtlSeconds() * 1000
                <= run.now + settings.grace().toMillis()) {
            return resolve(q, run);
        }
        if (!run.settled(q)) {
            return CompletableFuture.completedFuture(null);
        }
        long version = clock.millis();
        SortedMap<Integer, Summary> hours = new TreeMap<>();
        AtomicBoolean hourStillMarked = new AtomicBoolean();
        return query(
                        KeyScheme.hourlyPk(q.seriesKey(), q.start()),
                        item -> {
                            long hour = KeyScheme.hourStart(
                                    item.get(KeyScheme.SK).s()); // a mark alone creates an item without a start
                            if (item.containsKey(CompactMarks.MARKED) && hourBuildable(hour, run.now)) {
                                hourStillMarked.set(true); // its hour is not built yet: the day waits for it
                            } else if (item.containsKey(SummaryAttributes.COUNT)) {
                                // Built, or past rebuilding (marked or not, what it holds is final): the day takes it
                                // as it is.
                                hours.put(
                                        (int) ((hour - q.start()) / HOUR_MS),
                                        RollupItems.total(item, RollupItems.MINUTES));
                            }
                        },
                        run)
                .thenCompose(v -> {
                    if (hourStillMarked.get()) {
                        run.leave(
                                q,
                                Math.max(q.end(), q.marked()) + settings.grace().toMillis());
                        return CompletableFuture.completedFuture(null);
                    }
                    return put(
                            q,
                            hours.isEmpty()
                                    ? RollupItems.empty(
                                            q.pk(),
                                            q.sk(),
                                            q.seriesKey(),
                                            q.start(),
                                            q.end() / 1000 + settings.dailyTtlSeconds())
                                    : RollupItems.daily(q.seriesKey(), q.start(), hours, settings.dailyTtlSeconds()),
                            version,
                            run,
                            run.daysBuilt);
                });
    }

    /**
     * Puts a rebuilt rollup if its mark is still the one this build read and no newer build has landed; the put
     * replaces the whole item, so it also removes the mark.
     */
    private CompletableFuture<Void> put(
            Queued q, Map<String, AttributeValue> item, long version, Run run, AtomicInteger built) {
        if (run.deadline.expired()) {
            // The reads took the run past its deadline: a write started now could land after the run returned.
            run.leave(q, run.buildableAt(q));
            return CompletableFuture.failedFuture(new Bounded.StoppedException("deadline passed before the write"));
        }
        item.put(RollupItems.VERSION, AttributeValue.fromN(Long.toString(version)));
        return client.putItem(b -> b.tableName(table)
                        .item(item)
                        .conditionExpression("#d = :d AND (attribute_not_exists(#v) OR #v < :v)")
                        .expressionAttributeNames(Map.of("#d", CompactMarks.MARKED, "#v", RollupItems.VERSION))
                        .expressionAttributeValues(Map.of(
                                ":d",
                                AttributeValue.fromN(Long.toString(q.marked())),
                                ":v",
                                AttributeValue.fromN(Long.toString(version))))
                        .overrideConfiguration(o -> o.apiCallTimeout(run.callTimeout())))
                .handle((r, e) -> {
                    if (e == null) {
                        built.incrementAndGet();
                        run.metrics.increment(CompactMetric.ROLLUPS_WRITTEN);
                        return null;
                    }
                    if (Bounded.unwrap(e) instanceof ConditionalCheckFailedException) {
                        run.losing.incrementAndGet(); // marked again meanwhile, or a newer build landed first
                        return null;
                    }
                    throw new java.util.concurrent.CompletionException(Bounded.unwrap(e));
                });
    }

    /**
     * Whether an hour can still be rebuilt from all of its partials: its first partial expires {@code partialTtl}
     * after its minute ends, and the build reads within the grace of now.
     */
    private boolean hourBuildable(long hourStart, long now) {
        return hourStart + 60_000L + settings.partialTtl().toMillis()
                > now + settings.grace().toMillis();
    }

    /**
     * Resolves a mark that can no longer be built: removes it, if it is still the one read, and keeps the rollup
     * as it is. Counted once the removal landed (a mark set again meanwhile is resolved, and counted, next run).
     */
    private CompletableFuture<Void> resolve(Queued q, Run run) {
        return clearMark(q, run).thenAccept(cleared -> {
            if (cleared) {
                run.resolved.incrementAndGet();
                run.firstResolved.compareAndSet(null, q.pk() + " " + q.sk());
            }
        });
    }

    /** Removes a mark without a rebuild, if it is still the one read; whether it did. */
    private CompletableFuture<Boolean> clearMark(Queued q, Run run) {
        return client.updateItem(b -> b.tableName(table)
                        .key(Map.of(
                                KeyScheme.PK, AttributeValue.fromS(q.pk()), KeyScheme.SK, AttributeValue.fromS(q.sk())))
                        .updateExpression("REMOVE #d, #q")
                        .conditionExpression("#d = :d")
                        .expressionAttributeNames(Map.of("#d", CompactMarks.MARKED, "#q", CompactMarks.DUE))
                        .expressionAttributeValues(Map.of(":d", AttributeValue.fromN(Long.toString(q.marked()))))
                        .overrideConfiguration(o -> o.apiCallTimeout(run.callTimeout())))
                .handle((r, e) -> {
                    if (e != null && !(Bounded.unwrap(e) instanceof ConditionalCheckFailedException)) {
                        throw new java.util.concurrent.CompletionException(Bounded.unwrap(e));
                    }
                    return e == null;
                });
    }

    /** Every item of partition {@code pk}, in sort-key order, strongly consistent. */
    private CompletableFuture<Void> query(String pk, Consumer<Map<String, AttributeValue>> each, Run run) {
        QueryRequest request = QueryRequest.builder()
                .tableName(table)
                .keyConditionExpression("pk = :pk")
                .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS(pk)))
                .consistentRead(true)
                .overrideConfiguration(o -> o.apiCallTimeout(run.callTimeout()))
                .build();
        // The publisher delivers items one at a time and in order, so the consumer needs no locking.
        return client.queryPaginator(request).items().subscribe(item -> {
            run.metrics.increment(CompactMetric.ITEMS_READ);
            each.accept(item);
        });
    }

    /** State of one run. */
    private final class Run {
        final long now;
        final Deadline deadline;
        final InvocationMetrics<CompactMetric> metrics;
        final AtomicInteger queued = new AtomicInteger();
        final AtomicInteger hoursBuilt = new AtomicInteger();
        final AtomicInteger daysBuilt = new AtomicInteger();
        final AtomicInteger pending = new AtomicInteger();
        final AtomicInteger losing = new AtomicInteger();
        final AtomicLong oldestPendingSince = new AtomicLong(Long.MAX_VALUE);
        /** The start of the oldest period left pending: the next run must scan back to it. */
        final AtomicLong oldestPendingStart = new AtomicLong(Long.MAX_VALUE);

        final AtomicInteger resolved = new AtomicInteger();
        final java.util.concurrent.atomic.AtomicReference<String> firstResolved =
                new java.util.concurrent.atomic.AtomicReference<>();

        Run(long now, Deadline deadline, InvocationMetrics<CompactMetric> metrics) {
            this.now = now;
            this.deadline = deadline;
            this.metrics = metrics;
        }

        Duration callTimeout() {
            return deadline.callTimeout();
        }

        /**
         * Runs {@code task} over {@code items}, at most {@code concurrency} at a time, starting none after the
         * deadline, and returns once every started task has ended (none outlives the run). Items never started
         * are left pending; the first failure is rethrown.
         */
        <T> void execute(List<T> items, java.util.function.Function<T, CompletableFuture<?>> task) {
            AtomicInteger started = new AtomicInteger();
            CompletableFuture<Void> all = Bounded.forEach(
                    items,
                    concurrency,
                    t -> {
                        started.incrementAndGet();
                        return task.apply(t)
                                .exceptionallyCompose(e -> CompletableFuture.failedFuture(cutByDeadline(t, e)));
                    },
                    deadline::expired);
            try {
                all.join();
            } finally {
                for (int i = started.get(); i < items.size(); i++) {
                    if (items.get(i) instanceof Queued q) {
                        leave(q, buildableAt(q));
                    }
                }
            }
        }

        /**
         * A task that failed once the deadline had passed was cut by it (its call capped at the time left): the
         * run stopped at its deadline, the period is left for the next run; not a failure of the run.
         */
        private Throwable cutByDeadline(Object t, Throwable e) {
            Throwable cause = Bounded.unwrap(e);
            if (cause instanceof Bounded.StoppedException || !deadline.expired()) {
                return cause;
            }
            if (t instanceof Queued q) {
                leave(q, buildableAt(q));
            }
            return new Bounded.StoppedException(
                    "deadline passed with a call in flight (" + cause.getClass().getSimpleName() + ")");
        }

        /** Whether {@code q}'s mark has settled; if not it is left for a later run. */
        boolean settled(Queued q) {
            if (q.marked() + settings.markSettle().toMillis() <= now) {
                return true;
            }
            leave(q, buildableAt(q));
            return false;
        }

        long buildableAt(Queued q) {
            return Math.max(
                    q.end() + settings.grace().toMillis(),
                    q.marked() + settings.markSettle().toMillis());
        }

        void leave(Queued q, long buildableAt) {
            pending.incrementAndGet();
            oldestPendingStart.accumulateAndGet(q.start(), Math::min);
            if (buildableAt <= now) {
                oldestPendingSince.accumulateAndGet(buildableAt, Math::min);
            }
        }
    }
}
