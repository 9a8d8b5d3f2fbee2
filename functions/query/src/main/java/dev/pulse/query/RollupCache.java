package dev.pulse.query;

import dev.pulse.aggregate.Summary;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;

/**
 * Closed hourly and daily rollups kept in the warm container, read-only once cached. Entries expire after
 * {@code ttlMillis} so late data (accepted up to 14 days back) shows up within that time; the size is bounded
 * (least recently used first out).
 */
public final class RollupCache {

    private record Cached(SortedMap<Long, Summary> buckets, long expiresAt) {
    }

    private final int maxEntries;
    private final long ttlMillis;
    private final Map<String, Cached> entries;

    public RollupCache(int maxEntries, long ttlMillis) {
        this.maxEntries = maxEntries;
        this.ttlMillis = ttlMillis;
        this.entries = new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Cached> eldest) {
                return size() > RollupCache.this.maxEntries;
            }
        };
    }

    /** The cached buckets of an item, or null; callers must not modify the summaries. */
    public synchronized SortedMap<Long, Summary> get(String key, long now) {
        Cached e = entries.get(key);
        if (e == null) {
            return null;
        }
        if (e.expiresAt() <= now) {
            entries.remove(key);
            return null;
        }
        return e.buckets();
    }

    public synchronized void put(String key, SortedMap<Long, Summary> buckets, long now) {
        entries.put(key, new Cached(buckets, now + ttlMillis));
    }
}
