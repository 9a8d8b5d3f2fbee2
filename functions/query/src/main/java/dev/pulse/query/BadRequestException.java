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
package dev.pulse.query;

/**
 * A request the API refuses: answered with HTTP 400 and {@code {"error":{"code","message","field"}}}.
 * Never thrown for a server-side problem.
 */
public final class BadRequestException extends Exception {

    private final String code;
    private final String field;

    public BadRequestException(String code, String message, String field) {
        super(message, null, false, false);
        this.code = code;
        this.field = field;
    }

    /** Machine-readable: {@code MalformedJson}, {@code MissingField}, {@code InvalidField}, {@code LimitExceeded}. */
    public String code() {
        return code;
    }

    /** The JSON path of the offending field ({@code series[3].dims}), or {@code null} for the whole body. */
    public String field() {
        return field;
    }
}
