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
package dev.pulse.query.promql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.query.QueryMetric;
import dev.pulse.query.promql.internal.ApiParams;
import dev.pulse.query.promql.internal.Expr;
import dev.pulse.query.promql.internal.LabelMatcher;
import dev.pulse.query.promql.internal.PromQlParseException;
import dev.pulse.query.promql.internal.PromQlParser;
import dev.pulse.retry.Deadline;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the Prometheus API does with input at and past its limits, and with constructs outside the PromQL subset: a 400
 * {@code bad_data} naming the parameter (and, for a query, the line and column), as Prometheus answers, never a bare
 * 500 from an Error escaping the handler; and the edge cases it accepts, answered as Prometheus answers them, since
 * Grafana and promtool send them. Queries without selectors need no storage, so the service runs without a table.
 */
class PromQlBadInputTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-21T12:00:00Z"), ZoneOffset.UTC);

    /**
     * The answer body, or the PromQlException; storage collaborators are absent (scalar queries never read): the catalog
     * has no client, so a listing or a version read would fail the test.
     */
    private static String answer(String endpoint, String form) throws PromQlException {
        return new PromQlService(null, new dev.pulse.query.CatalogService(null, "absent"), CLOCK)
                .answer(
                        endpoint,
                        null,
                        ApiParams.parse(form, null),
                        Deadline.inMillis(10_000),
                        new InvocationMetrics<>(QueryMetric.class));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Runs {@code r} on a thread with a small stack (a cold Lambda overflows around 4,000 levels at 1 MB). */
    private static Throwable onSmallStack(ThrowingRunnable r) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(
                null,
                () -> {
                    try {
                        r.run();
                    } catch (Throwable e) {
                        thrown.set(e);
                    }
                },
                "small-stack",
                256 * 1024);
        t.start();
        t.join();
        return thrown.get();
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    // --- parsing: limits ----------------------------------------------------------------------------------------

    /**
     * {@code 2^1^1^...} (8,000 operators, 16,001 chars: under the 16,384 limit, sent as a POST form) is right
     * associative, so a parser that recursed once per {@code ^} would overflow the stack (a cold Lambda does at about
     * 4,000 levels on its 1 MB stack) and throw a StackOverflowError, an Error the handler does not catch: API Gateway
     * would answer a bare 500 instead of Prometheus' envelope. The operator count is refused first, on a small stack.
     */
    @Test
    void answer_whenRightAssociativePowerChainExceeds64Operators_isBadDataOnASmallStack() throws Exception {
        String q = "2" + "^1".repeat(8_000);
        assertThat(q.length()).isLessThan(PromQlParser.MAX_LENGTH);
        Throwable t = onSmallStack(() -> answer("query", "query=" + enc(q)));
        assertThat(t).isInstanceOf(PromQlException.class).hasMessageContaining("more than 64 binary operators");
        assertThat(((PromQlException) t).type()).isEqualTo(PromQlException.Type.BAD_DATA);
    }

    /**
     * {@code 1+1+...+1} (8,000 operators) is left associative, which a parser reads in a loop, but the evaluator
     * recurses once per operator: the chain is refused at parse time so evaluation cannot overflow the stack, and 64
     * operators still answer on a small stack.
     */
    @Test
    void answer_whenLeftAssociativeChainExceeds64Operators_isRefusedAtParseTime() throws Exception {
        String q = "1" + "+1".repeat(8_000);
        assertThatThrownBy(() -> PromQlParser.parse(q))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("more than 64 binary operators");
        Throwable t = onSmallStack(() -> answer("query", "query=" + enc(q)));
        assertThat(t).isInstanceOf(PromQlException.class);
        // 64 operators still answer, on the small stack too.
        assertThat(onSmallStack(() -> assertThat(answer("query", "query=" + enc("1" + "+1".repeat(64))))
                        .contains("\"65\"")))
                .isNull();
    }

    /**
     * re2j is linear in the input, but compiles nested counted repetitions into a program as large as their product,
     * with no size limit of its own: {@code ((a{1000}){1000}){10}} (22 chars) is 10^7 instructions, seconds to
     * compile, and {@code ((a{1000}){1000}){1000}} (24 chars, 10^9) runs a JVM out of heap. Go's regexp/syntax, so
     * Prometheus, refuses any nesting whose repeat counts multiply past 1,000 ({@code repeatIsValid}), already for
     * {@code (a{2}){501}}: Pulse refuses the same with Go's "invalid repeat count".
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "(a{2}){501}",
                "(a{1000}){1000}",
                "((a{100}){100}){10}",
                "((a{1000}){1000}){1000}",
                "x|(b(a{10,}){200})",
                "[)]{2}(a{1000}){2}"
            })
    void parse_whenNestedRepeatCountsMultiplyPastGosLimit_isInvalidRepeatCount(String regex) {
        assertThatThrownBy(() -> PromQlParser.parse("x{a=~\"" + regex + "\"}"))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("invalid repeat count");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a{1000}", "(a{10}){100}", "(a{10})(b{100}){10}", "\\\\{5}{3}", "a{,5}", "[{]{1000}"})
    void parse_whenRepeatCountsWithinGosLimit_accepts(String regex) {
        assertThatCode(() -> PromQlParser.parse("x{a=~\"" + regex + "\"}")).doesNotThrowAnyException();
    }

    /** A program larger than Go's regexp compiles (3.3 million instructions) is a 400 naming the parameter and limit. */
    @Test
    void answer_whenRegexProgramPassesGosSize_isBadDataNamingTheQueryParameter() {
        String query = "x{a=~\"(" + "a".repeat(4_000) + "){1000}\"}";

        assertThatThrownBy(() -> answer("query", "query=" + enc(query) + "&time=1795262400"))
                .isInstanceOfSatisfying(
                        PromQlException.class, e -> assertThat(e.type()).isEqualTo(PromQlException.Type.BAD_DATA))
                .hasMessageStartingWith("invalid parameter \"query\"")
                .hasMessageContaining("expression too large")
                .hasMessageContaining("MAX_REGEX_PROGRAM_SIZE");
    }

    /**
     * Prometheus refuses only {@code (end - start) / step > 11000}, so 11,001 points are allowed. Grafana picks its
     * minimum step as range / 11,000, so a range divisible by 11,000 s (11,000 s at step 1 s, or 30.5 h at step 10 s)
     * is a request Grafana sends: it is answered, and one step more is refused.
     */
    @Test
    void queryRange_whenExactly11000Steps_answers11001PointsAndRefusesOneStepMore() throws Exception {
        assertThat(answer("query_range", "query=1&start=0&end=11000&step=1")).contains("[11000,\"1\"]");
        assertThatThrownBy(() -> answer("query_range", "query=1&start=0&end=11001&step=1"))
                .isInstanceOf(PromQlException.class)
                .hasMessageContaining("exceeded maximum resolution");
    }

    /**
     * Prometheus refuses a range on a parenthesized selector ("ranges only allowed for vector selectors"); so does
     * Pulse, rather than unwrap the parentheses and accept what Prometheus refuses.
     */
    @Test
    void parse_whenRangeFollowsAParenthesizedSelector_isRefused() {
        assertThatThrownBy(() -> PromQlParser.parse("count_over_time((x)[5m])"))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("1:20:")
                .hasMessageContaining("ranges only allowed for vector selectors");
    }

    /**
     * Prometheus refuses any {@code __name__} matcher inside braces when the name is also given outside ("metric name
     * must not be set twice"), a regex matcher as well as {@code =}.
     */
    @Test
    void parse_whenNameRegexMatcherRepeatsTheMetricName_isRefused() {
        assertThatThrownBy(() -> PromQlParser.parse("x{__name__=~\"y\"}"))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("metric name must not be set twice");
    }

    /**
     * Label names are {@code [a-zA-Z_][a-zA-Z0-9_]*} in Prometheus; ':' is valid only in metric names, so a label
     * name with one is refused in a matcher and in a by/without list, and a recording-rule metric name is accepted.
     */
    @ParameterizedTest
    @ValueSource(strings = {"x{a:b=\"c\"}", "sum by (a:b) (x)", "x{:a=\"c\"}"})
    void parse_whenLabelNameHoldsAColon_isRefused(String q) {
        assertThatThrownBy(() -> PromQlParser.parse(q)).isInstanceOf(PromQlParseException.class);
        assertThatCode(() -> PromQlParser.parse("job:x:rate5m{a=\"b\"}")).doesNotThrowAnyException();
    }

    /**
     * Go's strconv.ParseFloat("1e400") fails with ErrRange and Prometheus answers a parse error; Pulse refuses the
     * number too, rather than answer +Inf.
     */
    @Test
    void answer_whenNumberIsOutOfDoubleRange_isBadDataAtItsPosition() {
        assertThatThrownBy(() -> answer("query", "query=1e400"))
                .isInstanceOf(PromQlException.class)
                .hasMessageContaining("1:1:")
                .hasMessageContaining("out of range");
    }

    /**
     * {@code sum}, {@code count}, ... are keywords in PromQL: alone they are a parse error ("unexpected end of input
     * in aggregation"), not a metric named "sum".
     */
    @ParameterizedTest
    @ValueSource(strings = {"sum", "count + 1", "quantile"})
    void parse_whenAggregationKeywordStandsAlone_isRefused(String q) {
        assertThatThrownBy(() -> PromQlParser.parse(q))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("1:1:");
    }

    /**
     * A documented difference (docs/prometheus-api.md, "The PromQL subset"): Prometheus' column is a byte offset of
     * the UTF-8 string, Pulse's counts characters, so after a non-ASCII character the columns differ ("1:13:" in
     * Prometheus).
     */
    @Test
    void parse_whenErrorFollowsANonAsciiCharacter_columnCountsCharacters() {
        assertThatThrownBy(() -> PromQlParser.parse("x{a=\"é\"} + é"))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageStartingWith("1:12: parse error");
    }

    // --- parsing: refused constructs and accepted edge cases ----------------------------------------------------

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "x[5m]                            | 1:1:  | found range vector",
                "sum(x) by (a) without (b)        | 1:15: | unexpected character \"w\"",
                "'1 + '                           | 1:5:  | unexpected end of input",
                "métrique                         | 1:2:  | unexpected character \"é\"",
                "{}                               | 1:1:  | at least one non-empty matcher",
                "{a=\"\"}                         | 1:1:  | at least one non-empty matcher",
                "{a=~\".*\"}                      | 1:1:  | at least one non-empty matcher",
                "x{__name__=\"y\"}                | 1:3:  | metric name must not be set twice",
                "count_over_time(x[0s])           | 1:19: | greater than 0",
                "count_over_time(x[1m5h])         | 1:19: | largest unit first",
                "count_over_time(x[-5m])          | 1:19: | expected a duration",
                "count_over_time(x[100000d])      | 1:19: | out of range",
                "count_over_time(x[1.5m])         | 1:19: | bad duration",
                "quantile_over_time(2, x[1m])     | 1:20: | between 0 and 1",
                "quantile_over_time(NaN, x[1m])   | 1:20: | between 0 and 1",
                "x{a=~\"(a\"}                     | 1:6:  | invalid regular expression",
                "x{a=~\"a{1001}\"}                | 1:6:  | invalid regular expression",
                "x{a=~\"\\\\C\"}                  | 1:6:  | invalid regular expression",
                "0x                               | 1:1:  | bad number",
                "1e                               | 1:1:  | bad number",
                "rate(x[5m:])                     | 1:1:  | over a subquery is not supported",
                "sum(x)@1                         | 1:7:  | @ modifier",
                "sum(x) offset -5m                | 1:8:  | offset modifier",
            })
    void answer_whenConstructIsUnsupportedOrInvalid_isBadDataWithItsPosition(
            String query, String position, String message) {
        assertThatThrownBy(() -> answer("query", "query=" + enc(query)))
                .isInstanceOfSatisfying(
                        PromQlException.class, e -> assertThat(e.type()).isEqualTo(PromQlException.Type.BAD_DATA))
                .hasMessageStartingWith("invalid parameter \"query\": " + position + " parse error: ")
                .hasMessageContaining(message);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "0x1f | 31",
                "Inf | +Inf",
                "-Inf | -Inf",
                "NaN | NaN",
                "1/0 | +Inf",
                "0/0 | NaN",
                "-0 | -0",
                "2 ^ 3 ^ 2 | 512",
                "-2 ^ 2 | -4",
                "1e-7 | 0.0000001",
                "0.1+0.2 | 0.30000000000000004"
            })
    void answer_whenScalarNumbersAndArithmetic_answersAsPrometheus(String query, String value) throws Exception {
        assertThat(answer("query", "query=" + enc(query)))
                .isEqualTo("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1795262400,\""
                        + value + "\"]}}");
    }

    @Test
    void parse_whenDurationInYearsOrMixedUnits_readsItAsPrometheus() throws Exception {
        assertThat(((Expr.OverTime) PromQlParser.parse("count_over_time(x[1y])"))
                        .selector()
                        .rangeMillis())
                .isEqualTo(365L * 86_400_000);
        assertThat(((Expr.OverTime) PromQlParser.parse("count_over_time(x[5m1s])"))
                        .selector()
                        .rangeMillis())
                .isEqualTo(301_000);
    }

    @Test
    void labelMatcher_whenRegex_isFullyAnchoredAndReadsAnAbsentLabelAsEmpty() throws Exception {
        LabelMatcher a =
                ((Expr.Selector) PromQlParser.parse("x{a=~\"a\"}")).matchers().get(1);
        assertThat(a.matches("a")).isTrue();
        assertThat(a.matches("ab")).isFalse();
        assertThat(a.matches("ba")).isFalse();
        // An alternation cannot escape the anchors: ^(?:a)|(b)$ is still matched against the whole value.
        LabelMatcher alt = ((Expr.Selector) PromQlParser.parse("x{a=~\"a)|(b\"}"))
                .matchers()
                .get(1);
        assertThat(alt.matches("ab")).isFalse();
        assertThat(alt.matches("a")).isTrue();
        LabelMatcher notEmpty =
                ((Expr.Selector) PromQlParser.parse("x{a!~\"\"}")).matchers().get(1);
        assertThat(notEmpty.matches(null)).isFalse();
        assertThat(notEmpty.matches("v")).isTrue();
    }

    @Test
    void labelMatcher_whenPatternIsCatastrophicForBacktracking_matchesInLinearTime() throws Exception {
        LabelMatcher m = ((Expr.Selector) PromQlParser.parse("x{a=~\"(a+)+$\"}"))
                .matchers()
                .get(1);
        String evil = "a".repeat(100_000) + "!";
        long started = System.nanoTime();
        assertThat(m.matches(evil)).isFalse();
        assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(2_000);
    }

    @Test
    void answer_whenNestingOrLengthPassesTheLimit_isBadData() {
        assertThatThrownBy(() -> answer("query", "query=" + enc("(".repeat(5_000) + "1" + ")".repeat(5_000))))
                .isInstanceOf(PromQlException.class)
                .hasMessageContaining("nests more than 64");
        assertThatThrownBy(() -> answer("query", "query=" + enc("sum(".repeat(100) + "x" + ")".repeat(100))))
                .isInstanceOf(PromQlException.class)
                .hasMessageContaining("nests more than 64");
        assertThatThrownBy(() -> PromQlParser.parse("x" + " ".repeat(PromQlParser.MAX_LENGTH)))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("longer than");
    }

    // --- envelope and parameters ------------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "query       | ''                                   | invalid parameter \"query\"",
                "query       | query=1&query=2                      | invalid parameter \"query\"",
                "query       | query=1&time=abc                     | invalid parameter \"time\"",
                "query       | query=1&time=NaN                     | invalid parameter \"time\"",
                "query       | query=1&time=1e400                   | invalid parameter \"time\"",
                "query       | query=1&timeout=0                    | invalid parameter \"timeout\"",
                "query_range | query=1&start=0&end=10               | invalid parameter \"step\"",
                "query_range | query=1&start=0&end=10&step=0        | zero or negative query resolution step",
                "query_range | query=1&start=0&end=10&step=-1       | zero or negative query resolution step",
                "query_range | query=1&start=10&end=0&step=1        | invalid parameter \"end\"",
                "query_range | query=1&start=0&end=1&step=1e400     | invalid parameter \"step\"",
                "query_range | query=1&start=0&end=11001&step=1     | exceeded maximum resolution of 11,000 points",
                "query       | query=%ZZ                            | invalid URL escape",
            })
    void answer_whenParameterIsMissingOrInvalid_isBadDataNamingIt(String endpoint, String form, String message) {
        assertThatThrownBy(() -> answer(endpoint, form))
                .isInstanceOfSatisfying(
                        PromQlException.class, e -> assertThat(e.type()).isEqualTo(PromQlException.Type.BAD_DATA))
                .hasMessageContaining(message);
    }

    @Test
    void answer_whenTimesAreRfc3339OrUnixSeconds_answersTheSameAndDecodesTheForm() throws Exception {
        String rfc = answer("query_range", "query=1&start=2026-11-21T12:00:00Z&end=2026-11-21T12:02:00Z&step=1m");
        String unix = answer("query_range", "query=1&start=1795262400&end=1795262520.000&step=60");
        assertThat(rfc).isEqualTo(unix).contains("[[1795262400,\"1\"],[1795262460,\"1\"],[1795262520,\"1\"]]");
        assertThat(answer("query", "query=1&time=2026-11-21T12:00:00.5%2B01:00"))
                .contains("[1795258800.5,\"1\"]");
        assertThat(ApiParams.parse("query=sum+by+%28a%29+%28x%29", null).first("query"))
                .isEqualTo("sum by (a) (x)");
    }
}
