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

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * One delivery of Firehose's HTTP endpoint protocol 1.0: {@code {"requestId": ..., "timestamp": ..., "records":
 * [{"data": <base64>}, ...]}}, possibly gzip-compressed ({@code Content-Encoding: gzip}). Read with bounds checked while
 * reading: the body before and after inflation, the number of records, each record's size, the JSON's depth.
 *
 * @param requestId Firehose's id of the delivery, the same on every attempt at it (the protocol says so)
 * @param timestamp when Firehose made the delivery, epoch ms
 * @param records   the records' data, decoded from base64
 */
public record FirehoseRequest(String requestId, long timestamp, List<byte[]> records) {

    /** A compressed body inflates to at most this: a delivery holds at most a few MB of metrics (BufferingHints). */
    public static final int MAX_INFLATED_BYTES = 32 * 1024 * 1024;
    /** Records in one delivery. */
    public static final int MAX_RECORDS = 10_000;
    /** Firehose's own limit on a record is 1,000 KiB; its base64 is 4/3 of that. */
    public static final int MAX_RECORD_BYTES = 1_000 * 1024;
    /** The protocol's request ids are GUIDs; anything else is refused before it becomes part of a key. */
    private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9-]{1,64}");

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(4)
                    .maxStringLength(MAX_RECORD_BYTES / 3 * 4 + 4)
                    .maxNumberLength(20)
                    .build())
            .build();

    /** A delivery the endpoint cannot read: a 400 with the reason (Firehose retries, then backs it up to S3). */
    public static final class BadRequest extends Exception {
        public BadRequest(String message) {
            super(message);
        }
    }

    /** Parses {@code body}, inflating it first when {@code gzip}. */
    public static FirehoseRequest parse(byte[] body, boolean gzip) throws BadRequest {
        byte[] json = gzip ? inflate(body) : body;
        String requestId = null;
        Long timestamp = null;
        List<byte[]> records = null;
        try (JsonParser p = JSON.createParser(json)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "the body must be a JSON object");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken t = p.nextToken();
                switch (field) {
                    case "requestId" -> {
                        expect(
                                t == JsonToken.VALUE_STRING
                                        && REQUEST_ID.matcher(p.getText()).matches(),
                                "requestId: must be Firehose's request id (letters, digits and '-', at most 64)");
                        requestId = p.getText();
                    }
                    case "timestamp" -> {
                        expect(t == JsonToken.VALUE_NUMBER_INT, "timestamp: must be epoch milliseconds (an integer)");
                        timestamp = p.getLongValue();
                    }
                    case "records" -> records = records(p, t);
                    default -> p.skipChildren();
                }
            }
            expect(
                    p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null,
                    "the body must hold one JSON object");
        } catch (IOException e) {
            throw new BadRequest("the body is not Firehose's JSON: " + e.getMessage());
        }
        expect(requestId != null, "requestId: required");
        expect(timestamp != null, "timestamp: required");
        expect(records != null, "records: required");
        return new FirehoseRequest(requestId, timestamp, records);
    }

    private static List<byte[]> records(JsonParser p, JsonToken t) throws IOException, BadRequest {
        expect(t == JsonToken.START_ARRAY, "records: must be an array");
        List<byte[]> out = new ArrayList<>();
        while (p.nextToken() == JsonToken.START_OBJECT) {
            expect(out.size() < MAX_RECORDS, "records: more than " + MAX_RECORDS + " in one delivery (MAX_RECORDS)");
            byte[] data = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (field.equals("data")) {
                    expect(v == JsonToken.VALUE_STRING, "records[" + out.size() + "].data: must be a base64 string");
                    try {
                        data = Base64.getDecoder().decode(p.getText());
                    } catch (IllegalArgumentException e) {
                        throw new BadRequest("records[" + out.size() + "].data: not base64 (" + e.getMessage() + ")");
                    }
                    expect(
                            data.length <= MAX_RECORD_BYTES,
                            "records[" + out.size() + "].data: " + data.length + " bytes, more than Firehose's "
                                    + MAX_RECORD_BYTES + " (MAX_RECORD_BYTES)");
                } else {
                    p.skipChildren();
                }
            }
            expect(data != null, "records[" + out.size() + "].data: required");
            out.add(data);
        }
        expect(p.currentToken() == JsonToken.END_ARRAY, "records: must be an array of objects");
        return out;
    }

    /** Inflates at most {@link #MAX_INFLATED_BYTES}, refusing the body as soon as it would pass them. */
    static byte[] inflate(byte[] body) throws BadRequest {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body), 8192)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(MAX_INFLATED_BYTES, body.length * 4 + 64));
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                if (out.size() + n > MAX_INFLATED_BYTES) {
                    throw new BadRequest("the gzip body inflates to more than " + MAX_INFLATED_BYTES
                            + " bytes (MAX_INFLATED_BYTES)");
                }
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new BadRequest("Content-Encoding is gzip but the body is not gzip: " + e.getMessage());
        }
    }

    private static void expect(boolean ok, String reason) throws BadRequest {
        if (!ok) {
            throw new BadRequest(reason);
        }
    }
}
