package dev.pulse.bench;

import dev.pulse.store.KeyScheme;
import dev.pulse.store.LatestPartials;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Collects minute partials from a Scan (which promises no order) and hands on only those readers sum: each partition's
 * items in key order through the production {@link LatestPartials} (the newest generation per slot). The checks of
 * the benches count datapoints through it, so an outvoted partial never counts.
 */
final class LivePartials {

    private final Map<String, TreeMap<String, Map<String, AttributeValue>>> byPartition = new HashMap<>();

    /** Adds one partial item (its PK starts with the partial prefix). */
    void add(Map<String, AttributeValue> item) {
        byPartition.computeIfAbsent(item.get(KeyScheme.PK).s(), k -> new TreeMap<>()).put(item.get(KeyScheme.SK).s(), item);
    }

    /** The partials readers sum. */
    List<Map<String, AttributeValue>> live() {
        List<Map<String, AttributeValue>> out = new ArrayList<>();
        byPartition.values().forEach(partition -> {
            LatestPartials latest = new LatestPartials(out::add);
            partition.values().forEach(latest);
            latest.finish();
        });
        return out;
    }
}
