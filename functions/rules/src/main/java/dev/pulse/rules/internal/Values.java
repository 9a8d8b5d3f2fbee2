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

import java.util.Map;
import java.util.TreeMap;

/** Template values as Go prints them: float64, string, map[string]string (keys sorted), nil. */
final class Values {

    private Values() {}

    static String print(Object v) {
        if (v == null) {
            return "<no value>";
        }
        if (v instanceof Double d) {
            return GoFormat.shortest(d);
        }
        if (v instanceof Map<?, ?> m) {
            StringBuilder b = new StringBuilder("map[");
            boolean first = true;
            for (Map.Entry<?, ?> e : new TreeMap<>(m).entrySet()) {
                if (!first) {
                    b.append(' ');
                }
                first = false;
                b.append(e.getKey()).append(':').append(e.getValue());
            }
            return b.append(']').toString();
        }
        return v.toString();
    }
}
