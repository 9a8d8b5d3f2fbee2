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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class QueryParserTest {

    private static final String OK_SERIES = "[{\"name\":\"checkout.latency\",\"dims\":{\"service\":\"checkout\"}}]";

    private static String body(String series, String start, String end, String period, String stats) {
        return "{\"series\":" + series + ",\"start\":" + start + ",\"end\":" + end + ",\"period\":" + period
                + ",\"stats\":" + stats + "}";
    }

    @Test
    void parse_whenValidIsoAndDuration_readsEverything() throws Exception {
        NativeQuery r = QueryParser.parse(body(
                OK_SERIES,
                "\"2026-11-21T10:00:30Z\"",
                "\"2026-11-21T12:00:00Z\"",
                "\"PT5M\"",
                "[\"avg\",\"p99\",\"p99.9\",\"avg\"]"));

        assertThat(r.start()).isEqualTo(Instant.parse("2026-11-21T10:00:00Z").toEpochMilli()); // floored to the minute
        assertThat(r.end()).isEqualTo(Instant.parse("2026-11-21T12:00:00Z").toEpochMilli());
        assertThat(r.periodSeconds()).isEqualTo(300);
        assertThat(r.buckets()).isEqualTo(24);
        assertThat(r.stats()).extracting(Stat::label).containsExactly("avg", "p99", "p99.9");
        assertThat(r.stats().get(2).q()).isEqualTo(0.999);
        assertThat(r.series().get(0).key()).isEqualTo("checkout.latency{service=checkout}");
    }

    @Test
    void parse_whenEndMidMinute_roundsItUpToTheWholeMinute() throws Exception {
        NativeQuery r = QueryParser.parse(
                body(OK_SERIES, "\"2026-11-21T10:00:00Z\"", "\"2026-11-21T10:30:30Z\"", "60", "[\"count\"]"));

        assertThat(r.end()).isEqualTo(Instant.parse("2026-11-21T10:31:00Z").toEpochMilli());
        assertThat(r.buckets()).isEqualTo(31);
    }

    @Test
    void parse_whenEpochMillisAndSeconds_readsThem() throws Exception {
        NativeQuery r = QueryParser.parse(body(OK_SERIES, "1795255200000", "1795262400000", "3600", "[\"count\"]"));

        assertThat(r.periodSeconds()).isEqualTo(3600);
        assertThat(r.buckets()).isEqualTo(2);
    }

    static Stream<Arguments> badRequests() {
        String s = "\"2026-11-21T10:00:00Z\"";
        String e = "\"2026-11-21T12:00:00Z\"";
        String many = "[" + "{\"name\":\"m\"},".repeat(100) + "{\"name\":\"m\"}]";
        return Stream.of(
                Arguments.of("{not json", "MalformedJson", null),
                Arguments.of("[1,2]", "MalformedJson", null),
                Arguments.of("", "MissingField", null),
                Arguments.of(
                        "{\"start\":" + s + ",\"end\":" + e + ",\"period\":60,\"stats\":[\"avg\"]}",
                        "MissingField",
                        "series"),
                Arguments.of(body("[]", s, e, "60", "[\"avg\"]"), "InvalidField", "series"),
                Arguments.of(body(many, s, e, "60", "[\"avg\"]"), "LimitExceeded", "series"),
                Arguments.of(body("[{\"dims\":{}}]", s, e, "60", "[\"avg\"]"), "MissingField", "series[0].name"),
                Arguments.of(body("[{\"name\":\"\"}]", s, e, "60", "[\"avg\"]"), "InvalidField", "series[0].name"),
                Arguments.of(
                        body("[{\"name\":\"" + "x".repeat(256) + "\"}]", s, e, "60", "[\"avg\"]"),
                        "InvalidField",
                        "series[0].name"),
                Arguments.of(
                        body("[{\"name\":\"m\",\"dims\":{\"a\":1}}]", s, e, "60", "[\"avg\"]"),
                        "InvalidField",
                        "series[0].dims"),
                Arguments.of(
                        body("[{\"name\":\"m\",\"dims\":{\"\":\"v\"}}]", s, e, "60", "[\"avg\"]"),
                        "InvalidField",
                        "series[0].dims"),
                Arguments.of(
                        body("[{\"name\":\"m\",\"dims\":[]}]", s, e, "60", "[\"avg\"]"),
                        "InvalidField",
                        "series[0].dims"),
                Arguments.of(
                        body(
                                "[{\"name\":\"m\",\"dims\":{\"a\":\"1\",\"b\":\"2\"}},{\"name\":\"m\",\"dims\":{\"b\":\"2\",\"a\":\"1\"}}]",
                                s,
                                e,
                                "60",
                                "[\"avg\"]"),
                        "InvalidField",
                        "series[1]"),
                Arguments.of(body(OK_SERIES, "\"yesterday\"", e, "60", "[\"avg\"]"), "InvalidField", "start"),
                Arguments.of(body(OK_SERIES, s, "null", "60", "[\"avg\"]"), "MissingField", "end"),
                Arguments.of(body(OK_SERIES, e, s, "60", "[\"avg\"]"), "InvalidField", "end"),
                Arguments.of(body(OK_SERIES, "0", "40000000000000", "86400", "[\"avg\"]"), "LimitExceeded", "end"),
                Arguments.of(body(OK_SERIES, s, e, "90", "[\"avg\"]"), "InvalidField", "period"),
                Arguments.of(body(OK_SERIES, s, e, "\"PT30S\"", "[\"avg\"]"), "InvalidField", "period"),
                Arguments.of(body(OK_SERIES, s, e, "\"5 minutes\"", "[\"avg\"]"), "InvalidField", "period"),
                Arguments.of(body(OK_SERIES, s, e, "0", "[\"avg\"]"), "InvalidField", "period"),
                Arguments.of(
                        body(OK_SERIES, "\"2026-01-01T00:00:00Z\"", e, "60", "[\"avg\"]"), "LimitExceeded", "period"),
                Arguments.of(body(OK_SERIES, s, e, "60", "[\"median\"]"), "InvalidField", "stats[0]"),
                Arguments.of(
                        body(OK_SERIES, "\"+999999999-01-01T00:00:00Z\"", e, "60", "[\"avg\"]"),
                        "InvalidField",
                        "start"),
                Arguments.of(body(OK_SERIES, "-9000000000000000000", e, "60", "[\"avg\"]"), "InvalidField", "start"),
                Arguments.of(body(OK_SERIES, s, "9223372036854775807", "60", "[\"avg\"]"), "InvalidField", "end"),
                Arguments.of(body(OK_SERIES, s, e, "9223372036854780", "[\"avg\"]"), "LimitExceeded", "period"),
                Arguments.of(body(OK_SERIES, s, e, "\"PT60.5S\"", "[\"avg\"]"), "InvalidField", "period"),
                Arguments.of(body(OK_SERIES, s, e, "60", "[\"avg\",\"p0\"]"), "InvalidField", "stats[1]"),
                Arguments.of(body(OK_SERIES, s, e, "60", "[\"p101\"]"), "InvalidField", "stats[0]"),
                Arguments.of(body(OK_SERIES, s, e, "60", "[]"), "InvalidField", "stats"),
                Arguments.of(body(OK_SERIES, s, e, "60", "\"avg\""), "InvalidField", "stats"),
                Arguments.of(
                        withToken(body(OK_SERIES, s, e, "60", "[\"avg\"]"), "garbage"), "InvalidField", "nextToken"));
    }

    private static String withToken(String body, String token) {
        return body.substring(0, body.length() - 1) + ",\"nextToken\":\"" + token + "\"}";
    }

    @ParameterizedTest
    @MethodSource("badRequests")
    void parse_whenBadRequest_namesCodeAndField(String body, String code, String field) {
        assertThatThrownBy(() -> QueryParser.parse(body)).isInstanceOfSatisfying(BadRequestException.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.getMessage()).isNotBlank();
        });
    }

    @Test
    void nextToken_whenReplayedWithSameQuery_continuesAtOffsetAndRejectsOtherQueries() throws Exception {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < 10; i++) {
            sb.append(i == 0 ? "" : ",")
                    .append("{\"name\":\"m\",\"dims\":{\"i\":\"")
                    .append(i)
                    .append("\"}}");
        }
        String many = sb.append(']').toString();
        String b = body(many, "0", "60000000", "60", "[\"avg\"]");
        NativeQuery first = QueryParser.parse(b);
        String token = QueryParser.nextToken(first, 4);

        NativeQuery second = QueryParser.parse(withToken(b, token));
        assertThat(second.offset()).isEqualTo(4);

        String other = body(many, "0", "60000000", "120", "[\"avg\"]");
        assertThatThrownBy(() -> QueryParser.parse(withToken(other, token)))
                .isInstanceOfSatisfying(
                        BadRequestException.class, e -> assertThat(e.field()).isEqualTo("nextToken"));
    }

    static Stream<Arguments> longNumbers() {
        String digits = "9".repeat(60_000);
        return Stream.of(
                Arguments.of(body(OK_SERIES, digits, "1", "60", "[\"avg\"]"), "start"),
                Arguments.of(body(OK_SERIES, "0", "-" + digits, "60", "[\"avg\"]"), "end"),
                Arguments.of(body(OK_SERIES, "0", "1", "0." + digits, "[\"avg\"]"), "period"),
                Arguments.of(body(OK_SERIES, "0", "1", "60", "[\"avg\", " + digits + "]"), "stats[1]"),
                Arguments.of(
                        body("[{\"name\":\"m\",\"dims\":{\"k\":" + digits + "}}]", "0", "1", "60", "[\"avg\"]"),
                        "series[0].dims.k"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("longNumbers")
    void parse_whenANumberIsLongerThan100Characters_refusesItNamingItsFieldInBoundedTime(String body, String field) {
        assertTimeoutPreemptively(
                java.time.Duration.ofSeconds(1),
                () -> assertThatThrownBy(() -> QueryParser.parse(body))
                        .isInstanceOfSatisfying(BadRequestException.class, e -> {
                            assertThat(e.field()).isEqualTo(field);
                            assertThat(e.code()).isEqualTo("InvalidField");
                            assertThat(e.getMessage()).contains("longer than 100 characters");
                        }));
    }
}
