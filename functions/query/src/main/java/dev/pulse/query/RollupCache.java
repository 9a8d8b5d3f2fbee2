package dev.pulse.query;

import dev.pulse.aggregate.Summary;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;

/**
 * Closed hourly and daily rollups kept in the warm container, read-only once cached. Entries expire after
 * {@code ttlMillis} so late data (accepted up to 14 days back) shows up within that time. The size is bounded
 * by weight, not entry count: an entry weighs one per summary, {@value #SKETCH_WEIGHT} per summary with a
 * decoded sketch (a sketch is most of a summary's memory), and a summary whose sketch is still encoded (as read
 * from storage) one more per {@value #ENCODED_BYTES_PER_UNIT} bytes of it; least recently used entries go first.
 */
public final class RollupCache {

    static final int SKETCH_WEIGHT = 20;
    /** A summary without a sketch is about this many bytes: the unit of weight. */
    static final int ENCODED_BYTES_PER_UNIT = 150;

    private record Cached(SortedMap<Long, Summary> buckets, long expiresAt, long weight) {
    }

    private final long maxWeight;
    private final long ttlMillis;
    private final LinkedHashMap<String, Cached> entries = new LinkedHashMap<>(1024, 0.75f, true);
    private long weight;

    public RollupCache(long maxWeight, long ttlMillis) {
        this.maxWeight = maxWeight;
        this.ttlMillis = ttlMillis;
    }

    /** The cached buckets of an item, or null; callers must not modify the summaries. */
    public synchronized SortedMap<Long, Summary> get(String key, long now) {
        Cached e = entries.get(key);
        if (e == null) {
            return null;
        }
        if (e.expiresAt() <= now) {
            entries.remove(key);
            weight -= e.weight();
            return null;
        }
        return e.buckets();
    }

    public synchronized void put(String key, SortedMap<Long, Summary> buckets, long now) {
        long w = 1;
        for (Summary s : buckets.values()) {
            byte[] encoded = s.encodedSketch();
            w += encoded != null ? 1 + encoded.length / ENCODED_BYTES_PER_UNIT : s.hasSketch() ? SKETCH_WEIGHT : 1;
        }
        if (w > maxWeight) {
            return;
        }
        Cached old = entries.put(key, new Cached(buckets, now + ttlMillis, w));
        weight += w - (old == null ? 0 : old.weight());
        for (Iterator<Map.Entry<String, Cached>> it = entries.entrySet().iterator(); weight > maxWeight && it.hasNext();) {
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
