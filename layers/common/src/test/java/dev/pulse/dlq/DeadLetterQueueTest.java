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
package dev.pulse.dlq;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeadLetterQueueTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @ValueSource(strings = {"\uffff", "\ufffe", "\u0000", "\u0001", "\ud800"})
    void sqsSafe_whenCharacterSqsRejects_replacesIt(String bad) {
        assertThat(DeadLetterQueue.sqsSafe("a" + bad + "b", 100)).isEqualTo("a\ufffdb");
    }

    @Test
    void sqsSafe_whenAllowedCharacters_keepsThem() {
        String ok = "tab\there\nnew line \u00e9\u20ac \ud83d\ude80";
        assertThat(DeadLetterQueue.sqsSafe(ok, 100)).isEqualTo(ok);
    }

    @Test
    void body_whenReasonHuge_capsItAndKeepsTheRest() throws Exception {
        byte[] payload = "x".repeat(5000).getBytes(StandardCharsets.UTF_8);
        PoisonRecord r = new PoisonRecord(
                "IngestFunction",
                "shardId-000000000000",
                "4959",
                "pk\uffff",
                1L,
                "bad: " + "9".repeat(200_000),
                payload);

        JsonNode body = JSON.readTree(DeadLetterQueue.body(r));

        assertThat(body.get("reason").asText())
                .hasSize(DeadLetterQueue.MAX_REASON_CHARS + 3)
                .startsWith("bad: 999")
                .endsWith("...");
        assertThat(body.get("partitionKey").asText()).isEqualTo("pk\ufffd");
        assertThat(body.get("payloadBytes").asInt()).isEqualTo(5000);
        assertThat(Base64.getDecoder().decode(body.get("payloadHeadBase64").asText()))
                .hasSize(1024);
        assertThat(DeadLetterQueue.body(r).getBytes(StandardCharsets.UTF_8).length)
                .isLessThan(4096);
    }
}
