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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import java.io.IOException;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * OTLP/JSON (the exporter's {@code otlp_json}) read into the same protobuf message the binary encoding gives, so
 * both encodings share one mapping. Follows the OTLP/JSON rules: lowerCamelCase keys (the proto field names are
 * accepted too), 64-bit integers as strings or numbers, enums as integers, unknown keys ignored. Written here,
 * with the Jackson the layer already has, because protobuf's own JsonFormat lives in protobuf-java-util, which
 * brings Gson and Guava (megabytes) into the layer; exemplars are skipped (Pulse does not store them, and their
 * ids are hex in OTLP/JSON, not the base64 of protobuf's JSON mapping).
 */
final class OtlpJson {

    /**
     * Trailing tokens fail: a second request or garbage after the first value must not be silently dropped. Tokens,
     * depth and duplicate keys are limited as the tree is read ({@link Json}).
     */
    private static final ObjectMapper MAPPER = Json.MAPPER;

    private static final Map<Descriptor, Map<String, FieldDescriptor>> FIELDS = new ConcurrentHashMap<>();

    private OtlpJson() {}

    static ExportMetricsServiceRequest parse(byte[] json) throws DecodeException {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new DecodeException("OTLP/JSON: invalid JSON: " + Json.reason(e), e);
        } catch (IOException e) {
            throw new DecodeException("OTLP/JSON: invalid JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new DecodeException("OTLP/JSON: the request must be a JSON object");
        }
        ExportMetricsServiceRequest.Builder b = ExportMetricsServiceRequest.newBuilder();
        merge(root, b, "$");
        return b.build();
    }

    private static void merge(JsonNode obj, Message.Builder b, String at) throws DecodeException {
        if (!obj.isObject()) {
            throw new DecodeException("OTLP/JSON " + at + ": expected an object");
        }
        Map<String, FieldDescriptor> fields = FIELDS.computeIfAbsent(b.getDescriptorForType(), OtlpJson::fieldsOf);
        for (Iterator<Map.Entry<String, JsonNode>> it = obj.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            FieldDescriptor f = fields.get(e.getKey());
            JsonNode v = e.getValue();
            if (f == null || v.isNull() || "exemplars".equals(f.getName())) {
                continue;
            }
            String fat = at + "." + e.getKey();
            if (f.isRepeated()) {
                if (!v.isArray()) {
                    throw new DecodeException("OTLP/JSON " + fat + ": expected an array");
                }
                for (int i = 0; i < v.size(); i++) {
                    b.addRepeatedField(f, value(f, v.get(i), b, fat + "[" + i + "]"));
                }
            } else {
                b.setField(f, value(f, v, b, fat));
            }
        }
    }

    private static Object value(FieldDescriptor f, JsonNode v, Message.Builder parent, String at)
            throws DecodeException {
        try {
            // Returned into Object, each arm boxes its own type (a Boolean stays a Boolean, a Float a Float).
            return switch (f.getJavaType()) {
                case MESSAGE -> {
                    Message.Builder child = parent.newBuilderForField(f);
                    merge(v, child, at);
                    yield child.build();
                }
                case STRING -> text(v, at);
                case BOOLEAN -> {
                    if (!v.isBoolean()) {
                        throw new DecodeException("OTLP/JSON " + at + ": expected true or false");
                    }
                    yield v.booleanValue();
                }
                case DOUBLE -> v.isNumber() ? v.doubleValue() : Double.parseDouble(text(v, at));
                case FLOAT -> v.isNumber() ? v.floatValue() : Float.parseFloat(text(v, at));
                case LONG -> int64(f, v, at);
                case INT -> int32(f, v, at);
                case ENUM -> {
                    if (v.isIntegralNumber()) {
                        if (!v.canConvertToInt()) {
                            throw new DecodeException(
                                    "OTLP/JSON " + at + ": enum number " + v + " out of the int32 range");
                        }
                        yield f.getEnumType().findValueByNumberCreatingIfUnknown(v.intValue());
                    }
                    yield requireEnum(f, text(v, at), at);
                }
                case BYTE_STRING -> ByteString.copyFrom(Base64.getDecoder().decode(text(v, at)));
            };
        } catch (NumberFormatException e) {
            throw new DecodeException("OTLP/JSON " + at + ": not a number: " + v, e);
        } catch (IllegalArgumentException e) {
            throw new DecodeException("OTLP/JSON " + at + ": " + e.getMessage(), e);
        }
    }

    private static boolean unsigned(FieldDescriptor f) {
        return switch (f.getType()) {
            case UINT64, FIXED64, UINT32, FIXED32 -> true;
            default -> false;
        };
    }

    /**
     * int64/sint64/sfixed64 are signed; uint64/fixed64 above 2^63 (not used for times before 2262) read as their
     * two's complement, as protobuf-java holds them.
     */
    private static long int64(FieldDescriptor f, JsonNode v, String at) throws DecodeException {
        if (v.isIntegralNumber()) {
            if (!unsigned(f) && !v.canConvertToLong()) {
                throw new DecodeException("OTLP/JSON " + at + ": " + v + " out of the int64 range");
            }
            return v.longValue();
        }
        String t = text(v, at);
        return unsigned(f) ? Long.parseUnsignedLong(t) : Long.parseLong(t);
    }

    /** int32/sint32/sfixed32 in the int32 range; uint32/fixed32 in 0..2^32-1, held as their two's complement. */
    private static int int32(FieldDescriptor f, JsonNode v, String at) throws DecodeException {
        long x;
        if (v.isIntegralNumber()) {
            if (!v.canConvertToLong()) {
                throw new DecodeException(
                        "OTLP/JSON " + at + ": " + v + " out of the " + (unsigned(f) ? "uint32" : "int32") + " range");
            }
            x = v.longValue();
        } else {
            x = Long.parseLong(text(v, at));
        }
        boolean ok = unsigned(f) ? x >= 0 && x <= 0xFFFF_FFFFL : x >= Integer.MIN_VALUE && x <= Integer.MAX_VALUE;
        if (!ok) {
            throw new DecodeException(
                    "OTLP/JSON " + at + ": " + x + " out of the " + (unsigned(f) ? "uint32" : "int32") + " range");
        }
        return (int) x;
    }

    private static Object requireEnum(FieldDescriptor f, String name, String at) throws DecodeException {
        var ev = f.getEnumType().findValueByName(name);
        if (ev == null) {
            throw new DecodeException("OTLP/JSON " + at + ": unknown value " + name);
        }
        return ev;
    }

    private static String text(JsonNode v, String at) throws DecodeException {
        if (!v.isTextual()) {
            throw new DecodeException("OTLP/JSON " + at + ": expected a string");
        }
        return v.textValue();
    }

    private static Map<String, FieldDescriptor> fieldsOf(Descriptor d) {
        Map<String, FieldDescriptor> m = new HashMap<>();
        for (FieldDescriptor f : d.getFields()) {
            m.put(f.getName(), f);
            m.put(f.getJsonName(), f);
        }
        return m;
    }
}
