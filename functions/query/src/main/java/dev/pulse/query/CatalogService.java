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

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.store.codec.PartialItems;
import dev.pulse.store.schema.KeyScheme;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * {@code GET /series}: the series of one metric name ({@code ?name=}), or the metric names starting with a
 * prefix ({@code ?prefix=}), a page at a time ({@code limit}, {@code nextToken}).
 *
 * <p>The Prometheus API lists the catalog for every selector of every request (a dashboard panel needs two to five
 * listings, and they were most of a warm panel's time), so a warm container keeps the pages it listed through a
 * {@link #snapshot}, under the catalog's version ({@link KeyScheme#CATALOG_VERSION_PK}): ingest puts a new version
 * after each write of catalog entries, and a request that reads another version than the cached one drops the cache.
 * A cached page is therefore never older than the version a request reads, and a series is listed as soon as a
 * request reads the version put after its entry (eventually consistent, as an uncached listing is).
 */
public final class CatalogService {

    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;
    /** Names and series the warm container keeps in cached pages; least recently used pages go first. */
    public static final int MAX_CACHED_ENTRIES = 20_000;

    /**
     * How long a version must have held before requests start on its cached pages without waiting for their own
     * version read: a request that started on pages of a version since replaced evaluates again, reading its data
     * twice, so where the catalog keeps changing (series come and go all the time) requests wait for the version
     * instead, and each container pays for at most one such request a version that held this long.
     */
    public static final long SPECULATE_AFTER_MILLIS = 60_000;

    private final DynamoDbAsyncClient client;
    private final String table;
    private final java.time.Clock clock;
    private final PageCache cache = new PageCache();

    public CatalogService(DynamoDbAsyncClient client, String table) {
        this(client, table, java.time.Clock.systemUTC());
    }

    /** {@code clock}: how long the cached version has held ({@link #SPECULATE_AFTER_MILLIS}). */
    public CatalogService(DynamoDbAsyncClient client, String table, java.time.Clock clock) {
        this.client = client;
        this.table = table;
        this.clock = clock;
    }

    /**
     * A view of the catalog for one request: its version read once, then each page from the warm container's cache
     * when cached under that version, else read (consistently, so that the page holds every entry written before the
     * version) and cached. Without a version item (a table no ingest has written since versions exist) pages are read
     * as {@link #list} reads them and kept for this request only.
     */
    public Snapshot snapshot() {
        return new Snapshot(false);
    }

    /**
     * As {@link #snapshot}, but serving cached pages while the version is still being read (from the first listing on),
     * under the version they were cached with, once it has held for {@link #SPECULATE_AFTER_MILLIS}: the caller must ask {@link Snapshot#confirmed} before it answers, and
     * start again on a {@link #snapshot} when not. The version's round trip then overlaps the request's work instead
     * of preceding it.
     */
    public Snapshot speculativeSnapshot() {
        return new Snapshot(true);
    }

    /** One request's view of the catalog ({@link #snapshot}); not shared between threads. */
    public final class Snapshot {
        /** The version read, started at the first listing (a request without selectors reads nothing). */
        private java.util.concurrent.CompletableFuture<String> version;

        private final boolean speculative;
        /** The cached version whose pages were served before the version was read, or null. */
        private String assumed;

        private final Map<Map<String, String>, ObjectNode> own = new HashMap<>();

        private Snapshot(boolean speculative) {
            this.speculative = speculative;
        }

        /** As {@link CatalogService#list}; the page is shared: read it, never change it. */
        public ObjectNode list(Map<String, String> params) throws BadRequestException {
            Map<String, String> key = Map.copyOf(params);
            ObjectNode page = own.get(key);
            if (page != null) {
                return page;
            }
            if (version == null) {
                version = readVersion();
            }
            if (speculative && !version.isDone()) {
                PageCache.Hit hit = cache.peek(key, clock.millis());
                if (hit != null && (assumed == null || assumed.equals(hit.version()))) {
                    assumed = hit.version();
                    own.put(key, hit.page());
                    return hit.page();
                }
            }
            String v = version.join();
            page = v == null ? null : cache.get(v, key, clock.millis());
            if (page == null) {
                page = CatalogService.this.list(params, v != null);
                if (v != null) {
                    cache.put(v, key, page);
                }
            }
            own.put(key, page);
            return page;
        }

        /** Whether every page served was of the catalog's version as read (always, unless speculative). */
        public boolean confirmed() {
            return assumed == null || assumed.equals(version.join()); // the read starts before anything is assumed
        }
    }

    private java.util.concurrent.CompletableFuture<String> readVersion() {
        return client.getItem(b -> b.tableName(table)
                        .key(Map.of(
                                KeyScheme.PK,
                                AttributeValue.fromS(KeyScheme.CATALOG_VERSION_PK),
                                KeyScheme.SK,
                                AttributeValue.fromS(KeyScheme.CATALOG_VERSION_PK))))
                .thenApply(r -> {
                    AttributeValue v = r.item() == null ? null : r.item().get(PartialItems.VERSION);
                    return v == null ? null : v.s();
                });
    }

    /** Pages listed under one catalog version, bounded by the entries they hold. */
    private static final class PageCache {
        private final java.util.LinkedHashMap<Map<String, String>, ObjectNode> pages =
                new java.util.LinkedHashMap<>(64, 0.75f, true);
        private String version;
        /** When this container first read {@link #version} (clock ms). */
        private long since;

        private long entries;

        /** A page and the version it is cached under. */
        record Hit(ObjectNode page, String version) {}

        /**
         * The page cached under the current version, whatever it is, once that version has held for
         * {@link #SPECULATE_AFTER_MILLIS}; else null.
         */
        synchronized Hit peek(Map<String, String> key, long now) {
            ObjectNode page = version == null || now - since < SPECULATE_AFTER_MILLIS ? null : pages.get(key);
            return page == null ? null : new Hit(page, version);
        }

        synchronized ObjectNode get(String v, Map<String, String> key, long now) {
            if (!v.equals(version)) {
                pages.clear();
                entries = 0;
                version = v;
                since = now;
                return null;
            }
            return pages.get(key);
        }

        synchronized void put(String v, Map<String, String> key, ObjectNode page) {
            if (!v.equals(version)) {
                return; // another request read a newer version meanwhile: this page may be older than it
            }
            ObjectNode old = pages.put(key, page);
            entries += size(page) - (old == null ? 0 : size(old));
            var it = pages.entrySet().iterator();
            while (entries > MAX_CACHED_ENTRIES && it.hasNext()) {
                entries -= size(it.next().getValue());
                it.remove();
            }
        }

        private static long size(ObjectNode page) {
            return 1L + page.path("series").size() + page.path("names").size();
        }
    }

    public ObjectNode list(Map<String, String> params) throws BadRequestException {
        return list(params, false);
    }

    private ObjectNode list(Map<String, String> params, boolean consistent) throws BadRequestException {
        String name = params.get("name");
        String prefix = params.get("prefix");
        if ((name == null) == (prefix == null)) {
            throw new BadRequestException(
                    name == null ? "MissingField" : "InvalidField",
                    "give exactly one of name or prefix",
                    name == null ? "name" : "prefix");
        }
        if (name != null && (name.isEmpty() || name.length() > 255)) {
            throw new BadRequestException("InvalidField", "name must be 1-255 characters", "name");
        }
        if (prefix != null && prefix.length() > 255) {
            throw new BadRequestException("InvalidField", "prefix must be at most 255 characters", "prefix");
        }
        int limit = limit(params.get("limit"));
        String pk = name != null ? KeyScheme.catalogPk(name) : KeyScheme.NAMES_PK;
        Map<String, AttributeValue> start = startKey(params.get("nextToken"), pk, prefix);
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":pk", AttributeValue.fromS(pk));
        String condition = "pk = :pk";
        if (prefix != null && !prefix.isEmpty()) {
            condition += " AND begins_with(sk, :prefix)";
            values.put(":prefix", AttributeValue.fromS(prefix));
        }
        String keyCondition = condition;
        QueryResponse resp;
        try {
            resp = client.query(b -> b.tableName(table)
                            .keyConditionExpression(keyCondition)
                            .expressionAttributeValues(values)
                            .limit(limit)
                            .consistentRead(consistent)
                            .exclusiveStartKey(start))
                    .join();
        } catch (java.util.concurrent.CompletionException e) {
            if (start != null
                    && e.getCause() instanceof software.amazon.awssdk.services.dynamodb.model.DynamoDbException d
                    && d.statusCode() == 400) {
                throw new BadRequestException("InvalidField", "nextToken does not belong to this listing", "nextToken");
            }
            throw e;
        }

        ObjectNode out = JsonNodeFactory.instance.objectNode();
        ArrayNode items = out.putArray(name != null ? "series" : "names");
        for (Map<String, AttributeValue> item : resp.items()) {
            if (name != null) {
                ObjectNode s = items.addObject();
                s.put("key", item.get(KeyScheme.SK).s());
                s.put("name", item.get(PartialItems.NAME).s());
                ObjectNode dims = s.putObject("dims");
                AttributeValue d = item.get(PartialItems.DIMS);
                if (d != null && d.hasM()) {
                    d.m().entrySet().stream()
                            .sorted(Map.Entry.comparingByKey())
                            .forEach(e -> dims.put(e.getKey(), e.getValue().s()));
                }
                putKind(s, item);
            } else {
                items.add(item.get(KeyScheme.SK).s());
                AttributeValue kind = item.get(PartialItems.KIND);
                if (kind != null && kind.s() != null) {
                    (out.has("kinds") ? (ObjectNode) out.get("kinds") : out.putObject("kinds"))
                            .put(item.get(KeyScheme.SK).s(), kind.s());
                }
            }
        }
        if (resp.hasLastEvaluatedKey() && !resp.lastEvaluatedKey().isEmpty()) {
            out.put(
                    "nextToken",
                    Base64.getUrlEncoder()
                            .withoutPadding()
                            .encodeToString(resp.lastEvaluatedKey()
                                    .get(KeyScheme.SK)
                                    .s()
                                    .getBytes(StandardCharsets.UTF_8)));
        } else {
            out.putNull("nextToken");
        }
        return out;
    }

    /**
     * The OTLP metric type of a series ({@code type|temporality|bounds|unit}, see {@code MetricKind}) where the producer
     * sent one: the Prometheus API answers such series also under their OpenTelemetry-compatible names.
     */
    private static void putKind(ObjectNode series, Map<String, AttributeValue> item) {
        AttributeValue kind = item.get(PartialItems.KIND);
        if (kind != null && kind.s() != null) {
            series.put("kind", kind.s());
        }
    }

    private static int limit(String s) throws BadRequestException {
        if (s == null) {
            return DEFAULT_LIMIT;
        }
        // ASCII digits only, at most four: Integer.parseInt would also take other scripts' digits ("１２３").
        if (!s.isEmpty() && s.length() <= 4 && s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            int n = Integer.parseInt(s);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        }
        throw new BadRequestException("InvalidField", "limit must be an integer from 1 to " + MAX_LIMIT, "limit");
    }

    private static Map<String, AttributeValue> startKey(String token, String pk, String prefix)
            throws BadRequestException {
        if (token == null) {
            return null;
        }
        String sk;
        try {
            if (token.length() > 8 * 1024) {
                throw new IllegalArgumentException("longer than any key"); // a 1,024-character key in base64 is shorter
            }
            sk = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            sk = "";
        }
        // The token is the last key of the previous page: it must be a key this listing can contain.
        if (sk.isEmpty() || sk.length() > 1024 || (prefix != null && !sk.startsWith(prefix))) {
            throw new BadRequestException("InvalidField", "nextToken does not belong to this listing", "nextToken");
        }
        return Map.of(KeyScheme.PK, AttributeValue.fromS(pk), KeyScheme.SK, AttributeValue.fromS(sk));
    }
}
