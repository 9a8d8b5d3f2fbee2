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
 * Adversarial review of issue 16's PromQL subset and Prometheus API envelope, at unit level: {@code defect_*} tests
 * assert the CURRENT (wrong) behaviour with the expected one in a comment; {@code holds_*} tests are attacks that
 * failed. Queries without selectors need no storage, so the service runs without a table.
 */
class PromQlReviewTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-21T12:00:00Z"), ZoneOffset.UTC);

    /** The answer body, or the PromQlException; storage collaborators are absent (scalar queries never read). */
    private static String answer(String endpoint, String form) throws PromQlException {
        return new PromQlService(null, null, CLOCK).answer(endpoint, null, ApiParams.parse(form, null),
                Deadline.inMillis(10_000), new InvocationMetrics<>(QueryMetric.class));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Runs {@code r} on a thread with a small stack (a cold Lambda overflows around 4,000 levels at 1 MB). */
    private static Throwable onSmallStack(ThrowingRunnable r) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                r.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        }, "small-stack", 256 * 1024);
        t.start();
        t.join();
        return thrown.get();
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    // --- 1. parsing: defects -----------------------------------------------------------------------------------

    /**
     * Severity HIGH. {@code 2^1^1^...} (8,000 operators, 16,001 chars: under the 16,384 limit, sent as a POST form)
     * recurses once per {@code ^} in the parser (right associativity bypasses the 64-level depth guard):
     * StackOverflowError, an Error the handler does not catch (it catches RuntimeException), so API Gateway answers
     * a bare 500, not Prometheus' envelope. Observed also on the default 1 MB stack at 4,000 operators (cold JIT).
     * Expected: 400 bad_data "1:N: parse error: expression nests more than 64 levels deep".
     */
    @Test
    void holds_rightAssociativePowerChain_isRefusedBeforeTheStack() throws Exception {
        String q = "2" + "^1".repeat(8_000);
        assertThat(q.length()).isLessThan(PromQlParser.MAX_LENGTH);
        Throwable t = onSmallStack(() -> answer("query", "query=" + enc(q)));
        assertThat(t).isInstanceOf(PromQlException.class).hasMessageContaining("more than 64 binary operators");
        assertThat(((PromQlException) t).type()).isEqualTo(PromQlException.Type.BAD_DATA);
    }

    /**
     * Severity HIGH. {@code 1+1+...+1} (8,000 operators) parses (left associativity is a loop), but the evaluator
     * recurses once per operator: StackOverflowError, a bare 500. Same for {@code -} and {@code *} chains, with
     * selectors in them too. Expected: refused at parse time (400 bad_data, too many operators / too deep), or an
     * iterative evaluator.
     */
    @Test
    void holds_longLeftAssociativeChain_isRefusedAtParseTime() throws Exception {
        String q = "1" + "+1".repeat(8_000);
        assertThatThrownBy(() -> PromQlParser.parse(q)).isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("more than 64 binary operators");
        Throwable t = onSmallStack(() -> answer("query", "query=" + enc(q)));
        assertThat(t).isInstanceOf(PromQlException.class);
        // 64 operators still answer, on the small stack too.
        assertThat(onSmallStack(() -> assertThat(answer("query", "query=" + enc("1" + "+1".repeat(64)))).contains("\"65\""))).isNull();
    }

    /**
     * Severity HIGH (denial of service). re2j is linear in the input, but compiles nested counted repetitions into a
     * program as large as their product, without a size limit. {@code ((a{1000}){1000}){10}} (10^7 instructions,
     * 22 chars) is accepted and took 3.9 s to compile here; {@code ((a{1000}){1000}){1000}} (24 chars, 10^9) ran
     * the test JVM out of heap after 173 s (OutOfMemoryError; not repeated here). Go's regexp/syntax (so Prometheus)
     * refuses any nesting whose repeat counts multiply past 1,000 ({@code repeatIsValid}): "invalid repeat count",
     * already for {@code (a{2}){501}}. Expected: 400 bad_data "invalid regular expression ...: invalid repeat
     * count" for all of these.
     */
    @ParameterizedTest
    @ValueSource(strings = {"(a{2}){501}", "(a{1000}){1000}", "((a{100}){100}){10}", "((a{1000}){1000}){1000}",
        "x|(b(a{10,}){200})", "[)]{2}(a{1000}){2}"})
    void holds_nestedRepeatCountsBeyondGosLimit_areRefused(String regex) {
        assertThatThrownBy(() -> PromQlParser.parse("x{a=~\"" + regex + "\"}")).isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("invalid repeat count");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a{1000}", "(a{10}){100}", "(a{10})(b{100}){10}", "\\\\{5}{3}", "a{,5}", "[{]{1000}"})
    void holds_repeatCountsWithinGosLimit_areAccepted(String regex) {
        assertThatCode(() -> PromQlParser.parse("x{a=~\"" + regex + "\"}")).doesNotThrowAnyException();
    }

    /** A program larger than Go's regexp compiles (3.3 million instructions) is a 400 naming the parameter and limit. */
    @Test
    void answer_whenRegexProgramPassesGosSize_isBadDataNamingTheQueryParameter() {
        String query = "x{a=~\"(" + "a".repeat(4_000) + "){1000}\"}";

        assertThatThrownBy(() -> answer("query", "query=" + enc(query) + "&time=1795262400"))
                .isInstanceOfSatisfying(PromQlException.class, e -> assertThat(e.type())
                        .isEqualTo(PromQlException.Type.BAD_DATA))
                .hasMessageStartingWith("invalid parameter \"query\"")
                .hasMessageContaining("expression too large")
                .hasMessageContaining("MAX_REGEX_PROGRAM_SIZE");
    }

    /**
     * Severity LOW-MEDIUM. Prometheus refuses only {@code (end - start) / step > 11000} (11,001 points allowed);
     * Pulse refuses at 11,000. Grafana picks its minimum step as range / 11,000, so a range divisible by 11,000 s
     * (e.g. 11,000 s at step 1 s, or 30.5 h at step 10 s) is a legal Grafana request refused here.
     * Expected: 200 with 11,001 points.
     */
    @Test
    void holds_exactly11000StepsRange_isAnswered() throws Exception {
        assertThat(answer("query_range", "query=1&start=0&end=11000&step=1")).contains("[11000,\"1\"]");
        assertThatThrownBy(() -> answer("query_range", "query=1&start=0&end=11001&step=1"))
                .isInstanceOf(PromQlException.class).hasMessageContaining("exceeded maximum resolution");
    }

    /**
     * Severity LOW (accepts what Prometheus refuses). Prometheus: "ranges only allowed for vector selectors" for a
     * parenthesized selector; Pulse unwraps the parentheses and accepts it. Expected: 400 at 1:17.
     */
    @Test
    void holds_parenthesizedSelectorWithRange_isRefused() {
        assertThatThrownBy(() -> PromQlParser.parse("count_over_time((x)[5m])")).isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("1:20:").hasMessageContaining("ranges only allowed for vector selectors");
    }

    /**
     * Severity LOW. Prometheus refuses any {@code __name__} matcher inside braces when the name is also given
     * outside ("metric name must not be set twice"), not only {@code =}. Expected: 400 at 1:1.
     */
    @Test
    void holds_nameRegexNextToMetricName_isRefused() {
        assertThatThrownBy(() -> PromQlParser.parse("x{__name__=~\"y\"}")).isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("metric name must not be set twice");
    }

    /**
     * Severity LOW. Label names are {@code [a-zA-Z_][a-zA-Z0-9_]*} in Prometheus; ':' is only valid in metric
     * names. Expected: 400 "unexpected character inside braces: ':'" (and in by/without lists).
     */
    @ParameterizedTest
    @ValueSource(strings = {"x{a:b=\"c\"}", "sum by (a:b) (x)", "x{:a=\"c\"}"})
    void holds_colonInLabelName_isRefused(String q) {
        assertThatThrownBy(() -> PromQlParser.parse(q)).isInstanceOf(PromQlParseException.class);
        assertThatCode(() -> PromQlParser.parse("job:x:rate5m{a=\"b\"}")).doesNotThrowAnyException();
    }

    /**
     * Severity LOW. Go's strconv.ParseFloat("1e400") fails with ErrRange and Prometheus answers "error parsing
     * number"; Pulse answers +Inf. Expected: 400 bad_data at 1:1.
     */
    @Test
    void holds_numberOutOfRange_isRefused() {
        assertThatThrownBy(() -> answer("query", "query=1e400")).isInstanceOf(PromQlException.class)
                .hasMessageContaining("1:1:").hasMessageContaining("out of range");
    }

    /**
     * Severity LOW. {@code sum}, {@code count}, ... are keywords in PromQL: alone they are a parse error
     * ("unexpected end of input in aggregation"); Pulse reads them as a metric named "sum". Expected: 400.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sum", "count + 1", "quantile"})
    void holds_aggregationKeywordAlone_isRefused(String q) {
        assertThatThrownBy(() -> PromQlParser.parse(q)).isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("1:1:");
    }

    /**
     * A documented difference (docs/prometheus-api.md): Prometheus' column is a byte offset of the UTF-8 string,
     * Pulse's counts characters, so after a non-ASCII character the columns differ ("1:13:" in Prometheus).
     */
    @Test
    void documentedDifference_errorColumnAfterNonAscii_countsCharacters() {
        assertThatThrownBy(() -> PromQlParser.parse("x{a=\"é\"} + é"))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageStartingWith("1:12: parse error");
    }

    // --- 1. parsing: attacks that held -------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
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
    void holds_unsupportedConstruct_isBadDataWithPosition(String query, String position, String message) {
        assertThatThrownBy(() -> answer("query", "query=" + enc(query)))
                .isInstanceOfSatisfying(PromQlException.class, e -> assertThat(e.type())
                        .isEqualTo(PromQlException.Type.BAD_DATA))
                .hasMessageStartingWith("invalid parameter \"query\": " + position + " parse error: ")
                .hasMessageContaining(message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"0x1f | 31", "Inf | +Inf", "-Inf | -Inf", "NaN | NaN", "1/0 | +Inf",
        "0/0 | NaN", "-0 | -0", "2 ^ 3 ^ 2 | 512", "-2 ^ 2 | -4", "1e-7 | 0.0000001", "0.1+0.2 | 0.30000000000000004"})
    void holds_numbersAndArithmetic_matchPrometheus(String query, String value) throws Exception {
        assertThat(answer("query", "query=" + enc(query)))
                .isEqualTo("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1795262400,\""
                        + value + "\"]}}");
    }

    @Test
    void holds_durations_acceptedAsPrometheusDoes() throws Exception {
        assertThat(((Expr.OverTime) PromQlParser.parse("count_over_time(x[1y])")).selector().rangeMillis())
                .isEqualTo(365L * 86_400_000);
        assertThat(((Expr.OverTime) PromQlParser.parse("count_over_time(x[5m1s])")).selector().rangeMillis())
                .isEqualTo(301_000);
    }

    @Test
    void holds_regexIsFullyAnchored_andAbsentLabelIsEmpty() throws Exception {
        LabelMatcher a = ((Expr.Selector) PromQlParser.parse("x{a=~\"a\"}")).matchers().get(1);
        assertThat(a.matches("a")).isTrue();
        assertThat(a.matches("ab")).isFalse();
        assertThat(a.matches("ba")).isFalse();
        // An alternation cannot escape the anchors: ^(?:a)|(b)$ is still matched against the whole value.
        LabelMatcher alt = ((Expr.Selector) PromQlParser.parse("x{a=~\"a)|(b\"}")).matchers().get(1);
        assertThat(alt.matches("ab")).isFalse();
        assertThat(alt.matches("a")).isTrue();
        LabelMatcher notEmpty = ((Expr.Selector) PromQlParser.parse("x{a!~\"\"}")).matchers().get(1);
        assertThat(notEmpty.matches(null)).isFalse();
        assertThat(notEmpty.matches("v")).isTrue();
    }

    @Test
    void holds_catastrophicBacktrackingPattern_matchesInLinearTime() throws Exception {
        LabelMatcher m = ((Expr.Selector) PromQlParser.parse("x{a=~\"(a+)+$\"}")).matchers().get(1);
        String evil = "a".repeat(100_000) + "!";
        long started = System.nanoTime();
        assertThat(m.matches(evil)).isFalse();
        assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(2_000);
    }

    @Test
    void holds_deepNestingAndLongInput_areBadData() {
        assertThatThrownBy(() -> answer("query", "query=" + enc("(".repeat(5_000) + "1" + ")".repeat(5_000))))
                .isInstanceOf(PromQlException.class).hasMessageContaining("nests more than 64");
        assertThatThrownBy(() -> answer("query", "query=" + enc("sum(".repeat(100) + "x" + ")".repeat(100))))
                .isInstanceOf(PromQlException.class).hasMessageContaining("nests more than 64");
        assertThatThrownBy(() -> PromQlParser.parse("x" + " ".repeat(PromQlParser.MAX_LENGTH)))
                .isInstanceOf(PromQlParseException.class).hasMessageContaining("longer than");
    }

    // --- 2. envelope and parameters ----------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
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
    void holds_badParameter_isBadData(String endpoint, String form, String message) {
        assertThatThrownBy(() -> answer(endpoint, form))
                .isInstanceOfSatisfying(PromQlException.class, e -> assertThat(e.type())
                        .isEqualTo(PromQlException.Type.BAD_DATA))
                .hasMessageContaining(message);
    }

    @Test
    void holds_timesAsRfc3339OrUnixSeconds_andFormBodyDecoding() throws Exception {
        String rfc = answer("query_range", "query=1&start=2026-11-21T12:00:00Z&end=2026-11-21T12:02:00Z&step=1m");
        String unix = answer("query_range", "query=1&start=1795262400&end=1795262520.000&step=60");
        assertThat(rfc).isEqualTo(unix).contains("[[1795262400,\"1\"],[1795262460,\"1\"],[1795262520,\"1\"]]");
        assertThat(answer("query", "query=1&time=2026-11-21T12:00:00.5%2B01:00")).contains("[1795258800.5,\"1\"]");
        assertThat(ApiParams.parse("query=sum+by+%28a%29+%28x%29", null).first("query")).isEqualTo("sum by (a) (x)");
    }
}
