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

import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.query.CatalogService;
import dev.pulse.query.QueryMetric;
import dev.pulse.query.QueryService;
import dev.pulse.query.promql.internal.CatalogMatcher;
import dev.pulse.query.promql.internal.Evaluator;
import dev.pulse.query.promql.internal.PromQlParseException;
import dev.pulse.query.promql.internal.PromQlParser;
import dev.pulse.query.promql.internal.RangeReader;
import dev.pulse.query.promql.internal.Series;
import dev.pulse.query.promql.internal.Value;
import dev.pulse.retry.Deadline;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * PromQL for the rules evaluator (functions/rules): an expression evaluated at one instant through the same parser,
 * evaluator and store reads as {@code /api/v1/query_range} (not over HTTP), answered as labelled samples instead of
 * JSON. A rule evaluated at {@code t} in a group of interval {@code i} gets exactly the point at {@code t} of a
 * range query with step {@code i}: a bare selector averages the whole minutes of the interval before {@code t}, so a
 * Grafana panel of the rule's expression at the group's interval shows what the rule saw.
 */
public final class RuleEvaluation {

    /** One element of an instant vector (labels include {@code __name__} when the expression keeps it). */
    public record Sample(SortedMap<String, String> labels, double value) {}

    /** An expression's value at one instant: a scalar (one sample, no labels) or an instant vector. */
    public record Result(boolean scalar, List<Sample> samples) {}

    private final QueryService queries;
    private final CatalogService catalog;

    public RuleEvaluation(QueryService queries, CatalogService catalog) {
        this.queries = queries;
        this.catalog = catalog;
    }

    /**
     * Parses {@code expr} as the Prometheus API does; the message of the refusal is the parser's, with its position
     * (for example {@code 1:8: parse error: unexpected ...}).
     */
    public static void check(String expr) throws PromQlException {
        try {
            PromQlParser.parse(expr);
        } catch (PromQlParseException e) {
            throw new PromQlException(PromQlException.Type.BAD_DATA, e.getMessage());
        }
    }

    /**
     * Evaluates {@code expr} at {@code timeMillis}; a bare selector answers the average of the whole minutes in
     * {@code [floor(t) - bareRange, floor(t))} ({@code bareRange} rounded up to whole minutes). Samples are sorted
     * by labels; an element with no value at the instant is left out.
     */
    public Result evaluate(
            String expr,
            long timeMillis,
            long bareRangeMillis,
            Deadline deadline,
            InvocationMetrics<QueryMetric> metrics)
            throws PromQlException {
        if (bareRangeMillis <= 0) {
            throw new IllegalArgumentException("bareRangeMillis must be positive: " + bareRangeMillis);
        }
        dev.pulse.query.promql.internal.Expr parsed;
        try {
            parsed = PromQlParser.parse(expr);
        } catch (PromQlParseException e) {
            throw new PromQlException(PromQlException.Type.BAD_DATA, e.getMessage());
        }
        long[] times = {timeMillis};
        Value v = CatalogMatcher.withCachedListings(
                catalog,
                matcher -> new Evaluator(
                                new RangeReader(queries, matcher, times, deadline, metrics), times, bareRangeMillis)
                        .evaluate(parsed));
        if (v instanceof Value.Scalar s) {
            return new Result(
                    true, List.of(new Sample(Collections.unmodifiableSortedMap(new TreeMap<>()), s.values()[0])));
        }
        List<Sample> out = new ArrayList<>();
        for (Series s : ((Value.Vector) v).series()) {
            if (s.present()[0]) {
                out.add(new Sample(Collections.unmodifiableSortedMap(new TreeMap<>(s.labels())), s.values()[0]));
            }
        }
        out.sort((a, b) -> a.labels().toString().compareTo(b.labels().toString()));
        return new Result(false, List.copyOf(out));
    }
}
