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
package dev.pulse.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * promtool's input notation: a series {@code name{label="value", ...}} (values with Go escapes), and expanding
 * values: {@code a}, {@code a+bxn} / {@code a-bxn} (n+1 values from a by b), {@code axn} (a, n+1 times), {@code _}
 * and {@code _xn} (missing), {@code stale} (missing: Pulse has no staleness markers).
 */
final class SeriesNotation {

    private SeriesNotation() {}

    static SortedMap<String, String> labels(String series) {
        SortedMap<String, String> out = new TreeMap<>();
        String s = series.strip();
        int brace = s.indexOf('{');
        String name = brace < 0 ? s : s.substring(0, brace).strip();
        if (!name.isEmpty()) {
            out.put("__name__", name);
        }
        if (brace < 0) {
            return out;
        }
        int i = brace + 1;
        while (i < s.length()) {
            while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == ',')) {
                i++;
            }
            if (s.charAt(i) == '}') {
                break;
            }
            int eq = s.indexOf('=', i);
            String label = s.substring(i, eq).strip();
            i = s.indexOf('"', eq) + 1;
            StringBuilder v = new StringBuilder();
            while (s.charAt(i) != '"') {
                char c = s.charAt(i++);
                if (c == '\\') {
                    char e = s.charAt(i++);
                    v.append(
                            switch (e) {
                                case 'n' -> '\n';
                                case 't' -> '\t';
                                default -> e;
                            });
                } else {
                    v.append(c);
                }
            }
            i++;
            out.put(label, v.toString());
        }
        return out;
    }

    /** The values in order; null for a missing one. */
    static List<Double> values(String notation) {
        List<Double> out = new ArrayList<>();
        for (String token : notation.strip().split("\\s+")) {
            if (token.isEmpty()) {
                continue;
            }
            if (token.equals("_") || token.equals("stale")) {
                out.add(null);
                continue;
            }
            int x = token.indexOf('x');
            if (x < 0) {
                out.add(Double.parseDouble(token));
                continue;
            }
            int n = Integer.parseInt(token.substring(x + 1));
            String head = token.substring(0, x);
            if (head.equals("_")) {
                for (int k = 0; k <= n; k++) {
                    out.add(null);
                }
                continue;
            }
            int op = Math.max(head.lastIndexOf('+'), head.lastIndexOf('-'));
            double start;
            double step;
            if (op <= 0) {
                start = Double.parseDouble(head);
                step = 0;
            } else {
                start = Double.parseDouble(head.substring(0, op));
                step = Double.parseDouble(head.substring(op + 1)) * (head.charAt(op) == '-' ? -1 : 1);
            }
            for (int k = 0; k <= n; k++) {
                out.add(start + k * step);
            }
        }
        return out;
    }
}
