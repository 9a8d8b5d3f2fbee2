package dev.pulse.testing;

import dev.pulse.aggregate.ExactSum;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Reads every minute partial back from the table and sums them per (series, minute): what any reader of the
 * store (the compactor, the query API) will see.
 */
public final class StoredPartials {

    private StoredPartials() {
    }

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

    /** series key -> minute start -> summary over all partials of that (series, minute). */
    public static Map<String, Map<Long, Summary>> read(DynamoDbClient client, String table) {
        record Acc(long count, ExactSum sum, double min, double max) {
        }
        Map<String, Map<Long, Acc>> acc = new TreeMap<>();
        client.scanPaginator(b -> b.tableName(table)).items().forEach(item -> {
            if (!item.get("pk").s().startsWith("P#")) {
                return;
            }
            dev.pulse.aggregate.Summary s = dev.pulse.store.SummaryAttributes.read(item, false);
            Acc a = new Acc(s.count(), s.exactSum(), s.min(), s.max());
            String pk = item.get("pk").s();
            acc.computeIfAbsent(dev.pulse.store.KeyScheme.seriesKey(pk), k -> new TreeMap<>())
                    .merge(Long.parseLong(n(item, "minute")), a, (x, y) -> {
                        x.sum().add(y.sum());
                        return new Acc(x.count() + y.count(), x.sum(), Math.min(x.min(), y.min()), Math.max(x.max(), y.max()));
                    });
        });
        Map<String, Map<Long, Summary>> out = new TreeMap<>();
        acc.forEach((series, minutes) -> minutes.forEach((minute, a) -> out.computeIfAbsent(series, k -> new TreeMap<>())
                .put(minute, new Summary(a.count(), a.sum().value(), a.min(), a.max()))));
        return out;
    }

    /**
     * Partial items whose stored sketch does not decode to a sketch holding exactly {@code count} values:
     * percentiles are computed from these sketches, so each must be readable and complete.
     */
    public static java.util.List<String> sketchMismatches(DynamoDbClient client, String table) {
        return client.scanPaginator(b -> b.tableName(table)).items().stream()
                .filter(i -> i.get("pk").s().startsWith("P#"))
                .filter(i -> {
                    dev.pulse.aggregate.Summary s = dev.pulse.store.SummaryAttributes.read(i, true);
                    return s.sketch().getCount() != s.count();
                })
                .map(i -> i.get("pk").s() + " " + i.get("sk").s())
                .toList();
    }

    /** Number of partial items stored (not summed). */
    public static long partialItemCount(DynamoDbClient client, String table) {
        return client.scanPaginator(b -> b.tableName(table)).items().stream()
                .filter(i -> i.get("pk").s().startsWith("P#")).count();
    }

    private static String n(Map<String, AttributeValue> item, String name) {
        return item.get(name).n();
    }
}
