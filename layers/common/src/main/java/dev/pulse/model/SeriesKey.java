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
package dev.pulse.model;

import java.util.Arrays;
import java.util.Map;

/**
 * Canonical series identity: {@code name{k1=v1,k2=v2}} with dimensions sorted by key.
 *
 * <p>The characters {@code { } = , \} are escaped with a backslash in the name, keys and values, so two
 * different (name, dimensions) pairs can never produce the same key, and the same series written with
 * its dimensions in any order is one series.
 */
public final class SeriesKey {

    private SeriesKey() {}

    /** Builds the canonical key of {@code name} with {@code dims}. */
    public static String of(String name, Map<String, String> dims) {
        StringBuilder sb = new StringBuilder(name.length() + 2 + dims.size() * 24);
        escapeInto(sb, name);
        sb.append('{');
        if (!dims.isEmpty()) {
            String[] keys = dims.keySet().toArray(new String[0]);
            if (keys.length > 1) {
                Arrays.sort(keys);
            }
            for (int i = 0; i < keys.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                escapeInto(sb, keys[i]);
                sb.append('=');
                escapeInto(sb, dims.get(keys[i]));
            }
        }
        return sb.append('}').toString();
    }

    static void escapeInto(StringBuilder sb, String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c == '{' || c == '}' || c == '=' || c == ',' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
    }
}
