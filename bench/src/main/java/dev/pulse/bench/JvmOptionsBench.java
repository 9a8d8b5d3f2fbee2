package dev.pulse.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * jvm-options: C1-only compilation ({@code -XX:TieredStopAtLevel=1}) against full tiered compilation (C1 then
 * C2) for IngestFunction and QueryFunction, each in fresh JVMs with the function's other template options: the
 * first invocation of a cold JVM, then a warm container's 10,000-record ingest batch and 100-series day query.
 * Variants alternate (C1, full, C1, full) so that the machine's noise falls on both.
 */
final class JvmOptionsBench implements Benchmark {

    /** The flag that stops tiered compilation at C1. */
    static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
    private static final String STOP_AT = "-XX:TieredStopAtLevel=";

    /** The two compilation settings, in the order each round runs them. */
    enum Variant {
        C1("C1 only", "1"),
        FULL("full tiered", "4");

        final String label;
        /** TieredStopAtLevel as the JVM reports it when the variant is in force. */
        final String stopAtLevel;

        Variant(String label, String stopAtLevel) {
            this.label = label;
            this.stopAtLevel = stopAtLevel;
        }
    }

    /** A function measured, and how its figures are named. */
    private record Function(String logicalId, String key, String warmUnit) {
    }

    private static final Function INGEST = new Function("IngestFunction", "ingest", "batch");
    private static final Function QUERY = new Function("QueryFunction", "query", "page");

    @Override
    public String name() {
        return "jvm-options";
    }

