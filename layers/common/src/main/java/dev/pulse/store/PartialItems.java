package dev.pulse.store;

import dev.pulse.aggregate.MinuteAggregate;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Maps minute partials and catalog entries to DynamoDB items. Attribute names are the storage contract
 * shared with the builder and the query API. A partial holds only what a reader needs beyond its key: the
 * series, minute, shard and first sequence number are in the key already ({@link KeyScheme}), so repeating them
 * (and the 56-digit last sequence number) would only be billed. A reader takes the minute from the sort key
 * ({@link KeyScheme#partialMinute}).
 */
public final class PartialItems {

    public static final String SERIES = "series";
    public static final String NAME = "name";
    public static final String DIMS = "dims";
    public static final String UNIT = "unit";
    public static final String TTL = "ttl";

    private PartialItems() {
    }

    /**
     * The item for one partial written by the attempt of {@code generation} ({@link ShardCheckpoints});
     * {@code ttlSeconds} counts from the end of the partial's minute.
     */
    public static Map<String, AttributeValue> partial(MinuteAggregate a, long ttlSeconds, long generation) {
        Map<String, AttributeValue> item = new HashMap<>(8);
        item.put(KeyScheme.PK, s(KeyScheme.partialPk(a.seriesKey(), a.minuteStart())));
        item.put(KeyScheme.SK, s(KeyScheme.partialSk(a.minuteStart(), a.shardId(), a.firstSequence(), generation)));
        SummaryAttributes.put(item, a.summary());
        item.put(TTL, n(Long.toString(a.minuteStart() / 1000 + 60 + ttlSeconds)));
        if (a.unit() != null) {
            item.put(UNIT, s(a.unit()));
        }
        return item;
    }

    /** The catalog entry of a series: written once per new series per container. */
    public static Map<String, AttributeValue> catalog(String seriesKey, String name, Map<String, String> dims) {
        Map<String, AttributeValue> dimValues = new HashMap<>(dims.size() * 2);
        dims.forEach((k, v) -> dimValues.put(k, s(v)));
        return Map.of(
                KeyScheme.PK, s(KeyScheme.catalogPk(name)),
                KeyScheme.SK, s(seriesKey),
                SERIES, s(seriesKey),
                NAME, s(name),
                DIMS, AttributeValue.fromM(dimValues));
    }

    /** The name index entry: PK {@code N#}, SK the metric name, so names can be listed by prefix. */
    public static Map<String, AttributeValue> name(String name) {
        return Map.of(KeyScheme.PK, s(KeyScheme.NAMES_PK), KeyScheme.SK, s(name), NAME, s(name));
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }

    private static AttributeValue n(String v) {
        return AttributeValue.fromN(v);
    }
}
