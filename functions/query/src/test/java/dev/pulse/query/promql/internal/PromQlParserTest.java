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

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PromQlParserTest {

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(
            strings = {
                "lambda.duration",
                "lambda.duration{function=\"checkout\"}",
                "{__name__=\"Pulse/Ingest.Records\"}",
                "{\"Pulse/Ingest.Records\", function!=\"a\"}",
                "x{a=~\"ab+|c\", b!~'.*z', c!=`q`}",
                "count_over_time(x[5m])",
                "sum_over_time(x{a=\"b\"}[1h30m])",
                "avg_over_time(x[90s])",
                "min_over_time(x[1d])",
                "max_over_time(x[1w])",
                "quantile_over_time(0.99, x[5m])",
                "quantile_over_time(1 - 0.01, x[5m])",
                "changes(x[10m])",
                "resets(x[1h])",
                "deriv(x[5m]) >= 0",
                "predict_linear(x[6h], 4 * 24 * 3600) < 0",
                "predict_linear(x[6h] offset 1h, -60)",
                "changes(x[5m:1m])",
                "predict_linear(rate(x[5m])[1h:5m], 3600)",
                "sum by (function) (count_over_time(x[5m]))",
                "sum(count_over_time(x[5m])) by (function)",
                "avg without (region) (x)",
                "count(x)",
                "max(x) * 2 + 1",
                "-x",
                "2 ^ 3 ^ 2",
                "1 / 0",
                "(x)",
                "x # a comment\n + 1",
                "Inf + NaN",
                "0x1f",
                "1e3",
                "rate(x[5m])",
                "increase(x{a=\"b\"}[1h])",
                "irate(x[5m]) + idelta(x[5m]) - delta(x[5m])",
                "last_over_time(x[5m]) or present_over_time(x[5m]) or absent_over_time(x[5m])",
                "stddev_over_time(x[5m]) / stdvar_over_time(x[5m])",
                "x > 1",
                "1 < x",
                "x == bool 1",
                "1 >= bool 2",
                "x != y",
                "x <= bool on(a) y",
                "x + y",
                "sum(x) / count(x)",
                "x * on(a, b) group_left(c) y",
                "x / ignoring(a) group_right y",
                "x atan2 y",
                "x and y",
                "x or on(a) y",
                "x unless ignoring(b) y",
                "topk(3, x)",
                "bottomk by (a) (2, x)",
                "quantile(0.9, x)",
                "stddev(x) + stdvar(x)",
                "count_values(\"v\", x)",
                "group by (a) (x)",
                "vector(1) + scalar(x) + time()",
                "timestamp(x)",
                "absent(x{a=\"b\"})",
                "clamp(x, 0, 1) + clamp_min(x, 0) + clamp_max(x, 1)",
                "abs(ceil(floor(round(exp(ln(log2(log10(sqrt(sgn(x))))))))))",
                "round(x, 0.5)",
                "sort(x)",
                "sort_desc(x)",
                "label_replace(x, \"dst\", \"$1\", \"src\", \"(.*)\")",
                "label_join(x, \"dst\", \",\", \"a\", \"b\", \"c\")",
                "x offset 5m",
                "x offset -5m",
                "sum_over_time(x[5m] offset 1h)",
                "rate(x[5m] @ 1700000000)",
                "x @ 1700000000.5 offset 1m",
                "rate(x[5m] @ start()) + x @ end()",
                "max_over_time(rate(x[5m])[1h:5m])",
                "avg_over_time(sum by (a) (x)[30m:])",
            })
    void parse_whenInSubset_parses(String query) throws Exception {
        assertThat(PromQlParser.parse(query)).isNotNull();
    }

    @Test
    void parse_whenPowerAfterMinus_bindsPowerFirst() throws Exception {
        assertThat(PromQlParser.parse("-2 ^ 2")).isInstanceOf(Expr.Negation.class);
        Expr.Binary b = (Expr.Binary) PromQlParser.parse("2 ^ 3 ^ 2");
        assertThat(b.rhs()).isInstanceOf(Expr.Binary.class); // right associative
        Expr.Binary sum = (Expr.Binary) PromQlParser.parse("1 + 2 * 3");
        assertThat(sum.op()).isEqualTo("+");
    }

    @Test
    void parse_whenSelector_matchersAndRangeAsWritten() throws Exception {
        Expr.OverTime o = (Expr.OverTime) PromQlParser.parse("quantile_over_time(0.9, a.b{c=\"d\", e=~\"f.*\"}[1h5m])");
        assertThat(o.q()).isEqualTo(0.9);
        assertThat(o.selector().rangeMillis()).isEqualTo(3_900_000);
        List<LabelMatcher> m = o.selector().matchers();
        assertThat(m).extracting(LabelMatcher::name).containsExactly("__name__", "c", "e");
        assertThat(m.get(0).value()).isEqualTo("a.b");
        assertThat(m.get(2).matches("fgh")).isTrue();
        assertThat(m.get(2).matches("xfgh")).as("anchored as in Prometheus").isFalse();
    }

    @Test
    void parse_whenHostileRegex_matchesInLinearTime() throws Exception {
        Expr.Selector s = (Expr.Selector) PromQlParser.parse("x{a=~\"(a+)+$\"}");
        String value = "a".repeat(100_000) + "!";
        long started = System.nanoTime();
        assertThat(s.matchers().get(1).matches(value)).isFalse();
        assertThat((System.nanoTime() - started) / 1_000_000)
                .as("ms for a backtracking killer")
                .isLessThan(2_000);
    }

    /** Every construct outside the subset: refused with the position (line:column) where it starts. */
    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '~',
            value = {
                "sum(x) offset 5m                       | 1:8:  | offset modifier must be preceded by",
                "x offset 5m offset 1m                  | 1:13: | offset may not be set multiple times",
                "x @ start(                             | 1:11: | expected \")\"",
                "sum(x) @ 1700000000                    | 1:8:  | @ modifier must be preceded by",
                "rate(x[1h:1m])                         | 1:1:  | function \"rate\" over a subquery is not supported",
                "x[1h:1m]                               | 1:1:  | found range vector",
                "x[5m][1h:1m]                           | 1:1:  | expected type instant vector in subquery, found range vector",
                "(1)[1h:1m]                             | 1:2:  | subquery is only allowed on instant vector",
                "max_over_time(x[1h:1m] offset 5m)      | 1:24: | offset modifier on a subquery is not supported",
                "histogram_count(x)                     | 1:1:  | function \"histogram_count\" is not supported",
                "holt_winters(x[5m], 0.5, 0.5)          | 1:1:  | function \"holt_winters\" is not supported",
                "idelta(x[5m:1m])                       | 1:1:  | function \"idelta\" over a subquery is not supported",
                "deriv(x)                               | 1:7:  | expected type range vector",
                "resets(x[5m], 1)                       | 1:13: | too many arguments in call to \"resets\"",
                "predict_linear(x[5m])                  | 1:21: | expected 2 arguments in call to \"predict_linear\"",
                "predict_linear(x[5m], x)               | 1:23: | expected type scalar in call to function \"predict_linear\"",
                "predict_linear(x[5m], time())          | 1:23: | the seconds ahead of predict_linear must be a number",
                "predict_linear(x[5m], 60, 1)           | 1:25: | too many arguments in call to \"predict_linear\"",
                "foo(x)                                 | 1:1:  | unknown function with name \"foo\"",
                "1 > 2                                  | 1:3:  | comparisons between scalars must use BOOL modifier",
                "x + bool y                             | 1:5:  | bool modifier can only be used on comparison operators",
                "x and 1                                | 1:3:  | set operator \"and\" not allowed in binary scalar expression",
                "x * on(a) 1                            | 1:5:  | vector matching only allowed between instant vectors",
                "x and on(a) group_left y               | 1:13: | no grouping allowed for \"and\" operation",
                "x * group_left y                       | 1:5:  | needs on(...) or ignoring(...)",
                "x * on(a) group_left(a) y              | 1:21: | must not occur in ON and GROUP clause at once",
                "topk(x)                                | 1:6:  | expected type scalar in aggregation parameter",
                "topk(3)                                | 1:7:  | expected \",\"",
                "count_values(1, x)                     | 1:14: | expected type string in aggregation parameter",
                "count_values(\"a-b\", x)               | 1:14: | invalid label name",
                "limitk(1, x)                           | 1:1:  | aggregation \"limitk\" is not supported",
                "rate(x)                                | 1:6:  | expected type range vector",
                "abs(x[5m])                             | 1:5:  | expected type instant vector in call to function \"abs\", found range vector",
                "abs(x, 1)                              | 1:8:  | expected at most 1 argument(s)",
                "clamp(x, 1)                            | 1:1:  | expected 3 argument(s)",
                "vector(x)                              | 1:8:  | expected type scalar",
                "label_replace(x, \"a-b\", \"\", \"c\", \"\") | 1:18: | invalid destination label name",
                "label_replace(x, \"a\", \"\", \"c\", \"(\") | 1:32: | invalid regular expression",
                "label_join(x, \"a\", \",\", \"b-c\")      | 1:25: | invalid source label name",
                "time(1)                                | 1:6:  | expected at most 0 argument(s)",
                "sum_over_time(x[5x])                   | 1:17: | bad duration",
                "sum_over_time(x[m5])                   | 1:17: | expected a duration",
                "sum_over_time(x[0s])                   | 1:17: | duration must be greater than 0",
                "sum_over_time(x[5s1m])                 | 1:17: | largest unit first",
                "sum_over_time(x[5m)                    | 1:19: | expected \"]\"",
                "sum_over_time(x)                       | 1:15: | expected type range vector",
                "sum_over_time(sum(x)[5m])              | 1:21: | ranges only allowed for vector selectors",
                "x[5m]                                  | 1:1:  | found range vector",
                "sum(x[5m])                             | 1:5:  | found range vector",
                "quantile_over_time(x[5m])              | 1:20: | expected type scalar",
                "quantile_over_time(1.5, x[5m])         | 1:20: | quantile must be between 0 and 1",
                "sum(1)                                 | 1:5:  | found scalar",
                "x{a=~\"(\"}                            | 1:6:  | invalid regular expression",
                "x{a=\"b}                               | 1:5:  | unterminated quoted string",
                "x{a=\"\\q\"}                           | 1:6:  | unknown escape sequence",
                "x{a}                                   | 1:4:  | expected one of = != =~ !~",
                "x{a=b}                                 | 1:5:  | expected a quoted string",
                "{a=\"\"}                               | 1:1:  | at least one non-empty matcher",
                "x{__name__=\"y\"}                      | 1:3:  | metric name must not be set twice",
                "\"hello\"                              | 1:1:  | found string",
                "x + \"a\"                               | 1:5:  | found string",
                "sum(x                                  | 1:6:  | expected \")\"",
                "sum by (a x)                           | 1:11: | in grouping opts",
                "x )                                    | 1:3:  | unexpected character \")\"",
                "5m                                     | 1:1:  | durations are only allowed in [range]",
                "~ ~                                    | 1:2:  | no expression found",
                "x +                                    | 1:4:  | unexpected end of input",
                "sum(x)\\n  offset 1m                   | 2:3:  | offset modifier must be preceded by",
                "sum by (a) (x) by (b)                  | 1:16: | grouping given twice",
                "sum(x, y)                              | 1:6:  | takes one argument",
                "count_over_time(x[5m], 1)              | 1:22: | too many arguments",
            })
    void parse_whenOutsideSubset_refusesWithPosition(String query, String position, String message) {
        assertThatThrownBy(() -> PromQlParser.parse(query.replace("\\n", "\n")))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageStartingWith(position + " parse error: ")
                .hasMessageContaining(message);
    }

    @Test
    void parse_whenNestedTooDeep_refusesWithoutStackOverflow() {
        String deep = "(".repeat(1_000) + "x" + ")".repeat(1_000);
        assertThatThrownBy(() -> PromQlParser.parse(deep))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("nests more than");
        String minus = "-".repeat(1_000) + "x";
        assertThatThrownBy(() -> PromQlParser.parse(minus))
                .isInstanceOf(PromQlParseException.class)
                .hasMessageContaining("nests more than");
    }

    @ParameterizedTest(name = "{0} = {1} ms")
    @CsvSource({
        "5m, 300000",
        "1h30m, 5400000",
        "90s, 90000",
        "500ms, 500",
        "1d, 86400000",
        "1w, 604800000",
        "1y, 31536000000"
    })
    void parseDuration_whenPrometheusDuration_givesMillis(String text, long millis) throws Exception {
        assertThat(PromQlParser.parseDuration(text)).isEqualTo(millis);
    }
}
