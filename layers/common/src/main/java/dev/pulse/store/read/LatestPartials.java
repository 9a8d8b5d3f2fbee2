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
package dev.pulse.store.read;

import dev.pulse.store.schema.KeyScheme;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What a reader of minute partials must sum: of the partials that share a slot (minute, shard, first contributing
 * record), only the one of the newest generation. Older ones were written by attempts that a newer attempt
 * replaced, or by a stale attempt whose write landed late (docs/design.md, "Exactly once"). Partials of one
 * partition arrive sorted by sort key, where a slot's partials are adjacent, so one is held back at a time.
 *
 * <p>Partials in the layout before compact keys ({@link KeyScheme#legacyPartial}) sort before every partial of the
 * current layout, so they are held (only they: a partition has them only across an upgrade, until they expire)
 * and each is weighed against the current partials of its slot by generation, which comes from the same counter
 * in both layouts: whichever attempt is newest counts, also after a rollback and a second upgrade.
 *
 * <p>Feed it the items of one partition in key order ({@link #accept}), then call {@link #finish}.
 */
public final class LatestPartials implements Consumer<Map<String, AttributeValue>> {

    private final Consumer<Map<String, AttributeValue>> downstream;
    private Map<String, Newest> legacy;
    private String slot;
    private long generation;
    private Map<String, AttributeValue> held;

    public LatestPartials(Consumer<Map<String, AttributeValue>> downstream) {
        this.downstream = downstream;
    }

    @Override
    public void accept(Map<String, AttributeValue> item) {
        String sk = item.get(KeyScheme.SK).s();
        String s = KeyScheme.partialSlot(sk);
        long g = KeyScheme.partialGeneration(sk);
        if (KeyScheme.legacyPartial(sk)) {
            if (slot != null) {
                throw new IllegalStateException("partials out of key order: " + sk + " after " + slot);
            }
            if (legacy == null) {
                legacy = new LinkedHashMap<>();
            }
            legacy.merge(s, new Newest(g, item), (a, b) -> b.generation > a.generation ? b : a);
            return;
        }
        if (s.equals(slot)) {
            if (g > generation) {
                held = item;
                generation = g;
            }
            return;
        }
        passHeld();
        slot = s;
        generation = g;
        held = item;
    }

    /** Passes on the last held partial and the earlier-layout ones still held; call once the partition has been read. */
    public void finish() {
        passHeld();
        if (legacy != null) {
            legacy.values().forEach(newest -> downstream.accept(newest.item));
            legacy = null;
        }
        slot = null;
    }

    private void passHeld() {
        if (held == null) {
            return;
        }
        Newest earlier = legacy == null ? null : legacy.remove(slot);
        downstream.accept(earlier != null && earlier.generation > generation ? earlier.item : held);
        held = null;
    }

    private record Newest(long generation, Map<String, AttributeValue> item) {}

    /**
     * The partials a reader sums, from partial items of any partitions in any order (a Scan's, say): each partition's
     * items in key order through this rule. For tools and checks that read a whole table.
     */
    public static List<Map<String, AttributeValue>> newestOf(Collection<Map<String, AttributeValue>> items) {
        Map<String, TreeMap<String, Map<String, AttributeValue>>> byPartition = new TreeMap<>();
        for (Map<String, AttributeValue> item : items) {
            byPartition
                    .computeIfAbsent(item.get(KeyScheme.PK).s(), k -> new TreeMap<>())
                    .put(item.get(KeyScheme.SK).s(), item);
        }
        List<Map<String, AttributeValue>> out = new ArrayList<>(items.size());
        byPartition.values().forEach(partition -> {
            LatestPartials latest = new LatestPartials(out::add);
            partition.values().forEach(latest);
            latest.finish();
        });
        return out;
    }
}
