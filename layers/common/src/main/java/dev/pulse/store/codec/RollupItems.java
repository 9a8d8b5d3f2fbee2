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
package dev.pulse.store.codec;

import dev.pulse.aggregate.Summary;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.CompactMarks;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Hourly and daily rollup items. An hourly item holds its minute summaries, a daily item its hour summaries,
 * as one binary attribute {@code b} ({@link SummaryCodec#encodeBuckets}); both carry a readable {@code count}
 * and {@code sum} of the whole period for people and for the day's build. Both are rebuilt whole from the
 * level below by the builder, which adds the compaction version {@link #VERSION}. Items written before the binary
 * encoding hold the buckets as a map ({@code m} or {@code h} of two-digit keys to summary attributes) and
 * are still read.
 */
public final class RollupItems {

    public static final String SERIES = "series";
    public static final String START = "start";
    /** The encoded buckets. */
    public static final String BUCKETS = "b";
    /** Legacy: minute summaries as a map. */
    public static final String MINUTES = "m";
    /** Legacy: hour summaries as a map. */
    public static final String HOURS = "h";

    public static final String TTL = "ttl";
    /**
     * Build version: when the build that wrote the item started reading (epoch ms). Only grows; every rollup
     * write is conditional on it, so an older build never replaces a newer one.
     */
    public static final String VERSION = "v";

    private static final long HOUR_MS = 3_600_000L;
    private static final long DAY_MS = 86_400_000L;

    private RollupItems() {}

    /** The hourly item of {@code seriesKey} for the hour starting at {@code hourStart}. */
    public static Map<String, AttributeValue> hourly(
            String seriesKey, long hourStart, SortedMap<Integer, Summary> minutes, long ttlSeconds) {
        Map<String, AttributeValue> item =
                rollup(seriesKey, hourStart, minutes, (hourStart + HOUR_MS) / 1000 + ttlSeconds);
        item.put(KeyScheme.PK, AttributeValue.fromS(KeyScheme.hourlyPk(seriesKey, hourStart)));
        item.put(KeyScheme.SK, AttributeValue.fromS(KeyScheme.hour(hourStart)));
        return item;
    }

    /** The daily item of {@code seriesKey} for the day starting at {@code dayStart}. */
    public static Map<String, AttributeValue> daily(
            String seriesKey, long dayStart, SortedMap<Integer, Summary> hours, long ttlSeconds) {
        Map<String, AttributeValue> item = rollup(seriesKey, dayStart, hours, (dayStart + DAY_MS) / 1000 + ttlSeconds);
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
     * Whether a rollup item may be served: it carries no compaction mark, so no data was announced for its period
     * after it was built. Marks are set before the partials they announce, so such an item holds everything
     * stored for its period. Rollups written before compaction marks existed (no version, no mark) are what that
     * design had and stay served after an upgrade; a period marked since is rebuilt like any other.
     */
    public static boolean complete(Map<String, AttributeValue> item) {
        return !item.containsKey(CompactMarks.MARKED);
    }

    /** The nested summaries of a rollup item ({@link #MINUTES} or {@link #HOURS}), by minute or hour number. */
    public static SortedMap<Integer, Summary> buckets(Map<String, AttributeValue> item, String level) {
        return buckets(item, level, true);
    }

    /** As {@link #buckets(Map, String)}, decoding the sketches only when {@code withSketch}. */
    public static SortedMap<Integer, Summary> buckets(
            Map<String, AttributeValue> item, String level, boolean withSketch) {
        AttributeValue encoded = item.get(BUCKETS);
        if (encoded != null) {
            return SummaryCodec.decodeBuckets(encoded.b().asByteArrayUnsafe(), withSketch);
        }
        SortedMap<Integer, Summary> out = new TreeMap<>();
        AttributeValue m = item.get(level);
        if (m != null && m.hasM()) {
            m.m().forEach((k, v) -> out.put(Integer.parseInt(k), SummaryAttributes.read(v.m(), withSketch)));
        }
        return out;
    }

    /** The whole period's summary: its buckets merged (the day's build reads an hour's total this way). */
    public static Summary total(Map<String, AttributeValue> item, String level) {
        Summary total = new Summary();
        buckets(item, level, true).values().forEach(total::merge);
        return total;
    }

    private static Map<String, AttributeValue> rollup(
            String seriesKey, long start, SortedMap<Integer, Summary> buckets, long ttl) {
        long count = 0;
        dev.pulse.aggregate.ExactSum sum = new dev.pulse.aggregate.ExactSum();
        for (Summary s : buckets.values()) {
            count += s.count();
            sum.add(s.exactSum());
        }
        Map<String, AttributeValue> item = new HashMap<>(12);
        item.put(SERIES, AttributeValue.fromS(seriesKey));
        item.put(START, AttributeValue.fromN(Long.toString(start)));
        item.put(SummaryAttributes.COUNT, AttributeValue.fromN(Long.toString(count)));
        double readable = sum.value();
        if (readable == 0 || (Math.abs(readable) >= 1e-129 && Math.abs(readable) < 1e125)) { // DynamoDB's number range
            item.put(SummaryAttributes.SUM, AttributeValue.fromN(Double.toString(readable)));
        }
        item.put(
                BUCKETS,
                AttributeValue.fromB(
                        software.amazon.awssdk.core.SdkBytes.fromByteArrayUnsafe(SummaryCodec.encodeBuckets(buckets))));
        item.put(TTL, AttributeValue.fromN(Long.toString(ttl)));
        return item;
    }
}
