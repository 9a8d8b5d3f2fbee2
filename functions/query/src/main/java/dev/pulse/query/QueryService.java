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
package dev.pulse.query;

import dev.pulse.aggregate.Summary;
import dev.pulse.concurrent.Bounded;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.codec.SummaryAttributes;
import dev.pulse.store.read.LatestPartials;
import dev.pulse.store.schema.KeyScheme;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.DoubleAdder;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;

/**
 * Answers queries from the cheapest level that is exact for the requested buckets:
 * <ul>
 *   <li>a closed day with hour-aligned buckets: one daily item (24 hour summaries);</li>
 *   <li>a closed hour: one hourly item (60 minute summaries);</li>
 *   <li>an hour that is not closed yet: its minute partials.</li>
 * </ul>
 * So a query reads O(series x days) items for long ranges plus the recent hours, never O(datapoints). A day
 * or hour is closed once it ended more than the build grace ago.
 *
 * <p>A rollup is used only when it is complete ({@link RollupItems#complete}: built, and not marked since).
 * Otherwise the query reads the level below: a daily item that is still marked is answered from the day's
 * hourly items, an hourly item that is still marked from its partials. So a lagging or stopped builder makes a
 * query slower, never wrong. A missing rollup item means the period has no data: ingest marks a period before
 * it writes any of its partials. No level is read past its retention ({@link Retention}): a range that only a
 * level which has expired could answer is refused ({@link #checkResolution}), and a marked rollup whose level below
 * has expired is answered as built. Reads for all series run in parallel
 * on the async client with bounded concurrency; closed items are cached in the warm container. Series not
 * finished within the time budget are reported as unprocessed instead of delaying the answer.
 */
public final class QueryService {

    static final long HOUR = 3_600_000L;
    static final long DAY = 86_400_000L;
    /** DynamoDB's BatchGetItem limit. */
    static final int BATCH_GET = 100;

    private static final Backoff RETRY = new Backoff(10, 500);
    private static final int MAX_BATCH_GET_ATTEMPTS = 8;
    /** Ingest's default ACCEPT_FUTURE_SECONDS: datapoints at most this far ahead of arrival. */
    static final long FUTURE_WINDOW = 2 * HOUR;

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(QueryService.class);

    /** What to read for one series: an item (daily or hourly) or an hour of partials. */
    record Unit(Level level, long start) {}

    enum Level {
        DAILY,
        HOURLY,
        PARTIALS
    }

    /**
     * How long each level is kept ({@code PARTIAL_TTL_DAYS}, {@code HOURLY_TTL_DAYS}, {@code DAILY_TTL_DAYS}), ms.
     * An item is never deleted before its TTL, and may linger for days after it: so a level is judged by its age
     * alone, never by whether its items are still there, and every answer stays the same whenever DynamoDB deletes.
     * A partial's TTL is its minute's end plus the partial retention, a rollup's its period's end plus its level's.
     */
    public record Retention(long partialMillis, long hourlyMillis, long dailyMillis) {

        /** Nothing expires (tests and tools that never reach a retention). */
        public static final Retention UNLIMITED =
                new Retention(Long.MAX_VALUE / 4, Long.MAX_VALUE / 4, Long.MAX_VALUE / 4);

        /** Whether every partial of the hour is still stored: the first minute's expire first. */
        boolean partialsWhole(long hour, long now) {
            return now < hour + 60_000L + partialMillis;
        }

        /** Whether the hour's hourly rollup (its minute detail) is still stored. */
        boolean hourlyKept(long hour, long now) {
            return now < hour + HOUR + hourlyMillis;
        }

        boolean dailyKept(long day, long now) {
            return now < day + DAY + dailyMillis;
        }

        long days(long millis) {
            return millis / DAY;
        }
    }

    private final DynamoDbAsyncClient client;
    private final String table;
    private final int concurrency;
    private final long graceMillis;
    private final RollupCache cache;
    private final Clock clock;
    private final Retention retention;
    private final long futureWindowMillis;

