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
package dev.pulse.query;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import dev.pulse.model.ValidationException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses and validates a {@code POST /query} body. Every rejection names the field, so a client can fix its
 * request without reading server logs.
 */
public final class QueryParser {

    /**
     * No number longer than 100 characters is read (an epoch in milliseconds has 13 digits): converting the body's
     * 64 KB of digits to a BigInteger takes half a second. A longer one is refused naming its field.
     */
    private static final int MAX_NUMBER_LENGTH = 100;

    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNumberLength(MAX_NUMBER_LENGTH)
                    .maxNestingDepth(32)
                    .build())
            .build());
    private static final long MINUTE = 60_000L;
    /** 9999-12-31T23:59:59.999Z: keeps every later sum of instants and periods far from overflow. */
    private static final long MAX_INSTANT = 253_402_300_799_999L;

    private static final DatapointValidator NAMES = DatapointValidator.create();
    /**
     * Longest instant or duration text read (an ISO-8601 instant with nanoseconds and an offset is 35 characters):
     * a longer one is refused by its length, before any parsing.
     */
    static final int MAX_VALUE_LENGTH = 64;
    /** Longest nextToken: a series offset and a fingerprint, base64, are under 30 characters. */
    private static final int MAX_TOKEN_LENGTH = 100;

    private QueryParser() {}

    public static NativeQuery parse(String body) throws BadRequestException {
        if (body == null || body.isBlank()) {
            throw new BadRequestException("MissingField", "request body is required", null);
        }
        if (body.length() > QueryLimits.MAX_BODY_BYTES) {
            throw new BadRequestException(
                    "LimitExceeded", "request body is larger than " + QueryLimits.MAX_BODY_BYTES + " bytes", null);
        }
        JsonNode root;
        JsonParser parser = null;
        try {
            parser = JSON.createParser(body);
            root = JSON.readTree(parser);
        } catch (StreamConstraintsException e) {
            String field = field(parser.getParsingContext().pathAsPointer());
            if (e.getMessage().startsWith("Number value length") && !field.isEmpty()) {
                throw new BadRequestException(
                        "InvalidField", field + " is a number longer than " + MAX_NUMBER_LENGTH + " characters", field);
            }
            throw new BadRequestException("MalformedJson", "body is not valid JSON: " + e.getOriginalMessage(), null);
        } catch (JsonProcessingException e) {
            throw new BadRequestException("MalformedJson", "body is not valid JSON: " + e.getOriginalMessage(), null);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e); // reading a String does no I/O
        } finally {
            if (parser != null) {
                try {
                    parser.close();
                } catch (java.io.IOException ignored) {
                    // a String parser holds nothing to release
                }
            }
        }
        if (root == null || !root.isObject()) {
            throw new BadRequestException("MalformedJson", "body must be a JSON object", null);
        }
        List<SeriesSpec> series = series(root.get("series"));
        // Whole minutes at both ends: the finest level stores minutes, so a bucket never holds part of one.
        long start = Math.floorDiv(instant(root.get("start"), "start"), MINUTE) * MINUTE;
        long end = Math.floorDiv(instant(root.get("end"), "end") + MINUTE - 1, MINUTE) * MINUTE;
        if (end <= start) {
            throw new BadRequestException("InvalidField", "end must be after start", "end");
        }
        if (end - start > QueryLimits.MAX_RANGE.toMillis()) {
            throw new BadRequestException(
                    "LimitExceeded", "range is longer than " + QueryLimits.MAX_RANGE.toDays() + " days", "end");
        }
        long period = period(root.get("period"));
        List<Stat> stats = stats(root.get("stats"));
        long buckets = (end - start + period * 1000 - 1) / (period * 1000);
        if (buckets > QueryLimits.MAX_BUCKETS) {
            throw new BadRequestException(
                    "LimitExceeded",
                    "range / period gives " + buckets + " buckets, at most " + QueryLimits.MAX_BUCKETS
                            + " allowed: use a longer period",
                    "period");
        }
        int offset = 0;
        JsonNode token = root.get("nextToken");
        if (token != null && !token.isNull()) {
            offset = offset(token, fingerprint(series, start, end, period, stats), series.size());
        }
        return new NativeQuery(series, start, end, period, stats, offset);
    }

    /** A JSON pointer as this API names fields: {@code /series/0/name} is {@code series[0].name}. */
    private static String field(JsonPointer pointer) {
        StringBuilder sb = new StringBuilder();
        for (JsonPointer p = pointer; p != null && !p.matches(); p = p.tail()) {
            if (p.mayMatchElement() && !sb.isEmpty()) {
                sb.append('[').append(p.getMatchingIndex()).append(']');
            } else {
                sb.append(sb.isEmpty() ? "" : ".").append(p.getMatchingProperty());
            }
        }
        return sb.toString();
    }

    /** The token that continues {@code request} at series {@code offset}. */
    public static String nextToken(NativeQuery request, int offset) {
        String raw = offset + ":"
                + fingerprint(
                        request.series(), request.start(), request.end(), request.periodSeconds(), request.stats());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    private static List<SeriesSpec> series(JsonNode node) throws BadRequestException {
        if (node == null || node.isNull()) {
            throw new BadRequestException("MissingField", "series is required", "series");
        }
        if (!node.isArray() || node.isEmpty()) {
            throw new BadRequestException("InvalidField", "series must be a non-empty array", "series");
        }
        if (node.size() > QueryLimits.MAX_SERIES) {
            throw new BadRequestException(
                    "LimitExceeded",
                    node.size() + " series requested, at most " + QueryLimits.MAX_SERIES + " allowed",
                    "series");
        }
        List<SeriesSpec> out = new ArrayList<>(node.size());
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < node.size(); i++) {
            String at = "series[" + i + "]";
            JsonNode s = node.get(i);
            if (!s.isObject()) {
                throw new BadRequestException("InvalidField", at + " must be an object", at);
            }
            JsonNode name = s.get("name");
            if (name == null || !name.isTextual()) {
                throw new BadRequestException(
                        name == null ? "MissingField" : "InvalidField", at + ".name must be a string", at + ".name");
            }
            Map<String, String> dims = new HashMap<>();
            JsonNode d = s.get("dims");
            if (d != null && !d.isNull()) {
                if (!d.isObject()) {
                    throw new BadRequestException(
                            "InvalidField", at + ".dims must be an object of strings", at + ".dims");
                }
                for (Iterator<Map.Entry<String, JsonNode>> it = d.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    if (!e.getValue().isTextual()) {
                        throw new BadRequestException(
                                "InvalidField", at + ".dims." + e.getKey() + " must be a string", at + ".dims");
                    }
                    dims.put(e.getKey(), e.getValue().asText());
                }
            }
            try {
                // The same limits as ingest: a name that could never have been stored is a client error.
                NAMES.validate(new Datapoint(name.asText(), dims, NAMES.nowMillis(), 0, null));
            } catch (ValidationException e) {
                String field = e.getMessage().startsWith("name") ? at + ".name" : at + ".dims";
                throw new BadRequestException("InvalidField", at + ": " + e.getMessage(), field);
            }
            SeriesSpec spec = new SeriesSpec(name.asText(), Map.copyOf(dims));
            Integer earlier = seen.putIfAbsent(spec.key(), i);
            if (earlier != null) {
                throw new BadRequestException(
                        "InvalidField", at + " is the same series as series[" + earlier + "]", at);
            }
            out.add(spec);
        }
        return out;
    }

    static long instant(JsonNode node, String field) throws BadRequestException {
        long t = parseInstant(node, field);
        if (t < 0 || t > MAX_INSTANT) {
            throw new BadRequestException("InvalidField", field + " must lie between 1970 and 9999", field);
        }
        return t;
    }

    private static long parseInstant(JsonNode node, String field) throws BadRequestException {
        if (node == null || node.isNull()) {
            throw new BadRequestException("MissingField", field + " is required", field);
        }
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            return node.asLong();
        }
        if (node.isTextual() && node.asText().length() <= MAX_VALUE_LENGTH) {
            String s = node.asText();
            try {
                return Instant.parse(s).toEpochMilli();
            } catch (DateTimeParseException | ArithmeticException e) {
                try {
                    return OffsetDateTime.parse(s).toInstant().toEpochMilli();
                } catch (DateTimeParseException | ArithmeticException e2) {
                    // fall through to the error below
                }
            }
        }
        throw new BadRequestException(
                "InvalidField",
                field + " must be an ISO-8601 instant (2026-11-21T12:00:00Z) or" + " epoch milliseconds",
                field);
    }

    static long period(JsonNode node) throws BadRequestException {
        if (node == null || node.isNull()) {
            throw new BadRequestException("MissingField", "period is required", "period");
        }
        long seconds;
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            seconds = node.asLong();
        } else if (node.isTextual() && node.asText().length() <= MAX_VALUE_LENGTH) {
            try {
                Duration d = Duration.parse(node.asText());
                if (d.getNano() != 0) {
                    throw new BadRequestException(
                            "InvalidField", "period must be whole seconds, a multiple of 60", "period");
                }
                seconds = d.getSeconds();
            } catch (DateTimeParseException | ArithmeticException e) {
                throw new BadRequestException(
                        "InvalidField", "period must be an ISO-8601 duration (PT5M) or seconds", "period");
            }
        } else {
            throw new BadRequestException(
                    "InvalidField", "period must be an ISO-8601 duration (PT5M) or seconds", "period");
        }
        if (seconds > QueryLimits.MAX_RANGE.toSeconds()) {
            throw new BadRequestException(
                    "LimitExceeded",
                    "period is longer than the longest range (" + QueryLimits.MAX_RANGE.toDays() + " days)",
                    "period");
        }
        if (seconds < 60 || seconds % 60 != 0) {
            throw new BadRequestException(
                    "InvalidField", "period must be a positive multiple of 60 seconds, got " + seconds, "period");
        }
        return seconds;
    }

    private static List<Stat> stats(JsonNode node) throws BadRequestException {
        if (node == null || node.isNull()) {
            throw new BadRequestException("MissingField", "stats is required", "stats");
        }
        if (!node.isArray() || node.isEmpty()) {
            throw new BadRequestException("InvalidField", "stats must be a non-empty array", "stats");
        }
        if (node.size() > QueryLimits.MAX_STATS) {
            throw new BadRequestException(
                    "LimitExceeded",
                    node.size() + " stats requested, at most " + QueryLimits.MAX_STATS + " allowed",
                    "stats");
        }
        Set<String> seen = new LinkedHashSet<>();
        List<Stat> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode s = node.get(i);
            Stat stat = s.isTextual() ? Stat.parse(s.asText()) : null;
            if (stat == null) {
                throw new BadRequestException(
                        "InvalidField",
                        "stats[" + i + "]: unknown stat " + s
                                + " (count, sum, avg, min, max or a percentile such as p50, p99.9)",
                        "stats[" + i + "]");
            }
            if (seen.add(stat.label())) {
                out.add(stat);
            }
        }
        return out;
    }

    private static int offset(JsonNode token, String fingerprint, int seriesCount) throws BadRequestException {
        try {
            if (!token.isTextual() || token.asText().length() > MAX_TOKEN_LENGTH) {
                throw new IllegalArgumentException();
            }
            String raw = new String(Base64.getUrlDecoder().decode(token.asText()), StandardCharsets.UTF_8);
            int colon = raw.indexOf(':');
            int offset = Integer.parseInt(raw.substring(0, colon));
            if (!raw.substring(colon + 1).equals(fingerprint) || offset <= 0 || offset >= seriesCount) {
                throw new IllegalArgumentException();
            }
            return offset;
        } catch (RuntimeException e) {
            throw new BadRequestException("InvalidField", "nextToken does not belong to this query", "nextToken");
        }
    }

    /** Ties a token to its query, so a token replayed with another query is refused rather than misread. */
    private static String fingerprint(List<SeriesSpec> series, long start, long end, long period, List<Stat> stats) {
        StringBuilder sb = new StringBuilder()
                .append(start)
                .append('/')
                .append(end)
                .append('/')
                .append(period);
        stats.forEach(s -> sb.append('/').append(s.label()));
        series.forEach(s -> sb.append('/').append(s.key()));
        return Integer.toHexString(sb.toString().hashCode());
    }
}
