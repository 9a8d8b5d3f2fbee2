package dev.pulse.codec;

import static dev.pulse.codec.OtlpAdversarialReviewTest.DECODER;
import static dev.pulse.codec.OtlpAdversarialReviewTest.gauge;
import static dev.pulse.codec.OtlpAdversarialReviewTest.kv;
import static dev.pulse.codec.OtlpAdversarialReviewTest.request;
import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;

/**
 * Review (wt-rev2) of OTLP array and key-value-list attributes rendered as JSON ({@link OtlpDecoder#text}). What held:
 * every rendering is JSON that Jackson reads back as the value's own tree (random trees, control characters,
 * non-BMP characters, nesting), so no two values of different JSON trees collide. What remains by the spec's rule:
 * bytes and strings, and NaN and "NaN", render alike inside arrays. The regression: the JSON form is longer (quotes,
 * escapes), so a record whose array attribute fit the 255-character dimension limit before is poison now.
 */
class OtlpJsonDimsReviewTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /**
     * Was REPRO (regression, medium), kept as documented behaviour (CHANGELOG, docs/otlp-input.md): the 254-character value {@code [a,b,...]} passed the 255-character limit; its JSON
     * {@code ["a","b",...]} has two more characters per element, so the datapoint is invalid and, because one invalid
     * datapoint poisons the record, the whole export request (every metric of every resource in it) is no longer
     * stored. {@code process.command_args} is a standard string-array resource attribute. As for any value past the
     * limit, the request is poison with a reason naming the attribute, so it reaches the DLQ and nothing is lost; the
     * Collector's resource processor is where such attributes are dropped.
     */
    @Test
    void decode_whenArrayAttributeFitTheLimitOnlyBeforeTheUpgrade_isPoisonNamingIt() {
        ArrayValue.Builder args = ArrayValue.newBuilder();
        for (String a : List.of("/usr/lib/jvm/java-21/bin/java", "-XX:+UseG1GC", "-Xmx2g", "-Dotel.service.name=checkout",
                "-javaagent:/opt/otel/opentelemetry-javaagent.jar", "-jar", "/srv/checkout/checkout-service-1.42.0.jar",
                "--spring.profiles.active=prod,eu-west-1", "--server.port=8080", "-Duser.timezone=UTC")) {
            args.addValues(AnyValue.newBuilder().setStringValue(a));
        }
        KeyValue commandArgs = KeyValue.newBuilder().setKey("process.command_args").setValue(AnyValue.newBuilder().setArrayValue(args)).build();
        String before = oldText(commandArgs.getValue());
        String now = OtlpDecoder.text(commandArgs.getValue());
        assertThat(before.length()).as("the 938966c rendering").isLessThanOrEqualTo(255);
        assertThat(now.length()).as("the JSON rendering").isGreaterThan(255);

        byte[] pb = request(Resource.newBuilder().addAttributes(kv("service.name", "checkout")).addAttributes(commandArgs).build(),
                gauge("requests", 1.0), gauge("errors", 0.0)).toByteArray();

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DECODER.decode(pb)).isInstanceOf(DecodeException.class)
                .hasMessageContaining("process.command_args").hasMessageContaining("at most 255");
    }

    /** Held: random trees (strings with quotes, backslashes, control and non-BMP characters; numbers; nesting) read back exactly. */
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
            assertThat(other == null || other.equals(expected.toString())).as("two trees render as " + text).isTrue();
        }
    }

    /**
     * Held, by the spec's rule (lossy string form, as opentelemetry-go renders it): inside an array bytes are their
     * base64 string and NaN is "NaN", so they collide with the string of the same text; at the top level a string
     * "[1]" and an array [1] render alike. Producers do not send one key with different types, so this is noted, not
     * a defect.
     */
    @Test
    void text_whenTypesDifferButStringFormsAgree_collideAsTheSpecAllows() {
        assertThat(OtlpDecoder.text(arrayOf(AnyValue.newBuilder().setDoubleValue(Double.NaN).build())))
                .isEqualTo(OtlpDecoder.text(arrayOf(str("NaN")))).isEqualTo("[\"NaN\"]");
        assertThat(OtlpDecoder.text(arrayOf(AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {1, 2})).build())))
                .isEqualTo(OtlpDecoder.text(arrayOf(str("AQI=")))).isEqualTo("[\"AQI=\"]");
        assertThat(OtlpDecoder.text(arrayOf(AnyValue.newBuilder().setIntValue(1).build()))).isEqualTo(OtlpDecoder.text(str("[1]")));
    }

    /**
     * Which attributes start a new series at the upgrade: CHANGELOG says string arrays and key-value lists do and
     * numeric arrays keep their key; also arrays with NaN or infinities, bytes or an empty element change, and
     * boolean arrays keep theirs.
     */
    @Test
    void text_whenComparedWithTheEarlierRendering_changesExactlyTheseKinds() {
        AnyValue ints = arrayOf(AnyValue.newBuilder().setIntValue(1).build(), AnyValue.newBuilder().setIntValue(2).build());
        AnyValue doubles = arrayOf(AnyValue.newBuilder().setDoubleValue(0.5).build(), AnyValue.newBuilder().setDoubleValue(1e20).build());
        AnyValue bools = arrayOf(AnyValue.newBuilder().setBoolValue(true).build());
        assertThat(OtlpDecoder.text(ints)).isEqualTo(oldText(ints));
        assertThat(OtlpDecoder.text(doubles)).isEqualTo(oldText(doubles)).isEqualTo("[0.5,1.0E20]");
        assertThat(OtlpDecoder.text(bools)).isEqualTo(oldText(bools));

        AnyValue nan = arrayOf(AnyValue.newBuilder().setDoubleValue(Double.POSITIVE_INFINITY).build());
        AnyValue empty = arrayOf(AnyValue.getDefaultInstance(), str("a"));
        AnyValue bytes = arrayOf(AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {1})).build());
        assertThat(OtlpDecoder.text(nan)).isNotEqualTo(oldText(nan)).isEqualTo("[\"Infinity\"]");
        assertThat(OtlpDecoder.text(empty)).isNotEqualTo(oldText(empty)).isEqualTo("[null,\"a\"]");
        assertThat(OtlpDecoder.text(bytes)).isNotEqualTo(oldText(bytes));
    }

    // ---------------------------------------------------------------- helpers

    /** OtlpDecoder.text as of 938966c (before this change). */
    static String oldText(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case INT_VALUE -> Long.toString(v.getIntValue());
            case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
            case BYTES_VALUE -> Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray());
            case ARRAY_VALUE -> {
                StringBuilder sb = new StringBuilder("[");
                for (int i = 0; i < v.getArrayValue().getValuesCount(); i++) {
                    sb.append(i == 0 ? "" : ",").append(oldText(v.getArrayValue().getValues(i)));
                }
                yield sb.append(']').toString();
            }
            case KVLIST_VALUE -> {
                StringBuilder sb = new StringBuilder("{");
                for (int i = 0; i < v.getKvlistValue().getValuesCount(); i++) {
                    KeyValue kv = v.getKvlistValue().getValues(i);
                    sb.append(i == 0 ? "" : ",").append(kv.getKey()).append('=').append(oldText(kv.getValue()));
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
        return AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder().addAllValues(List.of(vs))).build();
    }

    private static String randomString(Random r) {
        String[] pieces = {"a", ",", "\"", "\\", "\n", "\u0000", "\u001f", "\u007f", "é", "\u2028", "😀", "]", "}", "=", ":", " "};
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
            case 2 -> AnyValue.newBuilder().setDoubleValue(List.of(0.5, -0.0, 1e20, 1e-7, 3.0).get(r.nextInt(5))).build();
            case 3 -> AnyValue.newBuilder().setBoolValue(r.nextBoolean()).build();
            case 4 -> AnyValue.getDefaultInstance();
            default -> AnyValue.newBuilder().setIntValue(Long.MIN_VALUE).build();
        };
    }

    private static AnyValue array(Random r, int depth) {
        ArrayValue.Builder b = ArrayValue.newBuilder();
        for (int i = r.nextInt(4); i > 0; i--) {
            b.addValues(depth < 3 && r.nextInt(4) == 0 ? (r.nextBoolean() ? array(r, depth + 1) : kvlist(r, depth + 1)) : leaf(r));
        }
        return AnyValue.newBuilder().setArrayValue(b).build();
    }

    private static AnyValue kvlist(Random r, int depth) {
        KeyValueList.Builder b = KeyValueList.newBuilder();
        List<String> keys = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
            String k = randomString(r) + i; // unique keys, so the JSON object is the list
            keys.add(k);
            b.addValues(KeyValue.newBuilder().setKey(k)
                    .setValue(depth < 3 && r.nextInt(4) == 0 ? array(r, depth + 1) : leaf(r)));
        }
        return AnyValue.newBuilder().setKvlistValue(b).build();
    }

    /** The JSON tree a value must render as, built independently of the code under review. */
    private static JsonNode tree(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> NODES.textNode(v.getStringValue());
            case BOOL_VALUE -> NODES.booleanNode(v.getBoolValue());
            case INT_VALUE -> v.getIntValue() == (int) v.getIntValue() ? NODES.numberNode((int) v.getIntValue()) : NODES.numberNode(v.getIntValue());
            case DOUBLE_VALUE -> NODES.numberNode(v.getDoubleValue());
            case BYTES_VALUE -> NODES.textNode(Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray()));
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