    public QueryService(
            DynamoDbAsyncClient client,
            String table,
            int concurrency,
            long graceMillis,
            RollupCache cache,
            Clock clock) {
        this(client, table, concurrency, graceMillis, cache, clock, Retention.UNLIMITED, FUTURE_WINDOW);
    }

    /**
     * {@code retention}: how long each level is kept; {@code futureWindowMillis}: how far ahead of arrival ingest
     * accepts datapoints ({@code ACCEPT_FUTURE_SECONDS}): nothing later than now plus that can hold data, so it is
     * never read.
     */
    public QueryService(
            DynamoDbAsyncClient client,
            String table,
            int concurrency,
            long graceMillis,
            RollupCache cache,
            Clock clock,
            Retention retention,
            long futureWindowMillis) {
        this.client = client;
        this.table = table;
        this.concurrency = concurrency;
        this.graceMillis = graceMillis;
        this.cache = cache;
        this.clock = clock;
        this.retention = retention;
        this.futureWindowMillis = futureWindowMillis;
    }

    /**
     * Refuses a request that needs a level older than it is kept, so no range is answered empty because its level
     * expired: before the oldest daily rollup (field {@code start}); or, past the hourly retention where only daily
     * rollups (whole hours) remain, buckets that cut an hour (a start off the hour: {@code start}; a period not a
     * multiple of an hour: {@code period}) or an end inside an hour of a day whose minute detail is gone
     * ({@code end}). Everything else is answered from a level that holds it ({@link #plan}).
     */
    void checkResolution(NativeQuery r, long now) throws BadRequestException {
        long firstDay = Math.floorDiv(r.start(), DAY) * DAY;
        if (!retention.dailyKept(firstDay, now)) {
            long oldest = Math.floorDiv(now - retention.dailyMillis(), DAY) * DAY;
            throw new BadRequestException(
                    "InvalidField",
                    "data is kept for " + retention.days(retention.dailyMillis())
                            + " days (DAILY_TTL_DAYS): start must not be before "
                            + java.time.Instant.ofEpochMilli(oldest),
                    "start");
        }
        String minuteDetail = "minute detail is kept for " + retention.days(retention.hourlyMillis())
                + " days (HOURLY_TTL_DAYS); older ranges are answered from daily rollups, which hold whole hours: ";
        boolean hourAligned = r.start() % HOUR == 0 && r.periodMillis() % HOUR == 0;
        if (!hourAligned && !retention.hourlyKept(Math.floorDiv(r.start(), HOUR) * HOUR, now)) {
            boolean period = r.periodMillis() % HOUR != 0;
            throw new BadRequestException(
                    "InvalidField",
                    minuteDetail
                            + (period ? "use a period that is a multiple of" + " PT1H" : "use a start on a whole hour"),
                    period ? "period" : "start");
        }
        // Hour-aligned: the end's day is read hour by hour when the end cuts an hour (plan), from its first hour read.
        if (hourAligned
                && r.end() % HOUR != 0
                && !retention.hourlyKept(Math.max(Math.floorDiv(r.end(), DAY) * DAY, r.start()), now)) {
            throw new BadRequestException("InvalidField", minuteDetail + "use an end on a whole hour", "end");
        }
    }

    /**
     * Answers {@code request}, or refuses it (400) when it needs a level older than it is kept
     * ({@link #checkResolution}); the check and the plan use the same instant, so they agree at every boundary.
     */
    public NativeResult query(NativeQuery request, Deadline deadline, InvocationMetrics<QueryMetric> metrics)
            throws BadRequestException {
        return query(request, deadline, metrics, true);
    }

    /**
     * As {@link #query}, without the values as JSON text (every {@link NativeResult.SeriesValues#texts} empty): for a
     * caller that computes with the numbers (PromQL), which would otherwise pay for remembering texts it never writes.
     */
    public NativeResult queryValues(NativeQuery request, Deadline deadline, InvocationMetrics<QueryMetric> metrics)
            throws BadRequestException {
        return query(request, deadline, metrics, false);
    }

