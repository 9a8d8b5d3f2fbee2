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

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.model.DatapointValidator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/** Builds record payloads the way producers and CloudWatch Logs subscriptions do. */
final class Payloads {

    /** 2025-11-21T16:00:00Z: the design's example timestamp, truncated to the hour. */
    static final Instant NOW = Instant.parse("2025-11-21T16:00:00Z");

    static final long NOW_MS = NOW.toEpochMilli();

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Payloads() {}

    record LogEvent(String id, long timestamp, String message) {
        LogEvent(long timestamp, String message) {
            this(Long.toString(timestamp), timestamp, message);
        }
    }

    static DatapointValidator validatorAt(Instant now) {
        return new DatapointValidator(Clock.fixed(now, ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2));
    }

    static RecordDecoder decoderAt(Instant now) {
        return new RecordDecoder(validatorAt(now));
    }

    static RecordDecoder decoder() {
        return decoderAt(NOW);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] gzip(byte[] data) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
            gz.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The parts one after the other: gzip members concatenated as {@code cat a.gz b.gz} writes them (RFC 1952). */
    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** {@code count} empty gzip members (20 bytes each), then one member holding {@code content}. */
    static byte[] emptyMembersThen(int count, byte[] content) {
        byte[][] members = new byte[count + 1][];
        Arrays.fill(members, 0, count, gzip(new byte[0]));
        members[count] = gzip(content);
        return concat(members);
    }

    /** The JSON CloudWatch Logs hands to a subscription, before compression. */
    static String logsJson(String messageType, String logGroup, List<LogEvent> events) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("messageType", messageType);
        root.put("owner", "123456789012");
        root.put("logGroup", logGroup);
        root.put("logStream", "2025/11/21/[$LATEST]0123456789abcdef0123456789abcdef");
        root.putArray("subscriptionFilters").add("pulse");
        ArrayNode arr = root.putArray("logEvents");
        for (LogEvent e : events) {
            arr.addObject().put("id", e.id()).put("timestamp", e.timestamp()).put("message", e.message());
        }
        return root.toString();
    }

    static byte[] logs(String logGroup, LogEvent... events) {
        return gzip(utf8(logsJson("DATA_MESSAGE", logGroup, List.of(events))));
    }

    /** What CloudWatch Logs sends when a subscription filter is created to check the destination. */
    static byte[] controlMessage() {
        return gzip(utf8("""
                {"messageType":"CONTROL_MESSAGE","owner":"CloudwatchLogs","logGroup":"","logStream":"",
                 "subscriptionFilters":[],"logEvents":[{"id":"","timestamp":1763740800000,
                 "message":"CWL CONTROL MESSAGE: Checking health of destination Kinesis stream."}]}"""));
    }
}
