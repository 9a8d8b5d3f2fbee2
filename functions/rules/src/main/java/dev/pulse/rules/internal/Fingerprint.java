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
package dev.pulse.rules.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.SortedMap;

/**
 * Prometheus' and Alertmanager's fingerprint of a label set (common/model {@code LabelSet.Fingerprint}): FNV-1a 64
 * over the names and values in name order, each followed by the byte 0xff; printed as 16 hex digits, as
 * Alertmanager's webhook prints it. Stable across processes, so the next retried or concurrent evaluation names the
 * same alert the same way.
 */
public final class Fingerprint {

    private static final long OFFSET = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private Fingerprint() {}

    public static String of(SortedMap<String, String> labels) {
        if (labels.isEmpty()) {
            return "0000000000000000";
        }
        long h = OFFSET;
        for (Map.Entry<String, String> e : labels.entrySet()) {
            h = add(h, e.getKey());
            h = (h ^ 0xff) * PRIME;
            h = add(h, e.getValue());
            h = (h ^ 0xff) * PRIME;
        }
        return String.format("%016x", h);
    }

    private static long add(long h, String s) {
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= PRIME;
        }
        return h;
    }
}
