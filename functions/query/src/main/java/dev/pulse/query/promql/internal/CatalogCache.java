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
package dev.pulse.query.promql.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The series catalog's listing pages as a warm container read them, kept for {@link #TTL_MILLIS}: every panel of a
 * dashboard names the same few metrics, and without this each of its selectors costs a catalog Query (and the name
 * index another) on every refresh, the only DynamoDB reads left once the rollups are cached. The price is freshness:
 * a series first written after its name's page was cached joins PromQL answers of that container within the TTL
 * (docs/prometheus-api.md); its data, once listed, is as fresh as ever. Bounded by the entries the pages hold
 * ({@link #MAX_ENTRIES}), least recently used first out. Pages are shared: callers must not modify them.
 */
public final class CatalogCache {

    /** How long a listing page is served: the bound on how late a new series shows in a warm container's answers. */
    public static final long TTL_MILLIS = 60_000L;
    /** Series and names held over all pages (a page weighs one more than its entries): a few megabytes of heap. */
    static final int MAX_ENTRIES = 20_000;

    private record Page(ObjectNode page, long expiresAtNanos, int weight) {}

    private final LinkedHashMap<Map<String, String>, Page> pages = new LinkedHashMap<>(64, 0.75f, true);
    private final LongSupplier nanoTime;
    private final long ttlNanos;
    private long weight;

    /** On the monotonic clock: the TTL must run out also where a handler's clock is fixed (tests, benchmarks). */
    public CatalogCache() {
        this(System::nanoTime, TTL_MILLIS);
    }

    CatalogCache(LongSupplier nanoTime, long ttlMillis) {
        this.nanoTime = nanoTime;
        this.ttlNanos = ttlMillis * 1_000_000L;
    }

    /** The page listed for {@code params} within the TTL, or null. */
    synchronized ObjectNode get(Map<String, String> params) {
        Page p = pages.get(params);
        if (p == null) {
            return null;
        }
        if (nanoTime.getAsLong() - p.expiresAtNanos() >= 0) {
            pages.remove(params);
            weight -= p.weight();
            return null;
        }
        return p.page();
    }

    /** Keeps {@code page}, the catalog's answer to {@code params}, for the TTL. */
    synchronized void put(Map<String, String> params, ObjectNode page) {
        int w = 1 + page.path("series").size() + page.path("names").size();
        if (w > MAX_ENTRIES) {
            return;
        }
        Page old = pages.put(Map.copyOf(params), new Page(page, nanoTime.getAsLong() + ttlNanos, w));
        weight += w - (old == null ? 0 : old.weight());
        for (Iterator<Page> it = pages.values().iterator(); weight > MAX_ENTRIES && it.hasNext(); ) {
            weight -= it.next().weight();
            it.remove();
        }
    }

    /** Entries held, for tests. */
    synchronized int weight() {
        return (int) weight;
    }
}
