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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.model.MetricKind;
import dev.pulse.query.BadRequestException;
import dev.pulse.query.CatalogService;
import dev.pulse.query.SeriesSpec;
import dev.pulse.query.promql.PromQlException;
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

    /** A metric name Prometheus accepts: only such a name can be an OpenTelemetry alias. */
    private static final java.util.regex.Pattern PROMETHEUS_NAME =
            java.util.regex.Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    private final CatalogService.Snapshot catalog;
    private int scanned;

    /** A matcher for one request: every listing it reads comes from one {@link CatalogService#snapshot}. */
    public CatalogMatcher(CatalogService catalog) {
        this(catalog.snapshot());
    }

    private CatalogMatcher(CatalogService.Snapshot catalog) {
        this.catalog = catalog;
    }

    /** Work that finds series through a matcher. */
    public interface Reading<T> {
        T apply(CatalogMatcher matcher) throws PromQlException;
    }

    /**
     * Runs {@code work} on the warm container's cached listings while the catalog's version is read
     * ({@link CatalogService#speculativeSnapshot}); when the version turns out to be another than they were cached
     * under, runs it again on listings of the version read, so the answer (or the refusal) is never older than it.
     */
    public static <T> T withCachedListings(CatalogService catalog, Reading<T> work) throws PromQlException {
        CatalogMatcher first = new CatalogMatcher(catalog.speculativeSnapshot());
        T result = null;
        PromQlException refused = null;
        try {
            result = work.apply(first);
        } catch (PromQlException e) {
            refused = e;
        }
        if (!first.catalog.confirmed()) {
            return work.apply(new CatalogMatcher(catalog.snapshot()));
        }
        if (refused != null) {
            throw refused;
        }
        return result;
    }

    /**
     * One series a selector matched: the stored series, the labels it answers with (its own, or the OpenTelemetry
     * names' when matched through an {@link OtelNames alias}), which of its numbers it answers, and for a
     * {@code _bucket} alias the bucket's upper bound.
     */
    public record Match(SeriesSpec stored, SortedMap<String, String> labels, OtelNames.View view, double le) {
        /** A stored series under its own name and labels. */
        public static Match of(SeriesSpec s) {
            return new Match(s, CatalogMatcher.labels(s), OtelNames.View.RAW, Double.NaN);
        }
    }

    /**
     * The result of a listing: what was found, whether the scan stopped at {@link #MAX_SCANNED}, and (else null) why
     * two stored series cannot be told apart under the names they were matched by.
     */
    public record Found(List<Match> series, boolean truncated, String collision) {
        public Found(List<Match> series, boolean truncated) {
            this(series, truncated, null);
        }
    }

    /** The name index read once per request: every stored name and its OTLP kind (null for other sources). */
    private Map<String, MetricKind> nameTable;

    private boolean nameTableTruncated;

    /** The series {@code matchers} accept; {@code truncated} when the scan limit stopped it. */
    public Found match(List<LabelMatcher> matchers) {
        List<LabelMatcher> nameMatchers = matchers.stream()
                .filter(m -> m.name().equals(LabelMatcher.NAME))
                .toList();
        String exact = nameMatchers.stream()
                .filter(LabelMatcher::isNameEquality)
                .map(LabelMatcher::value)
                .findFirst()
                .orElse(null);
        boolean truncated = false;
        // Per stored name: whether it is wanted under its own name, and the alias names wanted.
        Map<String, Boolean> direct = new java.util.LinkedHashMap<>();
        Map<String, java.util.Set<String>> aliases = new HashMap<>();
        if (exact != null) {
            direct.put(exact, true);
            if (PROMETHEUS_NAME.matcher(exact).matches()) {
                // Only a name Prometheus accepts can be an alias (they hold no dots): look the others up directly.
                for (Map.Entry<String, MetricKind> n : nameTable().entrySet()) {
                    for (OtelNames.Alias a : OtelNames.aliases(n.getKey(), n.getValue())) {
                        if (a.name().equals(exact)) {
                            direct.putIfAbsent(n.getKey(), false);
                            aliases.computeIfAbsent(n.getKey(), k -> new java.util.HashSet<>())
                                    .add(a.name());
                        }
                    }
                }
            }
        } else {
            Map<String, MetricKind> all = nameTable();
            truncated = nameTableTruncated;
            for (Map.Entry<String, MetricKind> n : all.entrySet()) {
                direct.put(n.getKey(), false);
                for (OtelNames.Alias a : OtelNames.aliases(n.getKey(), n.getValue())) {
                    if (nameMatchers.stream().allMatch(m -> m.matches(a.name()))) {
                        aliases.computeIfAbsent(n.getKey(), k -> new java.util.HashSet<>())
                                .add(a.name());
                    }
                }
            }
        }
        List<Match> out = new ArrayList<>();
        for (String name : direct.keySet()) {
            boolean own = nameMatchers.stream().allMatch(m -> m.matches(name));
            java.util.Set<String> wanted = aliases.getOrDefault(name, java.util.Set.of());
            if (!own && wanted.isEmpty()) {
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
                    s.path("dims")
                            .properties()
                            .forEach(d -> dims.put(d.getKey(), d.getValue().asText()));
                    SeriesSpec spec = new SeriesSpec(s.path("name").asText(), Map.copyOf(dims));
                    if (own) {
                        Match m = Match.of(spec);
                        if (accepts(matchers, m.labels())) {
                            out.add(m);
                        }
                    }
                    if (!wanted.isEmpty()) {
                        MetricKind kind = MetricKind.decode(s.path("kind").asText(null));
                        addAliases(spec, kind != null ? kind : nameTable().get(name), wanted, matchers, out);
                    }
                }
                token = page.path("nextToken").isTextual()
                        ? page.path("nextToken").asText()
                        : null;
            } while (token != null);
        }
        return new Found(out, truncated, collision(out));
    }

    /** The matches of {@code spec}'s aliases among {@code wanted}: a {@code _bucket} alias once per bound and +Inf. */
    private static void addAliases(
            SeriesSpec spec,
            MetricKind kind,
            java.util.Set<String> wanted,
            List<LabelMatcher> matchers,
            List<Match> out) {
        for (OtelNames.Alias a : OtelNames.aliases(spec.name(), kind)) {
            if (!wanted.contains(a.name())) {
                continue;
            }
            SortedMap<String, String> labels = OtelNames.labels(spec.dims());
            labels.put(LabelMatcher.NAME, a.name());
            if (a.view() != OtelNames.View.BUCKET) {
                if (accepts(matchers, labels)) {
                    out.add(new Match(spec, labels, a.view(), Double.NaN));
                }
                continue;
            }
            double[] bounds = kind.boundValues();
            for (int i = 0; i <= bounds.length; i++) {
                double le = i < bounds.length ? bounds[i] : Double.POSITIVE_INFINITY;
                SortedMap<String, String> bucket = new TreeMap<>(labels);
                bucket.put("le", dev.pulse.query.promql.PromQlService.formatValue(le));
                if (accepts(matchers, bucket)) {
                    out.add(new Match(spec, bucket, a.view(), le));
                }
            }
        }
    }

    private static boolean accepts(List<LabelMatcher> matchers, SortedMap<String, String> labels) {
        return matchers.stream().allMatch(m -> m.matches(labels.get(m.name())));
    }

    /**
     * Two stored series that answer with the same labels (two OTLP names that normalise alike, or a stored name that
     * equals another's alias, with the same labels) would be one series to Prometheus: named, not merged silently.
     */
    private static String collision(List<Match> matches) {
        Map<SortedMap<String, String>, SeriesSpec> seen = new HashMap<>();
        for (Match m : matches) {
            SeriesSpec other = seen.putIfAbsent(m.labels(), m.stored());
            if (other != null && !other.equals(m.stored())) {
                return "the stored series " + other.key() + " and " + m.stored().key() + " both answer as " + m.labels()
                        + " under the OpenTelemetry names: select one by its stored name";
            }
        }
        return null;
    }

    /** Stored names and their kinds, read from the name index once per request (at most {@link #MAX_SCANNED}). */
    private Map<String, MetricKind> nameTable() {
        if (nameTable != null) {
            return nameTable;
        }
        Map<String, MetricKind> table = new java.util.LinkedHashMap<>();
        String token = null;
        do {
            if (scanned >= MAX_SCANNED) {
                nameTableTruncated = true;
                break;
            }
            Map<String, String> params = new HashMap<>();
            params.put("prefix", "");
            params.put("limit", Integer.toString(Math.min(CatalogService.MAX_LIMIT, MAX_SCANNED - scanned)));
            if (token != null) {
                params.put("nextToken", token);
            }
            ObjectNode page = list(params);
            JsonNode kinds = page.path("kinds");
            for (JsonNode n : page.path("names")) {
                scanned++;
                table.put(n.asText(), MetricKind.decode(kinds.path(n.asText()).asText(null)));
            }
            token = page.path("nextToken").isTextual() ? page.path("nextToken").asText() : null;
        } while (token != null);
        nameTable = table;
        return table;
    }

    /** The OTLP kind of stored metric {@code name} from the name index, or null. */
    public MetricKind kind(String name) {
        return nameTable().get(name);
    }

    /** Every metric name (as series without dimensions), in name order, then the OpenTelemetry names. */
    public Found names() {
        Map<String, MetricKind> table = nameTable();
        List<Match> out = new ArrayList<>();
        for (Map.Entry<String, MetricKind> n : table.entrySet()) {
            out.add(Match.of(new SeriesSpec(n.getKey(), Map.of())));
            for (OtelNames.Alias a : OtelNames.aliases(n.getKey(), n.getValue())) {
                SortedMap<String, String> labels = new TreeMap<>();
                labels.put(LabelMatcher.NAME, a.name());
                out.add(new Match(new SeriesSpec(n.getKey(), Map.of()), labels, a.view(), Double.NaN));
            }
        }
        return new Found(out, nameTableTruncated);
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
