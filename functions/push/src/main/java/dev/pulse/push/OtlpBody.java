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
package dev.pulse.push;

import dev.pulse.codec.DecodeException;
import dev.pulse.codec.DecodeLimits;
import dev.pulse.codec.Gunzip;
import dev.pulse.codec.OtlpRequests;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import java.io.IOException;
import java.util.Locale;

/**
 * The body of an OTLP/HTTP metrics export (the OTLP specification's "OTLP/HTTP"): {@code application/x-protobuf} or
 * {@code application/json}, optionally {@code Content-Encoding: gzip}. Gzip is inflated with a bound checked while it
 * inflates ({@link Gunzip#bytes}): a bomb is refused with 413 after at most the limit plus one buffer, never held
 * whole.
 */
final class OtlpBody {

    /** How the request (and so the response) is encoded. */
    enum Encoding {
        PROTOBUF("application/x-protobuf"),
        JSON("application/json");

        final String contentType;

        Encoding(String contentType) {
            this.contentType = contentType;
        }
    }

    private OtlpBody() {}

    /** The encoding {@code contentType} names (parameters such as a charset ignored), or null when it is neither. */
    static Encoding encoding(String contentType) {
        if (contentType == null) {
            return null;
        }
        String media = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        return switch (media) {
            case "application/x-protobuf", "application/protobuf" -> Encoding.PROTOBUF;
            case "application/json" -> Encoding.JSON;
            default -> null;
        };
    }

    /** The export request in {@code body}; 400, 413 or 415 naming what is wrong. */
    static ExportMetricsServiceRequest read(
            byte[] body, Encoding encoding, String contentEncoding, int maxDecompressedBytes) throws PushException {
        byte[] plain = inflate(body, contentEncoding, maxDecompressedBytes);
        if (encoding == Encoding.PROTOBUF && plain.length > DecodeLimits.MAX_OTLP_PROTOBUF_BYTES) {
            // A protobuf request is built whole before its series and points can be counted: 16 MiB of empty
            // messages take over 500 MB of heap. Ingest holds OTLP protobuf to the same bound.
            throw PushException.tooLarge("the protobuf request is " + plain.length + " bytes, more than "
                    + DecodeLimits.MAX_OTLP_PROTOBUF_BYTES
                    + " (MAX_OTLP_PROTOBUF_BYTES, as ingest takes OTLP): send smaller batches");
        }
        try {
            return encoding == Encoding.JSON
                    ? OtlpRequests.parseJson(
                            plain.length == 0 ? "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8) : plain)
                    : OtlpRequests.parseProto(plain, plain.length);
        } catch (DecodeException e) {
            throw PushException.badRequest(e.getMessage());
        } catch (RuntimeException e) {
            // Arbitrary bytes must be a 400 naming the problem, never a 500.
            throw PushException.badRequest("not a valid ExportMetricsServiceRequest: " + e);
        }
    }

    /** {@code body} after its {@code Content-Encoding} (none, {@code identity} or {@code gzip}). */
    static byte[] inflate(byte[] body, String contentEncoding, int maxDecompressedBytes) throws PushException {
        String enc = contentEncoding == null ? "" : contentEncoding.strip().toLowerCase(Locale.ROOT);
        if (enc.isEmpty() || enc.equals("identity")) {
            return body;
        }
        if (!enc.equals("gzip")) {
            throw PushException.unsupported(
                    "Content-Encoding \"" + contentEncoding + "\" is not supported: send gzip or no encoding");
        }
        try {
            return Gunzip.bytes(body, maxDecompressedBytes, DecodeLimits.MAX_GZIP_MEMBERS);
        } catch (Gunzip.TooLarge e) {
            throw PushException.tooLarge("the gzip body inflates to more than " + maxDecompressedBytes
                    + " bytes (MAX_DECOMPRESSED_BYTES): send smaller batches");
        } catch (IOException | RuntimeException e) {
            throw PushException.badRequest("Content-Encoding gzip: the body is not valid gzip data: " + e.getMessage());
        }
    }
}
