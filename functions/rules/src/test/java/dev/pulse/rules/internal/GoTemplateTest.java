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
package dev.pulse.rules.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The template subset and Go's number formatting. The expected strings are what promtool 2.42 printed for the same
 * templates (rules/tests/templates.test.yml holds the end-to-end comparison); the non-finite ones follow Go's
 * {@code %.4g}, which prints NaN, +Inf and -Inf.
 */
class GoTemplateTest {

    private static String expand(String template, double value) throws TemplateException {
        return GoTemplate.parse("t", template)
                .execute(new GoTemplate.Data(
                        Map.of("__name__", "x", "job", "api"), Map.of("cluster", "eu"), "https://p", value));
    }

    @ParameterizedTest(name = "{0} of {1}")
    @CsvSource(
            delimiter = ';',
            value = {
                "{{ $value }};1234567;1.234567e+06",
                "{{ $value }};123456;123456",
                "{{ $value }};0.000012345;1.2345e-05",
                "{{ $value }};NaN;NaN",
                "{{ $value }};-Infinity;-Inf",
                "{{ humanize $value }};1234567;1.235M",
                "{{ humanize $value }};0.125;125m",
                "{{ humanize $value }};NaN;NaN",
                "{{ humanize $value }};Infinity;+Inf",
                "{{ humanize $value }};0;0",
                "{{ humanize1024 $value }};90061;87.95ki",
                "{{ humanizeDuration $value }};90061;1d 1h 1m 1s",
                "{{ humanizeDuration $value }};0.125;125ms",
                "{{ humanizeDuration $value }};Infinity;+Inf",
                "{{ humanizeDuration $value }};NaN;NaN",
                "{{ humanizeDuration $value }};0;0s",
                // Past int64, Go's conversion on amd64 gives the minimum int64 (promtool test rules prints these).
                "{{ humanizeDuration $value }};1e300;-106751991167300d -15h -30m -8s",
                "{{ humanizeDuration $value }};-1e300;--106751991167300d -15h -30m -8s",
                "{{ humanizePercentage $value }};0.125;12.5%",
                "{{ humanizePercentage $value }};NaN;NaN%",
                "{{ printf \"%.2f\" $value }};0.125;0.12",
                "{{ printf \"%5.1f|%e\" $value $value }};0.125;'  0.1|1.250000e-01'",
                "{{ printf \"%d\" $value }};3;%!d(float64=3)",
                "{{ printf \"%.2f\" $value }};NaN;NaN",
                "{{ $labels }};1;map[__name__:x job:api]",
                "{{ $labels.missing }}|{{ .Labels.job }};1;|api",
                "{{ $externalLabels.cluster }} {{ $externalURL }};1;eu https://p",
                "a {{- /* c */ -}} b;1;ab",
                "{{ $v := $value }}{{ $v | humanize }};2000;2k",
                "{{ toUpper $labels.job | title }};1;API",
                // promtool 2.42 on NaN, +Inf, -Inf and -1500 (series values NaN, Inf, -Inf, -1500).
                "{{ $value }}|{{ humanize $value }}|{{ humanize1024 $value }}|{{ humanizeDuration $value }}|{{ humanizePercentage $value }}|{{ printf \"%.2f\" $value }};Infinity;+Inf|+Inf|+Inf|+Inf|+Inf%|+Inf",
                "{{ $value }}|{{ humanize $value }}|{{ humanize1024 $value }}|{{ humanizeDuration $value }}|{{ humanizePercentage $value }}|{{ printf \"%.2f\" $value }};NaN;NaN|NaN|NaN|NaN|NaN%|NaN",
                "{{ $value }}|{{ humanize $value }}|{{ humanize1024 $value }}|{{ humanizeDuration $value }}|{{ humanizePercentage $value }}|{{ printf \"%.2f\" $value }};-Infinity;-Inf|-Inf|-Inf|-Inf|-Inf%|-Inf",
                "{{ $value }}|{{ humanize $value }}|{{ humanize1024 $value }}|{{ humanizeDuration $value }}|{{ humanizePercentage $value }}|{{ printf \"%.2f\" $value }};-1500;-1500|-1.5k|-1.465ki|-25m 0s|-1.5e+05%|-1500.00",
            })
    void execute_whenTemplateIsSupported_printsAsPrometheus(String template, double value, String expected)
            throws TemplateException {
        assertThat(expand(template, value)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = ';',
            value = {
                "{{ $labels.job ;unclosed action",
                "{{ $nope }};undefined variable \"$nope\"",
                "{{ nosuch 1 }};function \"nosuch\" not defined",
                "{{ range $labels }}x{{ end }};{{range}} is not supported",
                "{{ with $labels }}x{{ end }};{{with}} is not supported",
                "{{ template \"x\" }};{{template}} is not supported",
                "{{ query \"up\" }};the function \"query\" is not supported",
                "{{ $value 1 }};can't give argument to non-function $value",
                "{{ \"x ;unterminated quoted string",
            })
    void parse_whenTemplateIsOutsideTheSubset_isRefusedNamingTheConstruct(String template, String reason) {
        assertThatThrownBy(() -> GoTemplate.parse("__alert_A", template))
                .isInstanceOf(TemplateException.class)
                .hasMessageStartingWith("template: __alert_A:1: ")
                .hasMessageContaining(reason);
    }

    @Test
    void parse_whenTheSourceIsLongerThanTheLimit_isRefused() {
        assertThatThrownBy(() -> GoTemplate.parse("t", "x".repeat(GoTemplate.MAX_SOURCE + 1)))
                .hasMessageContaining("at most 16384 allowed");
    }

    @Test
    void execute_whenTheOutputWouldExceedTheLimit_failsInsteadOfGrowing() throws TemplateException {
        GoTemplate t = GoTemplate.parse("t", "{{ printf \"%200s\" $labels.job }}".repeat(400));

        assertThatThrownBy(() -> t.execute(new GoTemplate.Data(Map.of("job", "a"), Map.of(), "", 1)))
                .hasMessageContaining("the expansion is longer than 65536 characters");
    }

    @Test
    void execute_whenAWidthIsHuge_isRefused() throws TemplateException {
        GoTemplate t = GoTemplate.parse("t", "{{ printf \"%999999d\" $value }}");

        assertThatThrownBy(() -> t.execute(new GoTemplate.Data(Map.of(), Map.of(), "", 1)))
                .hasMessageContaining("width or precision 999999 is above 200");
    }

    @Test
    void execute_whenALabelValueHoldsANewline_printsItAndQuotesItAsGo() throws TemplateException {
        GoTemplate t = GoTemplate.parse("t", "{{ $labels.route }}|{{ printf \"%q\" $labels.route }}");

        assertThat(t.execute(new GoTemplate.Data(Map.of("route", "a\nb"), Map.of(), "", 1)))
                .isEqualTo("a\nb|\"a\\nb\"");
    }
}
