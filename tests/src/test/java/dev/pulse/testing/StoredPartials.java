package dev.pulse.testing;

import dev.pulse.aggregate.Sketches;
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

    /** Summary of one (series, minute) over all its partials. */
    public record Summary(long count, double sum, double min, double max) {
        Summary merge(Summary o) {
            return new Summary(count + o.count, sum + o.sum, Math.min(min, o.min), Math.max(max, o.max));
        }
    }

    /** series key -> minute start -> summary. */
    public static Map<String, Map<Long, Summary>> read(DynamoDbClient client, String table) {
        Map<String, Map<Long, Summary>> out = new TreeMap<>();
        client.scanPaginator(b -> b.tableName(table)).items().forEach(item -> {
            if (!item.get("pk").s().startsWith("P#")) {
                return;
            }
            Summary s = new Summary(Long.parseLong(n(item, "count")), Double.parseDouble(n(item, "sum")),
                    Double.parseDouble(n(item, "min")), Double.parseDouble(n(item, "max")));
            out.computeIfAbsent(item.get("series").s(), k -> new TreeMap<>())
                    .merge(Long.parseLong(n(item, "minute")), s, Summary::merge);
        });
        return out;
    }

    /**
     * Partial items whose stored sketch does not decode to a sketch holding exactly {@code count} values:
     * percentiles are computed from these sketches, so each must be readable and complete.
     */
    public static java.util.List<String> sketchMismatches(DynamoDbClient client, String table) {
        return client.scanPaginator(b -> b.tableName(table)).items().stream()
                .filter(i -> i.get("pk").s().startsWith("P#"))
                .filter(i -> Sketches.deserialize(i.get("sketch").b().asByteArray()).getCount()
                        != Long.parseLong(n(i, "count")))
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
