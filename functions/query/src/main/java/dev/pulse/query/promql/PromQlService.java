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

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.query.CatalogService;
import dev.pulse.query.QueryMetric;
import dev.pulse.query.QueryService;
import dev.pulse.query.promql.internal.ApiParams;
import dev.pulse.query.promql.internal.CatalogMatcher;
import dev.pulse.query.promql.internal.Evaluator;
import dev.pulse.query.promql.internal.Expr;
import dev.pulse.query.promql.internal.LabelMatcher;
import dev.pulse.query.promql.internal.PromQlParseException;
import dev.pulse.query.promql.internal.PromQlParser;
import dev.pulse.query.promql.internal.RangeReader;
import dev.pulse.query.promql.internal.Series;
import dev.pulse.query.promql.internal.Value;
import dev.pulse.retry.Deadline;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The Prometheus HTTP API (https://prometheus.io/docs/prometheus/latest/querying/api/) over Pulse's store:
 * {@code query_range} and {@code query} evaluate the supported PromQL subset (docs/prometheus-api.md) from the stored
 * summaries through {@link QueryService}; {@code series}, {@code labels} and {@code label/<name>/values} list the
 * series catalog. Answers are Prometheus' envelope, {@code {"status":"success","data":...}}; refusals are
 * {@link PromQlException}s with Prometheus' error type.
 */
public final class PromQlService {

    /** Prometheus' own limit on a range query's steps. */
    public static final int MAX_STEPS = 11_000;
    /** A bare selector in an instant query averages this far back (Prometheus' default lookback delta). */
    public static final long INSTANT_LOOKBACK_MILLIS = 5 * 60_000L;

    private static final JsonFactory JSON = new JsonFactory();
    private static final Comparator<SortedMap<String, String>> BY_LABELS = Comparator.comparing(Object::toString);

    private final QueryService queries;
    private final CatalogService catalog;
    private final Clock clock;

    public PromQlService(QueryService queries, CatalogService catalog, Clock clock) {
        this.queries = queries;
        this.catalog = catalog;
        this.clock = clock;
    }

    /**
     * Answers one endpoint: {@code query_range}, {@code query}, {@code series}, {@code labels},
     * {@code label/<name>/values} ({@code labelName} set), {@code status/buildinfo}, {@code metadata} or
     * {@code query_exemplars}; the result is the JSON body of a 200.
     */
    public String answer(
            String endpoint,
            String labelName,
            ApiParams params,
            Deadline deadline,
            InvocationMetrics<QueryMetric> metrics)
            throws PromQlException {
        return switch (endpoint) {
            case "query_range" -> queryRange(params, deadline, metrics);
            case "query" -> queryInstant(params, deadline, metrics);
            case "series" -> series(params);
            case "labels" -> labels(params);
            case "label_values" -> labelValues(labelName, params);
            case "buildinfo" -> buildInfo();
            case "metadata" -> metadata(params);
            case "query_exemplars" -> exemplars(params);
            case "format_query" -> formatQuery(params);
            default -> throw new PromQlException(PromQlException.Type.NOT_FOUND, "unknown endpoint " + endpoint);
        };
    }

    private String queryRange(ApiParams params, Deadline deadline, InvocationMetrics<QueryMetric> metrics)
            throws PromQlException {
        long start = params.time("start");
        long end = params.time("end");
        if (end < start) {
            throw PromQlException.invalidParameter("end", "end timestamp must not be before start time");
        }
        Long step = params.duration("step");
        if (step == null) {
            throw PromQlException.invalidParameter("step", "cannot parse \"\" to a valid duration");
        }
        if (step <= 0) {
            throw PromQlException.invalidParameter(
                    "step",
                    "zero or negative query resolution step widths are not" + " accepted. Try a positive integer");
        }
        if ((end - start) / step > MAX_STEPS) {
            throw new PromQlException(
                    PromQlException.Type.BAD_DATA,
                    "exceeded maximum resolution of 11,000 points per"
                            + " timeseries. Try decreasing the query resolution (?step=XX)");
        }
        Expr expr = parse(params);
        int n = (int) ((end - start) / step) + 1;
        long[] times = new long[n];
        for (int i = 0; i < n; i++) {
            times[i] = start + i * step;
        }
        Value v = evaluate(expr, times, step, params, deadline, metrics);
        return queryEnvelope(g -> {
            g.writeStringField("resultType", "matrix");
            g.writeArrayFieldStart("result");
            for (Series s : vectorOf(v, n, false)) {
                g.writeStartObject();
                labels(g, "metric", s.labels());
                g.writeArrayFieldStart("values");
                for (int i = 0; i < n; i++) {
                    if (s.present()[i]) {
                        point(g, times[i], s.values()[i]);
                    }
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
        });
    }

    private String queryInstant(ApiParams params, Deadline deadline, InvocationMetrics<QueryMetric> metrics)
            throws PromQlException {
        long time = params.time("time", clock.millis());
        Expr expr = parse(params);
        long[] times = {time};
        Value v = evaluate(expr, times, INSTANT_LOOKBACK_MILLIS, params, deadline, metrics);
        return queryEnvelope(g -> {
            if (v instanceof Value.Scalar s) {
                g.writeStringField("resultType", "scalar");
                g.writeFieldName("result");
                point(g, time, s.values()[0]);
                return;
            }
            g.writeStringField("resultType", "vector");
            g.writeArrayFieldStart("result");
            for (Series s : vectorOf(v, 1, true)) {
                g.writeStartObject();
                labels(g, "metric", s.labels());
                g.writeFieldName("value");
                point(g, time, s.values()[0]);
                g.writeEndObject();
            }
            g.writeEndArray();
        });
    }

    private Value evaluate(
            Expr expr,
            long[] times,
            long bareRange,
            ApiParams params,
            Deadline deadline,
            InvocationMetrics<QueryMetric> metrics)
            throws PromQlException {
        Long timeout = params.duration("timeout");
        if (timeout != null && timeout <= 0) {
            throw PromQlException.invalidParameter("timeout", "timeout must be positive");
        }
        Deadline budget =
                timeout == null || timeout >= deadline.remainingMillis() ? deadline : Deadline.inMillis(timeout);
        return CatalogMatcher.withCachedListings(
                catalog,
                matcher -> new Evaluator(new RangeReader(queries, matcher, times, budget, metrics), times, bareRange)
                        .evaluate(expr));
    }

    private static Expr parse(ApiParams params) throws PromQlException {
        String query = params.first("query");
        if (query == null) {
            throw PromQlException.invalidParameter("query", "1:1: parse error: no expression found in input");
        }
        try {
            return PromQlParser.parse(query);
        } catch (PromQlParseException e) {
            throw PromQlException.invalidParameter("query", e.getMessage());
        }
    }

    /** The series of a result, sorted by labels; a scalar in a range query is one series without labels. */
    private static List<Series> vectorOf(Value v, int steps, boolean instant) {
        if (v instanceof Value.Scalar s) {
            boolean[] all = new boolean[steps];
            java.util.Arrays.fill(all, true);
            return List.of(new Series(new java.util.TreeMap<>(), s.values(), all));
        }
        List<Series> out = new ArrayList<>(((Value.Vector) v).series());
        out.removeIf(s -> {
            for (boolean p : s.present()) {
                if (p) {
                    return false;
                }
            }
            return true;
        });
        // An instant query answers sort, sort_desc, topk and bottomk in their order, as Prometheus does; a range query
        // (a matrix) is always sorted by labels, as Prometheus sorts it.
        if (!(instant && ((Value.Vector) v).ordered())) {
            out.sort(Comparator.comparing(Series::labels, BY_LABELS));
        }
        return out;
    }

    // --- catalog listings --------------------------------------------------------------------------------------

    private String series(ApiParams params) throws PromQlException {
        List<String> match = params.all("match[]");
        if (match.isEmpty()) {
            throw new PromQlException(PromQlException.Type.BAD_DATA, "no match[] parameter provided");
        }
        checkTimes(params);
        Listing found = matchAll(match);
        Map<String, SortedMap<String, String>> unique = new LinkedHashMap<>();
        found.series.forEach(s -> unique.putIfAbsent(s.labels().toString(), s.labels()));
        List<SortedMap<String, String>> sorted = new ArrayList<>(unique.values());
        sorted.sort(BY_LABELS);
        int limit = params.count("limit", 0);
        List<SortedMap<String, String>> shown = limit > 0 && sorted.size() > limit ? sorted.subList(0, limit) : sorted;
        return envelope(
                g -> {
                    g.writeArrayFieldStart("data");
                    for (SortedMap<String, String> labels : shown) {
                        labels(g, null, labels);
                    }
                    g.writeEndArray();
                },
                warnings(found.warning, shown.size() < sorted.size()));
    }

    private String labels(ApiParams params) throws PromQlException {
        checkTimes(params);
        Listing found = params.all("match[]").isEmpty() ? everything() : matchAll(params.all("match[]"));
        TreeSet<String> names = new TreeSet<>();
        found.series.forEach(s -> names.addAll(s.labels().keySet()));
        return limited(names, params, found.warning);
    }

    private String labelValues(String name, ApiParams params) throws PromQlException {
        if (name == null || name.isEmpty() || name.length() > 255) {
            throw new PromQlException(PromQlException.Type.BAD_DATA, "invalid label name: \"" + name + "\"");
        }
        checkTimes(params);
        TreeSet<String> values = new TreeSet<>();
        Listing found;
        if (params.all("match[]").isEmpty() && name.equals(LabelMatcher.NAME)) {
            CatalogMatcher.Found names = new CatalogMatcher(catalog).names();
            found = new Listing(names.series(), names.truncated() ? truncatedWarning() : null);
        } else {
            found = params.all("match[]").isEmpty() ? everything() : matchAll(params.all("match[]"));
        }
        found.series.forEach(s -> {
            String v = s.labels().get(name);
            if (v != null) {
                values.add(v);
            }
        });
        return limited(values, params, found.warning);
    }

    /** The first {@code limit} of {@code sorted} (all with 0), with Prometheus' warning when some are left out. */
    private static String limited(SortedSet<String> sorted, ApiParams params, String warning) throws PromQlException {
        int limit = params.count("limit", 0);
        List<String> shown = new ArrayList<>(sorted);
        boolean cut = limit > 0 && shown.size() > limit;
        return strings(cut ? shown.subList(0, limit) : shown, warnings(warning, cut));
    }

    private static List<String> warnings(String warning, boolean cutByLimit) {
        List<String> out = new ArrayList<>(2);
        if (warning != null) {
            out.add(warning);
        }
        if (cutByLimit) {
            out.add("results truncated due to limit");
        }
        return out;
    }

    // --- what Grafana asks besides queries -------------------------------------------------------------------

    /**
     * The Prometheus version whose HTTP API and PromQL Pulse answers: Grafana turns features on by this version, and
     * PromQlDifferentialIT compares the answers with this release's engine.
     */
    static final String PROMETHEUS_API_VERSION = "2.42.0";

    private static String buildInfo() {
        String pulse =
                Objects.requireNonNullElse(PromQlService.class.getPackage().getImplementationVersion(), "dev");
        return envelope(
                g -> {
                    g.writeObjectFieldStart("data");
                    g.writeStringField("application", "Pulse");
                    g.writeStringField("version", PROMETHEUS_API_VERSION);
                    g.writeStringField("revision", "pulse-" + pulse);
                    g.writeStringField("branch", "");
                    g.writeStringField("buildUser", "");
                    g.writeStringField("buildDate", "");
                    g.writeStringField("goVersion", "");
                    g.writeEndObject();
                },
                List.of());
    }

    /**
     * Every metric family in the catalog (or the one {@code metric} names): an OTLP metric under its OpenTelemetry
     * name with the type the producer sent (a histogram as one family, {@code <name>}, whose series are
     * {@code _bucket}, {@code _count} and {@code _sum}; its temporality and unit in {@code help}), and under its stored
     * name; other sources' names with type {@code unknown}. {@code limit} bounds the names (negative: all), as
     * Prometheus does.
     */
    private String metadata(ApiParams params) throws PromQlException {
        String metric = params.first("metric");
        if (metric != null && metric.length() > ApiParams.MAX_URL_EXPRESSION) {
            throw PromQlException.invalidParameter(
                    "metric", "longer than " + ApiParams.MAX_URL_EXPRESSION + " characters");
        }
        int limit = signedLimit(params, "limit");
        int perMetric = signedLimit(params, "limit_per_metric");
        CatalogMatcher matcher = new CatalogMatcher(catalog);
        CatalogMatcher.Found all = matcher.names();
        String warning = all.truncated() ? truncatedWarning() : null;
        java.util.TreeMap<String, String[]> families = new java.util.TreeMap<>();
        for (CatalogMatcher.Match m : all.series()) {
            String stored = m.stored().name();
            dev.pulse.model.MetricKind kind = matcher.kind(stored);
            String shown = m.labels().get(LabelMatcher.NAME);
            String family = familyName(shown, stored, kind, m.view());
            families.putIfAbsent(family, new String[] {promType(kind), help(stored, kind)});
        }
        if (metric != null && !metric.isEmpty()) {
            families.keySet().retainAll(java.util.Set.of(metric));
        }
        List<String> shown = new ArrayList<>(families.keySet());
        if (limit >= 0 && shown.size() > limit) {
            shown = shown.subList(0, limit);
        }
        List<String> out = shown;
        return envelope(
                g -> {
                    g.writeObjectFieldStart("data");
                    for (String name : out) {
                        g.writeArrayFieldStart(name);
                        if (perMetric != 0) {
                            g.writeStartObject();
                            g.writeStringField("type", families.get(name)[0]);
                            g.writeStringField("help", families.get(name)[1]);
                            g.writeStringField("unit", "");
                            g.writeEndObject();
                        }
                        g.writeEndArray();
                    }
                    g.writeEndObject();
                },
                warning == null ? List.of() : List.of(warning));
    }

    /** The metric family a name belongs to: a histogram's and a summary's series less their suffix. */
    private static String familyName(
            String shown,
            String stored,
            dev.pulse.model.MetricKind kind,
            dev.pulse.query.promql.internal.OtelNames.View view) {
        if (kind == null || shown.equals(stored)) {
            return shown;
        }
        boolean suffixed = view != dev.pulse.query.promql.internal.OtelNames.View.RAW
                || kind.type() == dev.pulse.model.MetricKind.Type.SUMMARY_COUNT
                || kind.type() == dev.pulse.model.MetricKind.Type.SUMMARY_SUM;
        return suffixed ? shown.substring(0, shown.lastIndexOf('_')) : shown;
    }

    /** The Prometheus type of an OTLP metric type; {@code unknown} for other sources. */
    static String promType(dev.pulse.model.MetricKind kind) {
        if (kind == null) {
            return "unknown";
        }
        return switch (kind.type()) {
            case COUNTER -> "counter";
            case GAUGE, UPDOWN -> "gauge";
            case HISTOGRAM, EXPONENTIAL -> "histogram";
            case SUMMARY_COUNT, SUMMARY_SUM -> "summary";
        };
    }

    /** What Prometheus' type cannot say: the OTLP type, temporality and unit, and the name Pulse stores. */
    private static String help(String stored, dev.pulse.model.MetricKind kind) {
        if (kind == null) {
            return "";
        }
        return "OTLP " + kind.type().code() + ", " + kind.temporality().name().toLowerCase(java.util.Locale.ROOT)
                + " temporality" + (kind.unit().isEmpty() ? "" : ", unit " + kind.unit()) + "; stored as " + stored;
    }

    /** Prometheus' metadata limits: an integer, negative meaning none. */
    private static int signedLimit(ApiParams params, String name) throws PromQlException {
        String s = params.first(name);
        if (s == null || s.isEmpty()) {
            return -1;
        }
        try {
            if (s.length() <= 64) {
                return Integer.parseInt(s);
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new PromQlException(PromQlException.Type.BAD_DATA, name + " must be a number of at most 64 characters");
    }

    /** The query printed as Prometheus 2.42 prints it ({@link PromQlFormatter}); a query that does not parse is refused. */
    private static String formatQuery(ApiParams params) throws PromQlException {
        String query = params.first("query");
        if (query == null) {
            throw PromQlException.invalidParameter("query", "1:1: parse error: no expression found in input");
        }
        String formatted;
        try {
            formatted = dev.pulse.query.promql.internal.PromQlFormatter.format(query);
        } catch (PromQlParseException e) {
            throw PromQlException.invalidParameter("query", e.getMessage());
        }
        return envelope(g -> g.writeStringField("data", formatted), List.of());
    }

    /** Pulse keeps no exemplars: the query and times are checked as Prometheus checks them, the answer is empty. */
    private static String exemplars(ApiParams params) throws PromQlException {
        parse(params);
        checkTimes(params);
        return envelope(
                g -> {
                    g.writeArrayFieldStart("data");
                    g.writeEndArray();
                },
                List.of());
    }

    /** The catalog has no time: start and end are checked, and documented as not narrowing the answer. */
    private static void checkTimes(ApiParams params) throws PromQlException {
        long start = params.time("start", 0);
        long end = params.time("end", Long.MAX_VALUE);
        if (end < start) {
            throw PromQlException.invalidParameter("end", "end timestamp must not be before start time");
        }
    }

    private record Listing(List<CatalogMatcher.Match> series, String warning) {}

    private Listing matchAll(List<String> selectors) throws PromQlException {
        CatalogMatcher matcher = new CatalogMatcher(catalog);
        List<CatalogMatcher.Match> out = new ArrayList<>();
        boolean truncated = false;
        for (String m : selectors) {
            Expr e;
            try {
                e = PromQlParser.parse(m);
            } catch (PromQlParseException ex) {
                throw PromQlException.invalidParameter("match[]", ex.getMessage());
            }
            if (!(e instanceof Expr.Selector s)) {
                throw PromQlException.invalidParameter(
                        "match[]", "invalid expression type, must be a series selector: " + m);
            }
            CatalogMatcher.Found found = matcher.match(s.matchers());
            out.addAll(found.series());
            truncated |= found.truncated();
        }
        return new Listing(out, truncated ? truncatedWarning() : null);
    }

    private Listing everything() {
        CatalogMatcher.Found found = new CatalogMatcher(catalog)
                .match(List.of(new LabelMatcher(
                        LabelMatcher.NAME,
                        "=~",
                        ".+",
                        com.google.re2j.Pattern.compile("^(?:.+)$", com.google.re2j.Pattern.DOTALL))));
        return new Listing(found.series(), found.truncated() ? truncatedWarning() : null);
    }

    private static String truncatedWarning() {
        return "the listing stopped after " + CatalogMatcher.MAX_SCANNED
                + " catalog entries: give match[] to narrow it";
    }

    // --- JSON --------------------------------------------------------------------------------------------------

    private interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    private static String strings(Iterable<String> values, List<String> warnings) {
        return envelope(
                g -> {
                    g.writeArrayFieldStart("data");
                    for (String v : values) {
                        g.writeString(v);
                    }
                    g.writeEndArray();
                },
                warnings);
    }

    /** {@code {"status":"success","data":...[,"warnings":[...]]}}; {@code body} writes the {@code data} field. */
    private static String envelope(Body body, List<String> warnings) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            g.writeStringField("status", "success");
            body.write(g);
            if (!warnings.isEmpty()) {
                g.writeArrayFieldStart("warnings");
                for (String warning : warnings) {
                    g.writeString(warning);
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    /** The {@code data} object of a query answer. */
    private static String queryEnvelope(Body fields) {
        return envelope(
                g -> {
                    g.writeObjectFieldStart("data");
                    fields.write(g);
                    g.writeEndObject();
                },
                List.of());
    }

    private static void labels(JsonGenerator g, String field, SortedMap<String, String> labels) throws IOException {
        if (field != null) {
            g.writeObjectFieldStart(field);
        } else {
            g.writeStartObject();
        }
        for (Map.Entry<String, String> l : labels.entrySet()) {
            g.writeStringField(l.getKey(), l.getValue());
        }
        g.writeEndObject();
    }

    /** {@code [<unix seconds>, "<value>"]}, as Prometheus writes a sample. */
    private static void point(JsonGenerator g, long millis, double value) throws IOException {
        g.writeStartArray();
        g.writeRawValue(seconds(millis));
        g.writeString(formatValue(value));
        g.writeEndArray();
    }

    /** Unix seconds with the milliseconds only when there are some: {@code 1700000000}, {@code 1700000000.5}. */
    static String seconds(long millis) {
        if (millis % 1000 == 0) {
            return Long.toString(millis / 1000); // a step on whole seconds, as query_range's nearly always are
        }
        return BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString();
    }

    /** As Go's {@code strconv.FormatFloat(v, 'f', -1, 64)}: the shortest exact decimal, no exponent; +Inf, -Inf, NaN. */
    public static String formatValue(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == 0) {
            return 1 / v < 0 ? "-0" : "0";
        }
        String shortest = Double.toString(v);
        if (shortest.indexOf('E') < 0) {
            // Plain already (1e-3 <= |v| < 1e7), with no trailing zero but that of ".0": what stripTrailingZeros and
            // toPlainString would give, without a BigDecimal for each of a range answer's thousands of points.
            return shortest.endsWith(".0") ? shortest.substring(0, shortest.length() - 2) : shortest;
        }
        return new BigDecimal(shortest).stripTrailingZeros().toPlainString();
    }
}