    private NativeResult query(
            NativeQuery request, Deadline deadline, InvocationMetrics<QueryMetric> metrics, boolean withTexts)
            throws BadRequestException {
        Page p = page(request, deadline, metrics);
        int buckets = request.buckets();
        List<Long> timestamps = new ArrayList<>(buckets);
        for (int i = 0; i < buckets; i++) {
            timestamps.add(request.start() + i * request.periodMillis());
        }
        List<NativeResult.SeriesValues> served = new ArrayList<>();
        for (Map.Entry<SeriesSpec, Buckets> e : p.served().entrySet()) {
            Map<String, double[]> values = new LinkedHashMap<>();
            Map<String, String[]> texts = withTexts ? new LinkedHashMap<>() : Map.of();
            e.getValue().values(request.stats(), values, withTexts ? texts : null);
            served.add(new NativeResult.SeriesValues(e.getKey(), values, texts));
        }
        String next = p.to() < request.series().size() ? QueryParser.nextToken(request, p.to()) : null;
        return new NativeResult(timestamps, request.periodSeconds(), served, p.unprocessed(), next);
    }

    /**
     * Each served series' bucket summaries (null for an empty bucket), for a caller that combines buckets and must
     * stay exact (an exact sum of several buckets is the {@link dev.pulse.aggregate.ExactSum} of theirs, not the sum of
     * their rounded sums). The summaries may be the cache's: read them, never change them. Paged, planned, cached and
     * refused as {@link #query}; the request's stats decide whether sketches are read.
     */
    public SummaryPage summaries(NativeQuery request, Deadline deadline, InvocationMetrics<QueryMetric> metrics)
            throws BadRequestException {
        Page p = page(request, deadline, metrics);
        List<SeriesSummaries> served = new ArrayList<>();
        p.served().forEach((s, b) -> served.add(new SeriesSummaries(s, b.summaries())));
        return new SummaryPage(served, p.unprocessed());
    }

    /** One series' bucket summaries, null where a bucket is empty. */
    public record SeriesSummaries(SeriesSpec series, Summary[] buckets) {}

    /** A page of {@link #summaries}: the series served, and those not served (as {@link NativeResult#unprocessed}). */
    public record SummaryPage(List<SeriesSummaries> series, List<NativeResult.Unprocessed> unprocessed) {}

    /** A page's reads done: the series served with their buckets, those not served, and where the page ends. */
    private record Page(Map<SeriesSpec, Buckets> served, List<NativeResult.Unprocessed> unprocessed, int to) {}