    @Override
    public String howToRead() {
        return """
                C1-only compilation (`-XX:TieredStopAtLevel=1`) against full tiered compilation (C1, then C2 for \
                hot code) for the two functions with hot paths. Each variant is the function's JAVA_TOOL_OPTIONS \
                from template.yaml with only the TieredStopAtLevel flag changed (removed for full tiered), given \
                as JAVA_TOOL_OPTIONS to a fresh JVM with `-XX:MaxRAM` = MemorySize, as Lambda starts it; each JVM \
                reports the TieredStopAtLevel it really ran with, and a JVM that ran the other one fails the run. \
                In each JVM the real handler is built as the runtime builds it and invoked against DynamoDB Local \
                (in the parent process): IngestFunction with the ingest-end-to-end batch (10,000 native NDJSON \
                records, 50,000 datapoints over 200 series), the shard's next batch each time into one table, as a \
                warm container sees them: the first batch on the cold JVM, 5 warm-up batches, then 10 timed (at most \
                20 s); QueryFunction with the query benchmark's question (100 series x 24 h at PT5M, count, avg, \
                max, p99; 2 pages): the first query on the cold JVM, 20 warm-up queries, then 50 timed (at most \
                20 s), per invocation (page). Every batch is checked by its EMF document (records, datapoints, no \
                poison, no failure) and the table afterwards by the datapoints its partials count; the first query, \
                the first warm-up query and one after the timed ones are checked bucket by bucket, and every \
                invocation answers 200 with one EMF document. Two rounds, the variants alternating (C1, full, C1, \
                full for each function); the warm figures pool both rounds' invocations (median [min .. max], and \
                p50/p99 for the query's pages), the cold ones are the median of the two JVMs. First invocation: \
                the handler's first call on the cold JVM (the 10,000-record batch; the query's first page); first \
                response: the JVM's uptime at its end (JVM start, class loading, the handler's construction, the \
                first call). The ratio is full tiered / C1 only: below 1, full tiered is faster. JIT is the JVM's \
                total compilation time, and the part of it spent during the timed invocations (near 0: the code \
                had settled). This machine's 2 shared cores run C2 beside the handler; Lambda gives a 1,024 MB \
                function about 0.6 vCPU, where C2's compilations compete with the handler for longer, so the early \
                invocations favour C1 more there than here; the warm figures are after compilation settled. The \
                cold-start benchmark measures the init of every handler through the runtime interface client with \
                the template's options against none.""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        FunctionSettings ingestFn = FunctionSettings.load(env.root(), INGEST.logicalId());
        FunctionSettings queryFn = FunctionSettings.load(env.root(), QUERY.logicalId());
        int records = env.scale(IngestEndToEndBench.RECORDS, 1_000);
        QueryDataset data = QueryDataset.create(env, env.scale(100, 20));
        Path datasetFile = env.root().resolve("bench/target/jvm-options/query-dataset.json");
        data.save(datasetFile);
        DynamoDbClient tables = env.dynamoSync();
        String endpoint = env.dynamo().endpoint().toString();
        int rounds = env.scale(2, 1);

        // runs.get(function key).get(variant) = each round's JVM report
        Map<String, Map<Variant, List<JsonNode>>> runs = new LinkedHashMap<>();
        for (Function f : List.of(INGEST, QUERY)) {
            Map<Variant, List<JsonNode>> byVariant = new LinkedHashMap<>();
            for (Variant v : Variant.values()) {
                byVariant.put(v, new ArrayList<>());
            }
            runs.put(f.key(), byVariant);
        }
        for (int r = 0; r < rounds; r++) {
            for (Variant v : Variant.values()) {
                String table = StreamlessTables.create(tables, "jvm-options-ingest");
                try {
                    runs.get(INGEST.key()).get(v).add(probe(ingestFn, v, List.of("ingest", endpoint, table,
                            env.root().toString(), Integer.toString(records), Integer.toString(env.scale(5, 1)),
                            Integer.toString(env.scale(10, 2)), Integer.toString(env.scale(20, 5)))));
                } finally {
                    StreamlessTables.delete(tables, table);
                }
            }
            for (Variant v : Variant.values()) {
                runs.get(QUERY.key()).get(v).add(probe(queryFn, v, List.of("query", endpoint, datasetFile.toString(),
                        env.root().toString(), "0", Integer.toString(env.scale(20, 2)), Integer.toString(env.scale(50, 3)),
                        Integer.toString(env.scale(20, 3)))));
            }
        }
        return result(ingestFn, queryFn, runs, records, data.series().size());
    }

    /** One JVM of {@code fn} with variant {@code v} of its options; its report, checked for the flag in force. */
    private static JsonNode probe(FunctionSettings fn, Variant v, List<String> args) throws Exception {
        List<String> options = options(fn.javaToolOptions(), v);
        JsonNode report = ChildJvm.run(fn.logicalId() + " " + v.label, fn.memoryMb(), options, JvmOptionsProbe.class, args,
                JvmOptionsProbe.PREFIX, Duration.ofMinutes(5));
        if (!v.stopAtLevel.equals(report.path("tieredStopAtLevel").asText())
                || !"true".equals(report.path("tieredCompilation").asText())) {
            throw new IllegalStateException(fn.logicalId() + " " + v.label + " ran with TieredCompilation "
                    + report.path("tieredCompilation").asText() + ", TieredStopAtLevel " + report.path("tieredStopAtLevel").asText()
                    + " (JAVA_TOOL_OPTIONS " + String.join(" ", options) + ")");
        }
        return report;
    }

    /**
     * {@code templateOptions} with the compilation choice set to {@code v}: every TieredStopAtLevel removed, then for
     * C1 only {@value #C1_ONLY} put back where the first one was (or at the end); everything else unchanged.
     */
    static List<String> options(List<String> templateOptions, Variant v) {
        List<String> out = new ArrayList<>();
        int at = -1;
        for (String o : templateOptions) {
            if (o.startsWith(STOP_AT)) {
                at = at < 0 ? out.size() : at;
            } else {
                out.add(o);
            }
        }
        if (v == Variant.C1) {
            out.add(at < 0 ? out.size() : at, C1_ONLY);
        }
        return List.copyOf(out);
    }

    /** Which variant {@code options} are: C1 only when they stop tiered compilation at level 1. */
    static Variant variantOf(List<String> options) {
        String last = null;
        for (String o : options) {
            if (o.startsWith(STOP_AT)) {
                last = o; // the JVM takes the last occurrence of a flag
            }
        }
        return C1_ONLY.equals(last) ? Variant.C1 : Variant.FULL;
    }

    private Result result(FunctionSettings ingestFn, FunctionSettings queryFn, Map<String, Map<Variant, List<JsonNode>>> runs,
            int records, int series) {
        List<String> details = new ArrayList<>();
        Map<String, Double> values = new LinkedHashMap<>();
        for (FunctionSettings fn : List.of(ingestFn, queryFn)) {
            details.add(fn.logicalId() + " in template.yaml: " + variantOf(fn.javaToolOptions()).label + " (JAVA_TOOL_OPTIONS "
                    + String.join(" ", fn.javaToolOptions()) + ", MemorySize " + fn.memoryMb() + " MB)");
        }
        Map<Variant, Samples> ingestWarm = new LinkedHashMap<>();
        Map<Variant, Samples> queryWarm = new LinkedHashMap<>();
        Map<Variant, Samples> queryWhole = new LinkedHashMap<>();
        Map<Variant, Samples> ingestFirst = new LinkedHashMap<>();
        Map<Variant, Samples> queryFirst = new LinkedHashMap<>();
        for (Variant v : Variant.values()) {
            List<JsonNode> ingest = runs.get(INGEST.key()).get(v);
            List<JsonNode> query = runs.get(QUERY.key()).get(v);
            ingestWarm.put(v, pooled(ingest, "warmMillis"));
            queryWarm.put(v, pooled(query, "warmMillis"));
            queryWhole.put(v, pooled(query, "warmQueryMillis"));
            ingestFirst.put(v, each(ingest, n -> n.path("firstInvocationMillis").asDouble()));
            queryFirst.put(v, each(query, n -> n.path("firstInvocationMillis").asDouble()));
        }
        for (Function f : List.of(INGEST, QUERY)) {
            for (Variant v : Variant.values()) {
                List<JsonNode> reports = runs.get(f.key()).get(v);
                for (int r = 0; r < reports.size(); r++) {
                    details.add(describe(f, v, r, reports.get(r)));
                }
            }
        }
        Variant c1 = Variant.C1;
        Variant full = Variant.FULL;
        details.add(String.format(Locale.ROOT, "IngestFunction, warm %,d-record batch, ms: full tiered %s; C1 only %s;"
                + " full/C1 %s (per round %s)", records, ingestWarm.get(full).spread("%,.0f"), ingestWarm.get(c1).spread("%,.0f"),
                Format.ratio(ingestWarm.get(full).median() / ingestWarm.get(c1).median()),
                perRound(runs.get(INGEST.key()), n -> pooled(List.of(n), "warmMillis").median())));
        details.add(String.format(Locale.ROOT, "QueryFunction, warm %d-series day query per page: full tiered p50 %s, p99 %s;"
                + " C1 only p50 %s, p99 %s; full/C1 p50 %s (per round %s), p99 %s", series,
                Format.millis(queryWarm.get(full).median()), Format.millis(queryWarm.get(full).percentile(99)),
                Format.millis(queryWarm.get(c1).median()), Format.millis(queryWarm.get(c1).percentile(99)),
                Format.ratio(queryWarm.get(full).median() / queryWarm.get(c1).median()),
                perRound(runs.get(QUERY.key()), n -> pooled(List.of(n), "warmMillis").median()),
                Format.ratio(queryWarm.get(full).percentile(99) / queryWarm.get(c1).percentile(99))));
        details.add(String.format(Locale.ROOT, "QueryFunction, warm whole query (every page), ms: full tiered %s; C1 only %s",
                queryWhole.get(full).spread("%,.1f"), queryWhole.get(c1).spread("%,.1f")));
        details.add(String.format(Locale.ROOT, "first invocation on a cold JVM, ms: IngestFunction full tiered %s, C1 only %s"
                + " (full/C1 %s); QueryFunction full tiered %s, C1 only %s (full/C1 %s)",
                ingestFirst.get(full).spread("%,.0f"), ingestFirst.get(c1).spread("%,.0f"),
                Format.ratio(ingestFirst.get(full).median() / ingestFirst.get(c1).median()),
                queryFirst.get(full).spread("%,.0f"), queryFirst.get(c1).spread("%,.0f"),
                Format.ratio(queryFirst.get(full).median() / queryFirst.get(c1).median())));

        for (Variant v : Variant.values()) {
            String s = v == full ? "Full" : "C1";
            values.put("ingestWarmBatchMillis" + s, ingestWarm.get(v).median());
            values.put("ingestWarmBatchMillisMin" + s, ingestWarm.get(v).min());
            values.put("ingestWarmBatchMillisMax" + s, ingestWarm.get(v).max());
            values.put("queryWarmPageP50Millis" + s, queryWarm.get(v).median());
            values.put("queryWarmPageP99Millis" + s, queryWarm.get(v).percentile(99));
            values.put("queryWarmQueryP50Millis" + s, queryWhole.get(v).median());
            values.put("ingestFirstInvocationMillis" + s, ingestFirst.get(v).median());
            values.put("queryFirstInvocationMillis" + s, queryFirst.get(v).median());
            values.put("ingestFirstResponseMillis" + s,
                    each(runs.get(INGEST.key()).get(v), n -> n.path("firstResponseUptimeMillis").asDouble()).median());
            values.put("queryFirstResponseMillis" + s,
                    each(runs.get(QUERY.key()).get(v), n -> n.path("firstResponseUptimeMillis").asDouble()).median());
        }
        double ingestRatio = ingestWarm.get(full).median() / ingestWarm.get(c1).median();
        double queryP50Ratio = queryWarm.get(full).median() / queryWarm.get(c1).median();
        double queryP99Ratio = queryWarm.get(full).percentile(99) / queryWarm.get(c1).percentile(99);
        double ingestFirstRatio = ingestFirst.get(full).median() / ingestFirst.get(c1).median();
        double queryFirstRatio = queryFirst.get(full).median() / queryFirst.get(c1).median();
        values.put("ingestWarmRatio", ingestRatio);
        values.put("queryWarmP50Ratio", queryP50Ratio);
        values.put("queryWarmP99Ratio", queryP99Ratio);
        values.put("ingestFirstInvocationRatio", ingestFirstRatio);
        values.put("queryFirstInvocationRatio", queryFirstRatio);
        values.put("records", (double) records);
        values.put("series", (double) series);
        return new Result(name(),
                "full tiered: warm ingest batch " + Format.count(ingestWarm.get(full).median()) + " ms, warm query page p50 "
                        + Format.millis(queryWarm.get(full).median()) + " / p99 " + Format.millis(queryWarm.get(full).percentile(99))
                        + ", first invocation ingest " + Format.count(ingestFirst.get(full).median()) + " ms / query "
                        + Format.count(queryFirst.get(full).median()) + " ms",
                "C1 only: " + Format.count(ingestWarm.get(c1).median()) + " ms, p50 " + Format.millis(queryWarm.get(c1).median())
                        + " / p99 " + Format.millis(queryWarm.get(c1).percentile(99)) + ", first "
                        + Format.count(ingestFirst.get(c1).median()) + " ms / " + Format.count(queryFirst.get(c1).median()) + " ms",
                "full/C1 " + Format.ratio(ingestRatio) + ", " + Format.ratio(queryP50Ratio) + " / " + Format.ratio(queryP99Ratio)
                        + ", first " + Format.ratio(ingestFirstRatio) + " / " + Format.ratio(queryFirstRatio),
                "", null, details, values);
    }

    /** One JVM's figures: its warm invocations, its cold ones, its JIT time. */
    private static String describe(Function f, Variant v, int round, JsonNode n) {
        Samples warm = pooled(List.of(n), "warmMillis");
        return String.format(Locale.ROOT, "%-14s %-11s JVM %d: warm %s ms %s (p99 %s); init %s ms, first invocation %s"
                + " ms, first response %s ms; JIT %,d ms (%,d ms during the timed invocations); %d invocations",
                f.logicalId(), v.label, round + 1, f.warmUnit(), warm.spread("%,.1f"), Format.count(warm.percentile(99)),
                Format.count(n.path("initMillis").asDouble()), Format.count(n.path("firstInvocationMillis").asDouble()),
                Format.count(n.path("firstResponseUptimeMillis").asDouble()), n.path("compileMillis").asLong(),
                n.path("timedCompileMillis").asLong(), n.path("invocations").asInt());
    }

    /** Each round's full/C1 ratio of {@code figure}: {@code median [min .. max]}. */
    private static String perRound(Map<Variant, List<JsonNode>> byVariant, ToDoubleFunction<JsonNode> figure) {
        List<JsonNode> c1 = byVariant.get(Variant.C1);
        List<JsonNode> full = byVariant.get(Variant.FULL);
        double[] ratios = new double[Math.min(c1.size(), full.size())];
        for (int r = 0; r < ratios.length; r++) {
            ratios[r] = figure.applyAsDouble(full.get(r)) / figure.applyAsDouble(c1.get(r));
        }
        Samples s = Samples.of(ratios);
        return Format.ratio(s.median()) + " [" + Format.ratio(s.min()) + " .. " + Format.ratio(s.max()) + "]";
    }

    /** Every JVM's values of the array {@code field}, together. */
    private static Samples pooled(List<JsonNode> reports, String field) {
        List<Double> all = new ArrayList<>();
        reports.forEach(n -> n.path(field).forEach(x -> all.add(x.asDouble())));
        return Samples.of(all.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** One value a JVM. */
    private static Samples each(List<JsonNode> reports, ToDoubleFunction<JsonNode> value) {
        return Samples.of(reports.stream().mapToDouble(value).toArray());
    }
}
