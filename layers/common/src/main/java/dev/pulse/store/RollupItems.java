package dev.pulse.store;

import dev.pulse.aggregate.Summary;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Hourly and daily rollup items. An hourly item holds the hour's total and its minute summaries (map
 * {@code m}, keys {@code 00}..{@code 59}); a daily item holds the day's total and its hour summaries (map
 * {@code h}, keys {@code 00}..{@code 23}). Both are recomputed whole from the level below and overwritten,
 * so they are idempotent and take late data.
 */
public final class RollupItems {

    public static final String SERIES = "series";
    public static final String START = "start";
    public static final String MINUTES = "m";
    public static final String HOURS = "h";
    public static final String TTL = "ttl";
    /**
     * Build version: when the build that wrote the item started reading (epoch ms). Only grows; every rollup
     * write is conditional on it, so an older build never replaces a newer one. Items without it were never
     * built by the rollup builder (a mark alone, or a rollup from before versioning) and are never served.
     */
    public static final String VERSION = "v";

    private static final long HOUR_MS = 3_600_000L;
    private static final long DAY_MS = 86_400_000L;

    private RollupItems() {
    }

    /** The hourly item of {@code seriesKey} for the hour starting at {@code hourStart}. */
    public static Map<String, AttributeValue> hourly(String seriesKey, long hourStart, SortedMap<Integer, Summary> minutes,
            long ttlSeconds) {
        Map<String, AttributeValue> item = rollup(seriesKey, hourStart, MINUTES, minutes, (hourStart + HOUR_MS) / 1000 + ttlSeconds);
        item.put(KeyScheme.PK, AttributeValue.fromS(KeyScheme.hourlyPk(seriesKey, hourStart)));
        item.put(KeyScheme.SK, AttributeValue.fromS(KeyScheme.hour(hourStart)));
        return item;
    }

    /** The daily item of {@code seriesKey} for the day starting at {@code dayStart}. */
    public static Map<String, AttributeValue> daily(String seriesKey, long dayStart, SortedMap<Integer, Summary> hours,
            long ttlSeconds) {
        Map<String, AttributeValue> item = rollup(seriesKey, dayStart, HOURS, hours, (dayStart + DAY_MS) / 1000 + ttlSeconds);
        item.put(KeyScheme.PK, AttributeValue.fromS(KeyScheme.dailyPk(seriesKey, dayStart)));
        item.put(KeyScheme.SK, AttributeValue.fromS(KeyScheme.day(dayStart)));
        return item;
    }

    /** A built rollup of a period without data (its mark announced partials that were never stored). */
    public static Map<String, AttributeValue> empty(String pk, String sk, String seriesKey, long start, long ttl) {
        Map<String, AttributeValue> item = new HashMap<>(8);
        item.put(KeyScheme.PK, AttributeValue.fromS(pk));
        item.put(KeyScheme.SK, AttributeValue.fromS(sk));
        item.put(SERIES, AttributeValue.fromS(seriesKey));
        item.put(START, AttributeValue.fromN(Long.toString(start)));
        item.put(TTL, AttributeValue.fromN(Long.toString(ttl)));
        return item;
    }

    /**
     * Whether a rollup item may be served: built by the builder (it has a version) and not marked since (no data
     * announced after the build). Marks are set before the partials they announce, so such an item holds
     * everything stored for its period.
     */
    public static boolean complete(Map<String, AttributeValue> item) {
        return item.containsKey(VERSION) && !item.containsKey(BuildMarks.MARKED);
    }

    /** The nested summaries of a rollup item ({@link #MINUTES} or {@link #HOURS}), by minute or hour number. */
    public static SortedMap<Integer, Summary> buckets(Map<String, AttributeValue> item, String level) {
        return buckets(item, level, true);
    }

    /** As {@link #buckets(Map, String)}, decoding the sketches only when {@code withSketch}. */
    public static SortedMap<Integer, Summary> buckets(Map<String, AttributeValue> item, String level, boolean withSketch) {
        SortedMap<Integer, Summary> out = new TreeMap<>();
        AttributeValue m = item.get(level);
        if (m != null && m.hasM()) {
            m.m().forEach((k, v) -> out.put(Integer.parseInt(k), SummaryAttributes.read(v.m(), withSketch)));
        }
        return out;
    }

    private static Map<String, AttributeValue> rollup(String seriesKey, long start, String level,
            SortedMap<Integer, Summary> buckets, long ttl) {
        Summary total = new Summary();
        Map<String, AttributeValue> nested = new HashMap<>(buckets.size() * 2);
        buckets.forEach((k, s) -> {
            total.merge(s);
            Map<String, AttributeValue> attrs = new HashMap<>(8);
            SummaryAttributes.put(attrs, s);
            nested.put(k < 10 ? "0" + k : Integer.toString(k), AttributeValue.fromM(attrs));
        });
        Map<String, AttributeValue> item = new HashMap<>(16);
        item.put(SERIES, AttributeValue.fromS(seriesKey));
        item.put(START, AttributeValue.fromN(Long.toString(start)));
        SummaryAttributes.put(item, total);
        item.put(level, AttributeValue.fromM(nested));
        item.put(TTL, AttributeValue.fromN(Long.toString(ttl)));
        return item;
    }
}
