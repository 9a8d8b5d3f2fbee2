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
package dev.pulse.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
    private static final ObjectMapper JSON = new ObjectMapper();
    /** JVMs per function and variant: C1, full, C1, full. */
    static final int ROUNDS = 2;

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
    private record Function(String logicalId, String key, String warmUnit) {}

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
                reports the TieredStopAtLevel it really ran with, and one that ran the other fails the run. Each JVM \
                runs on one CPU (`taskset`) while counting two (`-XX:ActiveProcessorCount`), as a 1,024 MB \
                function's JVM sees 2 vCPUs but gets about 0.6 of one: the compiler's threads take their CPU from \
                the handler's. In each JVM the real handler is built as the runtime builds it and invoked against \
                DynamoDB Local (in the parent process): IngestFunction with the ingest-end-to-end batch (10,000 \
                native NDJSON records, 50,000 datapoints over 200 series), the shard's next batch each time into \
                one table, as a warm container sees them; QueryFunction with the query benchmark's question (100 \
                series x 24 h at PT5M, count, avg, max, p99; 2 pages, an invocation each). The two variants run side \
                by side: each JVM starts and answers its first unit (a batch; a whole query) while the other is not \
                started or frozen, then they take turns one unit at a time, the idle one frozen (SIGSTOP: as Lambda \
                freezes an environment between invocations, its compiler threads stop too), the order of each pair \
                alternating; so whatever else the machine runs falls on both within seconds. Warm-up: at least 5 \
                batches / 10 queries, then more while either JIT compiled for over a tenth of its last unit (at \
                most 20 / 30); then 10 batches / 25 queries timed (at most 15 / 12 s). Every batch is checked by its \
                EMF document (records, datapoints, no poison, no failure) and the table afterwards by the \
                datapoints its partials count; the first query, the first warm-up query and one at the end are \
                checked bucket by bucket, and every invocation answers 200 with one EMF document. Two pairs per \
                function (C1 started first in the first); the warm figures pool the pairs' invocations \
                (median [min .. max], p50/p99 for the query's pages), the cold ones are the median of the two \
                JVMs. First invocation: the handler's first call on the cold JVM (the 10,000-record batch; the \
                query's first page); first response: the JVM's uptime at its end (JVM start, class loading, the \
                handler's construction, the first call); the first N invocations: the cold one and the warm-ups \
                every JVM ran, summed (the price of getting warm). The ratio is full tiered / C1 only: below 1, \
                full tiered is faster. JIT is the JVM's total compilation time, and the part during the timed \
                units (a JVM whose JIT compiled for over a tenth of them is marked: not yet C2's steady state).""";
    }

    // ingestTables holds one table per Variant, created in values() order just above.
    @SuppressWarnings("EnumOrdinal")
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
        String root = env.root().toString();
        Schedule ingestSchedule = new Schedule(env.scale(5, 1), env.scale(20, 2), env.scale(10, 2), env.scale(15, 5));
        Schedule querySchedule = new Schedule(env.scale(10, 1), env.scale(30, 2), env.scale(25, 3), env.scale(12, 3));

        // runs.get(function key).get(variant) = each round's JVM report
        Map<String, Map<Variant, List<JsonNode>>> runs = new LinkedHashMap<>();
        for (Function f : List.of(INGEST, QUERY)) {
            Map<Variant, List<JsonNode>> byVariant = new LinkedHashMap<>();
            for (Variant v : Variant.values()) {
                byVariant.put(v, new ArrayList<>());
            }
            runs.put(f.key(), byVariant);
        }
        for (int r = 0; r < env.scale(ROUNDS, 1); r++) {
            List<String> ingestTables = List.of(
                    StreamlessTables.create(tables, "jvm-options-ingest"),
                    StreamlessTables.create(tables, "jvm-options-ingest"));
            try {
                Map<Variant, JsonNode> ingest = pair(
                        ingestFn,
                        r,
                        ingestSchedule,
                        v -> List.of(
                                "ingest", endpoint, ingestTables.get(v.ordinal()), root, Integer.toString(records)));
                ingest.forEach((v, n) -> runs.get(INGEST.key()).get(v).add(n));
            } finally {
                ingestTables.forEach(t -> StreamlessTables.delete(tables, t));
            }
            Map<Variant, JsonNode> query =
                    pair(queryFn, r, querySchedule, v -> List.of("query", endpoint, datasetFile.toString(), root, "0"));
            query.forEach((v, n) -> runs.get(QUERY.key()).get(v).add(n));
        }
        return result(ingestFn, queryFn, runs, records, data.series().size());
    }

    /**
     * How a pair of containers is driven: at least {@code minWarmUps} warm-up units each, then more while either
     * JVM's JIT is still busy (it compiled for more than a tenth of its last unit's wall time), at most
     * {@code maxWarmUps}; then {@code timed} units each, or as many as {@code seconds} allow (at least one).
     */
    record Schedule(int minWarmUps, int maxWarmUps, int timed, int seconds) {}

    /**
     * One JVM of each variant of {@code fn}, side by side: each starts and answers its first unit while the other
     * is not yet started or frozen; then they take turns, one unit at a time, the other frozen (as Lambda freezes
     * an idle environment: its compiler threads stop too), the order of each pair alternating. So whatever else
     * the machine runs falls on both within seconds. Each JVM's report, checked for the flag in force.
     */
    private static Map<Variant, JsonNode> pair(
            FunctionSettings fn, int round, Schedule schedule, java.util.function.Function<Variant, List<String>> args)
            throws Exception {
        List<Variant> order = round % 2 == 0 ? List.of(Variant.C1, Variant.FULL) : List.of(Variant.FULL, Variant.C1);
        Map<Variant, ChildJvm> jvms = new LinkedHashMap<>();
        Map<Variant, ObjectNode> reports = new LinkedHashMap<>();
        try {
            for (Variant v : order) {
                List<String> options = options(fn.javaToolOptions(), v);
                ChildJvm jvm = ChildJvm.start(
                        fn.logicalId() + " " + v.label,
                        fn.memoryMb(),
                        options,
                        JvmOptionsProbe.class,
                        args.apply(v),
                        true);
                jvms.put(v, jvm);
                JsonNode first = jvm.await(JvmOptionsProbe.UNIT, UNIT_TIMEOUT);
                jvm.pause();
                ObjectNode report = JSON.createObjectNode();
                report.put("initMillis", first.path("initMillis").asDouble());
                report.put(
                        "firstResponseUptimeMillis",
                        first.path("firstResponseUptimeMillis").asDouble());
                report.put("firstInvocationMillis", first.path("millis").get(0).asDouble());
                report.putArray("earlyMillis").addAll((ArrayNode) first.path("millis"));
                report.putArray("warmMillis");
                report.putArray("warmUnitMillis");
                reports.put(v, report);
            }
            int warmUps = 0;
            boolean settled = false;
            while (warmUps < schedule.maxWarmUps() && !settled) {
                settled = ++warmUps >= schedule.minWarmUps();
                for (Variant v : turn(order, warmUps)) {
                    JsonNode u = unit(jvms.get(v));
                    ((ArrayNode) reports.get(v).path("earlyMillis")).addAll((ArrayNode) u.path("millis"));
                    settled &= u.path("compileMillis").asDouble()
                            <= u.path("unitMillis").asDouble() / 10;
                }
            }
            Map<Variant, Long> timedCompile = new LinkedHashMap<>();
            long end = System.nanoTime() + schedule.seconds() * 1_000_000_000L;
            for (int t = 0; t < schedule.timed() && (t == 0 || System.nanoTime() < end); t++) {
                for (Variant v : turn(order, t)) {
                    JsonNode u = unit(jvms.get(v));
                    ((ArrayNode) reports.get(v).path("warmMillis")).addAll((ArrayNode) u.path("millis"));
                    ((ArrayNode) reports.get(v).path("warmUnitMillis"))
                            .add(u.path("unitMillis").asDouble());
                    timedCompile.merge(v, u.path("compileMillis").asLong(), Long::sum);
                }
            }
            for (Variant v : order) {
                ChildJvm jvm = jvms.get(v);
                jvm.send("end");
                JsonNode ended = jvm.await(JvmOptionsProbe.END, UNIT_TIMEOUT);
                jvm.finish(Duration.ofSeconds(30));
                if (!v.stopAtLevel.equals(ended.path("tieredStopAtLevel").asText())
                        || !"true".equals(ended.path("tieredCompilation").asText())) {
                    throw new IllegalStateException(fn.logicalId() + " " + v.label + " ran with TieredCompilation "
                            + ended.path("tieredCompilation").asText() + ", TieredStopAtLevel "
                            + ended.path("tieredStopAtLevel").asText() + " (JAVA_TOOL_OPTIONS "
                            + String.join(" ", options(fn.javaToolOptions(), v)) + ")");
                }
                ObjectNode report = reports.get(v);
                report.setAll((ObjectNode) ended);
                report.put("warmUps", warmUps);
                report.put("settled", settled);
                report.put("timedCompileMillis", timedCompile.getOrDefault(v, 0L));
            }
            Map<Variant, JsonNode> out = new LinkedHashMap<>();
            for (Variant v : Variant.values()) {
                out.put(v, reports.get(v));
            }
            return out;
        } finally {
            jvms.values().forEach(ChildJvm::close);
        }
    }

    private static final Duration UNIT_TIMEOUT = Duration.ofMinutes(3);

    /** The pair's order for turn {@code t}: as started, then reversed, and so on (C1 full, full C1, ...). */
    private static List<Variant> turn(List<Variant> order, int t) {
        return t % 2 == 0 ? order : List.of(order.get(1), order.get(0));
    }

    /** One unit on {@code jvm}: thawed, the command, its report, frozen again. */
    private static JsonNode unit(ChildJvm jvm) throws Exception {
        jvm.send("unit");
        JsonNode u = jvm.await(JvmOptionsProbe.UNIT, UNIT_TIMEOUT);
        jvm.pause();
        return u;
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

    private Result result(
            FunctionSettings ingestFn,
            FunctionSettings queryFn,
            Map<String, Map<Variant, List<JsonNode>>> runs,
            int records,
            int series) {
        List<String> details = new ArrayList<>();
        Map<String, Double> values = new LinkedHashMap<>();
        for (FunctionSettings fn : List.of(ingestFn, queryFn)) {
            details.add(fn.logicalId() + " in template.yaml: " + variantOf(fn.javaToolOptions()).label
                    + " (JAVA_TOOL_OPTIONS " + String.join(" ", fn.javaToolOptions()) + ", MemorySize " + fn.memoryMb()
                    + " MB)");
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
            queryWhole.put(v, pooled(query, "warmUnitMillis"));
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
        details.add(String.format(
                Locale.ROOT,
                "IngestFunction, warm %,d-record batch, ms: full tiered %s; C1 only %s;" + " full/C1 %s (per round %s)",
                records,
                ingestWarm.get(full).spread("%,.0f"),
                ingestWarm.get(c1).spread("%,.0f"),
                Format.ratio(ingestWarm.get(full).median() / ingestWarm.get(c1).median()),
                perRound(
                        runs.get(INGEST.key()),
                        n -> pooled(List.of(n), "warmMillis").median())));
        details.add(String.format(
                Locale.ROOT,
                "QueryFunction, warm %d-series day query per page: full tiered p50 %s, p99 %s;"
                        + " C1 only p50 %s, p99 %s; full/C1 p50 %s (per round %s), p99 %s",
                series,
                Format.millis(queryWarm.get(full).median()),
                Format.millis(queryWarm.get(full).percentile(99)),
                Format.millis(queryWarm.get(c1).median()),
                Format.millis(queryWarm.get(c1).percentile(99)),
                Format.ratio(queryWarm.get(full).median() / queryWarm.get(c1).median()),
                perRound(
                        runs.get(QUERY.key()),
                        n -> pooled(List.of(n), "warmMillis").median()),
                Format.ratio(
                        queryWarm.get(full).percentile(99) / queryWarm.get(c1).percentile(99))));
        details.add(String.format(
                Locale.ROOT,
                "QueryFunction, warm whole query (every page), ms: full tiered %s; C1 only %s",
                queryWhole.get(full).spread("%,.1f"),
                queryWhole.get(c1).spread("%,.1f")));
        for (Function f : List.of(INGEST, QUERY)) {
            details.add(early(f, runs.get(f.key())));
        }
        details.add(String.format(
                Locale.ROOT,
                "first invocation on a cold JVM, ms: IngestFunction full tiered %s, C1 only %s"
                        + " (full/C1 %s); QueryFunction full tiered %s, C1 only %s (full/C1 %s)",
                ingestFirst.get(full).spread("%,.0f"),
                ingestFirst.get(c1).spread("%,.0f"),
                Format.ratio(
                        ingestFirst.get(full).median() / ingestFirst.get(c1).median()),
                queryFirst.get(full).spread("%,.0f"),
                queryFirst.get(c1).spread("%,.0f"),
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
            values.put(
                    "ingestFirstResponseMillis" + s,
                    each(
                                    runs.get(INGEST.key()).get(v),
                                    n -> n.path("firstResponseUptimeMillis").asDouble())
                            .median());
            values.put(
                    "queryFirstResponseMillis" + s,
                    each(
                                    runs.get(QUERY.key()).get(v),
                                    n -> n.path("firstResponseUptimeMillis").asDouble())
                            .median());
        }
        double ingestRatio = ingestWarm.get(full).median() / ingestWarm.get(c1).median();
        double queryP50Ratio = queryWarm.get(full).median() / queryWarm.get(c1).median();
        double queryP99Ratio =
                queryWarm.get(full).percentile(99) / queryWarm.get(c1).percentile(99);
        double ingestFirstRatio =
                ingestFirst.get(full).median() / ingestFirst.get(c1).median();
        double queryFirstRatio =
                queryFirst.get(full).median() / queryFirst.get(c1).median();
        values.put("ingestWarmRatio", ingestRatio);
        values.put("queryWarmP50Ratio", queryP50Ratio);
        values.put("queryWarmP99Ratio", queryP99Ratio);
        values.put("ingestFirstInvocationRatio", ingestFirstRatio);
        values.put("queryFirstInvocationRatio", queryFirstRatio);
        values.put("records", (double) records);
        values.put("series", (double) series);
        return new Result(
                name(),
                "full tiered: warm ingest batch "
                        + Format.count(ingestWarm.get(full).median()) + " ms, warm query page p50 "
                        + Format.millis(queryWarm.get(full).median()) + " / p99 "
                        + Format.millis(queryWarm.get(full).percentile(99))
                        + ", first invocation ingest "
                        + Format.count(ingestFirst.get(full).median()) + " ms / query "
                        + Format.count(queryFirst.get(full).median()) + " ms",
                "C1 only: " + Format.count(ingestWarm.get(c1).median()) + " ms, p50 "
                        + Format.millis(queryWarm.get(c1).median())
                        + " / p99 " + Format.millis(queryWarm.get(c1).percentile(99)) + ", first "
                        + Format.count(ingestFirst.get(c1).median()) + " ms / "
                        + Format.count(queryFirst.get(c1).median()) + " ms",
                "full/C1 " + Format.ratio(ingestRatio) + ", " + Format.ratio(queryP50Ratio) + " / "
                        + Format.ratio(queryP99Ratio) + ", first " + Format.ratio(ingestFirstRatio) + " / "
                        + Format.ratio(queryFirstRatio),
                "",
                null,
                details,
                values);
    }

    /** One JVM's figures: its warm invocations, its cold ones, its JIT time. */
    private static String describe(Function f, Variant v, int round, JsonNode n) {
        Samples warm = pooled(List.of(n), "warmMillis");
        return String.format(
                Locale.ROOT,
                "%-14s %-11s JVM %d: warm %s ms %s (p99 %s) after %d warm-ups%s; init %s ms,"
                        + " first invocation %s ms, first response %s ms; JIT %,d ms (%,d ms during the timed invocations);"
                        + " %d invocations",
                f.logicalId(),
                v.label,
                round + 1,
                f.warmUnit(),
                warm.spread("%,.1f"),
                Format.count(warm.percentile(99)),
                n.path("warmUps").asInt(),
                !n.path("settled").asBoolean()
                        ? " (JIT still busy)"
                        : n.path("timedCompileMillis").asDouble() > sum(n.path("warmUnitMillis")) / 10
                                ? " (the JIT compiled on through the timed ones: not yet its steady state)"
                                : "",
                Format.count(n.path("initMillis").asDouble()),
                Format.count(n.path("firstInvocationMillis").asDouble()),
                Format.count(n.path("firstResponseUptimeMillis").asDouble()),
                n.path("compileMillis").asLong(),
                n.path("timedCompileMillis").asLong(),
                n.path("invocations").asInt());
    }

    /**
     * The way to warm: the first invocations of each JVM (the cold one, then warm-ups while the JIT compiles),
     * summed over as many as every JVM of the function ran, per variant (median [min .. max] of the JVMs).
     */
    private static String early(Function f, Map<Variant, List<JsonNode>> byVariant) {
        int k = byVariant.values().stream()
                .flatMap(List::stream)
                .mapToInt(n -> n.path("earlyMillis").size())
                .min()
                .orElse(0);
        Map<Variant, Samples> sums = new LinkedHashMap<>();
        for (Variant v : Variant.values()) {
            sums.put(v, each(byVariant.get(v), n -> {
                double sum = 0;
                for (int i = 0; i < k; i++) {
                    sum += n.path("earlyMillis").get(i).asDouble();
                }
                return sum;
            }));
        }
        return String.format(
                Locale.ROOT,
                "%s, its first %d invocations on a fresh JVM (cold, then warming up), total ms:"
                        + " full tiered %s; C1 only %s; full/C1 %s",
                f.logicalId(),
                k,
                sums.get(Variant.FULL).spread("%,.0f"),
                sums.get(Variant.C1).spread("%,.0f"),
                Format.ratio(
                        sums.get(Variant.FULL).median() / sums.get(Variant.C1).median()));
    }

    private static double sum(JsonNode values) {
        double sum = 0;
        for (JsonNode v : values) {
            sum += v.asDouble();
        }
        return sum;
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
