package dev.pulse.query.promql.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.query.BadRequestException;
import dev.pulse.query.CatalogService;
import dev.pulse.query.SeriesSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Finds the series a selector matches in the series catalog ({@link CatalogService}'s listing, a page at a time):
 * the one metric name of a {@code __name__="..."} matcher, else every name the name matchers accept; then each
 * series of those names whose labels the other matchers accept. Reads at most {@link #MAX_SCANNED} catalog entries.
 */
public final class CatalogMatcher {

    /** Catalog entries (names and series) one request may read: ten pages of the listing. */
    public static final int MAX_SCANNED = 10_000;

    private final CatalogService catalog;
    private int scanned;

    public CatalogMatcher(CatalogService catalog) {
        this.catalog = catalog;
    }

    /** The result of a listing: what was found, and whether the scan stopped at {@link #MAX_SCANNED}. */
    public record Found(List<SeriesSpec> series, boolean truncated) {
    }

    /** The series {@code matchers} accept; {@code truncated} when the scan limit stopped it. */
    public Found match(List<LabelMatcher> matchers) {
        List<String> names = new ArrayList<>();
        List<LabelMatcher> nameMatchers = matchers.stream().filter(m -> m.name().equals(LabelMatcher.NAME)).toList();
        String exact = nameMatchers.stream().filter(LabelMatcher::isNameEquality).map(LabelMatcher::value).findFirst()
                .orElse(null);
        boolean truncated = false;
        if (exact != null) {
            names.add(exact);
        } else {
            Found all = names();
            truncated = all.truncated();
            all.series().forEach(s -> names.add(s.name()));
        }
        List<SeriesSpec> out = new ArrayList<>();
        for (String name : names) {
            if (!nameMatchers.stream().allMatch(m -> m.matches(name))) {
                continue;
            }
            String token = null;
            do {
                if (scanned >= MAX_SCANNED) {
                    return new Found(out, true);
                }
                Map<String, String> params = new HashMap<>();
                params.put("name", name);
                params.put("limit", Integer.toString(Math.min(CatalogService.MAX_LIMIT, MAX_SCANNED - scanned)));
                if (token != null) {
                    params.put("nextToken", token);
                }
                ObjectNode page = list(params);
                if (page == null) {
                    break; // a name no series can have (too long, empty): nothing matches
                }
                for (JsonNode s : page.path("series")) {
                    scanned++;
                    Map<String, String> dims = new HashMap<>();
                    s.path("dims").properties().forEach(d -> dims.put(d.getKey(), d.getValue().asText()));
                    SeriesSpec spec = new SeriesSpec(s.path("name").asText(), Map.copyOf(dims));
                    if (matchers.stream().allMatch(m -> m.matches(labels(spec).get(m.name())))) {
                        out.add(spec);
                    }
                }
                token = page.path("nextToken").isTextual() ? page.path("nextToken").asText() : null;
            } while (token != null);
        }
        return new Found(out, truncated);
    }

    /** Every metric name (as series without dimensions), in name order. */
    public Found names() {
        List<SeriesSpec> out = new ArrayList<>();
        String token = null;
        do {
            if (scanned >= MAX_SCANNED) {
                return new Found(out, true);
            }
            Map<String, String> params = new HashMap<>();
            params.put("prefix", "");
            params.put("limit", Integer.toString(Math.min(CatalogService.MAX_LIMIT, MAX_SCANNED - scanned)));
            if (token != null) {
                params.put("nextToken", token);
            }
            ObjectNode page = list(params);
            for (JsonNode n : page.path("names")) {
                scanned++;
                out.add(new SeriesSpec(n.asText(), Map.of()));
            }
            token = page.path("nextToken").isTextual() ? page.path("nextToken").asText() : null;
        } while (token != null);
        return new Found(out, false);
    }

    /** A series' labels: its dimensions and {@code __name__}. */
    public static SortedMap<String, String> labels(SeriesSpec s) {
        SortedMap<String, String> labels = new TreeMap<>(s.dims());
        labels.put(LabelMatcher.NAME, s.name());
        return labels;
    }

    private ObjectNode list(Map<String, String> params) {
        try {
            return catalog.list(params);
        } catch (BadRequestException e) {
            if ("nextToken".equals(e.field())) {
                throw new IllegalStateException("the catalog refused its own nextToken", e);
            }
            return null;
        }
    }
}
