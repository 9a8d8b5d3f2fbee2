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

import dev.pulse.aggregate.Partial;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Remembers which series this warm container has already put in the catalog, so each series is written
 * once per container rather than once per batch. The memory is bounded: past {@code maxRemembered} series
 * it starts over, which costs a few repeated (idempotent) catalog puts.
 */
public final class SeriesCatalog {

    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final int maxRemembered;

    public SeriesCatalog(int maxRemembered) {
        this.maxRemembered = maxRemembered;
    }

    /**
     * Catalog items for the series among {@code partials} that this container has not written yet: one
     * {@code C#<name>} entry per series, and one {@code N#} entry per metric name (for prefix search).
     */
    public List<CatalogEntry> unseen(Collection<Partial> partials) {
        Set<String> inBatch = new HashSet<>();
        List<CatalogEntry> out = new ArrayList<>();
        for (Partial p : partials) {
            if (!seen.contains(p.seriesKey()) && inBatch.add(p.seriesKey())) {
                out.add(new CatalogEntry(
                        p.seriesKey(), PartialItems.catalog(p.seriesKey(), p.name(), p.dims(), p.kind())));
                String nameKey = "N#" + p.name();
                if (!seen.contains(nameKey) && inBatch.add(nameKey)) {
                    out.add(new CatalogEntry(nameKey, PartialItems.name(p.name(), p.kind())));
                }
            }
        }
        return out;
    }

    /** Called once the entries are stored. */
    public void markWritten(Collection<CatalogEntry> entries) {
        if (seen.size() + entries.size() > maxRemembered) {
            seen.clear();
        }
        for (CatalogEntry e : entries) {
            seen.add(e.seriesKey());
        }
    }

    /** A series (or a name, as {@code N#<name>}) and its catalog item. */
    public record CatalogEntry(String seriesKey, Map<String, AttributeValue> item) {}
}
