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

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.pulse.model.Datapoint;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Native datapoints: one JSON object, an array of objects, or NDJSON (any sequence of objects or arrays
 * separated by whitespace). Streaming parse, no intermediate tree: this is the ingest hot path.
 */
final class NativeDecoder {

    /**
     * Streaming, so no token limit is needed (nothing is built per token); a native datapoint nests two levels, and its
     * strings are names, dimensions and units of at most 255 characters.
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(16)
                    .maxStringLength(64 * 1024)
                    .maxNumberLength(DecodeLimits.MAX_JSON_NUMBER_CHARS)
                    .build())
            .build();

    private static final int NAME = 1;
    private static final int DIMS = 2;
    private static final int TS = 4;
    private static final int VALUE = 8;
    private static final int UNIT = 16;

    Decoded decode(byte[] data) throws DecodeException {
        return decode(data, DecodeBudget.forRecord());
    }

    Decoded decode(byte[] data, DecodeBudget budget) throws DecodeException {
        List<Datapoint> out = budget.unit();
        try (JsonParser p = JSON.createParser(data)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t == JsonToken.START_OBJECT) {
                    out.add(readDatapoint(p, out.size()));
                } else if (t == JsonToken.START_ARRAY) {
                    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                        if (t != JsonToken.START_OBJECT) {
                            throw new DecodeException(
                                    "datapoint #" + out.size() + ": expected a JSON object, found " + t);
                        }
                        out.add(readDatapoint(p, out.size()));
                    }
                } else {
                    throw new DecodeException("expected a JSON object or array, found " + t);
                }
            }
        } catch (JsonProcessingException e) {
            throw new DecodeException("invalid JSON: " + Json.reason(e), e);
        } catch (IOException e) {
            throw new DecodeException("unreadable record: " + e.getMessage(), e);
        }
        if (out.isEmpty()) {
            throw new DecodeException("no datapoints in record");
        }
        return new Decoded(out, 0);
    }

    private static Datapoint readDatapoint(JsonParser p, int index) throws IOException, DecodeException {
        String name = null;
        Map<String, String> dims = Map.of();
        long ts = 0;
        boolean hasTs = false;
        double value = Double.NaN;
        boolean hasValue = false;
        String unit = null;
        int seen = 0;
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken t = p.nextToken();
            // A field given twice is poison, not last-wins: which value was meant cannot be known. A bit per known
            // field, no set per object (this is the hot path); unknown fields are skipped unread either way.
            int bit = switch (field) {
                case "name" -> NAME;
                case "dims" -> DIMS;
                case "ts" -> TS;
                case "value" -> VALUE;
                case "unit" -> UNIT;
                default -> 0;
            };
            if ((seen & bit) != 0) {
                throw new DecodeException("datapoint #" + index + ": field " + field
                        + " appears twice (duplicate JSON keys are refused)");
            }
            seen |= bit;
            switch (field) {
                case "name" -> name = text(p, t, "name", index);
                case "dims" -> dims = readDims(p, t, index);
                case "ts" -> {
                    ts = readTimestamp(p, t, index);
                    hasTs = true;
                }
                case "value" -> {
                    if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
                        throw new DecodeException("datapoint #" + index + ": value must be a number, found " + t);
                    }
                    value = p.getDoubleValue();
                    hasValue = true;
                }
                case "unit" -> unit = t == JsonToken.VALUE_NULL ? null : text(p, t, "unit", index);
                default -> p.skipChildren();
            }
        }
        if (name == null) {
            throw new DecodeException("datapoint #" + index + ": missing field name");
        }
        if (!hasValue) {
            throw new DecodeException("datapoint #" + index + ": missing field value");
        }
        if (!hasTs) {
            throw new DecodeException("datapoint #" + index + ": missing field ts");
        }
        return new Datapoint(name, dims, ts, value, unit);
    }

    private static Map<String, String> readDims(JsonParser p, JsonToken t, int index)
            throws IOException, DecodeException {
        if (t == JsonToken.VALUE_NULL) {
            return Map.of();
        }
        if (t != JsonToken.START_OBJECT) {
            throw new DecodeException("datapoint #" + index + ": dims must be an object of strings, found " + t);
        }
        Map<String, String> dims = new HashMap<>(8);
        String key;
        while ((key = p.nextFieldName()) != null) {
            if (dims.size() >= DecodeLimits.MAX_DIMENSIONS) {
                // Counted while reading: the 31st key is refused before it is stored.
                throw new DecodeException("datapoint #" + index + ": dims: " + (DecodeLimits.MAX_DIMENSIONS + 1)
                        + " dimensions, at most " + DecodeLimits.MAX_DIMENSIONS + " allowed (MAX_DIMENSIONS)");
            }
            JsonToken vt = p.nextToken();
            if (vt != JsonToken.VALUE_STRING) {
                throw new DecodeException("datapoint #" + index + ": dims." + key + " must be a string, found " + vt);
            }
            if (dims.put(key, p.getText()) != null) {
                throw new DecodeException("datapoint #" + index + ": dims." + key + " appears twice");
            }
        }
        return dims;
    }

    private static long readTimestamp(JsonParser p, JsonToken t, int index) throws IOException, DecodeException {
        if (t == JsonToken.VALUE_NUMBER_INT) {
            return p.getLongValue();
        }
        if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            double d = p.getDoubleValue();
            if (!Double.isFinite(d)) {
                throw new DecodeException("datapoint #" + index + ": ts is not finite");
            }
            return (long) d;
        }
        if (t == JsonToken.VALUE_STRING) {
            return parseIsoTimestamp(p.getText(), "datapoint #" + index + ": ts");
        }
        throw new DecodeException(
                "datapoint #" + index + ": ts must be epoch milliseconds or an ISO-8601 string, found " + t);
    }

    /** ISO-8601 instant with an offset or Z, e.g. {@code 2025-11-21T16:00:00.123Z}. */
    static long parseIsoTimestamp(String s, String field) throws DecodeException {
        try {
            return Instant.parse(s).toEpochMilli();
        } catch (DateTimeParseException e) {
            try {
                return OffsetDateTime.parse(s).toInstant().toEpochMilli();
            } catch (DateTimeParseException e2) {
                throw new DecodeException(field + ": '" + s + "' is not an ISO-8601 instant with an offset");
            }
        }
    }

    private static String text(JsonParser p, JsonToken t, String field, int index) throws IOException, DecodeException {
        if (t != JsonToken.VALUE_STRING) {
            throw new DecodeException("datapoint #" + index + ": " + field + " must be a string, found " + t);
        }
        return p.getText();
    }
}
