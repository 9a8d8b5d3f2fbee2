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
package dev.pulse.query.promql.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.pulse.query.promql.PromQlException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ApiParamsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "1700000000, 1700000000000",
        "1700000000.5, 1700000000500",
        "1700000000.0004, 1700000000000",
        "2026-11-21T12:00:30Z, 1795262430000",
        "2026-11-21T13:00:30+01:00, 1795262430000",
        "0, 0"
    })
    void time_whenUnixSecondsOrRfc3339_givesEpochMillis(String text, long millis) throws Exception {
        assertThat(ApiParams.parse(
                                null, "t=" + java.net.URLEncoder.encode(text, java.nio.charset.StandardCharsets.UTF_8))
                        .time("t"))
                .isEqualTo(millis);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"yesterday", "-1", "1e20", "NaN", "Infinity", "2026-11-21", "1700000000x"})
    void time_whenNotATimestamp_isBadDataNamingTheParameter(String text) {
        assertThatThrownBy(() -> ApiParams.parse(null, "start=" + text).time("start"))
                .isInstanceOfSatisfying(
                        PromQlException.class, e -> assertThat(e.type()).isEqualTo(PromQlException.Type.BAD_DATA))
                .hasMessageStartingWith("invalid parameter \"start\"");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "-0, 0",
        "0e999999999, 0",
        "1e-1000000, 0",
        "+1.7e9, 1700000000000",
        "17e8, 1700000000000",
        ".5, 500",
        "5., 5000",
        "0.00000000000000000000000000000001, 0",
        "1700000000.0005, 1700000000000",
        "1700000000.0015, 1700000000002",
        "253402300799, 253402300799000"
    })
    void time_whenDecimalWithAnyExponent_givesEpochMillisInBoundedTime(String text, long millis) {
        long got = assertTimeoutPreemptively(
                Duration.ofSeconds(1), () -> ApiParams.parse(null, "t=" + text).time("t"));

        assertThat(got).isEqualTo(millis);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "1e100000000",
                "-1e100000000",
                "1e14",
                "253402300800",
                "-0.001",
                "1e2147483648",
                "0x10",
                "\uff11",
                "1_0"
            })
    void time_whenNumberOutsideTheRangeOrNotDecimal_isBadDataInBoundedTime(String text) {
        assertTimeoutPreemptively(
                Duration.ofSeconds(1),
                () -> assertThatThrownBy(() -> ApiParams.parse(
                                        null,
                                        "time="
                                                + java.net.URLEncoder.encode(
                                                        text, java.nio.charset.StandardCharsets.UTF_8))
                                .time("time"))
                        .hasMessageStartingWith("invalid parameter \"time\""));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"1e-1000000, 0", "-0, 0", "1e-4, 1", "3e2, 300000", "315360000, 315360000000"})
    void duration_whenDecimalWithAnyExponent_givesMillisInBoundedTime(String text, long millis) {
        long got = assertTimeoutPreemptively(
                Duration.ofSeconds(1),
                () -> ApiParams.parse(null, "step=" + text).duration("step"));

        assertThat(got).isEqualTo(millis);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1e100000000", "-1e100000000", "315360001", "NaN", "+Inf", "1e2147483648"})
    void duration_whenBeyondTenYearsOrNotANumber_isBadDataInBoundedTime(String text) {
        assertTimeoutPreemptively(
                Duration.ofSeconds(1),
                () -> assertThatThrownBy(() -> ApiParams.parse(
                                        null,
                                        "step="
                                                + java.net.URLEncoder.encode(
                                                        text, java.nio.charset.StandardCharsets.UTF_8))
                                .duration("step"))
                        .hasMessageStartingWith("invalid parameter \"step\""));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"60, 60000", "0.5, 500", "5m, 300000", "1h30m, 5400000", "-5, -5000"})
    void duration_whenSecondsOrPrometheusDuration_givesMillis(String text, long millis) throws Exception {
        assertThat(ApiParams.parse(null, "step=" + text).duration("step")).isEqualTo(millis);
    }

    @Test
    void parse_whenBodyAndQueryString_keepsRepeatedMatchersAndRefusesRepeatedSettings() throws Exception {
        ApiParams p = ApiParams.parse("match%5B%5D=a%7Bb%3D%22c%2Cd%22%7D&query=x", "match[]=e");
        assertThat(p.all("match[]")).containsExactly("a{b=\"c,d\"}", "e");
        assertThat(p.first("query")).isEqualTo("x");
        assertThatThrownBy(() -> ApiParams.parse("query=x", "query=y").first("query"))
                .hasMessageContaining("given 2 times");
        assertThatThrownBy(() -> ApiParams.parse(null, "query=%zz"))
                .isInstanceOf(PromQlException.class)
                .hasMessageContaining("invalid URL escape");
    }
}
