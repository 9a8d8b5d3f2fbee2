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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The {@code Authorization} header the evaluator sends to Alertmanager, from a Secrets Manager secret read at the first
 * send of a container (not in the init: a SnapStart snapshot holds no credential) and again, at most once a minute,
 * after Alertmanager refused it (401 or 403: the secret was rotated). Schemes: {@code none}; {@code basic}, the
 * secret's SecretString {@code {"username": "...", "password": "..."}}; {@code bearer}, {@code {"token": "..."}}.
 */
public final class AlertmanagerAuth {

    static final long REFRESH_MILLIS = 60_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The schemes {@code ALERTMANAGER_AUTH} names. */
    public enum Scheme {
        NONE,
        BASIC,
        BEARER;

        public static Scheme parse(String s) {
            return valueOf(s.strip().toUpperCase(Locale.ROOT));
        }
    }

    private final Scheme scheme;
    private final Supplier<String> secretString;
    private final Clock clock;
    private String header;
    private long readAt = Long.MIN_VALUE;

    /** @param secretString reads the secret's SecretString (unused for {@link Scheme#NONE}) */
    public AlertmanagerAuth(Scheme scheme, Supplier<String> secretString, Clock clock) {
        this.scheme = scheme;
        this.secretString = secretString;
        this.clock = clock;
    }

    public static AlertmanagerAuth none() {
        return new AlertmanagerAuth(Scheme.NONE, () -> "", Clock.systemUTC());
    }

    /** The header's value, or null for {@link Scheme#NONE}. Throws when the secret cannot be read or is malformed. */
    public synchronized String header() {
        if (scheme == Scheme.NONE) {
            return null;
        }
        if (header == null) {
            // The time is taken before the read: a failing secret costs one Secrets Manager call a minute at most.
            readAt = clock.millis();
            header = read();
        }
        return header;
    }

    /** Alertmanager refused the header: read the secret again at the next send, if the last read is a minute old. */
    public synchronized void refused() {
        if (scheme != Scheme.NONE && clock.millis() - readAt >= REFRESH_MILLIS) {
            header = null;
        }
    }

    private String read() {
        JsonNode secret;
        try {
            secret = JSON.readTree(secretString.get());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("the Alertmanager secret is not JSON (" + format() + ")", e);
        }
        if (scheme == Scheme.BASIC) {
            String user = text(secret, "username");
            String password = text(secret, "password");
            if (user.contains(":")) {
                throw new IllegalStateException("the Alertmanager secret's \"username\" must not contain ':'");
            }
            return "Basic "
                    + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        }
        return "Bearer " + text(secret, "token");
    }

    private String text(JsonNode secret, String field) {
        JsonNode v = secret == null ? null : secret.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new IllegalStateException(
                    "the Alertmanager secret has no \"" + field + "\" string (" + format() + ")");
        }
        String s = v.asText();
        if (s.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new IllegalStateException("the Alertmanager secret's \"" + field + "\" holds a control character");
        }
        return s;
    }

    private String format() {
        return scheme == Scheme.BASIC
                ? "expected {\"username\": \"...\", \"password\": \"...\"}"
                : "expected {\"token\": \"...\"}";
    }
}
