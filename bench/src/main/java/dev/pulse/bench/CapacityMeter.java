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
package dev.pulse.bench;

import dev.pulse.aggregate.Summary;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.ShardCheckpoints;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Counts the DynamoDB units a function's client consumes, as DynamoDB reports them: an SDK interceptor on the
 * function's {@code DynamoDbAsyncClient} asks every request for its consumed capacity
 * ({@code ReturnConsumedCapacity INDEXES}: the same total {@code TOTAL} returns, GSI writes included, with the
 * index share broken out) and adds the answer to a {@link Term}, found from the function, the operation and the
 * keys (the single-table layout of {@code KeyScheme}: {@code P#} partials, {@code H#} hourly, {@code D#} daily,
 * {@code C#}/{@code N#} catalog).
 *
 * <p>DynamoDB Local reports units by DynamoDB's billing rules with two exceptions, both charged here at
 * DynamoDB's minimum and counted apart ({@link Tally#floorUnits}): a Query page that finds nothing (reported
 * as 0; DynamoDB charges one 4 KB read), and a BatchGetItem key without an item (not reported; DynamoDB charges
 * it as a read of an empty item). A write that fails its condition reports nothing either, while DynamoDB bills it:
 * it is charged at the size of the item it tried to write ({@link Tally#estimatedUnits}).
 *
 * <p>Also keeps the ledger of what is stored ({@link #ledger()}), from the items the writes carried.
 */
public final class CapacityMeter implements ExecutionInterceptor {

    /** What a unit was spent on. */
    public enum Term {
        PARTIALS("partials", true),
        CATALOG("catalog", true),
        HOUR_MARKS("hour marks", true),
        DAY_MARKS("day marks", true),
        CHECKPOINTS("shard checkpoints (claim and commit)", true),
        HOURLY_BUILD_READS("hourly build reads", false),
        HOURLY_BUILD_WRITES("hourly build writes", true),
        DAILY_BUILD_READS("daily build reads", false),
        DAILY_BUILD_WRITES("daily build writes", true),
        MARK_CLEARS("mark clears (expired)", true),
        QUEUE_SCANS("queue scans", false),
        QUERY_PARTIAL_READS("query reads of partials", false),
        QUERY_ROLLUP_READS("query reads of rollups", false),
        OTHER_READS("other reads", false),
        OTHER_WRITES("other writes", true);

        private final String label;
        private final boolean write;

        Term(String label, boolean write) {
            this.label = label;
            this.write = write;
        }

        public String label() {
            return label;
        }

        public boolean write() {
            return write;
        }
    }

    /** Units and calls of one term. All counters are thread-safe (the SDK calls back on its own threads). */
    public static final class Tally {
        final DoubleAdder units = new DoubleAdder();
        final DoubleAdder indexUnits = new DoubleAdder();
        final DoubleAdder floorUnits = new DoubleAdder();
        final DoubleAdder estimatedUnits = new DoubleAdder();
        final LongAdder requests = new LongAdder();
        final LongAdder items = new LongAdder();
        final LongAdder keys = new LongAdder();
        final LongAdder bytes = new LongAdder();
        final LongAdder failedConditions = new LongAdder();

        /** Every unit billed: reported, plus the minimum charges and failed-condition writes. */
        public double units() {
            return units.sum() + floorUnits.sum() + estimatedUnits.sum();
        }

        /** Units DynamoDB Local reported. */
        public double reportedUnits() {
            return units.sum();
        }

        /** Of the reported units, those spent on a global secondary index (the compaction queue). */
        public double indexUnits() {
            return indexUnits.sum();
        }

        /** Minimum charges DynamoDB Local does not report (empty Query pages, BatchGetItem keys without an item). */
        public double floorUnits() {
            return floorUnits.sum();
        }

        /** Writes that failed their condition, charged at the size of the item they carried. */
        public double estimatedUnits() {
            return estimatedUnits.sum();
        }

        public long requests() {
            return requests.sum();
        }

        /** Items written, or items read. */
        public long items() {
            return items.sum();
        }

        /** Keys asked for by BatchGetItem (with or without an item). */
        public long keys() {
            return keys.sum();
        }

        /** Bytes of those items, by {@link ItemSize}. */
        public long bytes() {
            return bytes.sum();
        }

        public long failedConditions() {
            return failedConditions.sum();
        }
    }

    /**
     * Items as stored, by kind: sizes of immutable partials summed as written, rollup and catalog items by key with
     * their latest size (a rebuild replaces its item), so the ledger can be read at any point of a run.
     */
    public static final class Ledger {
        final LongAdder partialItems = new LongAdder();
        final LongAdder partialBytes = new LongAdder();
        final Map<String, Long> rollups = new ConcurrentHashMap<>();
        final Map<String, Long> catalog = new ConcurrentHashMap<>();
        /** Keys of rollup items that carry a mark but were never built (as a mark creates them). */
        final Map<String, Boolean> markOnly = new ConcurrentHashMap<>();
        /** Keys of rollup items a build has written. */
        final java.util.Set<String> built = ConcurrentHashMap.newKeySet();
        /** Hour summaries of each stored daily item, for the per-hour share of its size. */
        final Map<String, Integer> dailyHours = new ConcurrentHashMap<>();
        /** Daily items as written, and as they would be with 24 hour summaries (see {@link #projectDaily}). */
        final LongAdder daily24Bytes = new LongAdder();

        final LongAdder dailyBuilds = new LongAdder();

        public long partialItems() {
            return partialItems.sum();
        }

        /** Stored bytes of the partials (item sizes plus the per-item overhead). */
        public long partialBytes() {
            return partialBytes.sum();
        }

        /** Stored bytes of built rollup items of a kind ({@code H#} or {@code D#}), and their number. */
        public long[] rollups(String prefix) {
            long n = 0;
            long bytes = 0;
            for (Map.Entry<String, Long> e : rollups.entrySet()) {
                if (e.getKey().startsWith(prefix) && !markOnly.containsKey(e.getKey())) {
                    n++;
                    bytes += e.getValue();
                }
            }
            return new long[] {n, bytes};
        }

        /** Stored bytes and number of items that only carry a mark (periods not built yet). */
        public long[] markOnly() {
            long n = 0;
            long bytes = 0;
            for (String k : markOnly.keySet()) {
                n++;
                bytes += rollups.getOrDefault(k, 0L);
            }
            return new long[] {n, bytes};
        }

        public long[] catalog() {
            return new long[] {
                catalog.size(),
                catalog.values().stream().mapToLong(Long::longValue).sum()
            };
        }

        /** Average size of the daily items written, had they held 24 hour summaries (0 before any daily build). */
        public double daily24Bytes() {
            long n = dailyBuilds.sum();
            return n == 0 ? 0 : daily24Bytes.sum() / (double) n;
        }

        /** Hour summaries per daily item, by key. */
        public Map<String, Integer> dailyHours() {
            return Collections.unmodifiableMap(dailyHours);
        }

        /** The stored size of the rollup item {@code pk|sk}, or null. */
        public Long rollup(String key) {
            return rollups.get(key);
        }
    }

    /**
     * Key prefixes of the item kinds, from {@code KeyScheme} itself (so a change of the key layout is measured, not
     * misfiled): what a key holds before the series key or metric name.
     */
    private static final String SERIES_MARK = "\u0001";

    static final String PARTIAL = prefix(KeyScheme.partialPk(SERIES_MARK, 0));
    static final String HOURLY = prefix(KeyScheme.hourlyPk(SERIES_MARK, 0));
    static final String DAILY = prefix(KeyScheme.dailyPk(SERIES_MARK, 0));
    static final String CATALOG = prefix(KeyScheme.catalogPk(SERIES_MARK));
    static final String CHECKPOINT = ShardCheckpoints.key(SERIES_MARK, "").substring(0, 2);

    private static String prefix(String key) {
        int i = key.indexOf(SERIES_MARK);
        if (i <= 0) {
            throw new IllegalStateException("cannot find the kind prefix of key " + key);
        }
        return key.substring(0, i);
    }

    private final String function;
    private final EnumMap<Term, Tally> tallies = new EnumMap<>(Term.class);
    private final Ledger ledger;
    /** Puts whose reported table units matched the item size computed by {@link ItemSize}, and those that did not. */
    private final LongAdder sizeChecks = new LongAdder();

    private final LongAdder sizeMismatches = new LongAdder();

    /**
     * @param function which function's client this is ({@code ingest}, {@code compact}, {@code query}): the same
     *                 operation on the same keys is a different term in each
     * @param ledger   the stored items, shared by the functions writing one table
     */
    public CapacityMeter(String function, Ledger ledger) {
        this.function = function;
        this.ledger = ledger;
        for (Term t : Term.values()) {
            tallies.put(t, new Tally());
        }
    }

    public Tally tally(Term t) {
        return tallies.get(t);
    }

    public Ledger ledger() {
        return ledger;
    }

    /** {@code {checked, mismatched}}: writes whose reported units were compared with {@link ItemSize}. */
    public long[] sizeChecks() {
        return new long[] {sizeChecks.sum(), sizeMismatches.sum()};
    }

    @Override
    public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
        SdkRequest r = context.request();
        ReturnConsumedCapacity all = ReturnConsumedCapacity.INDEXES;
        return switch (r) {
            case QueryRequest q -> q.toBuilder().returnConsumedCapacity(all).build();
            case BatchWriteItemRequest b ->
                b.toBuilder().returnConsumedCapacity(all).build();
            case BatchGetItemRequest b ->
                b.toBuilder().returnConsumedCapacity(all).build();
            case PutItemRequest p -> p.toBuilder().returnConsumedCapacity(all).build();
            case UpdateItemRequest u ->
                u.toBuilder().returnConsumedCapacity(all).build();
            case GetItemRequest g -> g.toBuilder().returnConsumedCapacity(all).build();
            case DeleteItemRequest d ->
                d.toBuilder().returnConsumedCapacity(all).build();
            case ScanRequest s -> s.toBuilder().returnConsumedCapacity(all).build();
            default -> r;
        };
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        record(context.request(), context.response());
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        if (!(context.exception() instanceof ConditionalCheckFailedException)) {
            return;
        }
        SdkRequest r = context.request();
        if (r instanceof PutItemRequest p) {
            Tally t = tally(putTerm(key(p.item())));
            t.failedConditions.increment();
            t.estimatedUnits.add(ItemSize.writeUnits(ItemSize.of(p.item())));
        } else if (r instanceof UpdateItemRequest u) {
            Tally t = tally(updateTerm(key(u.key())));
            t.failedConditions.increment();
            t.estimatedUnits.add(1);
        }
    }

    /** Adds one request's consumed capacity to its term (public for the unit tests). */
    public void record(SdkRequest request, SdkResponse response) {
        if (request instanceof BatchWriteItemRequest b && response instanceof BatchWriteItemResponse out) {
            recordBatchWrite(b, out);
        } else if (request instanceof UpdateItemRequest u && response instanceof UpdateItemResponse out) {
            String key = key(u.key());
            Term term = updateTerm(key);
            add(term, out.consumedCapacity(), 0);
            tally(term).items.increment();
            if ((term == Term.HOUR_MARKS || term == Term.DAY_MARKS) && !ledger.built.contains(key)) {
                // A mark on a period not built yet creates (or refreshes) an item of the key and the mark. On a built
                // item it adds a few bytes until the rebuild replaces the item: not counted as storage.
                ledger.rollups.put(key, ItemSize.of(u.key()) + markAttributesSize(u) + ItemSize.STORAGE_OVERHEAD);
                ledger.markOnly.put(key, true);
            }
        } else if (request instanceof PutItemRequest p && response instanceof PutItemResponse out) {
            String key = key(p.item());
            Term term = putTerm(key);
            long size = ItemSize.of(p.item());
            Long previous = ledger.rollups.get(key);
            add(term, out.consumedCapacity(), 0);
            tally(term).items.increment();
            tally(term).bytes.add(size);
            checkSize(
                    out.consumedCapacity(),
                    Math.max(size, previous == null ? 0 : previous - ItemSize.STORAGE_OVERHEAD));
            ledger.rollups.put(key, size + ItemSize.STORAGE_OVERHEAD);
            ledger.markOnly.remove(key);
            ledger.built.add(key);
            if (term == Term.DAILY_BUILD_WRITES) {
                projectDaily(key, p.item(), size);
            }
        } else if (request instanceof QueryRequest q && response instanceof QueryResponse out) {
            Term term = queryTerm(q);
            boolean consistent = Boolean.TRUE.equals(q.consistentRead());
            double min = consistent ? 1.0 : 0.5;
            double reported =
                    out.consumedCapacity() == null ? 0 : out.consumedCapacity().capacityUnits();
            add(term, out.consumedCapacity(), Math.max(0, min - reported));
            tally(term).items.add(out.count());
            long bytes = 0;
            for (Map<String, AttributeValue> item : out.items()) {
                bytes += ItemSize.of(item);
            }
            tally(term).bytes.add(bytes);
        } else if (request instanceof BatchGetItemRequest b && response instanceof BatchGetItemResponse out) {
            Term term = function.equals("query") ? Term.QUERY_ROLLUP_READS : Term.OTHER_READS;
            long asked = b.requestItems().values().stream()
                    .mapToLong(k -> k.keys().size())
                    .sum();
            long returned =
                    out.responses().values().stream().mapToLong(List::size).sum();
            long unprocessed = out.unprocessedKeys().values().stream()
                    .mapToLong(k -> k.keys().size())
                    .sum();
            double perMissing = 0.5; // eventually consistent, as the query reads
            for (ConsumedCapacity c : out.consumedCapacity()) {
                add(term, c, 0);
            }
            if (out.consumedCapacity().isEmpty()) {
                tally(term).requests.increment();
            }
            tally(term).floorUnits.add(perMissing * Math.max(0, asked - returned - unprocessed));
            tally(term).items.add(returned);
            tally(term).keys.add(asked - unprocessed);
            long bytes = 0;
            for (List<Map<String, AttributeValue>> items : out.responses().values()) {
                for (Map<String, AttributeValue> item : items) {
                    bytes += ItemSize.of(item);
                }
            }
            tally(term).bytes.add(bytes);
        } else if (request instanceof GetItemRequest && response instanceof GetItemResponse out) {
            add(function.equals("query") ? Term.QUERY_ROLLUP_READS : Term.OTHER_READS, out.consumedCapacity(), 0);
        } else if (request instanceof DeleteItemRequest && response instanceof DeleteItemResponse out) {
            add(Term.OTHER_WRITES, out.consumedCapacity(), 0);
        } else if (request instanceof ScanRequest && response instanceof ScanResponse out) {
            add(Term.OTHER_READS, out.consumedCapacity(), 0);
        }
    }

    private void recordBatchWrite(BatchWriteItemRequest b, BatchWriteItemResponse out) {
        // A batch may hold partials and catalog entries; DynamoDB reports one total per table. Each item costs
        // its own whole write units, so the total is split by the units ItemSize computes per item, and the
        // computed sum is checked against the reported one.
        EnumMap<Term, long[]> computed = new EnumMap<>(Term.class); // {units, items, bytes}
        java.util.Set<String> unprocessed = new java.util.HashSet<>();
        out.unprocessedItems()
                .values()
                .forEach(ws -> ws.forEach(w -> {
                    if (w.putRequest() != null) {
                        unprocessed.add(key(w.putRequest().item()));
                    }
                }));
        for (List<WriteRequest> writes : b.requestItems().values()) {
            for (WriteRequest w : writes) {
                if (w.putRequest() == null) {
                    continue;
                }
                Map<String, AttributeValue> item = w.putRequest().item();
                String key = key(item);
                if (unprocessed.contains(key)) {
                    continue;
                }
                long size = ItemSize.of(item);
                Term term = batchWriteTerm(key);
                long[] c = computed.computeIfAbsent(term, t -> new long[3]);
                c[0] += ItemSize.writeUnits(size);
                c[1]++;
                c[2] += size;
                if (term == Term.PARTIALS) {
                    ledger.partialItems.increment();
                    ledger.partialBytes.add(size + ItemSize.STORAGE_OVERHEAD);
                } else if (term == Term.CATALOG) {
                    ledger.catalog.put(key, size + ItemSize.STORAGE_OVERHEAD);
                }
            }
        }
        double reported = out.consumedCapacity().stream()
                .mapToDouble(c -> c.capacityUnits() == null ? 0 : c.capacityUnits())
                .sum();
        long computedUnits = computed.values().stream().mapToLong(c -> c[0]).sum();
        sizeChecks.increment();
        if (Math.abs(reported - computedUnits) > 1e-9) {
            sizeMismatches.increment();
        }
        for (Map.Entry<Term, long[]> e : computed.entrySet()) {
            Tally t = tally(e.getKey());
            double share = computedUnits == 0 ? 0 : reported * e.getValue()[0] / computedUnits;
            t.units.add(share);
            t.items.add(e.getValue()[1]);
            t.bytes.add(e.getValue()[2]);
        }
        // One request, counted against the term of most of its units.
        computed.entrySet().stream()
                .max(Map.Entry.comparingByValue((x, y) -> Long.compare(x[0], y[0])))
                .ifPresent(e -> tally(e.getKey()).requests.increment());
    }

    /**
     * A simulated day has only some of its hours; a steady one has 24. The daily item as the code would write it
     * with 24 hour summaries: the same item re-encoded by {@code RollupItems.daily} with its own hour summaries
     * repeated to fill the day, the difference added to the size written (what the builder adds, such as the
     * version, is kept). Measures whatever encoding the code uses.
     */
    private void projectDaily(String key, Map<String, AttributeValue> item, long size) {
        SortedMap<Integer, Summary> hours = RollupItems.buckets(item, RollupItems.HOURS, true);
        AttributeValue series = item.get(RollupItems.SERIES);
        AttributeValue start = item.get(RollupItems.START);
        AttributeValue ttl = item.get(RollupItems.TTL);
        if (hours.isEmpty() || series == null || start == null || ttl == null) {
            return;
        }
        long dayStart = Long.parseLong(start.n());
        long ttlSeconds = Long.parseLong(ttl.n()) - (dayStart + 86_400_000L) / 1000;
        List<Summary> measured = new ArrayList<>(hours.values());
        SortedMap<Integer, Summary> full = new TreeMap<>();
        for (int h = 0; h < 24; h++) {
            full.put(h, measured.get(h % measured.size()));
        }
        long asWritten = ItemSize.of(RollupItems.daily(series.s(), dayStart, hours, ttlSeconds));
        long asFull = ItemSize.of(RollupItems.daily(series.s(), dayStart, full, ttlSeconds));
        ledger.dailyHours.put(key, hours.size());
        ledger.daily24Bytes.add(size - asWritten + asFull);
        ledger.dailyBuilds.increment();
    }

    private void checkSize(ConsumedCapacity c, long bytes) {
        if (c == null || c.table() == null || c.table().capacityUnits() == null) {
            return;
        }
        sizeChecks.increment();
        if (Math.abs(c.table().capacityUnits() - ItemSize.writeUnits(bytes)) > 1e-9) {
            sizeMismatches.increment();
        }
    }

    private void add(Term term, ConsumedCapacity c, double floor) {
        Tally t = tally(term);
        t.requests.increment();
        t.floorUnits.add(floor);
        if (c == null) {
            return;
        }
        t.units.add(c.capacityUnits() == null ? 0 : c.capacityUnits());
        if (c.globalSecondaryIndexes() != null) {
            c.globalSecondaryIndexes()
                    .values()
                    .forEach(i -> t.indexUnits.add(i.capacityUnits() == null ? 0 : i.capacityUnits()));
        }
    }

    private Term batchWriteTerm(String key) {
        if (!function.equals("ingest")) {
            return Term.OTHER_WRITES;
        }
        return key.startsWith(PARTIAL) ? Term.PARTIALS : Term.CATALOG;
    }

    private Term updateTerm(String key) {
        if (function.equals("ingest")) {
            if (key.startsWith(CHECKPOINT)) {
                return Term.CHECKPOINTS;
            }
            return key.startsWith(DAILY)
                    ? Term.DAY_MARKS
                    : key.startsWith(HOURLY) ? Term.HOUR_MARKS : Term.OTHER_WRITES;
        }
        return function.equals("compact") ? Term.MARK_CLEARS : Term.OTHER_WRITES;
    }

    private Term putTerm(String key) {
        if (!function.equals("compact")) {
            return Term.OTHER_WRITES;
        }
        return key.startsWith(DAILY)
                ? Term.DAILY_BUILD_WRITES
                : key.startsWith(HOURLY) ? Term.HOURLY_BUILD_WRITES : Term.OTHER_WRITES;
    }

    private Term queryTerm(QueryRequest q) {
        String pk = q.expressionAttributeValues().values().stream()
                .filter(v -> v.s() != null)
                .map(AttributeValue::s)
                .findFirst()
                .orElse("");
        if (function.equals("query")) {
            return pk.startsWith(PARTIAL) ? Term.QUERY_PARTIAL_READS : Term.QUERY_ROLLUP_READS;
        }
        if (!function.equals("compact")) {
            return Term.OTHER_READS;
        }
        if (q.indexName() != null) {
            return Term.QUEUE_SCANS;
        }
        return pk.startsWith(PARTIAL)
                ? Term.HOURLY_BUILD_READS
                : pk.startsWith(HOURLY) ? Term.DAILY_BUILD_READS : Term.OTHER_READS;
    }

    /** The size the mark attributes add to an item ({@code SET} values of the update, with their names). */
    private static long markAttributesSize(UpdateItemRequest u) {
        long size = 0;
        Map<String, String> names = u.expressionAttributeNames();
        for (Map.Entry<String, AttributeValue> v : u.expressionAttributeValues().entrySet()) {
            String placeholder = "#" + v.getKey().substring(1);
            String name = names.getOrDefault(placeholder, v.getKey().substring(1));
            size += ItemSize.utf8(name) + ItemSize.value(v.getValue());
        }
        return size;
    }

    static String key(Map<String, AttributeValue> item) {
        AttributeValue pk = item.get(KeyScheme.PK);
        AttributeValue sk = item.get(KeyScheme.SK);
        return (pk == null ? "" : pk.s()) + "|" + (sk == null ? "" : sk.s());
    }
}
