package dev.pulse.query;

import dev.pulse.aggregate.Summary;
import dev.pulse.concurrent.Bounded;
import dev.pulse.metrics.InvocationMetrics;
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
        CompletableFuture<Void> all = Bounded.forEach(reads, concurrency, r -> read(r.getKey(), r.getValue(), now, metrics)
                .thenAccept(entries -> {
                    Summary[] acc = results.get(r.getKey());
                    synchronized (acc) {
                        addToBuckets(request, entries, acc);
                    }
                    pending.merge(r.getKey(), -1, Integer::sum);
                }));
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

    /** The unit's summaries by start time (hour or minute), from the cache when it has them. */
    private CompletableFuture<SortedMap<Long, Summary>> read(SeriesSpec s, Unit u, long now,
            InvocationMetrics<QueryMetric> metrics) {
        String key = s.key();
        if (u.level() == Level.PARTIALS) {
            SortedMap<Long, Summary> minutes = new TreeMap<>();
            return query(KeyScheme.partialPk(key, u.start()), item -> {
                metrics.increment(QueryMetric.ITEMS_READ);
                minutes.computeIfAbsent(Long.parseLong(item.get(PartialItems.MINUTE).n()), m -> new Summary())
                        .merge(SummaryAttributes.read(item));
            }).thenApply(v -> minutes);
        }
        String pk = u.level() == Level.DAILY ? KeyScheme.dailyPk(key, u.start()) : KeyScheme.hourlyPk(key, u.start());
        String sk = u.level() == Level.DAILY ? KeyScheme.day(u.start()) : KeyScheme.hour(u.start());
        String cacheKey = pk + "|" + sk;
        SortedMap<Long, Summary> cached = cache.get(cacheKey, now);
        if (cached != null) {
            metrics.increment(QueryMetric.CACHE_HITS);
            return CompletableFuture.completedFuture(cached);
        }
        return client.getItem(b -> b.tableName(table).key(Map.of(KeyScheme.PK, AttributeValue.fromS(pk),
                KeyScheme.SK, AttributeValue.fromS(sk)))).thenApply(resp -> {
                    SortedMap<Long, Summary> out = new TreeMap<>();
                    if (resp.hasItem() && !resp.item().isEmpty()) {
                        metrics.increment(QueryMetric.ITEMS_READ);
                        boolean daily = u.level() == Level.DAILY;
                        long step = daily ? HOUR : 60_000L;
                        RollupItems.buckets(resp.item(), daily ? RollupItems.HOURS : RollupItems.MINUTES)
                                .forEach((i, summary) -> out.put(u.start() + i * step, summary));
                    }
                    SortedMap<Long, Summary> frozen = Collections.unmodifiableSortedMap(out);
                    cache.put(cacheKey, frozen, now);
                    return frozen;
                });
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