    private Page page(NativeQuery request, Deadline deadline, InvocationMetrics<QueryMetric> metrics)
            throws BadRequestException {
        long now = clock.millis();
        checkResolution(request, now);
        int buckets = request.buckets();
        boolean withSketch = request.stats().stream().anyMatch(Stat::needsSketch);
        int unitsPerSeries = Math.max(1, plan(request, now).size());
        // A page is bounded three ways: points in the response, sketches held (percentiles only) and reads.
        int pageSize = Math.min(
                QueryLimits.MAX_POINTS / Math.max(1, buckets * request.stats().size()),
                QueryLimits.MAX_READS / unitsPerSeries);
        if (withSketch) {
            pageSize = Math.min(pageSize, QueryLimits.MAX_SKETCH_BUCKETS / Math.max(1, buckets));
        }
        pageSize = Math.max(1, pageSize);
        int from = request.offset();
        int to = Math.min(request.series().size(), from + pageSize);
        List<SeriesSpec> page = request.series().subList(from, to);
        metrics.add(QueryMetric.SERIES_REQUESTED, page.size());

        Map<SeriesSpec, Buckets> results = new ConcurrentHashMap<>();
        Map<SeriesSpec, List<Unit>> plans = new LinkedHashMap<>();
        List<Map.Entry<SeriesSpec, Unit>> reads = new ArrayList<>();
        for (SeriesSpec s : page) {
            List<Unit> plan = plan(request, now);
            plans.put(s, plan);
            results.put(s, new Buckets(buckets, withSketch));
            plan.forEach(u -> reads.add(Map.entry(s, u)));
        }
        Map<SeriesSpec, Integer> pending = new ConcurrentHashMap<>();
        plans.forEach((s, p) -> pending.put(s, p.size()));
        DoubleAdder readUnits = new DoubleAdder();
        Reads sink = new Reads() {
            @Override
            public void entries(SeriesSpec s, SortedMap<Long, Summary> entries) {
                results.get(s).addEntries(request, entries);
                pending.merge(s, -1, Integer::sum);
            }

            @Override
            public void rollup(RollupRead r, SortedMap<Long, Summary> entries, long expiresAt) {
                String shape = shapeKey(request, r);
                PeriodBucket[] grouped = PeriodBucket.group(
                        entries,
                        request.periodMillis(),
                        Math.floorMod(request.start(), request.periodMillis()),
                        cut(request, r.unit()),
                        withSketch,
                        request.stats());
                cache.putPeriodBuckets(shape, grouped, expiresAt, now);
                periodBuckets(r.series(), grouped);
            }

            @Override
            public void periodBuckets(SeriesSpec s, PeriodBucket[] grouped) {
                results.get(s).addPeriodBuckets(request, grouped);
                pending.merge(s, -1, Integer::sum);
            }

            @Override
            public void readUnits(double units) {
                readUnits.add(units);
            }
        };
        // Closed rollups come from the cache (at this query's period if it was asked before, else as stored) or
        // from BatchGetItem (100 keys a call); open hours from Query.
        List<java.util.function.Supplier<CompletableFuture<?>>> tasks = new ArrayList<>();
        List<RollupRead> uncached = new ArrayList<>();
        Map<SeriesSpec, String> seriesKeys = new java.util.HashMap<>();
        for (Map.Entry<SeriesSpec, Unit> r : reads) {
            SeriesSpec s = r.getKey();
            Unit u = r.getValue();
            if (u.level() == Level.PARTIALS) {
                tasks.add(() ->
                        readPartials(s, u, withSketch, metrics, sink).thenAccept(entries -> sink.entries(s, entries)));
                continue;
            }
            RollupRead read = RollupRead.of(s, seriesKeys.computeIfAbsent(s, SeriesSpec::key), u, withSketch);
            PeriodBucket[] grouped = cache.periodBuckets(shapeKey(request, read), withSketch, now);
            if (grouped != null) {
                metrics.increment(QueryMetric.CACHE_HITS);
                sink.periodBuckets(s, grouped);
                continue;
            }
            SortedMap<Long, Summary> cached = cache.get(read.cacheKey(), withSketch, now);
            if (cached != null) {
                metrics.increment(QueryMetric.CACHE_HITS);
                sink.rollup(read, cached, cache.expiresAt(read.cacheKey()));
            } else {
                uncached.add(read);
            }
        }
        for (int i = 0; i < uncached.size(); i += BATCH_GET) {
            List<RollupRead> chunk = uncached.subList(i, Math.min(uncached.size(), i + BATCH_GET));
            tasks.add(() -> batchGet(chunk, 0, now, deadline, metrics, sink));
        }
        CompletableFuture<Void> all =
                Bounded.forEach(tasks, concurrency, java.util.function.Supplier::get, deadline::expired);
        String failure = null;
        try {
            all.get(Math.max(1, deadline.remainingMillis()), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            failure = "TimeBudgetExceeded";
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = Bounded.unwrap(e);
            // The reason goes to API callers: a fixed code, the details only to the log.
            failure = cause instanceof Bounded.StoppedException ? "TimeBudgetExceeded" : "ReadFailed";
            if (failure.equals("ReadFailed")) {
                LOG.warn("query reads failed", cause);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "Interrupted";
        }

        Map<SeriesSpec, Buckets> served = new LinkedHashMap<>();
        List<NativeResult.Unprocessed> unprocessed = new ArrayList<>();
        for (SeriesSpec s : page) {
            if (pending.get(s) != 0) {
                unprocessed.add(new NativeResult.Unprocessed(s, failure == null ? "Incomplete" : failure));
                continue;
            }
            served.put(s, results.get(s));
        }
        metrics.add(QueryMetric.UNPROCESSED, unprocessed.size());
        metrics.set(QueryMetric.READ_UNITS, readUnits.sum());
        return new Page(served, unprocessed, to);
    }

    /** Which items to read for one series; nothing past now + the ingest's future window (it cannot hold data). */
    List<Unit> plan(NativeQuery r, long now) {
        long end = Math.min(r.end(), now + futureWindowMillis);
        // Daily items hold whole hours: exact only where neither a bucket nor the range cuts an hour.
        boolean hourAligned = r.start() % HOUR == 0 && r.periodMillis() % HOUR == 0;
        List<Unit> out = new ArrayList<>();
        for (long day = Math.floorDiv(r.start(), DAY) * DAY; day < end; day += DAY) {
            boolean endCutsNoHour = day + DAY <= end || end % HOUR == 0;
            if (hourAligned && endCutsNoHour && closed(day + DAY, now)) {
                out.add(new Unit(Level.DAILY, day));
                continue;
            }
            long firstHour = Math.max(day, Math.floorDiv(r.start(), HOUR) * HOUR);
            for (long hour = firstHour; hour < Math.min(day + DAY, end); hour += HOUR) {
                out.add(new Unit(closed(hour + HOUR, now) ? Level.HOURLY : Level.PARTIALS, hour));
            }
        }
        return out;
    }

    private boolean closed(long end, long now) {
        return end + graceMillis <= now;
    }

    /** The minute summaries of one open hour, merged from its partials. */
    private CompletableFuture<SortedMap<Long, Summary>> readPartials(
            SeriesSpec s, Unit u, boolean withSketch, InvocationMetrics<QueryMetric> metrics, Reads sink) {
        SortedMap<Long, Summary> minutes = new TreeMap<>();
        LatestPartials latest = new LatestPartials(item -> minutes.computeIfAbsent(
                        KeyScheme.partialMinute(
                                u.start(), item.get(KeyScheme.SK).s()),
                        m -> withSketch ? new Summary() : Summary.withoutSketch())
                .merge(SummaryAttributes.read(item, withSketch)));
        return query(KeyScheme.partialPk(s.key(), u.start()), sink, item -> {
                    metrics.increment(QueryMetric.ITEMS_READ);
                    latest.accept(item);
                })
                .thenApply(v -> {
                    latest.finish();
                    return minutes;
                });
    }

    /**
     * A closed daily or hourly item of one series, its keys built once: a warm day of 100 series looks up 2,400 of
     * them per query, and building a series key (escaping every dimension) was a tenth of a warm PromQL panel.
     *
     * @param cacheKey keyed by the item alone: a copy read with sketches serves the readers that need none, and the
     *                 cache keeps it when a sketch-less read of the same item comes in ({@link RollupCache})
     */
    record RollupRead(SeriesSpec series, Unit unit, boolean withSketch, String pk, String sk, String cacheKey) {

        static RollupRead of(SeriesSpec series, String seriesKey, Unit unit, boolean withSketch) {
            boolean daily = unit.level() == Level.DAILY;
            String pk =
                    daily ? KeyScheme.dailyPk(seriesKey, unit.start()) : KeyScheme.hourlyPk(seriesKey, unit.start());
            String sk = daily ? KeyScheme.day(unit.start()) : KeyScheme.hour(unit.start());
            return new RollupRead(series, unit, withSketch, pk, sk, pk + "|" + sk);
        }
    }

    /**
     * Reads up to 100 rollup items in one BatchGetItem, retrying UnprocessedKeys with backoff; a key that
     * comes back with no item is a closed hour or day without data. Every result is cached.
     */
    private CompletableFuture<Void> batchGet(
            List<RollupRead> reads,
            int attempt,
            long now,
            Deadline deadline,
            InvocationMetrics<QueryMetric> metrics,
            Reads sink) {
        Map<String, RollupRead> byKey = new LinkedHashMap<>();
        List<Map<String, AttributeValue>> keys = new ArrayList<>(reads.size());
        for (RollupRead r : reads) {
            if (byKey.putIfAbsent(r.cacheKey(), r) == null) {
                keys.add(
                        Map.of(KeyScheme.PK, AttributeValue.fromS(r.pk()), KeyScheme.SK, AttributeValue.fromS(r.sk())));
            }
        }
        return client.batchGetItem(b -> b.requestItems(Map.of(
                                table, KeysAndAttributes.builder().keys(keys).build()))
                        .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))
                .thenCompose(resp -> {
                    resp.consumedCapacity()
                            .forEach(c -> sink.readUnits(c.capacityUnits() == null ? 0 : c.capacityUnits()));
                    List<CompletableFuture<Void>> below = new ArrayList<>();
                    for (Map<String, AttributeValue> item : resp.responses().getOrDefault(table, List.of())) {
                        metrics.increment(QueryMetric.ITEMS_READ);
                        RollupRead r = byKey.remove(item.get(KeyScheme.PK).s() + "|"
                                + item.get(KeyScheme.SK).s());
                        if (r == null) {
                            continue;
                        }
                        if (RollupItems.complete(item)) {
                            cacheRollup(r, item, now, sink);
                        } else if (r.unit().level() == Level.HOURLY
                                && !retention.partialsWhole(r.unit().start(), now)) {
                            // Marked, but its partials are past their retention: rebuilt from what is left it would
                            // be short, so the rollup as built is the most this hour holds (not cached: the builder
                            // resolves the mark, and may merge late data into it).
                            sink.entries(r.series(), entries(r, item));
                        } else {
                            // Marked since its build (or never built): the level below is exact, the rollup may not be.
                            metrics.increment(QueryMetric.ROLLUP_FALLBACKS);
                            below.add(
                                    deadline.expired()
                                            ? CompletableFuture.failedFuture(
                                                    new Bounded.StoppedException("time budget spent"))
                                            : readBelow(r, item, now, metrics, sink)
                                                    .thenAccept(entries -> sink.entries(r.series(), entries)));
                        }
                    }
                    List<RollupRead> retry = new ArrayList<>();
                    var unprocessed =
                            resp.hasUnprocessedKeys() ? resp.unprocessedKeys().get(table) : null;
                    if (unprocessed != null) {
                        for (Map<String, AttributeValue> k : unprocessed.keys()) {
                            RollupRead r = byKey.remove(k.get(KeyScheme.PK).s() + "|"
                                    + k.get(KeyScheme.SK).s());
                            if (r != null) {
                                retry.add(r);
                            }
                        }
                    }
                    // No item: the period has no data (a period is marked, creating its item, before any partial);
                    // cached like a complete rollup, so a warm repeat over a sparse series reads nothing either.
                    byKey.values().forEach(r -> cacheRollup(r, Map.of(), now, sink));
                    CompletableFuture<Void> belowDone =
                            CompletableFuture.allOf(below.toArray(CompletableFuture[]::new));
                    if (retry.isEmpty()) {
                        return belowDone;
                    }
                    long delay = RETRY.delayMillis(attempt);
                    if (attempt >= MAX_BATCH_GET_ATTEMPTS || deadline.remainingMillis() <= delay) {
                        return CompletableFuture.failedFuture(new Bounded.StoppedException(
                                retry.size() + " keys still unprocessed at the time budget"));
                    }
                    return CompletableFuture.supplyAsync(
                                    () -> null, CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS))
                            .thenCompose(v -> batchGet(retry, attempt + 1, now, deadline, metrics, sink))
                            .thenCombine(belowDone, (a, b) -> null);
                });
    }

