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

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;

/**
 * CloudWatch Logs subscription payloads: gzip-compressed JSON with {@code messageType}, {@code logGroup},
 * {@code logStream} and {@code logEvents[]}. {@code CONTROL_MESSAGE} payloads are skipped. Each log event
 * is an EMF document, a Lambda {@code REPORT} line, or anything else (counted as skipped).
 */
final class CloudWatchLogsDecoder {

    /** A subscription record is at most 1 MB compressed; this bounds a decompression bomb. */
    static final int MAX_DECOMPRESSED_BYTES = DecodeLimits.MAX_DECOMPRESSED_BYTES;

    private static final ObjectMapper MAPPER = Json.MAPPER;

    private final EmfDecoder emf = new EmfDecoder();

    static boolean isGzip(byte[] data) {
        return data.length >= 2 && (data[0] & 0xff) == 0x1f && (data[1] & 0xff) == 0x8b;
    }

    Decoded decode(byte[] gz) throws DecodeException {
        return decode(gz, DecodeBudget.forRecord());
    }

    Decoded decode(byte[] gz, DecodeBudget budget) throws DecodeException {
        JsonNode root;
        try {
            root = MAPPER.readTree(gunzip(gz, budget));
        } catch (JsonProcessingException e) {
            throw new DecodeException("invalid JSON in CloudWatch Logs payload: " + Json.reason(e), e);
        } catch (Gunzip.TooManyMembers e) {
            throw new DecodeException(
                    "gzip payload of more than " + DecodeLimits.MAX_GZIP_MEMBERS + " members (MAX_GZIP_MEMBERS)");
        } catch (IOException e) {
            throw new DecodeException("invalid gzip: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new DecodeException("CloudWatch Logs payload is not a JSON object");
        }
        String type = root.path("messageType").asText("");
        if ("CONTROL_MESSAGE".equals(type)) {
            return new Decoded(List.of(), 1);
        }
        if (!"DATA_MESSAGE".equals(type)) {
            throw new DecodeException("CloudWatch Logs payload: unknown messageType '" + type + "'");
        }
        String logGroup = root.path("logGroup").asText("");
        JsonNode events = root.get("logEvents");
        if (events == null || !events.isArray()) {
            throw new DecodeException("CloudWatch Logs payload: logEvents must be an array");
        }
        String function = ReportLineParser.functionName(logGroup);
        DecodeBudget.Datapoints out = budget.unit();
        int skipped = 0;
        for (int i = 0; i < events.size(); i++) {
            JsonNode ev = events.get(i);
            JsonNode msgNode = ev.get("message");
            JsonNode tsNode = ev.get("timestamp");
            if (msgNode == null || !msgNode.isTextual() || tsNode == null || !tsNode.canConvertToLong()) {
                throw new DecodeException("logEvents[" + i + "]: needs a string message and a numeric timestamp");
            }
            String message = msgNode.asText();
            long ts = tsNode.asLong();
            String trimmed = message.stripLeading();
            String where = "logEvents[" + i + "]";
            // Only JSON lines that mention a marker are parsed: most JSON application logs are skipped unread.
            if (trimmed.startsWith("{")
                    && (trimmed.contains("\"_aws\"") || trimmed.contains(ReportLineParser.JSON_TYPE))) {
                JsonNode doc = parseJsonEvent(trimmed, where);
                if (doc.has("_aws")) {
                    emf.decode(doc, ts, where, out);
                } else if (ReportLineParser.isJsonReport(doc)) {
                    ReportLineParser.parseJson(doc, ts, function, where, out);
                } else {
                    skipped++;
                }
            } else if (trimmed.startsWith(ReportLineParser.PREFIX)) {
                ReportLineParser.parse(trimmed, ts, function, where, out);
            } else {
                skipped++;
            }
        }
        return new Decoded(out, skipped);
    }

    private static JsonNode parseJsonEvent(String message, String where) throws DecodeException {
        try {
            JsonNode doc = MAPPER.readTree(message);
            if (doc == null || !doc.isObject()) {
                throw new DecodeException(where + ": invalid EMF JSON: expected an object");
            }
            return doc;
        } catch (JsonProcessingException e) {
            String kind = message.contains("\"_aws\"") ? "EMF" : "platform.report";
            throw new DecodeException(where + ": invalid " + kind + " JSON: " + Json.reason(e), e);
        }
    }

    private static byte[] gunzip(byte[] gz, DecodeBudget budget) throws IOException {
        int limit = budget.inflateLimit(MAX_DECOMPRESSED_BYTES);
        byte[] out;
        try {
            out = Gunzip.bytes(gz, limit, DecodeLimits.MAX_GZIP_MEMBERS);
        } catch (Gunzip.TooLarge e) {
            throw budget.inflatedTooMuch("gzip payload", MAX_DECOMPRESSED_BYTES, "MAX_DECOMPRESSED_BYTES");
        }
        budget.inflated(out.length);
        return out;
    }
}
