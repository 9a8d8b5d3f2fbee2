package dev.pulse.query;

import dev.pulse.aggregate.Summary;
import dev.pulse.concurrent.Bounded;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.store.KeyScheme;
import dev.pulse.store.PartialItems;
import dev.pulse.store.RollupItems;
import dev.pulse.store.SummaryAttributes;
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
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * Answers queries from the cheapest level that is exact for the requested buckets:
 * <ul>
 *   <li>a closed day with hour-aligned buckets: one daily item (24 hour summaries);</li>
 *   <li>a closed hour: one hourly item (60 minute summaries);</li>
 *   <li>an hour that may not be compacted yet: its minute partials.</li>
 * </ul>
 * So a query reads O(series x days) items for long ranges plus the recent hours, never O(datapoints). A day
 * or hour is closed once it ended more than the compaction grace ago. Reads for all series run in parallel
 * on the async client with bounded concurrency; closed items are cached in the warm container. Series not
 * finished within the time budget are reported as unprocessed instead of delaying the answer.
 */
public final class QueryService {

    static final long HOUR = 3_600_000L;
    static final long DAY = 86_400_000L;
    /** DynamoDB's BatchGetItem limit. */
    static final int BATCH_GET = 100;
    private static final Backoff RETRY = new Backoff(10, 500);

    /** What to read for one series: an item (daily or hourly) or an hour of partials. */
    record Unit(Level level, long start) {
    }

    enum Level { DAILY, HOURLY, PARTIALS }

    private final DynamoDbAsyncClient client;
    private final String table;
    private final int concurrency;
    private final long graceMillis;
    private final RollupCache cache;
    private final Clock clock;

    public QueryService(DynamoDbAsyncClient client, String table, int concurrency, long graceMillis, RollupCache cache,
            Clock clock) {
        this.client = client;
        this.table = table;
        this.concurrency = concurrency;
        this.graceMillis = graceMillis;
        this.cache = cache;
        this.clock = clock;
    }

