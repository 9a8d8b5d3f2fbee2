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
package dev.pulse.bench;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The size of a DynamoDB item by DynamoDB's rules ("DynamoDB item sizes and formats" in the developer guide), which
 * is what write units, read units and storage are billed on:
 * <ul>
 *   <li>every attribute: its name's UTF-8 bytes plus its value;</li>
 *   <li>string: UTF-8 bytes; binary: raw bytes; number: 1 byte per two significant digits plus 1 (leading and
 *       trailing zeros trimmed); boolean and null: 1 byte; sets: the sum of their elements;</li>
 *   <li>map and list: 3 bytes plus, per element, 1 byte plus the element (a map element also counts its key);</li>
 *   <li>storage: {@value #STORAGE_OVERHEAD} bytes more per item (indexing overhead).</li>
 * </ul>
 * A write costs one unit per started KB of the item, a strongly consistent read one unit per started 4 KB (an
 * eventually consistent one half that), a Query page the sum of its items' sizes rounded up once.
 */
public final class ItemSize {

    /** Bytes DynamoDB adds to every item for storage billing. */
    public static final int STORAGE_OVERHEAD = 100;

    private ItemSize() {}

    /** The item's size in bytes, as write and read units are computed from it. */
    public static long of(Map<String, AttributeValue> item) {
        long size = 0;
        for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
            size += utf8(e.getKey()) + value(e.getValue());
        }
        return size;
    }

    /** The bytes storage is billed on: {@link #of} plus the per-item overhead. */
    public static long stored(Map<String, AttributeValue> item) {
        return of(item) + STORAGE_OVERHEAD;
    }

    /** Write units of one item of {@code bytes} (PutItem, each item of a BatchWriteItem): one per started KB, at least one. */
    public static int writeUnits(long bytes) {
        return (int) Math.max(1, (bytes + 1023) / 1024);
    }

    /** Read units of reading {@code bytes} at once (one item, or one Query page): per started 4 KB, at least one unit. */
    public static double readUnits(long bytes, boolean consistent) {
        long units = Math.max(1, (bytes + 4095) / 4096);
        return consistent ? units : units / 2.0;
    }

    /** The size of one value (without its attribute name). */
    public static long value(AttributeValue v) {
        return switch (v.type()) {
            case S -> utf8(v.s());
            case N -> number(v.n());
            case B -> v.b().asByteArrayUnsafe().length;
            case BOOL, NUL -> 1;
            case SS -> v.ss().stream().mapToLong(ItemSize::utf8).sum();
            case NS -> v.ns().stream().mapToLong(ItemSize::number).sum();
            case BS ->
                v.bs().stream().mapToLong(b -> b.asByteArrayUnsafe().length).sum();
            case M -> {
                long size = 3;
                for (Map.Entry<String, AttributeValue> e : v.m().entrySet()) {
                    size += 1 + utf8(e.getKey()) + value(e.getValue());
                }
                yield size;
            }
            case L -> {
                long size = 3;
                for (AttributeValue e : v.l()) {
                    size += 1 + value(e);
                }
                yield size;
            }
            case UNKNOWN_TO_SDK_VERSION -> throw new IllegalArgumentException("attribute of unknown type: " + v);
        };
    }

    /** A number: 1 byte per two significant digits (zeros at either end trimmed), plus 1. */
    static long number(String n) {
        BigDecimal d = new BigDecimal(n.strip());
        int digits = d.signum() == 0 ? 1 : d.stripTrailingZeros().precision();
        return (digits + 1L) / 2 + 1;
    }

    static long utf8(String s) {
        // Fast path for ASCII, which keys and attribute names nearly always are.
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return s.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        return s.length();
    }
}
