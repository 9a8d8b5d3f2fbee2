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

/**
 * A query outside the supported subset or not PromQL at all; the message starts with the position as Prometheus
 * writes it ({@code line:column}, both from 1), so {@code 1:8: parse error: ...}.
 */
public final class PromQlParseException extends Exception {

    private final int offset;

    PromQlParseException(String query, int offset, String message) {
        super(position(query, offset) + ": parse error: " + message, null, false, false);
        this.offset = offset;
    }

    /** 0-based offset in the query. */
    public int offset() {
        return offset;
    }

    private static String position(String query, int offset) {
        int line = 1;
        int lastBreak = -1;
        for (int i = 0; i < Math.min(offset, query.length()); i++) {
            if (query.charAt(i) == '\n') {
                line++;
                lastBreak = i;
            }
        }
        return line + ":" + (offset - lastBreak);
    }
}