    /**
     * The buckets of a rollup that is not complete ({@code item}), from the level below: an hour from its partials;
     * a day from its hourly items, each complete one as it is and each marked one from its partials. A level below
     * that is past its retention is not read, whatever of it DynamoDB has not deleted yet: a day's hour whose hourly
     * rollup has expired comes from the day's own item, a marked hour whose partials have expired from its hourly
     * rollup as built.
     */
    private CompletableFuture<SortedMap<Long, Summary>> readBelow(
            RollupRead r,
            Map<String, AttributeValue> item,
            long now,
            InvocationMetrics<QueryMetric> metrics,
            Reads sink) {
        if (r.unit().level() == Level.HOURLY) {
            return readPartials(r.series(), r.unit(), r.withSketch(), metrics, sink);
        }
        SortedMap<Long, Summary> minutes = new TreeMap<>();
        entries(r, item).forEach((hour, summary) -> {
            if (!retention.hourlyKept(hour, now)) {
                minutes.put(hour, summary);
            }
        });
        if (!retention.hourlyKept(r.unit().start() + DAY - HOUR, now)) {
            return CompletableFuture.completedFuture(minutes); // every hour of the day is past its hourly retention
        }
        List<Long> markedHours = new ArrayList<>();
        return query(KeyScheme.hourlyPk(r.series().key(), r.unit().start()), sink, hourly -> {
                    metrics.increment(QueryMetric.ITEMS_READ);
                    // From the key: an hour that was marked but never built has no other attribute than its mark.
                    long hour = KeyScheme.hourStart(hourly.get(KeyScheme.SK).s());
                    if (!retention.hourlyKept(hour, now)) {
                        return; // answered from the day's item above
                    }
                    if (!RollupItems.complete(hourly) && retention.partialsWhole(hour, now)) {
                        markedHours.add(hour);
                        return;
                    }
                    RollupItems.buckets(hourly, RollupItems.MINUTES, r.withSketch())
                            .forEach((i, summary) -> minutes.put(hour + i * 60_000L, summary));
                })
                .thenCompose(v -> {
                    List<CompletableFuture<Void>> reads = new ArrayList<>();
                    for (long hour : markedHours) {
                        metrics.increment(QueryMetric.ROLLUP_FALLBACKS);
                        reads.add(
                                readPartials(r.series(), new Unit(Level.PARTIALS, hour), r.withSketch(), metrics, sink)
                                        .thenAccept(m -> {
                                            synchronized (minutes) {
                                                minutes.putAll(m);
                                            }
                                        }));
                    }
                    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                            .thenApply(x -> minutes);
                });
    }

