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

import static dev.pulse.codec.Payloads.NOW_MS;
import static dev.pulse.codec.Payloads.decoder;
import static dev.pulse.codec.Payloads.gzip;
import static dev.pulse.codec.Payloads.logs;
import static dev.pulse.codec.Payloads.logsJson;
import static dev.pulse.codec.Payloads.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.codec.Payloads.LogEvent;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class PoisonRecordDecodeTest {

    private static final String LAMBDA_GROUP = "/aws/lambda/checkout-api";

    private static String dp(String name, String dimsJson, long ts, String valueJson) {
        return "{\"name\":\"" + name + "\",\"dims\":" + dimsJson + ",\"ts\":" + ts + ",\"value\":" + valueJson + "}";
    }

    private static String dims(int n, String prefix) {
        return IntStream.range(0, n)
                .mapToObj(i -> "\"" + prefix + i + "\":\"v\"")
                .collect(Collectors.joining(",", "{", "}"));
    }

    private static void assertPoison(byte[] record, String... messageFragments) {
        assertThatThrownBy(() -> decoder().decode(record))
                .isInstanceOf(DecodeException.class)
                .message()
                .contains(messageFragments);
    }

    // ---- empty and unreadable records

    @Test
    void decode_whenNull_throwsEmptyRecord() {
        assertPoison(null, "empty record");
    }

    @Test
    void decode_whenZeroBytes_throwsEmptyRecord() {
        assertPoison(new byte[0], "empty record");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {" ", "\n\n", "[]", "[ ]\n[]"})
    void decode_whenNoDatapointInJson_throwsNoDatapoints(String json) {
        assertPoison(utf8(json), "no datapoints");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(
            strings = {
                "{\"name\":\"a\",\"ts\":1763740800000,\"value\":1",
                "{\"name\":\"a\" \"ts\":1763740800000}",
                "{name:\"a\",\"ts\":1763740800000,\"value\":1}",
                "{\"name\":\"a\",\"ts\":1763740800000,\"value\":01}",
                "not json at all",
                "[{\"name\":\"a\",\"ts\":1763740800000,\"value\":1},",
            })
    void decode_whenInvalidJson_throwsInvalidJson(String json) {
        assertPoison(utf8(json), "invalid JSON");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "42                | expected a JSON object or array, found VALUE_NUMBER_INT",
                "'\"text\"'          | expected a JSON object or array, found VALUE_STRING",
                "[1]               | datapoint #0: expected a JSON object, found VALUE_NUMBER_INT",
                "[[]]              | datapoint #0: expected a JSON object, found START_ARRAY",
            })
    void decode_whenTopLevelIsNotDatapoints_throwsWithFoundToken(String json, String message) {
        assertPoison(utf8(json), message);
    }

    // ---- non-finite and out-of-range values

    private static final String FOUR_HUNDRED_DIGITS =
            "1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                    + "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                    + "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                    + "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000";

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"1e400", "-1e400"})
    void decode_whenValueOverflowsDouble_throwsNotFinite(String value) {
        assertPoison(utf8(dp("a", "{}", NOW_MS, value)), "invalid datapoint #0", "value", "not a finite number");
    }

    @Test
    void decode_whenNumberLongerThanLimit_throwsNamingTheLimit() {
        assertPoison(
                utf8(dp("a", "{}", NOW_MS, FOUR_HUNDRED_DIGITS)),
                "invalid JSON",
                "Number value length (400)",
                "MAX_JSON_NUMBER_CHARS");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"NaN", "Infinity", "-Infinity"})
    void decode_whenNonNumericNumberToken_throwsInvalidJsonNamingToken(String token) {
        assertPoison(utf8(dp("a", "{}", NOW_MS, token)), "invalid JSON", token);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"1e101", "-1e101", "1e-101"})
    void decode_whenValueOutsideDynamoDbSafeMagnitude_throws(String value) {
        assertPoison(utf8(dp("a", "{}", NOW_MS, value)), "outside the supported magnitude range");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "'\"12\"' | value must be a number, found VALUE_STRING",
                "true   | value must be a number, found VALUE_TRUE",
                "null   | value must be a number, found VALUE_NULL",
                "[1]    | value must be a number, found START_ARRAY",
            })
    void decode_whenValueNotANumber_throws(String value, String message) {
        assertPoison(utf8(dp("a", "{}", NOW_MS, value)), message);
    }

    // ---- names and dimensions

    @Test
    void decode_whenThirtyOneDimensions_throwsNamingTheLimit() {
        assertPoison(utf8(dp("a", dims(31, "k"), NOW_MS, "1")), "31 dimensions, at most 30");
    }

    @Test
    void decode_whenThirtyDimensions_accepts() throws Exception {
        assertThat(decoder()
                        .decode(utf8(dp("a", dims(30, "k"), NOW_MS, "1")))
                        .datapoints()
                        .get(0)
                        .dims())
                .hasSize(30);
    }

    @Test
    void decode_whenNameHas256Characters_throwsNamingLengthAndLimit() {
        assertPoison(utf8(dp("n".repeat(256), "{}", NOW_MS, "1")), "name: 256 characters, at most 255");
    }

    @Test
    void decode_whenNameHas255Characters_accepts() throws Exception {
        assertThat(decoder()
                        .decode(utf8(dp("n".repeat(255), "{}", NOW_MS, "1")))
                        .datapoints())
                .hasSize(1);
    }

    static Stream<Arguments> overLongDimensions() {
        String longText = "x".repeat(256);
        return Stream.of(
                Arguments.of("{\"" + longText + "\":\"v\"}", "dimension key: 256 characters, at most 255"),
                Arguments.of("{\"k\":\"" + longText + "\"}", "dimension value of k: 256 characters, at most 255"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("overLongDimensions")
    void decode_whenDimensionKeyOrValueHas256Characters_throws(String dimsJson, String message) {
        assertPoison(utf8(dp("a", dimsJson, NOW_MS, "1")), message);
    }

    @Test
    void decode_whenDimensionKeyAndValueHave255Characters_accepts() throws Exception {
        String text = "x".repeat(255);
        String json = dp("a", "{\"" + text + "\":\"" + text + "\"}", NOW_MS, "1");

        assertThat(decoder().decode(utf8(json)).datapoints().get(0).dims()).containsEntry(text, text);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "'{\"name\":\"\",\"ts\":1763740800000,\"value\":1}'                 | name: must not be empty",
                "'{\"name\":\"a\",\"dims\":{\"\":\"v\"},\"ts\":1763740800000,\"value\":1}' | dimension key: must not be empty",
                "'{\"name\":\"a\",\"dims\":{\"k\":\"\"},\"ts\":1763740800000,\"value\":1}' | dimension value of k: must not be empty",
            })
    void decode_whenNameOrDimensionEmpty_throws(String json, String message) {
        assertPoison(utf8(json), message);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "1        | dims.k must be a string, found VALUE_NUMBER_INT",
                "null     | dims.k must be a string, found VALUE_NULL",
                "true     | dims.k must be a string, found VALUE_TRUE",
                "{}       | dims.k must be a string, found START_OBJECT",
                "[\"v\"]  | dims.k must be a string, found START_ARRAY",
            })
    void decode_whenDimensionValueNotAString_throws(String value, String message) {
        assertPoison(utf8(dp("a", "{\"k\":" + value + "}", NOW_MS, "1")), message);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"[]", "\"k=v\"", "1"})
    void decode_whenDimsNotAnObject_throws(String dimsJson) {
        assertPoison(utf8(dp("a", dimsJson, NOW_MS, "1")), "dims must be an object of strings");
    }

    @Test
    void decode_whenDimensionKeyRepeated_throws() {
        assertPoison(utf8(dp("a", "{\"k\":\"1\",\"k\":\"2\"}", NOW_MS, "1")), "dims.k appears twice");
    }

    @Test
    void decode_whenNameNotAString_throws() {
        assertPoison(utf8("{\"name\":7,\"ts\":1763740800000,\"value\":1}"), "name must be a string");
    }

    // ---- missing fields

    @ParameterizedTest(name = "missing {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "'{\"ts\":1763740800000,\"value\":1}'  | name",
                "'{\"name\":\"a\",\"value\":1}'          | ts",
                "'{\"name\":\"a\",\"ts\":1763740800000}' | value",
                "'{}'                                  | name",
            })
    void decode_whenRequiredFieldMissing_throwsNamingField(String json, String field) {
        assertPoison(utf8(json), "datapoint #0: missing field " + field);
    }

    @Test
    void decode_whenSecondDatapointMissingField_throwsWithItsIndex() {
        String json = "[" + dp("a", "{}", NOW_MS, "1") + ",{\"name\":\"b\",\"ts\":" + NOW_MS + "}]";

        assertPoison(utf8(json), "datapoint #1: missing field value");
    }

    // ---- timestamps

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(
            longs = {
                -(14L * 24 * 3600 * 1000) - 1, // one millisecond older than 14 days
                -(30L * 24 * 3600 * 1000),
                2L * 3600 * 1000 + 1, // one millisecond beyond 2 hours ahead
                365L * 24 * 3600 * 1000,
            })
    void decode_whenTimestampOutsideWindow_throws(long offsetFromNow) {
        assertPoison(
                utf8(dp("a", "{}", NOW_MS + offsetFromNow, "1")),
                "invalid datapoint #0",
                "ts: " + (NOW_MS + offsetFromNow),
                "outside the accepted window");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(longs = {-(14L * 24 * 3600 * 1000), 0, 2L * 3600 * 1000})
    void decode_whenTimestampOnWindowEdge_accepts(long offsetFromNow) throws Exception {
        assertThat(decoder()
                        .decode(utf8(dp("a", "{}", NOW_MS + offsetFromNow, "1")))
                        .datapoints())
                .hasSize(1);
    }

    @Test
    void decode_whenTimestampIsZero_throwsOutsideWindow() {
        assertPoison(utf8(dp("a", "{}", 0, "1")), "outside the accepted window");
    }

    @Test
    void decode_whenTimestampInSecondsByMistake_throwsOutsideWindow() {
        assertPoison(utf8(dp("a", "{}", NOW_MS / 1000, "1")), "outside the accepted window");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"2025-11-21T16:00:00", "2025-11-21", "yesterday", ""})
    void decode_whenIsoTimestampWithoutOffsetOrUnparseable_throws(String ts) {
        String json = "{\"name\":\"a\",\"ts\":\"" + ts + "\",\"value\":1}";

        assertPoison(utf8(json), "ts: '" + ts + "' is not an ISO-8601 instant with an offset");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"true", "null", "{}", "[1]"})
    void decode_whenTimestampWrongType_throws(String ts) {
        assertPoison(
                utf8("{\"name\":\"a\",\"ts\":" + ts + ",\"value\":1}"),
                "ts must be epoch milliseconds or an ISO-8601 string");
    }

    @Test
    void decode_whenTimestampBeyondLongRange_throws() {
        assertPoison(utf8("{\"name\":\"a\",\"ts\":99999999999999999999,\"value\":1}"), "invalid JSON");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"-9223372036854775808", "-1e300"})
    void decode_whenTimestampPresentButHugelyNegative_saysOutsideWindowNotMissing(String ts) {
        // Long.MIN_VALUE doubles as the "no ts seen" marker in NativeDecoder; a present ts must not be reported
        // missing.
        assertPoison(utf8("{\"name\":\"a\",\"ts\":" + ts + ",\"value\":1}"), "outside the accepted window");
    }

    // ---- resource limits

    @Test
    void decode_whenNativeJsonNestedTooDeep_throwsInvalidJson() {
        String deep =
                "{\"name\":\"a\",\"ts\":1763740800000,\"value\":1,\"x\":" + "[".repeat(100) + "]".repeat(100) + "}";

        assertPoison(utf8(deep), "invalid JSON", "nesting depth");
    }

    @Test
    void decode_whenGzippedJsonNestedExtremelyDeep_throwsInsteadOfOverflowingStack() {
        assertPoison(gzip(utf8("[".repeat(200_000))), "invalid JSON in CloudWatch Logs payload");
    }

    @Test
    void decode_whenEmfMessageNestedExtremelyDeep_throwsInsteadOfOverflowingStack() {
        String doc = "{\"_aws\":{\"CloudWatchMetrics\":[]},\"x\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";

        assertPoison(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, doc)), "logEvents[0]: invalid EMF JSON");
    }

    @Test
    void decode_whenGzipDecompressesBeyondLimit_throwsInsteadOfBuffering() {
        byte[] bomb = gzip(new byte[CloudWatchLogsDecoder.MAX_DECOMPRESSED_BYTES + 1]);

        assertThat(bomb.length).isLessThan(64 * 1024);
        assertPoison(bomb, "decompresses to more than " + CloudWatchLogsDecoder.MAX_DECOMPRESSED_BYTES + " bytes");
    }

    @Test
    void decode_whenGzipDecompressesExactlyToLimit_isNotRejectedForSize() {
        // Whitespace padding keeps the JSON valid, so only the size check could reject it.
        byte[] json = utf8(logsJson("DATA_MESSAGE", LAMBDA_GROUP, List.of()));
        byte[] padded = new byte[CloudWatchLogsDecoder.MAX_DECOMPRESSED_BYTES];
        Arrays.fill(padded, (byte) ' ');
        System.arraycopy(json, 0, padded, 0, json.length);

        assertThatCode(() -> decoder().decode(gzip(padded))).doesNotThrowAnyException();
    }

    // ---- all or nothing

    @Test
    void decode_whenOneDatapointOfManyInvalid_rejectsWholeRecordNamingIndex() {
        String ndjson = dp("a", "{}", NOW_MS, "1") + "\n" + dp("b", "{}", NOW_MS, "2") + "\n"
                + dp("", "{}", NOW_MS, "3") + "\n";

        assertPoison(utf8(ndjson), "invalid datapoint #2", "name: must not be empty");
    }

    // ---- CloudWatch Logs envelope

    static Stream<Arguments> truncations() {
        byte[] full = logs(
                LAMBDA_GROUP,
                new LogEvent(
                        NOW_MS,
                        "REPORT RequestId: x Duration: 1 ms Billed Duration: 1 ms "
                                + "Memory Size: 128 MB Max Memory Used: 60 MB"));
        return Stream.of(2, 9, 10, full.length / 2, full.length - 8, full.length - 1)
                .map(n -> Arguments.of(n, Arrays.copyOf(full, n)));
    }

    @ParameterizedTest(name = "first {0} bytes")
    @MethodSource("truncations")
    void decode_whenGzipTruncated_throwsInvalidGzip(int length, byte[] truncated) {
        assertPoison(truncated, "invalid gzip");
    }

    @Test
    void decode_whenGzipHeaderFollowedByGarbage_throwsInvalidGzip() {
        assertPoison(new byte[] {0x1f, (byte) 0x8b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, "invalid gzip");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"{\"messageType\":", "not json", "{\"messageType\":\"DATA_MESSAGE\",}"})
    void decode_whenGzippedInvalidJson_throwsInvalidJsonInLogsPayload(String json) {
        assertPoison(gzip(utf8(json)), "invalid JSON in CloudWatch Logs payload");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"[]", "42", "\"DATA_MESSAGE\"", ""})
    void decode_whenGzippedJsonNotAnObject_throws(String json) {
        assertPoison(gzip(utf8(json)), "CloudWatch Logs payload is not a JSON object");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"SOMETHING_ELSE", "data_message", ""})
    void decode_whenGzippedUnknownMessageType_throwsNamingType(String type) {
        assertPoison(gzip(utf8(logsJson(type, LAMBDA_GROUP, List.of()))), "unknown messageType '" + type + "'");
    }

    @Test
    void decode_whenGzippedObjectWithoutMessageType_throws() {
        assertPoison(gzip(utf8("{\"logEvents\":[]}")), "unknown messageType ''");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"", ",\"logEvents\":{}", ",\"logEvents\":null"})
    void decode_whenLogEventsMissingOrNotArray_throws(String logEvents) {
        String json = "{\"messageType\":\"DATA_MESSAGE\",\"logGroup\":\"g\"" + logEvents + "}";

        assertPoison(gzip(utf8(json)), "logEvents must be an array");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(
            strings = {
                "{\"id\":\"1\",\"timestamp\":1763740800000}",
                "{\"id\":\"1\",\"message\":\"x\"}",
                "{\"id\":\"1\",\"timestamp\":\"soon\",\"message\":\"x\"}",
                "{\"id\":\"1\",\"timestamp\":1763740800000,\"message\":42}",
                "\"just a string\"",
            })
    void decode_whenLogEventMalformed_throwsNamingEvent(String event) {
        String json = "{\"messageType\":\"DATA_MESSAGE\",\"logGroup\":\"g\",\"logEvents\":[" + event + "]}";

        assertPoison(gzip(utf8(json)), "logEvents[0]: needs a string message and a numeric timestamp");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(
            strings = {
                "REPORT RequestId: abc",
                "REPORT RequestId: abc Duration: 12.34 ms",
                "REPORT RequestId: abc Duration: fast ms Billed Duration: 13 ms Memory Size: 512 MB Max Memory Used: 98 MB",
                "REPORT RequestId: abc Duration: 12.34 ms Billed Duration: 13 ms Memory Size: 512 MB",
                "REPORT RequestId: abc Duration: 1.2.3 ms Billed Duration: 13 ms Memory Size: 512 MB Max Memory Used: 98 MB",
                "REPORT RequestId: abc Duration: . ms Billed Duration: 13 ms Memory Size: 512 MB Max Memory Used: 98 MB",
            })
    void decode_whenReportLineMalformed_throwsNamingEvent(String line) {
        assertPoison(
                logs(LAMBDA_GROUP, new LogEvent(NOW_MS, "START"), new LogEvent(NOW_MS, line)),
                "logEvents[1]",
                "REPORT line");
    }

    @ParameterizedTest(name = "log group ''{0}''")
    @ValueSource(strings = {"", "/aws/lambda/"})
    void decode_whenReportLineWithoutFunctionName_throws(String logGroup) {
        String line =
                "REPORT RequestId: abc Duration: 1 ms Billed Duration: 1 ms Memory Size: 128 MB Max Memory Used: 60 MB";

        assertPoison(logs(logGroup, new LogEvent(NOW_MS, line)), "without a log group to name the function");
    }

    @Test
    void decode_whenReportLineTimestampOutsideWindow_throws() {
        String line =
                "REPORT RequestId: abc Duration: 1 ms Billed Duration: 1 ms Memory Size: 128 MB Max Memory Used: 60 MB";
        long old = NOW_MS - Duration.ofDays(15).toMillis();

        assertPoison(logs(LAMBDA_GROUP, new LogEvent(old, line)), "outside the accepted window");
    }

    // ---- EMF documents

    private static String emf(String directive, String members) {
        return "{\"_aws\":{\"Timestamp\":" + NOW_MS + ",\"CloudWatchMetrics\":[" + directive + "]}" + members + "}";
    }

    static Stream<Arguments> badEmf() {
        String ok = "{\"Namespace\":\"ns\",\"Dimensions\":[[\"svc\"]],\"Metrics\":[{\"Name\":\"m\"}]}";
        return Stream.of(
                Arguments.of(emf(ok, ",\"svc\":\"a\",\"m\":[1,NaN]"), "invalid EMF JSON"),
                Arguments.of(emf(ok, ",\"svc\":\"a\",\"m\":NaN"), "invalid EMF JSON"),
                Arguments.of(emf(ok, ",\"svc\":\"a\",\"m\":\"12\""), "m: value must be a number"),
                Arguments.of(emf(ok, ",\"svc\":\"a\",\"m\":[1,\"2\"]"), "m[1]: value must be a number"),
                Arguments.of(emf(ok, ",\"svc\":\"a\",\"m\":null"), "value must be a number"),
                Arguments.of(emf(ok, ",\"svc\":\"a\""), "metric m has no value member"),
                Arguments.of(emf(ok, ",\"m\":1"), "dimension svc needs a string member"),
                Arguments.of(emf(ok, ",\"svc\":7,\"m\":1"), "dimension svc needs a string member"),
                Arguments.of(
                        emf("{\"Dimensions\":[],\"Metrics\":[{\"Name\":\"m\"}]}", ",\"m\":1"),
                        "Namespace must be a non-empty string"),
                Arguments.of(
                        emf("{\"Namespace\":\"\",\"Dimensions\":[],\"Metrics\":[{\"Name\":\"m\"}]}", ",\"m\":1"),
                        "Namespace must be a non-empty string"),
                Arguments.of(
                        emf("{\"Namespace\":\"ns\",\"Metrics\":[{\"Name\":\"m\"}]}", ",\"m\":1"),
                        "Dimensions must be an array"),
                Arguments.of(
                        emf(
                                "{\"Namespace\":\"ns\",\"Dimensions\":[\"svc\"],\"Metrics\":[{\"Name\":\"m\"}]}",
                                ",\"svc\":\"a\",\"m\":1"),
                        "a dimension set must be an array"),
                Arguments.of(
                        emf("{\"Namespace\":\"ns\",\"Dimensions\":[[1]],\"Metrics\":[{\"Name\":\"m\"}]}", ",\"m\":1"),
                        "dimension names must be strings"),
                Arguments.of(
                        emf("{\"Namespace\":\"ns\",\"Dimensions\":[],\"Metrics\":{}}", ",\"m\":1"),
                        "Metrics must be an array"),
                Arguments.of(
                        emf("{\"Namespace\":\"ns\",\"Dimensions\":[],\"Metrics\":[{\"Unit\":\"Count\"}]}", ",\"m\":1"),
                        "Name must be a non-empty string"),
                Arguments.of("{\"_aws\":{\"CloudWatchMetrics\":{}}}", "CloudWatchMetrics must be an array"),
                Arguments.of("{\"_aws\":\"metrics\"}", "EMF _aws must be an object"),
                Arguments.of(
                        "{\"_aws\":{\"Timestamp\":\"2025-11-21T16:00:00Z\",\"CloudWatchMetrics\":[]}}",
                        "Timestamp must be epoch milliseconds"),
                Arguments.of("{\"_aws\":{\"CloudWatchMetrics\":[", "invalid EMF JSON"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badEmf")
    void decode_whenEmfDocumentInvalid_throwsNamingProblem(String document, String message) {
        assertPoison(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, document)), "logEvents[0]", message);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "1e400         | invalid datapoint #0: value: Infinity is not a finite number (series ns/m)",
                "[1,2,-1e400]  | invalid datapoint #2: value: -Infinity is not a finite number (series ns/m)",
            })
    void decode_whenEmfValueOverflowsDouble_throwsNotFinite(String value, String message) {
        String ok = "{\"Namespace\":\"ns\",\"Dimensions\":[[\"svc\"]],\"Metrics\":[{\"Name\":\"m\"}]}";

        assertPoison(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, emf(ok, ",\"svc\":\"a\",\"m\":" + value))), message);
    }

    @Test
    void decode_whenEmfDimensionSetHas31Dimensions_throws() {
        String keys = IntStream.range(0, 31).mapToObj(i -> "\"d" + i + "\"").collect(Collectors.joining(","));
        String members =
                IntStream.range(0, 31).mapToObj(i -> ",\"d" + i + "\":\"v\"").collect(Collectors.joining());
        String doc = emf(
                "{\"Namespace\":\"ns\",\"Dimensions\":[[" + keys + "]],\"Metrics\":[{\"Name\":\"m\"}]}",
                members + ",\"m\":1");

        assertPoison(
                logs(LAMBDA_GROUP, new LogEvent(NOW_MS, doc)),
                "31 dimension keys, at most 30",
                "MAX_EMF_DIMENSION_KEYS");
    }

    @Test
    void decode_whenEmfTimestampOutsideWindow_throws() {
        String doc =
                "{\"_aws\":{\"Timestamp\":" + (NOW_MS + Duration.ofHours(3).toMillis()) + ",\"CloudWatchMetrics\":["
                        + "{\"Namespace\":\"ns\",\"Dimensions\":[],\"Metrics\":[{\"Name\":\"m\"}]}]},\"m\":1}";

        assertPoison(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, doc)), "outside the accepted window");
    }

    @Test
    void decode_whenEmfNamespacedNameOver255Characters_throws() {
        // Namespace and metric name are each short enough on their own; the joined series name is not.
        String doc = emf(
                "{\"Namespace\":\"" + "n".repeat(200) + "\",\"Dimensions\":[],\"Metrics\":[{\"Name\":\""
                        + "m".repeat(100) + "\"}]}",
                ",\"" + "m".repeat(100) + "\":1");

        assertPoison(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, doc)), "name: 301 characters, at most 255");
    }

    @Test
    void decode_whenOneBadEventAmongGoodOnes_rejectsWholeRecord() {
        String good =
                "REPORT RequestId: a Duration: 1 ms Billed Duration: 1 ms Memory Size: 128 MB Max Memory Used: 60 MB";

        assertPoison(
                logs(
                        LAMBDA_GROUP,
                        new LogEvent(NOW_MS, good),
                        new LogEvent(NOW_MS, "plain"),
                        new LogEvent(NOW_MS, "{\"_aws\":{}}")),
                "logEvents[2]",
                "CloudWatchMetrics must be an array");
    }
}
