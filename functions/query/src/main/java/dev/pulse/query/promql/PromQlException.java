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
package dev.pulse.query.promql;

/**
 * A Prometheus API error: answered as {@code {"status":"error","errorType":...,"error":...}} with the HTTP status
 * Prometheus documents for that type (https://prometheus.io/docs/prometheus/latest/querying/api/#format-overview):
 * {@code bad_data} 400, {@code execution} 422, {@code timeout} and {@code unavailable} 503, {@code not_found} 404.
 */
public final class PromQlException extends Exception {

    /** Prometheus' error types, with the status each is answered with. */
    public enum Type {
        BAD_DATA("bad_data", 400),
        EXECUTION("execution", 422),
        TIMEOUT("timeout", 503),
        UNAVAILABLE("unavailable", 503),
        NOT_FOUND("not_found", 404);

        private final String wireName;
        private final int status;

        Type(String wireName, int status) {
            this.wireName = wireName;
            this.status = status;
        }

        /** As the {@code errorType} field spells it. */
        public String wireName() {
            return wireName;
        }

        public int status() {
            return status;
        }
    }

    private final Type type;

    public PromQlException(Type type, String message) {
        super(message, null, false, false);
        this.type = type;
    }

    public Type type() {
        return type;
    }

    /** {@code bad_data} for one request parameter, worded as Prometheus words it. */
    public static PromQlException invalidParameter(String name, String message) {
        return new PromQlException(Type.BAD_DATA, "invalid parameter \"" + name + "\": " + message);
    }
}
