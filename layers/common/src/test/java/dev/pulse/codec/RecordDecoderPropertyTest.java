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
package dev.pulse.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

class RecordDecoderPropertyTest {

    private final RecordDecoder decoder = Payloads.decoder();

    /** Decoding either succeeds or reports a poison record; anything else would fail the whole batch. */
    private void decodeOrPoison(byte[] data) {
        try {
            Decoded d = decoder.decode(data);
            assertThat(d).isNotNull();
            assertThat(d.datapoints()).isNotNull();
            assertThat(d.skippedEvents()).isNotNegative();
        } catch (DecodeException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    @Property(tries = 2000)
    void decode_whenArbitraryBytes_returnsOrThrowsDecodeException(@ForAll @Size(max = 512) byte[] data) {
        decodeOrPoison(data);
    }

    @Property(tries = 1000)
    void decode_whenArbitraryGzippedBytes_returnsOrThrowsDecodeException(@ForAll @Size(max = 512) byte[] data) {
        decodeOrPoison(Payloads.gzip(data));
    }

    @Property(tries = 1000)
    void decode_whenJsonLikeText_returnsOrThrowsDecodeException(@ForAll("jsonish") String text) {
        decodeOrPoison(text.getBytes(StandardCharsets.UTF_8));
    }

    @Property(tries = 1000)
    void decode_whenGzippedJsonLikeText_returnsOrThrowsDecodeException(@ForAll("jsonish") String text) {
        decodeOrPoison(Payloads.gzip(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Property(tries = 500)
    void decode_whenLogsEnvelopeWithArbitraryMessages_returnsOrThrowsDecodeException(
            @ForAll("messages") String message) {
        decodeOrPoison(Payloads.logs("/aws/lambda/fn", new Payloads.LogEvent(Payloads.NOW_MS, message)));
    }

    @Property(tries = 300)
    void decode_whenValidLogsPayloadTruncated_returnsOrThrowsDecodeException(@ForAll("cuts") int cut) {
        byte[] full = Payloads.logs(
                "/aws/lambda/fn",
                new Payloads.LogEvent(
                        Payloads.NOW_MS,
                        "REPORT RequestId: a Duration: 1 ms Billed Duration: 1 ms Memory Size: 128 MB Max Memory Used: 60 MB"));
        decodeOrPoison(java.util.Arrays.copyOf(full, Math.min(cut, full.length)));
    }

    @Provide
    Arbitrary<Integer> cuts() {
        return Arbitraries.integers().between(1, 400);
    }

    /** Text built from JSON tokens and datapoint field names, so inputs reach deep into the decoders. */
    @Provide
    Arbitrary<String> jsonish() {
        Arbitrary<String> token = Arbitraries.of(
                "{",
                "}",
                "[",
                "]",
                ",",
                ":",
                "\"name\"",
                "\"dims\"",
                "\"ts\"",
                "\"value\"",
                "\"unit\"",
                "\"a\"",
                "\"\"",
                "1",
                "-0",
                "1e400",
                "1763740800000",
                "\"2025-11-21T16:00:00Z\"",
                "null",
                "true",
                "NaN",
                "\n",
                " ",
                "\"messageType\"",
                "\"DATA_MESSAGE\"",
                "\"logEvents\"",
                "\"message\"",
                "\"timestamp\"",
                "\"_aws\"",
                "\"CloudWatchMetrics\"",
                "\\",
                "\"\\u0000\"",
                "9".repeat(30));
        return token.list().ofMaxSize(60).map(parts -> String.join("", parts));
    }

    @Provide
    Arbitrary<String> messages() {
        Arbitrary<String> emfish = jsonish().map(s -> "{\"_aws\":" + s);
        Arbitrary<String> reportish = Arbitraries.strings()
                .withChars("REPORT RequestId:Duration msBilled.0123456789\t")
                .ofMaxLength(120)
                .map(s -> "REPORT RequestId:" + s);
        return Arbitraries.oneOf(emfish, reportish, Arbitraries.strings().ofMaxLength(200), jsonish());
    }
}
