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

import static dev.pulse.codec.OtlpDecodeEdgeCasesTest.DECODER;
import static dev.pulse.codec.OtlpDecodeEdgeCasesTest.gauge;
import static dev.pulse.codec.OtlpDecodeEdgeCasesTest.kv;
import static dev.pulse.codec.OtlpDecodeEdgeCasesTest.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * OTLP attributes as dims (docs/otlp-input.md, "Dims"): array and key-value-list values render as JSON
 * ({@link OtlpDecoder#text}), as OpenTelemetry asks of protocols without such values. Every rendering is JSON that
 * Jackson reads back as the value's own tree (random trees, control characters, non-BMP characters, nesting), so two
 * values of different JSON trees never share a series; by the spec's lossy string form, bytes and strings, and NaN and
 * "NaN", render alike inside arrays. The JSON form is longer than the comma-joined text of releases before it (quotes,
 * escapes), which the CHANGELOG's upgrade note states: which series change key, and that a value can pass the
 * 255-character limit.
 */
class OtlpAttributeDimsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /**
     * Documented behaviour (CHANGELOG upgrade note, docs/otlp-input.md "Dims"): the 254-character comma-joined value
     * {@code [a,b,...]} fits the 255-character limit; its JSON {@code ["a","b",...]} has two more characters per
     * element, so the datapoint is invalid and, because one invalid datapoint poisons the record, the whole export
     * request (every metric of every resource in it) is poison. {@code process.command_args} is a standard
     * string-array resource attribute. As for any value past the limit, the reason names the attribute, so the
     * request reaches the DLQ and nothing is lost; the Collector's resource processor is where such attributes are
     * dropped.
     */
    @Test
    void decode_whenArrayAttributeFitsTheLimitOnlyAsCommaJoinedText_isPoisonNamingIt() {
        ArrayValue.Builder args = ArrayValue.newBuilder();
        for (String a : List.of(
                "/usr/lib/jvm/java-21/bin/java",
                "-XX:+UseG1GC",
                "-Xmx2g",
                "-Dotel.service.name=checkout",
                "-javaagent:/opt/otel/opentelemetry-javaagent.jar",
                "-jar",
                "/srv/checkout/checkout-service-1.42.0.jar",
                "--spring.profiles.active=prod,eu-west-1",
                "--server.port=8080",
                "-Duser.timezone=UTC")) {
            args.addValues(AnyValue.newBuilder().setStringValue(a));
        }
        KeyValue commandArgs = KeyValue.newBuilder()
                .setKey("process.command_args")
                .setValue(AnyValue.newBuilder().setArrayValue(args))
                .build();
        String commaJoined = commaJoinedText(commandArgs.getValue());
        String json = OtlpDecoder.text(commandArgs.getValue());
        assertThat(commaJoined.length()).as("the comma-joined rendering").isLessThanOrEqualTo(255);
        assertThat(json.length()).as("the JSON rendering").isGreaterThan(255);

        byte[] pb = request(
                        Resource.newBuilder()
                                .addAttributes(kv("service.name", "checkout"))
                                .addAttributes(commandArgs)
                                .build(),
                        gauge("requests", 1.0),
                        gauge("errors", 0.0))
                .toByteArray();

        assertThatThrownBy(() -> DECODER.decode(pb))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("process.command_args")
                .hasMessageContaining("at most 255");
    }

    /** Random trees (strings with quotes, backslashes, control and non-BMP characters; numbers; nesting) read back exactly. */
    @Test
    void text_whenRandomArraysAndLists_isJsonOfTheSameTree() throws Exception {
        Random random = new Random(7);
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            AnyValue v = random.nextBoolean() ? array(random, 0) : kvlist(random, 0);
            String text = OtlpDecoder.text(v);
            JsonNode expected = tree(v);

            assertThat(JSON.readTree(text)).as(text).isEqualTo(expected);
            String other = seen.putIfAbsent(text, expected.toString());
            assertThat(other == null || other.equals(expected.toString()))
                    .as("two trees render as " + text)
                    .isTrue();
        }
    }

    /**
     * By the spec's rule (lossy string form, as opentelemetry-go renders it): inside an array bytes are their base64
     * string and NaN is "NaN", so they render as the string of the same text; at the top level a string "[1]" and an
     * array [1] render alike. Producers do not send one key with values of different types, so such values never meet
     * in one series.
     */
    @Test
    void text_whenTypesDifferButStringFormsAgree_collideAsTheSpecAllows() {
        assertThat(OtlpDecoder.text(
                        arrayOf(AnyValue.newBuilder().setDoubleValue(Double.NaN).build())))
                .isEqualTo(OtlpDecoder.text(arrayOf(str("NaN"))))
                .isEqualTo("[\"NaN\"]");
        assertThat(OtlpDecoder.text(arrayOf(AnyValue.newBuilder()
                        .setBytesValue(ByteString.copyFrom(new byte[] {1, 2}))
                        .build())))
                .isEqualTo(OtlpDecoder.text(arrayOf(str("AQI="))))
                .isEqualTo("[\"AQI=\"]");
        assertThat(OtlpDecoder.text(arrayOf(AnyValue.newBuilder().setIntValue(1).build())))
                .isEqualTo(OtlpDecoder.text(str("[1]")));
    }

    /**
     * Which attributes start a new series at the upgrade to JSON dims, as the CHANGELOG's upgrade note lists them:
     * string, bytes and key-value-list arrays, arrays with NaN or infinities, and arrays with an empty element change
     * key; integer, boolean and finite double arrays keep theirs.
     */
    @Test
    void text_whenComparedWithTheCommaJoinedRendering_changesTheKindsTheUpgradeNoteLists() {
        AnyValue ints = arrayOf(
                AnyValue.newBuilder().setIntValue(1).build(),
                AnyValue.newBuilder().setIntValue(2).build());
        AnyValue doubles = arrayOf(
                AnyValue.newBuilder().setDoubleValue(0.5).build(),
                AnyValue.newBuilder().setDoubleValue(1e20).build());
        AnyValue bools = arrayOf(AnyValue.newBuilder().setBoolValue(true).build());
        assertThat(OtlpDecoder.text(ints)).isEqualTo(commaJoinedText(ints));
        assertThat(OtlpDecoder.text(doubles))
                .isEqualTo(commaJoinedText(doubles))
                .isEqualTo("[0.5,1.0E20]");
        assertThat(OtlpDecoder.text(bools)).isEqualTo(commaJoinedText(bools));

        AnyValue nan = arrayOf(
                AnyValue.newBuilder().setDoubleValue(Double.POSITIVE_INFINITY).build());
        AnyValue empty = arrayOf(AnyValue.getDefaultInstance(), str("a"));
        AnyValue bytes = arrayOf(AnyValue.newBuilder()
                .setBytesValue(ByteString.copyFrom(new byte[] {1}))
                .build());
        assertThat(OtlpDecoder.text(nan)).isNotEqualTo(commaJoinedText(nan)).isEqualTo("[\"Infinity\"]");
        assertThat(OtlpDecoder.text(empty)).isNotEqualTo(commaJoinedText(empty)).isEqualTo("[null,\"a\"]");
        assertThat(OtlpDecoder.text(bytes)).isNotEqualTo(commaJoinedText(bytes));
    }

    /**
     * A data-point attribute with an empty value removes the resource attribute of the same key from the dims
     * (docs/otlp-input.md, "Dims"): the data point's value wins, and an empty value cannot be a dim.
     */
    @Test
    void decode_whenEmptyPointAttribute_removesResourceAttributeOfSameKey() throws Exception {
        byte[] pb = request(
                        Resource.newBuilder()
                                .addAttributes(kv("service.name", "checkout"))
                                .addAttributes(kv("env", "prod"))
                                .build(),
                        gauge("g", 1.0, kv("env", "")))
                .toByteArray();
        assertThat(DECODER.decode(pb).datapoints().get(0).dims())
                .doesNotContainKey("env")
                .containsEntry("service.name", "checkout");
    }

    /** ["a,b"] and ["a","b"] are different values, so they must stay different series: arrays render as JSON. */
    @Test
    void text_whenArrayElementHasComma_staysApartFromTwoElements() {
        AnyValue oneElem = AnyValue.newBuilder()
                .setArrayValue(
                        ArrayValue.newBuilder().addValues(AnyValue.newBuilder().setStringValue("a,b")))
                .build();
        AnyValue twoElems = AnyValue.newBuilder()
                .setArrayValue(ArrayValue.newBuilder()
                        .addValues(AnyValue.newBuilder().setStringValue("a"))
                        .addValues(AnyValue.newBuilder().setStringValue("b")))
                .build();
        assertThat(OtlpDecoder.text(oneElem)).isEqualTo("[\"a,b\"]");
        assertThat(OtlpDecoder.text(twoElems)).isEqualTo("[\"a\",\"b\"]");
    }

    @ParameterizedTest
    @MethodSource("jsonValues")
    void text_whenArrayOrList_isJsonThatJacksonReadsBack(AnyValue v, String expected) throws Exception {
        String text = OtlpDecoder.text(v);

        assertThat(text).isEqualTo(expected);
        assertThat(JSON.readTree(text)).isNotNull();
    }

    static Stream<Arguments> jsonValues() {
        Function<AnyValue[], AnyValue> array = vs -> AnyValue.newBuilder()
                .setArrayValue(ArrayValue.newBuilder().addAllValues(List.of(vs)))
                .build();
        AnyValue quote = AnyValue.newBuilder().setStringValue("say \"hi\"\\ \n").build();
        AnyValue nan = AnyValue.newBuilder().setDoubleValue(Double.NaN).build();
        AnyValue one = AnyValue.newBuilder().setIntValue(1).build();
        AnyValue half = AnyValue.newBuilder().setDoubleValue(0.5).build();
        AnyValue yes = AnyValue.newBuilder().setBoolValue(true).build();
        AnyValue bytes = AnyValue.newBuilder()
                .setBytesValue(ByteString.copyFrom(new byte[] {1, 2}))
                .build();
        AnyValue list = AnyValue.newBuilder()
                .setKvlistValue(KeyValueList.newBuilder()
                        .addValues(kv("k", "v"))
                        .addValues(KeyValue.newBuilder().setKey("n").setValue(array.apply(new AnyValue[] {one}))))
                .build();
        return Stream.of(
                Arguments.of(array.apply(new AnyValue[] {one, half}), "[1,0.5]"),
                Arguments.of(array.apply(new AnyValue[] {yes, bytes}), "[true,\"AQI=\"]"),
                Arguments.of(array.apply(new AnyValue[] {quote, nan}), "[\"say \\\"hi\\\"\\\\ \\n\",\"NaN\"]"),
                Arguments.of(array.apply(new AnyValue[] {}), "[]"),
                Arguments.of(list, "{\"k\":\"v\",\"n\":[1]}"));
    }

    // ---------------------------------------------------------------- helpers

    /**
     * The comma-joined rendering of releases before JSON dims ({@code [a,b]}, {@code {k=v}}), which the CHANGELOG's
     * upgrade note compares with.
     */
    static String commaJoinedText(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case INT_VALUE -> Long.toString(v.getIntValue());
            case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
            case BYTES_VALUE ->
                Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray());
            case ARRAY_VALUE -> {
                StringBuilder sb = new StringBuilder("[");
                for (int i = 0; i < v.getArrayValue().getValuesCount(); i++) {
                    sb.append(i == 0 ? "" : ",")
                            .append(commaJoinedText(v.getArrayValue().getValues(i)));
                }
                yield sb.append(']').toString();
            }
            case KVLIST_VALUE -> {
                StringBuilder sb = new StringBuilder("{");
                for (int i = 0; i < v.getKvlistValue().getValuesCount(); i++) {
                    KeyValue kv = v.getKvlistValue().getValues(i);
                    sb.append(i == 0 ? "" : ",").append(kv.getKey()).append('=').append(commaJoinedText(kv.getValue()));
                }
                yield sb.append('}').toString();
            }
            default -> "";
        };
    }

    private static AnyValue str(String s) {
        return AnyValue.newBuilder().setStringValue(s).build();
    }

    private static AnyValue arrayOf(AnyValue... vs) {
        return AnyValue.newBuilder()
                .setArrayValue(ArrayValue.newBuilder().addAllValues(List.of(vs)))
                .build();
    }

    private static String randomString(Random r) {
        String[] pieces = {
            "a", ",", "\"", "\\", "\n", "\u0000", "\u001f", "\u007f", "é", "\u2028", "😀", "]", "}", "=", ":", " "
        };
        StringBuilder sb = new StringBuilder();
        for (int i = r.nextInt(5); i > 0; i--) {
            sb.append(pieces[r.nextInt(pieces.length)]);
        }
        return sb.toString();
    }

    private static AnyValue leaf(Random r) {
        return switch (r.nextInt(6)) {
            case 0 -> str(randomString(r));
            case 1 -> AnyValue.newBuilder().setIntValue(r.nextInt(5) - 2L).build();
            case 2 ->
                AnyValue.newBuilder()
                        .setDoubleValue(List.of(0.5, -0.0, 1e20, 1e-7, 3.0).get(r.nextInt(5)))
                        .build();
            case 3 -> AnyValue.newBuilder().setBoolValue(r.nextBoolean()).build();
            case 4 -> AnyValue.getDefaultInstance();
            default -> AnyValue.newBuilder().setIntValue(Long.MIN_VALUE).build();
        };
    }

    private static AnyValue array(Random r, int depth) {
        ArrayValue.Builder b = ArrayValue.newBuilder();
        for (int i = r.nextInt(4); i > 0; i--) {
            b.addValues(
                    depth < 3 && r.nextInt(4) == 0
                            ? (r.nextBoolean() ? array(r, depth + 1) : kvlist(r, depth + 1))
                            : leaf(r));
        }
        return AnyValue.newBuilder().setArrayValue(b).build();
    }

    private static AnyValue kvlist(Random r, int depth) {
        KeyValueList.Builder b = KeyValueList.newBuilder();
        List<String> keys = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
            String k = randomString(r) + i; // unique keys, so the JSON object is the list
            keys.add(k);
            b.addValues(KeyValue.newBuilder()
                    .setKey(k)
                    .setValue(depth < 3 && r.nextInt(4) == 0 ? array(r, depth + 1) : leaf(r)));
        }
        return AnyValue.newBuilder().setKvlistValue(b).build();
    }

    /** The JSON tree a value must render as, built independently of {@link OtlpDecoder#text}. */
    private static JsonNode tree(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> NODES.textNode(v.getStringValue());
            case BOOL_VALUE -> NODES.booleanNode(v.getBoolValue());
            case INT_VALUE ->
                v.getIntValue() == (int) v.getIntValue()
                        ? NODES.numberNode((int) v.getIntValue())
                        : NODES.numberNode(v.getIntValue());
            case DOUBLE_VALUE -> NODES.numberNode(v.getDoubleValue());
            case BYTES_VALUE ->
                NODES.textNode(
                        Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray()));
            case ARRAY_VALUE -> {
                ArrayNode a = NODES.arrayNode();
                v.getArrayValue().getValuesList().forEach(e -> a.add(tree(e)));
                yield a;
            }
            case KVLIST_VALUE -> {
                ObjectNode o = NODES.objectNode();
                v.getKvlistValue().getValuesList().forEach(kv -> o.set(kv.getKey(), tree(kv.getValue())));
                yield o;
            }
            default -> NODES.nullNode();
        };
    }
}
