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
import dev.pulse.model.MetricKind;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.ShardCheckpoints;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Maps minute partials and catalog entries to DynamoDB items. Attribute names are the storage contract
 * shared with the builder and the query API. A partial holds only what a reader needs beyond its key: the
 * series, minute, shard and first sequence number are in the key already ({@link KeyScheme}), so repeating them
 * (and the 56-digit last sequence number) would only be billed. A reader takes the minute from the sort key
 * ({@link KeyScheme#partialMinute}).
 */
public final class PartialItems {

    public static final String SERIES = "series";
    public static final String NAME = "name";
    public static final String DIMS = "dims";
    public static final String UNIT = "unit";
    public static final String TTL = "ttl";
    /** On catalog and name entries of OTLP series: the producer's metric type ({@link MetricKind#encode()}). */
    public static final String KIND = "otel";
    /** The attribute of the catalog's version item that holds its token. */
    public static final String VERSION = "v";

    /**
     * The largest a partial can be: a 1,024-byte series key in the key ({@code P#<seriesKey>#<hour>}), a 64-character
     * unit (up to 3 bytes each in UTF-8), and a summary of the largest sketch (2 x {@link dev.pulse.aggregate.Sketches#MAX_BINS}
     * bins, counts near 2^53: about 36 KB) with 40 exact-sum partials. Measured by PartialItemsTest; far under
     * DynamoDB's 400 KB ({@link SummaryCodec#MAX_ITEM_BYTES}), so no partial of an accepted datapoint is refused.
     */
    public static final int MAX_PARTIAL_BYTES = 40 * 1024;

    private PartialItems() {}

    /**
     * An item's size as DynamoDB counts it: each attribute's name plus its value (strings and binaries by their bytes,
     * a number by about one byte per two digits plus one; maps and lists with their 3-byte overhead and 1 byte per
     * element).
     */
    public static int itemBytes(Map<String, AttributeValue> item) {
        int n = 0;
        for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
            n += utf8Length(e.getKey()) + valueBytes(e.getValue());
        }
        return n;
    }

    private static int valueBytes(AttributeValue v) {
        if (v.s() != null) {
            return utf8Length(v.s());
        }
        if (v.n() != null) {
            return (v.n().length() + 1) / 2 + 1;
        }
        if (v.b() != null) {
            return v.b().asByteArrayUnsafe().length;
        }
        if (v.hasM()) {
            int n = 3;
            for (Map.Entry<String, AttributeValue> e : v.m().entrySet()) {
                n += 1 + utf8Length(e.getKey()) + valueBytes(e.getValue());
            }
            return n;
        }
        if (v.hasL()) {
            int n = 3;
            for (AttributeValue x : v.l()) {
                n += 1 + valueBytes(x);
            }
            return n;
        }
        return 1;
    }

    private static int utf8Length(String s) {
        int n = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /**
     * The item for one partial written by the attempt of {@code generation} ({@link ShardCheckpoints});
     * {@code ttlSeconds} counts from the end of the partial's minute.
     */
    public static Map<String, AttributeValue> partial(Partial a, long ttlSeconds, long generation) {
        Map<String, AttributeValue> item = new HashMap<>(8);
        item.put(KeyScheme.PK, s(KeyScheme.partialPk(a.seriesKey(), a.minuteStart())));
        item.put(KeyScheme.SK, s(KeyScheme.partialSk(a.minuteStart(), a.shardId(), a.firstSequence(), generation)));
        SummaryAttributes.put(item, a.summary());
        item.put(TTL, n(Long.toString(a.minuteStart() / 1000 + 60 + ttlSeconds)));
        if (a.unit() != null) {
            item.put(UNIT, s(a.unit()));
        }
        return item;
    }

    /** The catalog entry of a series: written once per new series per container. */
    public static Map<String, AttributeValue> catalog(String seriesKey, String name, Map<String, String> dims) {
        return catalog(seriesKey, name, dims, null);
    }

    /**
     * The catalog entry of a series, with the producer's metric type where it sent one: it rides on this entry, written
     * once per series per container, rather than on every partial.
     */
    public static Map<String, AttributeValue> catalog(
            String seriesKey, String name, Map<String, String> dims, MetricKind kind) {
        Map<String, AttributeValue> dimValues = new HashMap<>(dims.size() * 2);
        dims.forEach((k, v) -> dimValues.put(k, s(v)));
        Map<String, AttributeValue> item = new HashMap<>(8);
        item.put(KeyScheme.PK, s(KeyScheme.catalogPk(name)));
        item.put(KeyScheme.SK, s(seriesKey));
        item.put(SERIES, s(seriesKey));
        item.put(NAME, s(name));
        item.put(DIMS, AttributeValue.fromM(dimValues));
        if (kind != null) {
            item.put(KIND, s(kind.encode()));
        }
        return Map.copyOf(item);
    }

    /** The name index entry: PK {@code N#}, SK the metric name, so names can be listed by prefix. */
    public static Map<String, AttributeValue> name(String name) {
        return name(name, null);
    }

    /** The name index entry with the metric's type (without a histogram's bounds, which are per series). */
    public static Map<String, AttributeValue> name(String name, MetricKind kind) {
        if (kind == null) {
            return Map.of(KeyScheme.PK, s(KeyScheme.NAMES_PK), KeyScheme.SK, s(name), NAME, s(name));
        }
        MetricKind bare = new MetricKind(kind.type(), kind.temporality(), kind.unit(), "");
        return Map.of(
                KeyScheme.PK, s(KeyScheme.NAMES_PK), KeyScheme.SK, s(name), NAME, s(name), KIND, s(bare.encode()));
    }

    /**
     * The catalog's version item with a new {@code token}: put after catalog entries are stored (never in the same
     * batch, whose items land in no set order), so a reader that sees the token also sees the entries written before.
     */
    public static Map<String, AttributeValue> catalogVersion(String token) {
        return Map.of(
                KeyScheme.PK,
                s(KeyScheme.CATALOG_VERSION_PK),
                KeyScheme.SK,
                s(KeyScheme.CATALOG_VERSION_PK),
                VERSION,
                s(token));
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }

    private static AttributeValue n(String v) {
        return AttributeValue.fromN(v);
    }
}
