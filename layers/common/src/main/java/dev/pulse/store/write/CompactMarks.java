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
package dev.pulse.store.write;

import dev.pulse.aggregate.Partial;
import dev.pulse.concurrent.Bounded;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.schema.KeyScheme;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Compaction marks: how ingest tells the compactor that a period (a series' hour or day) has data its rollup
 * may not hold. A mark is two attributes set on the period's own rollup item, {@code d} (when the data was
 * announced, epoch ms) and {@code dq} (the compaction queue key: the period and a bucket, the hash key of the sparse
 * index {@value #DUE_INDEX}). The compactor's conditional put of the rebuilt item removes both, but only if
 * {@code d} is still the value it read; so a mark set while a build ran survives it.
 *
 * <p>Marks are written <em>before</em> the partials they announce. So every stored partial has a mark that
 * was set no later than the partial was written, and a rollup item without a mark holds everything stored for
 * its period. The query relies on that to use a rollup only when it is complete (docs/design.md, "Compaction marks").
 */
public final class CompactMarks {

    /** The sparse index of marked rollup items (template.yaml). */
    public static final String DUE_INDEX = "due";
    /** Queue key: {@code <yyyy-MM-ddTHH>#<bucket>} for hours, {@code <yyyy-MM-dd>#<bucket>} for days. */
    public static final String DUE = "dq";
    /** When the newest data of the period was announced (epoch ms). */
    public static final String MARKED = "d";
    /** Queue partitions per period: spreads a busy hour's marks over several index partitions. */
    public static final int BUCKETS = 4;

    /**
     * The compactor's scan cursor, one item (PK {@value #SCAN_PK}, SK {@value #SCAN_SK}): {@link #SCAN_FROM} is the oldest
     * hour (epoch ms) whose marks the next compaction run must look at. A run that got through its whole queue writes it;
     * every mark on an older hour has been built or resolved, and with the retention rules no new one can be set
     * there. A builder stopped for longer than its lag allowance therefore scans back to where it stopped, however
     * long ago, instead of leaving the marks it missed pending for ever.
     */
    public static final String SCAN_PK = "B#build";

    public static final String SCAN_SK = "scan";
    public static final String SCAN_FROM = "from";

    private static final long HOUR_MS = 3_600_000L;
    private static final long DAY_MS = 86_400_000L;

    /**
     * One mark: the rollup item it is set on, its queue key, when its period ends, and the TTL the item gets if
     * the mark creates it.
     */
    public record Mark(String pk, String sk, String due, long periodEnd, long ttlEpochSeconds) {
        /** Identity of the period, for the container's memory of written marks. */
        public String id() {
            return pk + '|' + sk;
        }
    }

    private final DynamoDbAsyncClient client;
    private final String table;
    private final int concurrency;
    private final Backoff backoff;

    public CompactMarks(DynamoDbAsyncClient client, String table, int concurrency, Backoff backoff) {
        this.client = client;
        this.table = table;
        this.concurrency = concurrency;
        this.backoff = backoff;
    }

    /** The distinct hour and day marks of {@code partials}, in first-seen order. */
    public static List<Mark> marksFor(Collection<Partial> partials, long hourlyTtlSeconds, long dailyTtlSeconds) {
        Map<String, Mark> out = new LinkedHashMap<>();
        for (Partial p : partials) {
            long hour = Math.floorDiv(p.minuteStart(), HOUR_MS) * HOUR_MS;
            long day = Math.floorDiv(p.minuteStart(), DAY_MS) * DAY_MS;
            Mark h = hourMark(p.seriesKey(), hour, hourlyTtlSeconds);
            out.putIfAbsent(h.id(), h);
            Mark d = dayMark(p.seriesKey(), day, dailyTtlSeconds);
            out.putIfAbsent(d.id(), d);
        }
        return List.copyOf(out.values());
    }

    public static Mark hourMark(String seriesKey, long hourStart, long hourlyTtlSeconds) {
        return new Mark(
                KeyScheme.hourlyPk(seriesKey, hourStart),
                KeyScheme.hour(hourStart),
                hourDue(hourStart, bucket(seriesKey)),
                hourStart + HOUR_MS,
                (hourStart + HOUR_MS) / 1000 + hourlyTtlSeconds);
    }

    public static Mark dayMark(String seriesKey, long dayStart, long dailyTtlSeconds) {
        return new Mark(
                KeyScheme.dailyPk(seriesKey, dayStart),
                KeyScheme.day(dayStart),
                dayDue(dayStart, bucket(seriesKey)),
                dayStart + DAY_MS,
                (dayStart + DAY_MS) / 1000 + dailyTtlSeconds);
    }

    public static String hourDue(long hourStart, int bucket) {
        return KeyScheme.hour(hourStart) + '#' + bucket;
    }

    public static String dayDue(long dayStart, int bucket) {
        return KeyScheme.day(dayStart) + '#' + bucket;
    }

    /** The queue bucket of a series: stable across JVMs ({@link String#hashCode} is specified). */
    public static int bucket(String seriesKey) {
        return Math.floorMod(seriesKey.hashCode(), BUCKETS);
    }

    /**
     * Sets every mark to {@code at} with UpdateItem, at most {@code concurrency} in flight, retrying throttling
     * and server errors with backoff until {@code deadline}. Completes once every started call has ended,
     * exceptionally with {@link StoreException} if a mark could not be set.
     */
    public CompletableFuture<Void> writeAll(List<Mark> marks, long at, Deadline deadline) {
        return Bounded.forEach(marks, concurrency, m -> write(m, at, deadline), deadline::expired)
                .handle((v, e) -> {
                    if (e != null) {
                        Throwable cause = Bounded.unwrap(e);
                        throw new java.util.concurrent.CompletionException(new StoreException(
                                "could not set " + marks.size() + " compaction marks: " + cause,
                                cause,
                                new WriteStats(0, 0, 0, 0, 0)));
                    }
                    return null;
                });
    }

    private CompletableFuture<?> write(Mark m, long at, Deadline deadline) {
        return AsyncRetry.call(
                        () -> client.updateItem(UpdateItemRequest.builder()
                                .tableName(table)
                                .key(Map.of(
                                        KeyScheme.PK,
                                        AttributeValue.fromS(m.pk()),
                                        KeyScheme.SK,
                                        AttributeValue.fromS(m.sk())))
                                // A built item keeps its TTL; a mark that creates the item gives it the period's rollup
                                // TTL.
                                .updateExpression("SET #d = :d, #q = :q, #t = if_not_exists(#t, :t)")
                                // Forward only: a mark write that lands late (after a newer attempt's mark) must not
                                // make the period
                                // look settled while the newer attempt's partials are still on their way.
                                .conditionExpression("attribute_not_exists(#d) OR #d < :d")
                                .expressionAttributeNames(Map.of("#d", MARKED, "#q", DUE, "#t", RollupItems.TTL))
                                .expressionAttributeValues(Map.of(
                                        ":d",
                                        AttributeValue.fromN(Long.toString(at)),
                                        ":q",
                                        AttributeValue.fromS(m.due()),
                                        ":t",
                                        AttributeValue.fromN(Long.toString(m.ttlEpochSeconds()))))
                                .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                                .build()),
                        backoff,
                        deadline)
                .exceptionally(e -> {
                    if (Bounded.unwrap(e) instanceof ConditionalCheckFailedException) {
                        return null; // a mark at least as new is already set: it announces this attempt's data too
                    }
                    throw e instanceof java.util.concurrent.CompletionException c
                            ? c
                            : new java.util.concurrent.CompletionException(e);
                });
    }
}
