package dev.pulse.compact;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import dev.pulse.aggregate.Summary;
import dev.pulse.concurrent.Bounded;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.store.KeyScheme;
import dev.pulse.store.PartialItems;
import dev.pulse.store.RollupItems;
import dev.pulse.store.SummaryAttributes;
import java.time.Clock;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * Maintains hourly and daily rollups from the table's own stream. A changed minute partial makes its
 * (series, hour) be recomputed from all of that hour's partials; a changed hourly rollup makes its
 * (series, day) be recomputed from all of that day's hourly rollups. Every rollup is rebuilt whole from the
 * source of truth and overwritten, so processing a batch twice, out of order or with late data always
 * converges to the same items. Reads are strongly consistent so a recompute sees the write that triggered it.
 */
public final class CompactService {

    private static final long HOUR_MS = 3_600_000L;
    private static final long DAY_MS = 86_400_000L;

    /** A rollup to rebuild: a series and the start of its hour or day. */
    record Target(String seriesKey, long start) {
    }

    private final DynamoDbAsyncClient client;
    private final String table;
    private final int concurrency;
    private final long hourlyTtlSeconds;
    private final long dailyTtlSeconds;
    private final Clock clock;

    public CompactService(DynamoDbAsyncClient client, String table, int concurrency, long hourlyTtlSeconds,
            long dailyTtlSeconds, Clock clock) {
        this.client = client;
        this.table = table;
        this.concurrency = concurrency;
        this.hourlyTtlSeconds = hourlyTtlSeconds;
        this.dailyTtlSeconds = dailyTtlSeconds;
        this.clock = clock;
    }

    public CompactResult compact(List<DynamodbEvent.DynamodbStreamRecord> records, Deadline deadline,
            InvocationMetrics<CompactMetric> metrics) {
        Set<Target> hours = new LinkedHashSet<>();
        Set<Target> days = new LinkedHashSet<>();
        long oldest = Long.MAX_VALUE;
        for (DynamodbEvent.DynamodbStreamRecord r : records) {
            if (r.getDynamodb() == null || r.getDynamodb().getNewImage() == null || "REMOVE".equals(r.getEventName())) {
                continue; // TTL deletions and other removals never shrink a rollup
            }
            if (r.getDynamodb().getApproximateCreationDateTime() != null) {
                oldest = Math.min(oldest, r.getDynamodb().getApproximateCreationDateTime().getTime());
            }
            var image = r.getDynamodb().getNewImage(); // the events library's attribute values, not the SDK's
            String pk = s(image.get(KeyScheme.PK));
            String series = s(image.get(PartialItems.SERIES));
            if (pk == null || series == null) {
                continue;
            }
            if (pk.startsWith("P#") && n(image.get(PartialItems.MINUTE)) != null) {
                long minute = Long.parseLong(n(image.get(PartialItems.MINUTE)));
                hours.add(new Target(series, Math.floorDiv(minute, HOUR_MS) * HOUR_MS));
            } else if (pk.startsWith("H#") && n(image.get(RollupItems.START)) != null) {
                long hour = Long.parseLong(n(image.get(RollupItems.START)));
                days.add(new Target(series, Math.floorDiv(hour, DAY_MS) * DAY_MS));
            }
        }
        metrics.add(CompactMetric.RECORDS_IN, records.size());
        if (oldest != Long.MAX_VALUE) {
            metrics.set(CompactMetric.COMPACT_LAG_MS, Math.max(0, clock.millis() - oldest));
        }

        String failure = null;
        try {
            CompletableFuture<Void> work = Bounded.forEach(hours, concurrency, t -> recomputeHour(t, metrics))
                    .thenCompose(v -> Bounded.forEach(days, concurrency, t -> recomputeDay(t, metrics)));
            work.get(Math.max(1, deadline.remainingMillis()), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            failure = "deadline passed with rollups still being written";
        } catch (CompletionException | java.util.concurrent.ExecutionException e) {
            failure = Bounded.unwrap(e).toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "interrupted";
        }
        metrics.add(CompactMetric.HOURS_RECOMPUTED, failure == null ? hours.size() : 0);
        metrics.add(CompactMetric.DAYS_RECOMPUTED, failure == null ? days.size() : 0);
        String failedSequence = null;
        if (failure != null) {
            metrics.increment(CompactMetric.BATCH_FAILURES);
            failedSequence = records.isEmpty() || records.get(0).getDynamodb() == null ? null
                    : records.get(0).getDynamodb().getSequenceNumber();
        }
        return new CompactResult(records.size(), hours.size(), days.size(), failedSequence, failure);
    }

    private CompletableFuture<Void> recomputeHour(Target t, InvocationMetrics<CompactMetric> metrics) {
        SortedMap<Integer, Summary> minutes = new TreeMap<>();
        return query(KeyScheme.partialPk(t.seriesKey(), t.start()), item -> {
            long minute = Long.parseLong(item.get(PartialItems.MINUTE).n());
            minutes.computeIfAbsent((int) ((minute - t.start()) / 60_000L), k -> new Summary())
                    .merge(SummaryAttributes.read(item));
        }, metrics).thenCompose(v -> minutes.isEmpty() ? CompletableFuture.completedFuture(null)
                : put(RollupItems.hourly(t.seriesKey(), t.start(), minutes, hourlyTtlSeconds), metrics));
    }

    private CompletableFuture<Void> recomputeDay(Target t, InvocationMetrics<CompactMetric> metrics) {
        SortedMap<Integer, Summary> hours = new TreeMap<>();
        return query(KeyScheme.hourlyPk(t.seriesKey(), t.start()), item -> {
            long hour = Long.parseLong(item.get(RollupItems.START).n());
            hours.put((int) ((hour - t.start()) / HOUR_MS), SummaryAttributes.read(item));
        }, metrics).thenCompose(v -> hours.isEmpty() ? CompletableFuture.completedFuture(null)
                : put(RollupItems.daily(t.seriesKey(), t.start(), hours, dailyTtlSeconds), metrics));
    }

    /** Every item of partition {@code pk}, in sort-key order, strongly consistent. */
    private CompletableFuture<Void> query(String pk,
            java.util.function.Consumer<Map<String, AttributeValue>> each,
            InvocationMetrics<CompactMetric> metrics) {
        QueryRequest request = QueryRequest.builder()
                .tableName(table)
                .keyConditionExpression("pk = :pk")
                .expressionAttributeValues(Map.of(":pk",
                        AttributeValue.fromS(pk)))
                .consistentRead(true)
                .build();
        // The publisher delivers items one at a time and in order, so the consumer needs no locking.
        return client.queryPaginator(request).items().subscribe(item -> {
            metrics.increment(CompactMetric.ITEMS_READ);
            each.accept(item);
        });
    }

    private CompletableFuture<Void> put(Map<String, AttributeValue> item,
            InvocationMetrics<CompactMetric> metrics) {
        return client.putItem(b -> b.tableName(table).item(item)).thenAccept(r -> metrics.increment(CompactMetric.ROLLUPS_WRITTEN));
    }

    private static String s(com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue v) {
        return v == null ? null : v.getS();
    }

    private static String n(com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue v) {
        return v == null ? null : v.getN();
    }
}
