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

import java.util.regex.Pattern;

/** Prometheus' name rules: label names {@code [a-zA-Z_][a-zA-Z0-9_]*}, metric names the same with colons. */
public final class Names {

    private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern METRIC = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    private Names() {}

    public static boolean validLabelName(String s) {
        return !s.isEmpty() && s.length() <= 1_024 && LABEL.matcher(s).matches();
    }

    public static boolean validMetricName(String s) {
        return !s.isEmpty() && s.length() <= 1_024 && METRIC.matcher(s).matches();
    }

    /**
     * A name as one part of a stored key whose parts are joined with ';': '\\' and ';' escaped with '\\', so two
     * different lists of names never give the same key; a name without either character is unchanged.
     */
    public static String keyPart(String name) {
        if (name.indexOf(';') < 0 && name.indexOf('\\') < 0) {
            return name;
        }
        return name.replace("\\", "\\\\").replace(";", "\\;");
    }
}
