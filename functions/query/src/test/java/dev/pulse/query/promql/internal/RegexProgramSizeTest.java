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

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A regular expression whose compiled program would be larger than Go's regexp allows (about 3.3 million
 * instructions, "expression too large") is refused as a parse error, a 400: a counted repeat of a long group of
 * literals multiplies the group's length, which the nesting rule of counted repeats does not weigh.
 */
class RegexProgramSizeTest {

    @Test
    void parse_whenRepeatedGroupOfLiteralsCompilesToMillionsOfInstructions_refusesTheRegex() {
        // 4,000 literals repeated 1,000 times: 4 million instructions, over 200 MB of heap in re2j.
        String query = "{__name__=~\"(" + "a".repeat(4_000) + "){1000}\"}";

        assertThatThrownBy(() -> PromQlParser.parse(query))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("regular expression")
                .hasMessageContaining("expression too large")
                .hasMessageContaining("MAX_REGEX_PROGRAM_SIZE");
    }

    /** Each weighs what Go's parser weighs it: quoted runs, alternations and unbounded repeats of a long group. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "(\\\\Q%s\\\\E){1000}",
                "(x|%s){1000}",
                "((?:%s)+){1000}",
                "(?i:(%s)?){1000}",
                "(%s){900,1000}",
                "(%s){1000,}"
            })
    void parse_whenRepeatedGroupWeighsOverTheLimitInAnyForm_refusesTheRegex(String form) {
        String query = "x{a=~\"" + form.formatted("b".repeat(3_400)) + "\"}";

        assertThatThrownBy(() -> PromQlParser.parse(query))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("expression too large");
    }

    @Test
    void parse_whenRepeatedGroupJustUnderGosProgramSize_accepts() {
        // 3,300 literals repeated 1,000 times: 3.3 million instructions, which Go's regexp still compiles.
        String query = "x{a=~\"(" + "c".repeat(3_300) + "){1000}\"}";

        assertThatCode(() -> PromQlParser.parse(query)).doesNotThrowAnyException();
    }

    @Test
    void parse_whenTheQuerysRegexesTogetherPassTheLimit_refusesTheQuery() {
        // 2 million instructions each: either alone compiles, both would hold twice the heap of the limit.
        String big = "(" + "d".repeat(2_000) + "){1000}";
        String query = "x{a=~\"" + big + "\", b=~\"" + big + "\"}";

        assertThatThrownBy(() -> PromQlParser.parse(query))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("together")
                .hasMessageContaining("MAX_REGEX_PROGRAM_SIZE");
    }

    /** Regular expressions of real dashboards (Grafana variables, alert rules) are far below the limit. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "checkout-api|payments|search", "api-(prod|staging)-.*", "5..", "(?i)GET|POST", "[a-z0-9-]{1,64}",
                "(\\\\d{1,3}\\\\.){3}\\\\d{1,3}(:\\\\d+)?", "\\\\Q/api/v1/\\\\E.*", "(.*)-(\\\\w+)-([0-9]{2,4})",
                        "^$|none", "(?P<env>prod)-.+",
                "\\\\x{1000}{2}\\\\p{Greek}+", "([a-f0-9]{8}-){4}[a-f0-9]{12}"
            })
    void parse_whenDashboardRegex_accepts(String regex) {
        assertThatCode(() -> PromQlParser.parse("x{a=~\"" + regex + "\"}")).doesNotThrowAnyException();
    }
}
