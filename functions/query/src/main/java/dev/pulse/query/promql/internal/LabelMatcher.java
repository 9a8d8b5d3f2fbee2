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

import com.google.re2j.Pattern;

/**
 * One label matcher of a selector. Regular expressions are compiled with re2j, a linear-time RE2 engine, and must
 * match the whole value (Prometheus anchors them): no expression a caller sends can make the match backtrack.
 *
 * @param name  the label ({@code __name__} for the metric name)
 * @param op    {@code =}, {@code !=}, {@code =~} or {@code !~}
 * @param value the literal or the regular expression's source
 */
public record LabelMatcher(String name, String op, String value, Pattern regex) {

    public static final String NAME = "__name__";

    /** Whether a label value matches; an absent label is the empty string, as in Prometheus. */
    public boolean matches(String labelValue) {
        String v = labelValue == null ? "" : labelValue;
        return switch (op) {
            case "=" -> v.equals(value);
            case "!=" -> !v.equals(value);
            case "=~" -> regex.matches(v);
            case "!~" -> !regex.matches(v);
            default -> throw new IllegalStateException(op);
        };
    }

    /** An equality matcher on the metric name: the catalog can be read for that one name. */
    public boolean isNameEquality() {
        return name.equals(NAME) && op.equals("=");
    }
}
