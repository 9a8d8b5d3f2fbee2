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

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code format_query} against Prometheus 2.42's own answers: src/test/resources/promql-format-2.42.json holds every
 * corpus expression (and layout cases: long lines, parentheses, subqueries, vector matching, numbers, durations,
 * escapes) that Prometheus 2.42 formats, with its {@code /api/v1/format_query} answer, recorded from the Debian
 * package's server. PromQlDifferentialIT asks the live server the same.
 */
class PromQlFormatterTest {

    @Test
    void format_whenPrometheusFormatsTheQuery_answersTheSameText() throws Exception {
        List<Map<String, String>> cases;
        try (InputStream in = getClass().getResourceAsStream("/promql-format-2.42.json")) {
            cases = new ObjectMapper().readValue(in, new TypeReference<>() {});
        }
        List<String> differ = new ArrayList<>();
        int parsed = 0;
        for (Map<String, String> c : cases) {
            String got;
            try {
                got = PromQlFormatter.format(c.get("query"));
            } catch (PromQlParseException e) {
                continue; // outside the subset: refused as the query endpoints refuse it
            }
            parsed++;
            if (!got.equals(c.get("formatted"))) {
                differ.add(c.get("id") + ":\n  Prometheus: " + c.get("formatted") + "\n  Pulse:      " + got);
            }
        }
        System.out.printf(
                "format_query: %d of %d cases parse; %d differ from Prometheus 2.42%n",
                parsed, cases.size(), differ.size());
        assertThat(parsed).as("cases the parser accepts").isGreaterThanOrEqualTo(cases.size() * 9 / 10);
        assertThat(differ).isEmpty();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "0 | 0s",
                "1 | 1ms",
                "90000 | 1m30s",
                "604800000 | 1w",
                "691200000 | 8d",
                "31536000000 | 1y",
                "31622400000 | 366d",
                "90061001 | 1d1h1m1s1ms",
            })
    void duration_whenMillis_printsPrometheusModelDuration(long millis, String want) {
        assertThat(PromQlFormatter.duration(millis)).isEqualTo(want);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "100000 | 100000", "1000000 | 1e+06", "0.0001 | 0.0001", "0.00001 | 1e-05", "-2.5 | -2.5",
                "1.5e300 | 1.5e+300", "123456789 | 1.23456789e+08", "Infinity | +Inf", "-Infinity | -Inf", "NaN | NaN",
            })
    void goFloat_whenNumber_printsAsGoPrintsIt(double v, String want) {
        assertThat(PromQlFormatter.goFloat(v)).isEqualTo(want);
    }

    /** Answers of the 2.42 server: a minus folds into the number literal after it, not into parentheses. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {"-(2) | -(2)", "- -inf | +Inf", "-x | -x", "--2 | 2", "-2 ^ 2 | -2 ^ 2"})
    void format_whenUnaryMinus_foldsIntoNumbersAsPrometheus(String query, String want) throws Exception {
        assertThat(PromQlFormatter.format(query)).isEqualTo(want);
    }

    @Test
    void format_whenQueryIsLongerThanTheLimit_refusesBeforeReadingIt() {
        String query = "0".repeat(PromQlParser.MAX_LENGTH + 1);

        assertThatThrownBy(() -> PromQlFormatter.format(query))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("longer than " + PromQlParser.MAX_LENGTH);
    }

    @Test
    void format_whenQueryDoesNotParse_refusesWithThePosition() {
        assertThatThrownBy(() -> PromQlFormatter.format("rate(x[5m"))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageStartingWith("1:");
    }

    @Test
    void format_whenDeeplyNested_printsEveryLevel() throws Exception {
        String q = "(".repeat(40) + "x" + ")".repeat(40);
        assertThat(PromQlFormatter.format(q)).isEqualTo(q);
    }
}
