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

import dev.pulse.query.Stat;
import dev.pulse.query.promql.PromQlException;
import dev.pulse.query.promql.PromQlService;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The evaluator over a small in-memory store of per-minute summaries (one datapoint a minute, so a minute's sum,
 * average, minimum and maximum are its value). Minutes 0 to 9 hold data; an instant query at minute 10 sees the
 * minutes 5 to 9 in a [5m] window and in the bare selector's 5-minute lookback.
 */
class EvaluatorTest {

    private static final long MINUTE = 60_000L;
    private static final long T0 = 1_700_000_000_000L / MINUTE * MINUTE;
    /** Per series (labels with __name__) the value of each minute from T0, NaN where a minute has no datapoint. */
    private static final Map<SortedMap<String, String>, double[]> DATA = new LinkedHashMap<>();

    static {
        DATA.put(labels("req", "a", "x"), new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        DATA.put(labels("req", "a", "y"), new double[] {2, 2, 2, 2, 2, 2, 2, 2, 2, 2});
        DATA.put(labels("err", "a", "x"), new double[] {0, 1, 0, 1, 0, 1, 0, 1, 0, 1});
        DATA.put(labels("gap", "a", "x"), new double[] {1, 1, 1, 1, 1, 7, Double.NaN, 3, Double.NaN, Double.NaN});
        DATA.put(
                labels("neg", "a", "x", "b", "u"),
                new double[] {-2.5, -2.5, -2.5, -2.5, -2.5, -2.5, -2.5, -2.5, -2.5, -2.5});
    }

    private static SortedMap<String, String> labels(String name, String... kv) {
        SortedMap<String, String> m = new TreeMap<>();
        m.put(LabelMatcher.NAME, name);
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    /** Answers windows and minutes from {@link #DATA}, with RangeReader's window rule. */
    private static final class MemorySource implements Evaluator.Source {
        private final long[] times;

        MemorySource(long[] times) {
            this.times = times;
        }

        private List<Map.Entry<SortedMap<String, String>, double[]>> match(Expr.Selector s) {
            List<Map.Entry<SortedMap<String, String>, double[]>> out = new ArrayList<>();
            for (Map.Entry<SortedMap<String, String>, double[]> e : DATA.entrySet()) {
                if (s.matchers().stream().allMatch(m -> m.matches(e.getKey().get(m.name())))) {
                    out.add(e);
                }
            }
            return out;
        }

        @Override
        public List<Series> windows(Expr.Selector selector, long rangeMillis, Stat stat) {
            long range = RangeReader.wholeMinutes(rangeMillis);
            List<Series> out = new ArrayList<>();
            for (Map.Entry<SortedMap<String, String>, double[]> e : match(selector)) {
                double[] values = new double[times.length];
                boolean[] present = new boolean[times.length];
                for (int i = 0; i < times.length; i++) {
                    long end = Math.floorDiv(selector.readTime(times[i], times[0], times[times.length - 1]), MINUTE)
                            * MINUTE;
                    double sum = 0;
                    int n = 0;
                    for (long m = end - range; m < end; m += MINUTE) {
                        int k = (int) ((m - T0) / MINUTE);
                        if (k >= 0 && k < e.getValue().length && !Double.isNaN(e.getValue()[k])) {
                            sum += e.getValue()[k];
                            n++;
                        }
                    }
                    if (n > 0) {
                        present[i] = true;
                        values[i] = switch (stat.kind()) {
                            case COUNT -> n;
                            case SUM, INCREASE -> sum;
                            case AVG -> sum / n;
                            default -> throw new IllegalArgumentException(stat.label());
                        };
                    }
                }
                Series s = new Series(e.getKey(), values, present);
                if (!s.isEmpty()) {
                    out.add(s);
                }
            }
            return out;
        }

        @Override
        public Evaluator.Source at(long[] otherTimes) {
            return new MemorySource(otherTimes);
        }

        @Override
        public List<Minutes> minutes(Expr.Selector selector, long rangeMillis) {
            List<Minutes> out = new ArrayList<>();
            for (Map.Entry<SortedMap<String, String>, double[]> e : match(selector)) {
                double[] sum = new double[e.getValue().length];
                double[] count = new double[sum.length];
                for (int k = 0; k < sum.length; k++) {
                    if (!Double.isNaN(e.getValue()[k])) {
                        sum[k] = e.getValue()[k];
                        count[k] = 1;
                    }
                }
                out.add(new Minutes(e.getKey(), T0, sum, count));
            }
            return out;
        }
    }

    private static Value eval(String query, long... times) throws Exception {
        return new Evaluator(new MemorySource(times), times, 5 * MINUTE).evaluate(PromQlParser.parse(query));
    }

    /** An instant query at minute 10: "labels value" of each element, sorted by labels unless the order is the answer's. */
    private static String instant(String query) throws Exception {
        Value v = eval(query, T0 + 10 * MINUTE);
        if (v instanceof Value.Scalar s) {
            return PromQlService.formatValue(s.values()[0]);
        }
        Value.Vector vector = (Value.Vector) v;
        List<Series> series = new ArrayList<>(vector.series());
        series.removeIf(s -> !s.present()[0]);
        if (!vector.ordered()) {
            series.sort(java.util.Comparator.comparing(s -> s.labels().toString()));
        }
        return series.stream()
                .map(s -> s.labels() + " " + PromQlService.formatValue(s.values()[0]))
                .collect(Collectors.joining("; "));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '~',
            value = {
                // Over delta data the increase is the window's exact sum, the rate that over the window's seconds.
                "increase(req[5m])                    | {a=x} 40; {a=y} 10",
                "rate(req[5m])                        | {a=x} 0.13333333333333333; {a=y} 0.03333333333333333",
                "irate(req[5m])                       | {a=x} 0.16666666666666666; {a=y} 0.03333333333333333",
                "irate(gap[5m])                       | {a=x} 0.025",
                "idelta(gap[5m])                      | {a=x} -4",
                "delta(req[5m])                       | {a=x} 4; {a=y} 0",
                "delta(gap[1m])                       | ~~",
                "last_over_time(gap[5m])              | {__name__=gap, a=x} 3",
                "present_over_time(gap[5m])           | {a=x} 1",
                "absent_over_time(gap{a=\"x\"}[2m])   | {a=x} 1",
                "absent_over_time(gap[5m])            | ~~",
                "stdvar_over_time(req[5m])            | {a=x} 2; {a=y} 0",
                "stddev_over_time(req[5m])            | {a=x} 1.4142135623730951; {a=y} 0",
                // changes and resets over the per-minute values: err is 1 0 1 0 1 in minutes 5-9, gap 7 and 3 (5 and
                // 7).
                "changes(err[5m])                     | {a=x} 4",
                "resets(err[5m])                      | {a=x} 2",
                "changes(req[5m])                     | {a=x} 4; {a=y} 0",
                "resets(req[5m])                      | {a=x} 0; {a=y} 0",
                "changes(gap[5m])                     | {a=x} 1",
                "resets(gap[5m])                      | {a=x} 1",
                "changes(gap[3m])                     | {a=x} 0",
                "changes(gap[1m])                     | ~~",
                // deriv and predict_linear: least squares over the minutes' values at second 30, two needed.
                "deriv(req[5m])                       | {a=x} 0.016666666666666666; {a=y} 0",
                "deriv(gap[5m])                       | {a=x} -0.03333333333333333",
                "deriv(gap[3m])                       | ~~",
                "predict_linear(req[5m], 0)           | {a=x} 10.5; {a=y} 2",
                "predict_linear(req[5m], 60)          | {a=x} 11.5; {a=y} 2",
                "predict_linear(req[5m], -600)        | {a=x} 0.5; {a=y} 2",
                "predict_linear(req[5m] offset 2m, 0) | {a=x} 10.5; {a=y} 2",
                // Over a subquery: the points at the subquery's times (minutes 5 to 10; a bare selector the step's
                // average).
                "changes(err[5m:1m])                  | {a=x} 5",
                "resets(err[5m:1m])                   | {a=x} 2",
                "deriv(req[5m:1m])                    | {a=x} 0.016666666666666666; {a=y} 0",
                "predict_linear(req[5m:1m], 60)       | {a=x} 11; {a=y} 2",
                "deriv(req[30s:1m])                   | ~~",
                // Comparisons keep the metric name unless bool; the vector's value survives on either side.
                "req > 5                              | {__name__=req, a=x} 8",
                "5 < req                              | {__name__=req, a=x} 8",
                "req == bool 2                        | {a=x} 0; {a=y} 1",
                "1 > bool 2                           | 0",
                "req >= req                           | {__name__=req, a=x} 8; {__name__=req, a=y} 2",
                "req > bool on(a) err                 | {a=x} 1",
                // One-to-one, many-to-one and one-to-many matching.
                "req / on(a) err                      | {a=x} 13.333333333333334",
                "req / ignoring(b) neg                | {a=x} -3.2",
                "neg * on(a) group_left req           | {a=x, b=u} -20",
                "req * on(a) group_right(b) neg       | {a=x} -20",
                "req * on(a) group_right neg          | {a=x, b=u} -20",
                "req * on() group_left vector(2)      | {a=x} 16; {a=y} 4",
                "req - req                            | {a=x} 0; {a=y} 0",
                "req atan2 req                        | {__name__=req, a=x} 0.7853981633974483; {__name__=req, a=y} 0.7853981633974483",
                // Set operators match on all labels but the name unless told otherwise.
                "req and err                          | {__name__=req, a=x} 8",
                "req unless err                       | {__name__=req, a=y} 2",
                "err or req                           | {__name__=err, a=x} 0.6; {__name__=req, a=y} 2",
                "req and on(a) neg                    | {__name__=req, a=x} 8",
                "req unless ignoring(b) neg           | {__name__=req, a=y} 2",
                // Aggregations.
                "topk(1, req)                         | {__name__=req, a=x} 8",
                "bottomk(1, req)                      | {__name__=req, a=y} 2",
                "topk(5, req)                         | {__name__=req, a=x} 8; {__name__=req, a=y} 2",
                "bottomk(5, req)                      | {__name__=req, a=y} 2; {__name__=req, a=x} 8",
                "topk(0, req)                         | ~~",
                "quantile(0.5, req)                   | {} 5",
                "quantile(0.25, req)                  | {} 3.5",
                "quantile(2, req)                     | {} +Inf",
                "stddev(req)                          | {} 3",
                "stdvar by (a) (req)                  | {a=x} 0; {a=y} 0",
                "count_values(\"v\", req)             | {v=2} 1; {v=8} 1",
                "count_values by (a) (\"v\", neg)     | {a=x, v=-2.5} 1",
                "group by (a) (req)                   | {a=x} 1; {a=y} 1",
                "group(req)                           | {} 1",
                // Functions.
                "vector(3)                            | {} 3",
                "scalar(err)                          | 0.6",
                "scalar(req)                          | NaN",
                "time()                               | 1700000580",
                "timestamp(req)                       | {a=x} 1700000580; {a=y} 1700000580",
                "absent(nope{a=\"b\", c=~\"d\"})      | {a=b} 1",
                "absent(nope{a=\"b\", a=\"c\"})       | {} 1",
                "absent(req)                          | ~~",
                "absent(sum(nope))                    | {} 1",
                "clamp(req, 3, 5)                     | {a=x} 5; {a=y} 3",
                "clamp(req, 5, 3)                     | ~~",
                "clamp_min(req, 3)                    | {a=x} 8; {a=y} 3",
                "clamp_max(req, 3)                    | {a=x} 3; {a=y} 2",
                "abs(neg)                             | {a=x, b=u} 2.5",
                "ceil(neg)                            | {a=x, b=u} -2",
                "floor(neg)                           | {a=x, b=u} -3",
                "round(neg)                           | {a=x, b=u} -2",
                "round(err, 0.5)                      | {a=x} 0.5",
                "sgn(neg)                             | {a=x, b=u} -1",
                "sqrt(neg)                            | {a=x, b=u} NaN",
                "exp(req - req)                       | {a=x} 1; {a=y} 1",
                "ln(req)                              | {a=x} 2.0794415416798357; {a=y} 0.6931471805599453",
                "log2(req)                            | {a=x} 3; {a=y} 1",
                "log10(req * 125)                     | {a=x} 3; {a=y} 2.3979400086720375",
                "sort(req)                            | {__name__=req, a=y} 2; {__name__=req, a=x} 8",
                "sort_desc(req)                       | {__name__=req, a=x} 8; {__name__=req, a=y} 2",
                "label_replace(req, \"c\", \"$1-$2z\", \"a\", \"(.)\") | {__name__=req, a=x, c=x-} 8; {__name__=req, a=y, c=y-} 2",
                "label_replace(req, \"c\", \"${x}\", \"a\", \"(?P<x>x)\") | {__name__=req, a=x, c=x} 8; {__name__=req, a=y} 2",
                "label_replace(req, \"a\", \"\", \"a\", \"x\") | {__name__=req, a=y} 2; {__name__=req} 8",
                "label_replace(req, \"c\", \"$$1\", \"a\", \"x.*\") | {__name__=req, a=x, c=$1} 8; {__name__=req, a=y} 2",
                "label_join(neg, \"c\", \"-\", \"a\", \"b\", \"z\") | {__name__=neg, a=x, b=u, c=x-u-} -2.5",
                // offset and @ move the windows.
                "sum(req offset 5m)                   | {} 5",
                "increase(req[5m] offset 5m)          | {a=x} 15; {a=y} 10",
                "increase(req[5m] @ 1700000100)       | {a=x} 3; {a=y} 4",
                "req offset -2m                       | {__name__=req, a=x} 9; {__name__=req, a=y} 2",
                // Subqueries: the inner expression at each multiple of the step (since the epoch) in [t - range, t], a
                // bare
                // selector inside averaging over the step (at minute 10 the 1m points are minutes 6..10: req{a="x"}
                // 6..10;
                // the 2m points are minutes 7 and 9, T0 being an odd minute: averages 6.5 and 8.5).
                "max_over_time(req[4m:1m])            | {a=x} 10; {a=y} 2",
                "sum_over_time(req{a=\"x\"}[4m:2m])   | {a=x} 15",
                "count_over_time(sum(req)[4m:])       | {} 5",
                "avg_over_time(increase(req[2m])[2m:1m]) | {a=x} 17; {a=y} 4",
                "last_over_time(req[5m:1m])           | {__name__=req, a=x} 10; {__name__=req, a=y} 2",
                "quantile_over_time(0.5, req{a=\"x\"}[4m:1m]) | {a=x} 8",
                "stdvar_over_time(req{a=\"x\"}[4m:1m]) | {a=x} 2",
                "absent_over_time(nope[4m:1m])        | {} 1",
                "max_over_time(sum_over_time(req[2m])[2m:1m]) | {a=x} 19; {a=y} 4",
                "increase(req[5m] @ end() offset 5m)  | {a=x} 15; {a=y} 10",
            })
    void evaluate_whenInstantQuery_answersAsPrometheusOverMinuteSummaries(String query, String expected)
            throws Exception {
        assertThat(instant(query)).isEqualTo(expected == null ? "" : expected);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "req + on() req                       | found duplicate series for the match group {} on the right hand-side",
                "req * on() group_right req           | on the left hand-side",
                "req / ignoring(a) err                | many-to-one matching must be explicit (group_left/group_right)",
                "req * on(a) group_left {a=\"x\"}     | found duplicate series for the match group {a=x} on the right",
                "{a=\"x\"} * on(a) group_left req     | multiple matches for labels: grouping labels must ensure unique matches",
                "{a=\"x\"} + on(a) err                | multiple matches for labels: many-to-one matching must be explicit",
                "label_replace(req, \"a\", \"z\", \"a\", \".*\") | vector cannot contain metrics with the same labelset",
                "rate({a=\"x\"}[5m])                  | vector cannot contain metrics with the same labelset",
            })
    void evaluate_whenMatchingIsAmbiguous_refusesAsPrometheusDoes(String query, String message) {
        assertThatThrownBy(() -> instant(query))
                .isInstanceOfSatisfying(
                        PromQlException.class, e -> assertThat(e.type()).isEqualTo(PromQlException.Type.EXECUTION))
                .hasMessageContaining(message);
    }

    @Test
    void evaluate_whenRangeQuery_selectsTopkAtEachStep() throws Exception {
        // At minute 2 the lookback holds minutes 0 and 1 (req{a="x"} averages 1.5, req{a="y"} 2); at minute 10
        // req{a="x"} leads.
        Value.Vector v = (Value.Vector) eval("topk(1, req)", T0 + 2 * MINUTE, T0 + 10 * MINUTE);
        Map<String, String> byLabels = new TreeMap<>();
        for (Series s : v.series()) {
            byLabels.put(s.labels().get("a"), (s.present()[0] ? "1" : "-") + (s.present()[1] ? "1" : "-"));
        }
        assertThat(byLabels).containsEntry("x", "-1").containsEntry("y", "1-");
        Value.Vector rate = (Value.Vector) eval("rate(req{a=\"x\"}[2m])", T0 + 2 * MINUTE, T0 + 10 * MINUTE);
        assertThat(rate.series().get(0).values()).containsExactly(3 / 120.0, 19 / 120.0);
    }

    @Test
    void evaluate_whenAtStartOrEnd_readsEveryStepAtTheQuerysStartOrEnd() throws Exception {
        long[] times = {T0 + 6 * MINUTE, T0 + 8 * MINUTE, T0 + 10 * MINUTE};
        Value.Vector start = (Value.Vector) eval("increase(req{a=\"x\"}[2m] @ start())", times);
        Value.Vector end = (Value.Vector) eval("irate(req{a=\"x\"}[2m] @ end())", times);
        // At the start (minute 6) the window holds minutes 4 and 5 (5 + 6); at the end, minutes 8 and 9 (10 a minute).
        assertThat(start.series().get(0).values()).containsExactly(11, 11, 11);
        assertThat(end.series().get(0).values()).containsExactly(10 / 60.0, 10 / 60.0, 10 / 60.0);
    }

    @Test
    void predictLinear_whenAt_fixesTheWindowAndPredictsFromEachStep() throws Exception {
        long[] times = {T0 + 10 * MINUTE, T0 + 11 * MINUTE, T0 + 13 * MINUTE};
        Value.Vector v = (Value.Vector) eval("predict_linear(req{a=\"x\"}[5m] @ end(), 0)", times);
        Value.Vector d = (Value.Vector) eval("deriv(req{a=\"x\"}[5m] @ end())", times);
        // The @ window (minutes 8 to 12) holds minutes 8 and 9 (9 and 10 at their seconds 30): the line is 10.5 at
        // minute 10 and rises 1 a minute; predict_linear answers it at each step's time, deriv its slope at every step.
        assertThat(v.series().get(0).values()).containsExactly(10.5, 11.5, 13.5);
        assertThat(d.series().get(0).values()).containsExactly(1 / 60.0, 1 / 60.0, 1 / 60.0);
    }

    @Test
    void log2_whenPowerOfTwo_isExactAsGo() {
        assertThat(Evaluator.log2(8)).isEqualTo(3.0);
        assertThat(Evaluator.log2(0x1p-1074)).isEqualTo(-1074.0);
        assertThat(Evaluator.log2(0)).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(Evaluator.log2(-1)).isNaN();
    }
}