    public QueryResult query(dev.pulse.query.QueryRequest request, Deadline deadline, InvocationMetrics<QueryMetric> metrics) {
        int buckets = request.buckets();
        int perSeries = Math.max(1, buckets * request.stats().size());
        int pageSize = Math.max(1, QueryLimits.MAX_POINTS / perSeries);
        int from = request.offset();
        int to = Math.min(request.series().size(), from + pageSize);
        List<SeriesSpec> page = request.series().subList(from, to);
        metrics.add(QueryMetric.SERIES_REQUESTED, page.size());

        long now = clock.millis();
        Map<SeriesSpec, Summary[]> results = new ConcurrentHashMap<>();
        Map<SeriesSpec, List<Unit>> plans = new LinkedHashMap<>();
        List<Map.Entry<SeriesSpec, Unit>> reads = new ArrayList<>();
        for (SeriesSpec s : page) {
            List<Unit> plan = plan(request, now);
            plans.put(s, plan);
            Summary[] acc = new Summary[buckets];
            results.put(s, acc);
            plan.forEach(u -> reads.add(Map.entry(s, u)));
        }
        Map<SeriesSpec, Integer> pending = new ConcurrentHashMap<>();
        plans.forEach((s, p) -> pending.put(s, p.size()));
        java.util.function.BiConsumer<SeriesSpec, SortedMap<Long, Summary>> apply = (s, entries) -> {
            Summary[] acc = results.get(s);
            synchronized (acc) {
                addToBuckets(request, entries, acc);
            }
            pending.merge(s, -1, Integer::sum);
        };
        // Closed rollups come from the cache or from BatchGetItem (100 keys a call); open hours from Query.
        List<java.util.function.Supplier<CompletableFuture<?>>> tasks = new ArrayList<>();
        List<RollupRead> uncached = new ArrayList<>();
        for (Map.Entry<SeriesSpec, Unit> r : reads) {
            SeriesSpec s = r.getKey();
            Unit u = r.getValue();
            if (u.level() == Level.PARTIALS) {
                tasks.add(() -> readPartials(s, u, metrics).thenAccept(entries -> apply.accept(s, entries)));
                continue;
            }
            RollupRead read = new RollupRead(s, u);
            SortedMap<Long, Summary> cached = cache.get(read.cacheKey(), now);
            if (cached != null) {
                metrics.increment(QueryMetric.CACHE_HITS);
                apply.accept(s, cached);
            } else {
                uncached.add(read);
            }
        }
        for (int i = 0; i < uncached.size(); i += BATCH_GET) {
            List<RollupRead> chunk = uncached.subList(i, Math.min(uncached.size(), i + BATCH_GET));
            tasks.add(() -> batchGet(chunk, 0, now, metrics, apply));
        }
        CompletableFuture<Void> all = Bounded.forEach(tasks, concurrency, java.util.function.Supplier::get);
        String failure = null;
        try {
            all.get(Math.max(1, deadline.remainingMillis()), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            failure = "TimeBudgetExceeded";
        } catch (java.util.concurrent.ExecutionException e) {
            failure = "ReadFailed: " + Bounded.unwrap(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "Interrupted";
        }

        List<Long> timestamps = new ArrayList<>(buckets);
        for (int i = 0; i < buckets; i++) {
            timestamps.add(request.start() + i * request.periodMillis());
        }
        List<QueryResult.SeriesValues> served = new ArrayList<>();
        List<QueryResult.Unprocessed> unprocessed = new ArrayList<>();
        for (SeriesSpec s : page) {
            if (pending.get(s) != 0) {
                unprocessed.add(new QueryResult.Unprocessed(s, failure == null ? "Incomplete" : failure));
                continue;
            }
            Summary[] acc = results.get(s);
            Map<String, List<Double>> values = new LinkedHashMap<>();
            synchronized (acc) {
                for (Stat stat : request.stats()) {
                    List<Double> v = new ArrayList<>(buckets);
                    for (Summary b : acc) {
                        v.add(stat.of(b));
                    }
                    values.put(stat.label(), Collections.unmodifiableList(v));
                }
            }
            served.add(new QueryResult.SeriesValues(s, values));
        }
        metrics.add(QueryMetric.UNPROCESSED, unprocessed.size());
        String next = to < request.series().size() ? QueryParser.nextToken(request, to) : null;
        return new QueryResult(timestamps, request.periodSeconds(), served, unprocessed, next);
    }

    /** Which items to read for one series. */
    List<Unit> plan(dev.pulse.query.QueryRequest r, long now) {
        boolean hourAligned = r.start() % HOUR == 0 && r.periodMillis() % HOUR == 0;
        List<Unit> out = new ArrayList<>();
        for (long day = Math.floorDiv(r.start(), DAY) * DAY; day < r.end(); day += DAY) {
            if (hourAligned && closed(day + DAY, now)) {
                out.add(new Unit(Level.DAILY, day));
                continue;
            }
            long firstHour = Math.max(day, Math.floorDiv(r.start(), HOUR) * HOUR);
            for (long hour = firstHour; hour < Math.min(day + DAY, r.end()); hour += HOUR) {
                out.add(new Unit(closed(hour + HOUR, now) ? Level.HOURLY : Level.PARTIALS, hour));
            }
        }
        return out;
    }

    private boolean closed(long end, long now) {
        return end + graceMillis <= now;
    }

    /** The minute summaries of one open hour, merged from its partials. */
    private CompletableFuture<SortedMap<Long, Summary>> readPartials(SeriesSpec s, Unit u,
            InvocationMetrics<QueryMetric> metrics) {
        SortedMap<Long, Summary> minutes = new TreeMap<>();
        return query(KeyScheme.partialPk(s.key(), u.start()), item -> {
            metrics.increment(QueryMetric.ITEMS_READ);
            minutes.computeIfAbsent(Long.parseLong(item.get(PartialItems.MINUTE).n()), m -> new Summary())
                    .merge(SummaryAttributes.read(item));
        }).thenApply(v -> minutes);
    }

    /** A closed daily or hourly item of one series. */
    record RollupRead(SeriesSpec series, Unit unit) {
        String pk() {
            return unit.level() == Level.DAILY ? KeyScheme.dailyPk(series.key(), unit.start())
                    : KeyScheme.hourlyPk(series.key(), unit.start());
        }

        String sk() {
            return unit.level() == Level.DAILY ? KeyScheme.day(unit.start()) : KeyScheme.hour(unit.start());
        }

        String cacheKey() {
            return pk() + "|" + sk();
        }
    }

    /**
     * Reads up to 100 rollup items in one BatchGetItem, retrying UnprocessedKeys with backoff; a key that
     * comes back with no item is a closed hour or day without data. Every result is cached.
     */
    private CompletableFuture<Void> batchGet(List<RollupRead> reads, int attempt, long now,
            InvocationMetrics<QueryMetric> metrics, java.util.function.BiConsumer<SeriesSpec, SortedMap<Long, Summary>> apply) {
        Map<String, RollupRead> byKey = new LinkedHashMap<>();
        List<Map<String, AttributeValue>> keys = new ArrayList<>(reads.size());
        for (RollupRead r : reads) {
            if (byKey.putIfAbsent(r.cacheKey(), r) == null) {
                keys.add(Map.of(KeyScheme.PK, AttributeValue.fromS(r.pk()), KeyScheme.SK, AttributeValue.fromS(r.sk())));
            }
        }
        return client.batchGetItem(b -> b.requestItems(Map.of(table, KeysAndAttributes.builder().keys(keys).build())))
                .thenCompose(resp -> {
                    for (Map<String, AttributeValue> item : resp.responses().getOrDefault(table, List.of())) {
                        metrics.increment(QueryMetric.ITEMS_READ);
                        RollupRead r = byKey.remove(item.get(KeyScheme.PK).s() + "|" + item.get(KeyScheme.SK).s());
                        if (r != null) {
                            apply.accept(r.series(), cacheRollup(r, item, now));
                        }
                    }
                    List<RollupRead> retry = new ArrayList<>();
                    var unprocessed = resp.hasUnprocessedKeys() ? resp.unprocessedKeys().get(table) : null;
                    if (unprocessed != null) {
                        for (Map<String, AttributeValue> k : unprocessed.keys()) {
                            RollupRead r = byKey.remove(k.get(KeyScheme.PK).s() + "|" + k.get(KeyScheme.SK).s());
                            if (r != null) {
                                retry.add(r);
                            }
                        }
                    }
                    byKey.values().forEach(r -> apply.accept(r.series(), cacheRollup(r, null, now))); // no data
                    if (retry.isEmpty()) {
                        return CompletableFuture.completedFuture(null);
                    }
                    long delay = RETRY.delayMillis(attempt);
                    return CompletableFuture.supplyAsync(() -> null,
                            CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS))
                            .thenCompose(v -> batchGet(retry, attempt + 1, now, metrics, apply));
                });
    }

    private SortedMap<Long, Summary> cacheRollup(RollupRead r, Map<String, AttributeValue> item, long now) {
        SortedMap<Long, Summary> out = new TreeMap<>();
        if (item != null) {
            boolean daily = r.unit().level() == Level.DAILY;
            long step = daily ? HOUR : 60_000L;
            RollupItems.buckets(item, daily ? RollupItems.HOURS : RollupItems.MINUTES)
                    .forEach((i, summary) -> out.put(r.unit().start() + i * step, summary));
        }
        SortedMap<Long, Summary> frozen = Collections.unmodifiableSortedMap(out);
        cache.put(r.cacheKey(), frozen, now);
        return frozen;
    }

    private CompletableFuture<Void> query(String pk, java.util.function.Consumer<Map<String, AttributeValue>> each) {
        QueryRequest q = QueryRequest.builder().tableName(table).keyConditionExpression("pk = :pk")
                .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS(pk))).build();
        return client.queryPaginator(q).items().subscribe(each);
    }

    private static void addToBuckets(dev.pulse.query.QueryRequest r, SortedMap<Long, Summary> entries, Summary[] acc) {
        entries.forEach((t, summary) -> {
            if (t < r.start() || t >= r.end()) {
                return;
            }
            int i = (int) ((t - r.start()) / r.periodMillis());
            if (acc[i] == null) {
                acc[i] = new Summary();
            }
            acc[i].merge(summary);
        });
    }
}