    /** A rollup item's summaries by start time: minutes of an hourly item, hours of a daily one. */
    private static SortedMap<Long, Summary> entries(RollupRead r, Map<String, AttributeValue> item) {
        return entries(r, item, r.withSketch());
    }

    private static SortedMap<Long, Summary> entries(
            RollupRead r, Map<String, AttributeValue> item, boolean withSketch) {
        SortedMap<Long, Summary> out = new TreeMap<>();
        boolean daily = r.unit().level() == Level.DAILY;
        long step = daily ? HOUR : 60_000L;
        RollupItems.buckets(item, daily ? RollupItems.HOURS : RollupItems.MINUTES, withSketch)
                .forEach((i, summary) -> out.put(r.unit().start() + i * step, summary));
        return out;
    }

    /**
     * Caches a complete rollup item's entries (none for a missing item) and hands them to the query. Always with
     * their sketches, still encoded: the item was read whole either way, an encoded sketch of a minute is tens of
     * bytes (about the weight of the summary itself), and the next panel of a dashboard (a percentile or a
     * histogram bucket after a rate) is then served from the cache instead of reading the day again.
     */
    private void cacheRollup(RollupRead r, Map<String, AttributeValue> item, long now, Reads sink) {
        SortedMap<Long, Summary> frozen = Collections.unmodifiableSortedMap(entries(r, item, true));
        sink.rollup(r, frozen, cache.put(r.cacheKey(), frozen, now));
    }

