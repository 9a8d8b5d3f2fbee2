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
import static dev.pulse.codec.Payloads.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.pulse.model.Datapoint;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class NativeFormatDecodeTest {

    private static final String DESIGN_EXAMPLE = """
            {"name":"checkout.latency","dims":{"service":"checkout","op":"Pay"},"ts":1763740800123,"value":12.5,"unit":"Milliseconds"}""";

    @Test
    void decode_whenSingleObject_returnsItsDatapoint() throws Exception {
        Decoded d = decoder().decode(utf8(DESIGN_EXAMPLE));

        assertThat(d.skippedEvents()).isZero();
        assertThat(d.datapoints())
                .containsExactly(new Datapoint(
                        "checkout.latency",
                        Map.of("service", "checkout", "op", "Pay"),
                        1763740800123L,
                        12.5,
                        "Milliseconds"));
        assertThat(d.datapoints().get(0).seriesKey()).isEqualTo("checkout.latency{op=Pay,service=checkout}");
    }

    @Test
    void decode_whenArrayOfObjects_returnsAllInOrder() throws Exception {
        String json = """
                [{"name":"a","ts":1763740800000,"value":1},
                 {"name":"b","ts":1763740801000,"value":2.5,"dims":{"k":"v"}},
                 {"name":"c","ts":1763740802000,"value":-3}]""";

        Decoded d = decoder().decode(utf8(json));

        assertThat(d.datapoints())
                .extracting(Datapoint::name, Datapoint::timestamp, Datapoint::value)
                .containsExactly(
                        tuple("a", 1763740800000L, 1.0),
                        tuple("b", 1763740801000L, 2.5),
                        tuple("c", 1763740802000L, -3.0));
    }

    @ParameterizedTest(name = "line separator {index}")
    @ValueSource(strings = {"\n", "\r\n", "\n\n", " "})
    void decode_whenNdjson_returnsOneDatapointPerLine(String separator) throws Exception {
        String ndjson = String.join(
                        separator,
                        "{\"name\":\"a\",\"ts\":1763740800000,\"value\":1}",
                        "{\"name\":\"a\",\"ts\":1763740800001,\"value\":2}",
                        "{\"name\":\"b\",\"ts\":1763740800002,\"value\":3}")
                + "\n";

        Decoded d = decoder().decode(utf8(ndjson));

        assertThat(d.datapoints()).extracting(Datapoint::value).containsExactly(1.0, 2.0, 3.0);
    }

    @Test
    void decode_whenNdjsonMixesObjectsAndArrays_returnsAll() throws Exception {
        String ndjson = """
                {"name":"a","ts":1763740800000,"value":1}
                [{"name":"b","ts":1763740800000,"value":2},{"name":"c","ts":1763740800000,"value":3}]
                """;

        assertThat(decoder().decode(utf8(ndjson)).datapoints())
                .extracting(Datapoint::name)
                .containsExactly("a", "b", "c");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "1763740800123                   | 1763740800123",
                "'\"2025-11-21T16:00:00.123Z\"'      | 1763740800123",
                "'\"2025-11-21T16:00:00Z\"'          | 1763740800000",
                "'\"2025-11-21T17:00:00.123+01:00\"' | 1763740800123",
                "'\"2025-11-21T10:30:00-05:30\"'     | 1763740800000",
                "1.763740800123E12               | 1763740800123",
            })
    void decode_whenTimestampIsEpochMillisOrIso8601_convertsToEpochMillis(String tsJson, long expected)
            throws Exception {
        String json = "{\"name\":\"a\",\"ts\":" + tsJson + ",\"value\":1}";

        assertThat(decoder().decode(utf8(json)).datapoints())
                .singleElement()
                .extracting(Datapoint::timestamp)
                .isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "{\"name\":\"a\",\"ts\":1763740800000,\"value\":1}",
                "{\"name\":\"a\",\"ts\":1763740800000,\"value\":1,\"dims\":null}",
                "{\"name\":\"a\",\"ts\":1763740800000,\"value\":1,\"dims\":{}}",
            })
    void decode_whenDimsAbsentNullOrEmpty_returnsEmptyDims(String json) throws Exception {
        Datapoint dp = decoder().decode(utf8(json)).datapoints().get(0);

        assertThat(dp.dims()).isEmpty();
        assertThat(dp.seriesKey()).isEqualTo("a{}");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "{\"name\":\"a\",\"ts\":1763740800000,\"value\":1}",
                "{\"name\":\"a\",\"ts\":1763740800000,\"value\":1,\"unit\":null}",
            })
    void decode_whenUnitAbsentOrNull_returnsNullUnit(String json) throws Exception {
        assertThat(decoder().decode(utf8(json)).datapoints().get(0).unit()).isNull();
    }

    @Test
    void decode_whenUnitGiven_keepsIt() throws Exception {
        String json = "{\"name\":\"a\",\"ts\":1763740800000,\"value\":1,\"unit\":\"Bytes/Second\"}";

        assertThat(decoder().decode(utf8(json)).datapoints().get(0).unit()).isEqualTo("Bytes/Second");
    }

    @Test
    void decode_whenFieldsInAnyOrderWithUnknownFields_ignoresUnknownFields() throws Exception {
        String json = """
                {"value":7,"extra":{"nested":[1,2,{"x":null}]},"dims":{"b":"2","a":"1"},"ts":1763740800000,"name":"n","tag":"t"}""";

        Datapoint dp = decoder().decode(utf8(json)).datapoints().get(0);

        assertThat(dp).isEqualTo(new Datapoint("n", Map.of("a", "1", "b", "2"), NOW_MS, 7, null));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "0         | 0.0",
                "-0.0      | -0.0",
                "1e100     | 1e100",
                "-1e-100   | -1e-100",
                "42        | 42.0",
            })
    void decode_whenValueAtSupportedLimits_accepts(String valueJson, double expected) throws Exception {
        String json = "{\"name\":\"a\",\"ts\":1763740800000,\"value\":" + valueJson + "}";

        assertThat(decoder().decode(utf8(json)).datapoints().get(0).value()).isEqualTo(expected);
    }

    @Test
    void decode_whenUtf8BomlessUnicodeNamesAndDims_keepsThem() throws Exception {
        String json = "{\"name\":\"latência.µs\",\"dims\":{\"região\":\"são-paulo\"},\"ts\":1763740800000,\"value\":1}";

        Datapoint dp = decoder().decode(utf8(json)).datapoints().get(0);

        assertThat(dp.name()).isEqualTo("latência.µs");
        assertThat(dp.dims()).containsEntry("região", "são-paulo");
    }
}
