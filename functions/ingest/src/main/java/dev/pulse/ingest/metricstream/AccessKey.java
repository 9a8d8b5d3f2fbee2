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
package dev.pulse.ingest.metricstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key Firehose must present ({@code X-Amz-Firehose-Access-Key}), read from its Secrets Manager secret once per
 * container and again, at most once a minute, when a delivery presents another key (the secret was rotated: Firehose
 * picks up the new value, the warm container would not). Compared in constant time.
 */
public final class AccessKey {

    private static final Logger LOG = LoggerFactory.getLogger(AccessKey.class);

    static final long REFRESH_MILLIS = 60_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Supplier<String> secretString;
    private final Clock clock;
    private byte[] key;
    private long readAt;

    /** @param secretString the secret's SecretString: {@code {"api_key": "..."}}, as Firehose reads it */
    public AccessKey(Supplier<String> secretString, Clock clock) {
        this.secretString = secretString;
        this.clock = clock;
    }

    /** Whether {@code presented} is the key. */
    public synchronized boolean accepts(String presented) {
        if (presented == null || presented.isEmpty()) {
            return false;
        }
        byte[] p = presented.getBytes(StandardCharsets.UTF_8);
        if (key == null) {
            // The first read: without a key nothing can be accepted, so its failure is the invocation's (a 500
            // Firehose retries).
            key = read();
            readAt = clock.millis();
        } else if (!MessageDigest.isEqual(p, key) && clock.millis() - readAt >= REFRESH_MILLIS) {
            // The time is taken before the read: a wrong key sent in a loop costs one Secrets Manager call a minute
            // whether the read succeeds or fails, and a failed refresh keeps the key that was read before.
            readAt = clock.millis();
            try {
                key = read();
            } catch (RuntimeException e) {
                LOG.warn("refreshing the Firehose access key failed; the key read before stays: {}", e.toString());
            }
        }
        return MessageDigest.isEqual(p, key);
    }

    private byte[] read() {
        String s = secretString.get();
        try {
            JsonNode k = JSON.readTree(s).get("api_key");
            if (k == null || !k.isTextual() || k.asText().isEmpty()) {
                throw new IllegalStateException(
                        "the access key secret has no \"api_key\" string (Firehose's format: {\"api_key\": \"...\"})");
            }
            return k.asText().getBytes(StandardCharsets.UTF_8);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(
                    "the access key secret is not JSON (Firehose's format: {\"api_key\": \"...\"})", e);
        }
    }
}