    private CompletableFuture<Void> query(
            String pk, Reads sink, java.util.function.Consumer<Map<String, AttributeValue>> each) {
        QueryRequest q = QueryRequest.builder()
                .tableName(table)
                .keyConditionExpression("pk = :pk")
                .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS(pk)))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return client.queryPaginator(q).subscribe(page -> {
            if (page.consumedCapacity() != null && page.consumedCapacity().capacityUnits() != null) {
                sink.readUnits(page.consumedCapacity().capacityUnits());
            }
            page.items().forEach(each);
        });
    }

    /** Where this query's reads deliver: a series' entries, a closed rollup's, its period buckets, read units. */
    private interface Reads {
        /** Minute or hour summaries by start time (partials, a rollup read below, or nothing for a missing item). */
        void entries(SeriesSpec s, SortedMap<Long, Summary> entries);

        /**
         * A complete closed rollup's entries, cached until {@code expiresAt}: grouped at the query's period, cached
         * in that shape until the same time, then added.
         */
        void rollup(RollupRead r, SortedMap<Long, Summary> entries, long expiresAt);

        void periodBuckets(SeriesSpec s, PeriodBucket[] grouped);

        void readUnits(double units);
    }

    /** The shape key of a rollup for this query: {@link RollupCache#shapeKey}. */
    private static String shapeKey(NativeQuery request, RollupRead r) {
        return RollupCache.shapeKey(
                r.cacheKey(),
                request.periodMillis(),
                Math.floorMod(request.start(), request.periodMillis()),
                cut(request, r.unit()));
    }

    /** Where the query's end cuts a rollup's period, or {@code Long.MAX_VALUE} when it does not. */
    private static long cut(NativeQuery request, Unit u) {
        long end = u.start() + (u.level() == Level.DAILY ? DAY : HOUR);
        return request.end() > u.start() && request.end() < end ? request.end() : Long.MAX_VALUE;
    }

    /**
     * One series' buckets while its reads come in. A slot holds nothing, one {@link PeriodBucket} (the common
     * case: the bucket lies within one closed rollup, and is answered from its remembered values), or a summary
     * being merged (a bucket spanning rollups, or minutes of an open hour).
     */
    private static final class Buckets {
        private final Object[] slots;
        private final boolean withSketch;

        Buckets(int buckets, boolean withSketch) {
            this.slots = new Object[buckets];
            this.withSketch = withSketch;
        }

        synchronized void addPeriodBuckets(NativeQuery r, PeriodBucket[] grouped) {
            for (PeriodBucket b : grouped) {
                if (b.start < r.start() || b.start >= r.end()) {
                    continue;
                }
                int i = (int) ((b.start - r.start()) / r.periodMillis());
                if (slots[i] == null) {
                    slots[i] = b;
                } else if (slots[i] instanceof PeriodBucket first) {
                    slots[i] = first.join(b);
                } else {
                    ((Summary) slots[i]).merge(b.summary);
                }
            }
        }

        synchronized void addEntries(NativeQuery r, SortedMap<Long, Summary> entries) {
            entries.forEach((t, summary) -> {
                if (t >= r.start() && t < r.end() && !summary.isEmpty()) {
                    merged((int) ((t - r.start()) / r.periodMillis())).merge(summary);
                }
            });
        }

        /** The slot as a summary this series owns, to merge into. */
        private Summary merged(int i) {
            if (slots[i] instanceof Summary s) {
                return s;
            }
            Summary s = withSketch ? new Summary() : Summary.withoutSketch();
            if (slots[i] instanceof PeriodBucket b) {
                s.merge(b.summary);
            }
            slots[i] = s;
            return s;
        }

        /** Each bucket's summary, null where empty; a cached bucket's own (read-only). */
        synchronized Summary[] summaries() {
            Summary[] out = new Summary[slots.length];
            for (int i = 0; i < slots.length; i++) {
                out[i] = slots[i] instanceof PeriodBucket b ? b.summary : (Summary) slots[i];
            }
            return out;
        }

        /**
         * Per stat, one value per bucket (NaN for an empty one), and the cached buckets' values as JSON text (none when
         * {@code texts} is null).
         */
        synchronized void values(List<Stat> stats, Map<String, double[]> values, Map<String, String[]> texts) {
            for (Stat stat : stats) {
                double[] v = new double[slots.length];
                String[] t = texts == null ? null : new String[slots.length];
                for (int i = 0; i < slots.length; i++) {
                    Object slot = slots[i];
                    if (slot instanceof PeriodBucket b) {
                        v[i] = b.value(stat);
                        if (t != null) {
                            t[i] = b.text(stat);
                        }
                    } else {
                        Double x = slot == null ? null : stat.of((Summary) slot);
                        v[i] = x == null ? Double.NaN : x;
                    }
                }
                values.put(stat.label(), v);
                if (texts != null) {
                    texts.put(stat.label(), t);
                }
            }
        }
    }
}
