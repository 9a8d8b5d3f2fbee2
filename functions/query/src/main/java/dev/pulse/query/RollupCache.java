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
package dev.pulse.query;

import dev.pulse.aggregate.Summary;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;

/**
 * Closed hourly and daily rollups kept in the warm container, read-only once cached, in two shapes: the
 * rollup's own entries (minute or hour summaries, as read), and the same rollup already grouped at a query's
 * period ({@link PeriodBucket}s, with the percentiles asked so far), which is what a repeated dashboard query
 * is served from. Entries expire after {@code ttlMillis} so late data (accepted up to 14 days back) shows up
 * within that time. The size is bounded by weight, not entry count, shared by both shapes: an entry weighs one
 * per summary, {@value #SKETCH_WEIGHT} per summary with a decoded sketch (a sketch is most of a summary's
 * memory), and a summary whose sketch is still encoded (as read from storage) one more per
 * {@value #ENCODED_BYTES_PER_UNIT} bytes of it; least recently used entries go first.
 *
 * <p>One entry a rollup (and one a shape), whatever its readers need: an entry holds its summaries with or without
 * their sketches. A sketched entry serves every reader (count, sum, min and max do not need the sketch), a sketch-less
 * one only readers that need no sketch. So a sketch-less read never replaces a sketched entry (the percentile and
 * bucket readers of the same dashboard would read the rollup again, and evict each other's copies), and a sketched
 * read replaces a sketch-less one. The same rollup is never held twice.
 */
public final class RollupCache {

    /**
     * The runtime's weight limit. A day of 100 series at PT5M with a percentile, in both shapes, weighs well under
     * it; `make bench` (memory) measures the heap a unit takes and what a full cache would hold against the heap.
     */
    public static final long DEFAULT_MAX_WEIGHT = 800_000;
    /** How long a cached rollup is served: the bound on how late late data shows in a warm container. */
    public static final long DEFAULT_TTL_MILLIS = 5 * 60_000L;

    static final int SKETCH_WEIGHT = 20;
    /** A summary without a sketch is about this many bytes: the unit of weight. */
    static final int ENCODED_BYTES_PER_UNIT = 150;

    /** {@code sketched}: every summary in {@code value} carries its sketch (also true when it holds none). */
    private record Cached(Object value, long expiresAt, long weight, boolean sketched) {}

    private final long maxWeight;
    private final long ttlMillis;
    private final LinkedHashMap<String, Cached> entries = new LinkedHashMap<>(1024, 0.75f, true);
    private long weight;

    public RollupCache(long maxWeight, long ttlMillis) {
        this.maxWeight = maxWeight;
        this.ttlMillis = ttlMillis;
    }

    /**
     * The cached entries of a rollup, or null (also when only a sketch-less copy is cached and {@code withSketch} asks
     * for sketches); callers must not modify the summaries.
     */
    @SuppressWarnings("unchecked")
    public SortedMap<Long, Summary> get(String key, boolean withSketch, long now) {
        return lookup(key, withSketch, now) instanceof SortedMap<?, ?> m ? (SortedMap<Long, Summary>) m : null;
    }

    /** The cached period buckets of a rollup at one query shape ({@link #shapeKey}), or null; as {@link #get}. */
    PeriodBucket[] periodBuckets(String shapeKey, boolean withSketch, long now) {
        return lookup(shapeKey, withSketch, now) instanceof PeriodBucket[] b ? b : null;
    }

    /**
     * Caches a rollup's entries for the TTL from {@code now}, unless a copy with sketches is cached and these have
     * none (that copy serves their readers too); returns when entries read at {@code now} expire.
     */
    public long put(String key, SortedMap<Long, Summary> buckets, long now) {
        long w = 1;
        boolean sketched = true;
        for (Summary s : buckets.values()) {
            byte[] encoded = s.encodedSketch();
            w += encoded != null ? 1 + encoded.length / ENCODED_BYTES_PER_UNIT : s.hasSketch() ? SKETCH_WEIGHT : 1;
            sketched &= s.hasSketch() || s.isEmpty(); // an empty summary merges into any, sketched or not
        }
        store(key, buckets, w, now + ttlMillis, sketched, now);
        return now + ttlMillis;
    }

    /**
     * Caches a rollup's period buckets until {@code expiresAt}: the expiry of the entries they were grouped from,
     * so late data shows within the TTL of the read, not of the grouping. Weighed with the joins its first and last
     * bucket may remember (a query bucket spanning into the neighbouring rollup), each up to twice a bucket.
     */
    void putPeriodBuckets(String shapeKey, PeriodBucket[] buckets, long expiresAt, long now) {
        long w = 1;
        boolean sketched = true;
        for (PeriodBucket b : buckets) {
            w += b.weight();
            sketched &= b.hasSketch();
        }
        if (buckets.length > 0) {
            w += 2 * (buckets[0].weight() + buckets[buckets.length - 1].weight());
        }
        store(shapeKey, buckets, w, expiresAt, sketched, now);
    }

    /** When a cached entry expires (epoch ms), or {@code Long.MIN_VALUE} when it is not cached. */
    synchronized long expiresAt(String key) {
        Cached e = entries.get(key);
        return e == null ? Long.MIN_VALUE : e.expiresAt();
    }

    /**
     * The key of a rollup at a query's shape: its period, the phase of the query's bucket grid, and where the
     * query's end cuts the rollup (else every bucket is whole), as the grouping depends on all three.
     */
    static String shapeKey(String rollupKey, long periodMillis, long phase, long cut) {
        return rollupKey + "|" + periodMillis + "|" + phase + "|" + cut;
    }

    private synchronized Object lookup(String key, boolean withSketch, long now) {
        Cached e = live(key, now);
        return e == null || (withSketch && !e.sketched()) ? null : e.value();
    }

    /** The entry under {@code key} unless expired (an expired one is dropped), marked as used. */
    private Cached live(String key, long now) {
        Cached e = entries.get(key);
        if (e != null && e.expiresAt() <= now) {
            entries.remove(key);
            weight -= e.weight();
            return null;
        }
        return e;
    }

    private synchronized void store(String key, Object value, long w, long expiresAt, boolean sketched, long now) {
        Cached current = live(key, now);
        if (current != null && current.sketched() && !sketched) {
            return; // the sketched copy answers this reader too, and the sketch readers still need it
        }
        if (w > maxWeight) {
            return;
        }
        Cached old = entries.put(key, new Cached(value, expiresAt, w, sketched));
        weight += w - (old == null ? 0 : old.weight());
        for (Iterator<Map.Entry<String, Cached>> it = entries.entrySet().iterator();
                weight > maxWeight && it.hasNext(); ) {
            Cached eldest = it.next().getValue();
            it.remove();
            weight -= eldest.weight();
        }
    }

    /** Current total weight, for tests and metrics. */
    public synchronized long weight() {
        return weight;
    }
}
