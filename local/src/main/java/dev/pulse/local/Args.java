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
package dev.pulse.local;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code --name value} and {@code --flag} options, checked against the names a command accepts. */
final class Args {

    private final Map<String, List<String>> values = new LinkedHashMap<>();

    Args(List<String> args, Set<String> withValue, Set<String> flags) throws UsageException {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            String name = a.startsWith("--") ? a.substring(2) : null;
            String inline = null;
            if (name != null && name.contains("=")) {
                inline = name.substring(name.indexOf('=') + 1);
                name = name.substring(0, name.indexOf('='));
            }
            if (name == null || !(withValue.contains(name) || flags.contains(name))) {
                throw new UsageException("unknown option: " + a);
            }
            if (flags.contains(name)) {
                values.computeIfAbsent(name, k -> new ArrayList<>()).add("true");
                continue;
            }
            String v = inline;
            if (v == null) {
                if (i + 1 >= args.size()) {
                    throw new UsageException("--" + name + " needs a value");
                }
                v = args.get(++i);
            }
            values.computeIfAbsent(name, k -> new ArrayList<>()).add(v);
        }
    }

    boolean flag(String name) {
        return values.containsKey(name);
    }

    String text(String name, String dflt) {
        List<String> v = values.get(name);
        return v == null ? dflt : v.get(v.size() - 1);
    }

    List<String> all(String name) {
        return values.getOrDefault(name, List.of());
    }

    double number(String name, double dflt, double min, double max) throws UsageException {
        String v = text(name, null);
        if (v == null) {
            return dflt;
        }
        try {
            double d = Double.parseDouble(v);
            if (!(d >= min && d <= max)) {
                throw new UsageException(
                        "--" + name + " must be between " + fmt(min) + " and " + fmt(max) + ", got " + v);
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a number, got " + v);
        }
    }

    /** {@code NAME=VALUE} pairs (several options, each possibly holding several space-separated pairs). */
    Map<String, String> pairs(String name) throws UsageException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String v : all(name)) {
            for (String pair : v.trim().split("\\s+", -1)) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    throw new UsageException("--" + name + " takes NAME=VALUE, got " + pair);
                }
                out.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return out;
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
