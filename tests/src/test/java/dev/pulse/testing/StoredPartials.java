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
package dev.pulse.testing;

import dev.pulse.aggregate.ExactSum;
import dev.pulse.store.read.LatestPartials;
import dev.pulse.store.schema.KeyScheme;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Reads the minute partials back from the table and sums them per (series, minute) the way every reader of the
 * store (the compactor, the query API) does: of the partials that share a slot (minute, shard, first record), only
 * the newest generation counts ({@link LatestPartials}, the production rule). Outvoted partials of older
 * generations stay in the table until their TTL: {@link #partialItemCount} counts them, {@link #liveSlotCount}
 * does not.
 */
public final class StoredPartials {

    private StoredPartials() {}

    /** Summary of one (series, minute). */
    public record Summary(long count, double sum, double min, double max) {

        /** The direct computation from raw values, with the sum exact (BigDecimal) and rounded once. */
        public static Summary of(java.util.List<Double> values) {
            java.math.BigDecimal sum = java.math.BigDecimal.ZERO;
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            for (double v : values) {
                sum = sum.add(new java.math.BigDecimal(v));
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
            return new Summary(values.size(), sum.doubleValue(), min, max);
        }
    }

    /** series key -> minute start -> summary over the live partials (newest generation per slot) of that (series, minute). */
    public static Map<String, Map<Long, Summary>> read(DynamoDbClient client, String table) {
        return sum(live(client, table));
    }

    /**
     * series key -> minute start -> summary over EVERY partial item, outvoted generations included: what a reader
     * that ignored the generations would see. Only for showing that a test catches such a reader.
     */
    public static Map<String, Map<Long, Summary>> readIgnoringGenerations(DynamoDbClient client, String table) {
        return sum(all(client, table));
    }

    /**
     * The partial items that count, in key order per partition: every partition's items sorted by sort key (a Scan
     * promises no order) and fed through the production {@link LatestPartials}.
     */
    public static List<Map<String, AttributeValue>> live(DynamoDbClient client, String table) {
        return LatestPartials.newestOf(all(client, table));
    }

    private static List<Map<String, AttributeValue>> all(DynamoDbClient client, String table) {
        return client.scanPaginator(b -> b.tableName(table).consistentRead(true)).items().stream()
                .filter(i -> i.get(KeyScheme.PK).s().startsWith("P#"))
                .toList();
    }

    private static Map<String, Map<Long, Summary>> sum(List<Map<String, AttributeValue>> items) {
        record Acc(long count, ExactSum sum, double min, double max) {}
        Map<String, Map<Long, Acc>> acc = new TreeMap<>();
        Consumer<Map<String, AttributeValue>> add = item -> {
            dev.pulse.aggregate.Summary s = dev.pulse.store.codec.SummaryAttributes.read(item, false);
            Acc a = new Acc(s.count(), s.exactSum(), s.min(), s.max());
            String pk = item.get(KeyScheme.PK).s();
            acc.computeIfAbsent(KeyScheme.seriesKey(pk), k -> new TreeMap<>())
                    .merge(KeyScheme.partialMinute(pk, item.get(KeyScheme.SK).s()), a, (x, y) -> {
                        x.sum().add(y.sum());
                        return new Acc(
                                x.count() + y.count(), x.sum(), Math.min(x.min(), y.min()), Math.max(x.max(), y.max()));
                    });
        };
        items.forEach(add);
        Map<String, Map<Long, Summary>> out = new TreeMap<>();
        acc.forEach((series, minutes) ->
                minutes.forEach((minute, a) -> out.computeIfAbsent(series, k -> new TreeMap<>())
                        .put(minute, new Summary(a.count(), a.sum().value(), a.min(), a.max()))));
        return out;
    }

    /**
     * Partial items (outvoted ones included) whose stored sketch does not decode to a sketch holding exactly
     * {@code count} values: percentiles are computed from these sketches, so each must be readable and complete.
     */
    public static List<String> sketchMismatches(DynamoDbClient client, String table) {
        return all(client, table).stream()
                .filter(i -> {
                    dev.pulse.aggregate.Summary s = dev.pulse.store.codec.SummaryAttributes.read(i, true);
                    return s.sketch().getCount() != s.count();
                })
                .map(i -> i.get(KeyScheme.PK).s() + " " + i.get(KeyScheme.SK).s())
                .toList();
    }

    /** Number of partial items stored, outvoted generations included (what the table holds and TTL removes). */
    public static long partialItemCount(DynamoDbClient client, String table) {
        return all(client, table).size();
    }

    /** Number of live slots: partial items that readers sum (the newest generation of each slot). */
    public static long liveSlotCount(DynamoDbClient client, String table) {
        return live(client, table).size();
    }
}
