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
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.bench.CapacityMeter.Term;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.codec.SummaryAttributes;
import dev.pulse.store.read.LatestPartials;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.testing.StdoutCapture;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * cost: the DynamoDB units and stored bytes a datapoint, a series-hour, a series-day and a dashboard query take,
 * counted from what DynamoDB Local reports for the real functions' requests on a simulated clock, each held to a
 * budget. docs/capacity.md turns these units into dollars by hand.
 */
final class CostBench implements Benchmark {

    /** 2026-11-20T00:00Z: the day the bundled recording starts. */
    static final long SIM_DAY = 1_795_132_800_000L;

    static final int DASHBOARD_SERIES = 100;
    static final int DASHBOARD_HOURS = 24;
    static final List<String> DASHBOARD_STATS = List.of("count", "avg", "max", "p99");
    static final int STEADY_PROBE_QUERIES = 10;
    /** Provisioned shards for the simulated stream are sized to this share of a shard's limits. */
    static final double SHARD_UTILISATION = 0.8;

    /**
     * One measured unit of the mix and its budget. Budgets are the units of the full run at cd7e23b
     * (docs/benchmarks.json, 2026-11-24) plus about 5%: the units are deterministic, so a figure above its budget
     * means a change of the code made a datapoint, a series-hour or a query cost more.
     */
    record Budget(String key, String what, double budget) {}

    static final List<Budget> BUDGETS = List.of(
            new Budget("partialWruPerDp", "partial write units a datapoint", 0.105),
            new Budget(
                    "checkpointWruPerInvocation",
                    "shard checkpoint write units an ingest invocation (claim and commit)",
                    2.1),
            new Budget("catalogWruPerSeries", "catalog write units a series, once per ingest container", 1.05),
            new Budget("hourMarkWruPerSeriesHour", "hour-mark write units a series-hour (with the due index)", 2.1),
            new Budget("dayMarkWruPerSeriesDay", "day-mark write units a series-day (with the due index)", 2.1),
            new Budget(
                    "hourlyRruPerSeriesHour",
                    "hourly build read units a series-hour (its partials, strongly consistent)",
                    3.25),
            new Budget(
                    "hourlyWruPerSeriesHour", "hourly build write units a series-hour (the item, the due index)", 4.85),
            new Budget("dailyRruPerSeriesDay", "daily build read units a series-day (24 hourly items)", 19),
            new Budget("dailyWruPerSeriesDay", "daily build write units a series-day (24 hour summaries)", 6.3),
            new Budget("markClearWruPerSeriesHour", "mark clears (expired marks) a series-hour", 0.05),
            new Budget("queueScanRruPerRun", "build-queue read units a builder run", 910),
            new Budget(
                    "queryRruPerDashboardQuery",
                    "read units a dashboard query (100 series, 24 h, PT5M), steady state",
                    350),
            new Budget(
                    "partialBytesPerSeriesHour",
                    "stored partial bytes a series-hour (with DynamoDB's 100 B an item)",
                    18_100),
            new Budget("hourlyBytesPerSeriesHour", "stored hourly rollup bytes a series-hour", 3_230),
            new Budget("dailyBytesPerSeriesDay", "stored daily rollup bytes a series-day (24 hour summaries)", 5_150),
            new Budget("catalogBytesPerSeries", "stored catalog bytes a series", 325));

    /** A measured unit against its budget. */
    record Check(Budget budget, double value) {
        boolean pass() {
            return value <= budget.budget();
        }

        String line() {
            return String.format(
                    Locale.ROOT,
                    "  %-4s %-28s %12s  budget %12s  %s",
                    pass() ? "PASS" : "FAIL",
                    budget.key(),
                    num(value),
                    num(budget.budget()),
                    budget.what());
        }
    }

    /** Every budget against the measured {@code values}; a unit that was not measured fails as NaN. */
    static List<Check> check(Map<String, Double> values) {
        List<Check> out = new ArrayList<>();
        for (Budget b : BUDGETS) {
            out.add(new Check(b, values.getOrDefault(b.key(), Double.NaN)));
        }
        return out;
    }

    static String num(double v) {
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.4f", v);
    }

    @Override
    public String name() {
        return "cost";
    }

    @Override
    public String howToRead() {
        return """
                The DynamoDB units a datapoint, a series-hour, a series-day and a dashboard query cost, counted, not \
                modelled, each held to a budget. Two workloads, each on its own DynamoDB Local table (with the template's \
                `due` index), replay 23:00 to 01:00 UTC on a simulated clock through the real wiring of the three \
                functions at the template's defaults (`IngestFunction`, `CompactFunction` and `QueryFunction`, each on its \
                own client and the same clock): (a) the bundled recording `events/replay/sample.ndjson.gz`, retimed onto \
                the simulated day; (b) a high-cardinality mix of 2,000 series (Lambda and DynamoDB metrics of 200 \
                functions and tables), each sending its minute as one record of 10 datapoints once a minute. Records go \
                to shards by the MD5 of their partition key and reach IngestFunction in batches as the event source \
                mapping forms them (BatchSize, MaximumBatchingWindowInSeconds); the builder (CompactFunction) runs on the \
                template's CompactSchedule; a dashboard asks the mix for 100 series over the last 24 hours at PT5M (count, \
                avg, max, p99) every simulated minute. An SDK interceptor on each function's DynamoDB client asks every \
                request for its consumed capacity and adds it to a term (partials, catalog, marks, hourly and daily \
                builds, queue scans, queries); DynamoDB Local's reports follow DynamoDB's billing rules except for two \
                minimum charges it leaves out (an empty Query page, a BatchGetItem key without an item), added here. \
                Stored bytes are the items' sizes by DynamoDB's rules (100 bytes an item more); the daily build and item \
                are measured for the hours the simulated day has and re-encoded with 24 hour summaries. Each unit of the \
                mix is printed PASS or FAIL against its budget (the units of the full run at cd7e23b plus about 5%); both \
                tables are then checked exact (every datapoint sent is in the partials, every built rollup complete). \
                docs/capacity.md prices these units by hand.""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        long started = System.nanoTime();
        CostSettings settings = CostSettings.load(env.root());
        // 23:00 to 01:00 UTC: two hours and a day boundary (a smoke run: 23:40 to 00:20). -Dbench.cost.start and
        // -Dbench.cost.end (minutes from the simulated day's midnight) change it.
        long dataStart =
                SIM_DAY + Long.getLong("bench.cost.start", env.scale(23 * 60, 23 * 60 + 40)) * CostTraffic.MINUTE;
        long dataEnd = SIM_DAY + Long.getLong("bench.cost.end", env.scale(25 * 60, 24 * 60 + 20)) * CostTraffic.MINUTE;
        long until = dataEnd + 15 * CostTraffic.MINUTE;
        // 2,000 series: every budgeted unit is per datapoint, series-hour, series-day, invocation, builder run or
        // dashboard query (of 100 series), and 10,000 series gave the same units to the third digit (queue scans 866
        // against 855 RRU a run, both within 910) in 2.3x the time. The ingest invocations, one a simulated second
        // (the batching window), do not shrink with the series. -Dbench.cost.series changes it (>= DASHBOARD_SERIES).
        int seriesCount = Integer.getInteger("bench.cost.series", env.scale(2_000, 100));
        List<String> progress = new ArrayList<>();

        CostTraffic.Recording recording =
                new CostTraffic.Recording(env.root().resolve("events/replay/sample.ndjson.gz"), dataEnd);
        CostTraffic.Mix mix = new CostTraffic.Mix(seriesCount, dataStart, dataEnd);
        List<ObjectNode> dashboardSeries = new ArrayList<>();
        List<Integer> dashboardIndex = new ArrayList<>();
        int step = Math.max(1, seriesCount / DASHBOARD_SERIES);
        for (int i = 0; i < seriesCount && dashboardSeries.size() < DASHBOARD_SERIES; i += step) {
            dashboardSeries.add(mix.spec(i));
            dashboardIndex.add(i);
        }
        CostSim.Dashboard dashboard = new CostSim.Dashboard(dashboardSeries, DASHBOARD_HOURS, "PT5M", DASHBOARD_STATS);

        CostSim rec;
        CostSim mixed;
        Map<String, Double> mixUnits;
        Map<String, Double> recUnits;
        List<String> checks = new ArrayList<>();
        try (StdoutCapture out = StdoutCapture.install()) {
            java.util.function.Consumer<String> log = line -> {
                progress.add(line);
                System.err.println("bench: cost: " + line);
            };
            rec = new CostSim(
                    env, "recording", recording, shards(recording, dataStart), settings, null, dataStart, out);
            rec.run(dataStart, dataEnd, until, log);
            recUnits = units(rec);
            mixed = new CostSim(env, "mix", mix, shards(mix, dataStart), settings, dashboard, dataStart, out);
            mixed.run(dataStart, dataEnd, until, log);
            mixUnits = units(mixed);

            // Steady state of the dashboard: the same series over closed, built hours only, once a simulated minute,
            // with the query's own cache (the run's 24-hour window is mostly empty hours, which cost the minimum).
            double before = mixed.queryMeter.tally(Term.QUERY_ROLLUP_READS).units()
                    + mixed.queryMeter.tally(Term.QUERY_PARTIAL_READS).units();
            long pagesBefore = mixed.stats.queryPages;
            for (int q = 0; q < STEADY_PROBE_QUERIES; q++) {
                mixed.clock().setMillis(until + q * CostTraffic.MINUTE);
                mixed.query(dataStart, dataEnd, "PT5M", DASHBOARD_STATS, false);
            }
            double after = mixed.queryMeter.tally(Term.QUERY_ROLLUP_READS).units()
                    + mixed.queryMeter.tally(Term.QUERY_PARTIAL_READS).units();
            long hoursTouched = Math.floorDiv(dataEnd + CostTraffic.HOUR - 1, CostTraffic.HOUR)
                    - Math.floorDiv(dataStart, CostTraffic.HOUR);
            double steadyClosedRru =
                    (after - before) / STEADY_PROBE_QUERIES / (dashboardSeries.size() * (double) hoursTouched);
            if (mixed.stats.queryPages != pagesBefore) {
                throw new IllegalStateException("the probe counted as dashboard queries");
            }
            // Every minute the open hour is read from partials (as measured in the run), the other 23 from built
            // hourly items at what the probe measured a closed series-hour to cost.
            double openPerSeries = mixUnits.get("queryPartialRruPerDashboardQuery") / DASHBOARD_SERIES;
            mixUnits.put(
                    "queryRruPerDashboardQuery",
                    DASHBOARD_SERIES * ((DASHBOARD_HOURS - 1) * steadyClosedRru + openPerSeries));

            checks.add(checkRecording(env, rec));
            checks.add(checkMix(env, mixed, mix, dashboardIndex, dataStart, dataEnd));
        }

        List<Check> budget = check(mixUnits);
        long passed = budget.stream().filter(Check::pass).count();
        List<String> details = new ArrayList<>();
        details.add(String.format(
                Locale.ROOT,
                "mix: %,d datapoints of %,d series over %.1f simulated hours (%,d series-hours built),"
                        + " %.1f datapoints a record of %,.0f B; units against their budgets:",
                mixed.stats.datapointsIn,
                seriesCount,
                (dataEnd - dataStart) / (double) CostTraffic.HOUR,
                (long) (double) mixUnits.get("seriesHours"),
                mixUnits.get("dpPerRecord"),
                mixUnits.get("recordBytes")));
        budget.forEach(c -> details.add(c.line()));
        details.add("");
        details.addAll(terms("mix", mixed));
        details.add("");
        details.add(String.format(
                Locale.ROOT,
                "mix, handler time (in process against DynamoDB Local, pessimistic): ingest %.4f ms a record,"
                        + " builder %.0f ms a run without builds + %.2f ms a build, dashboard %.1f ms a query (%.1f pages); printed bytes"
                        + " (EMF and log lines): ingest %,.0f B an invocation, builder %,.0f B a run, query %,.0f B a page",
                mixUnits.get("ingestMsPerRecord"),
                mixUnits.get("builderMsPerRun"),
                mixUnits.get("builderMsPerBuild"),
                mixUnits.get("queryMsPerDashboardQuery"),
                mixUnits.get("queryPagesPerDashboardQuery"),
                mixUnits.get("ingestLogBytesPerInvocation"),
                mixUnits.get("builderLogBytesPerRun"),
                mixUnits.get("queryLogBytesPerPage")));
        details.add(String.format(
                Locale.ROOT,
                "recording (not budgeted: %.2f datapoints a record, %.2f a series-minute): %.4f partial WRU"
                        + " a datapoint, %.2f WRU + %.2f RRU (hourly build) a series-hour, %,.0f B of partials a series-hour",
                recUnits.get("dpPerRecord"),
                recUnits.get("dpPerSeriesMinute"),
                recUnits.get("partialWruPerDp"),
                recUnits.get("hourlyWruPerSeriesHour"),
                recUnits.get("hourlyRruPerSeriesHour"),
                recUnits.get("partialBytesPerSeriesHour")));
        details.add("checks: " + String.join("; ", checks));
        Map<String, Double> counterCost = new LinkedHashMap<>();
        details.addAll(CounterCost.lines(counterCost));
        long[] sizeChecks = add(mixed.ingestMeter.sizeChecks(), mixed.compactMeter.sizeChecks());
        details.add("item sizes by DynamoDB's rules (ItemSize) against DynamoDB Local's reported write units: "
                + sizeChecks[1] + " of " + Format.count(sizeChecks[0]) + " writes differ");
        details.add(String.format(
                Locale.ROOT,
                "minimum charges DynamoDB Local leaves out, added: %s RRU (mix), %s RRU (recording);"
                        + " conditional writes that failed, charged at their item size: %d (mix)",
                Format.count(floors(mixed)),
                Format.count(floors(rec)),
                failed(mixed)));
        details.addAll(progress);

        Map<String, Double> values = new LinkedHashMap<>(mixUnits);
        recUnits.forEach((k, v) -> values.put("recording." + k, v));
        values.put("simulatedHours", (dataEnd - dataStart) / (double) CostTraffic.HOUR);
        values.put("mixSeries", (double) seriesCount);
        values.put("mixDatapoints", (double) mixed.stats.datapointsIn);
        values.put("recordingDatapoints", (double) rec.stats.datapointsIn);
        values.putAll(counterCost);
        values.put("runSeconds", (System.nanoTime() - started) / 1e9);

        return new Result(
                name(),
                String.format(
                        Locale.ROOT,
                        "%.4f WRU a datapoint (partials); a series-hour %.2f WRU + %.2f RRU (marks, hourly build)"
                                + " and %,.0f B stored (partials, hourly item); a dashboard query %,.0f RRU",
                        mixUnits.get("partialWruPerDp"),
                        mixUnits.get("hourMarkWruPerSeriesHour") + mixUnits.get("hourlyWruPerSeriesHour"),
                        mixUnits.get("hourlyRruPerSeriesHour"),
                        mixUnits.get("partialBytesPerSeriesHour") + mixUnits.get("hourlyBytesPerSeriesHour"),
                        mixUnits.get("queryRruPerDashboardQuery")),
                "budgets: the units at cd7e23b + ~5%",
                passed + " of " + budget.size() + " within",
                "every unit within its budget",
                passed == budget.size(),
                details,
                values);
    }

    // --- The measured units ----------------------------------------------------------------------------------

    /**
     * One workload's units: per datapoint for what scales with datapoints, per series-hour and series-day for what
     * scales with series, per builder run and per query for what the schedule and the dashboard fix.
     */
    static Map<String, Double> units(CostSim sim) {
        CostSim.Stats st = sim.stats;
        CapacityMeter.Ledger l = sim.ledger;
        long[] hourly = l.rollups(CapacityMeter.HOURLY);
        double seriesHours = Math.max(1, hourly[0]);
        double seriesDays = Math.max(
                1,
                l.rollups.keySet().stream()
                        .filter(k -> k.startsWith(CapacityMeter.DAILY))
                        .count());
        double series = Math.max(
                1,
                l.catalog.keySet().stream()
                        .filter(k -> k.startsWith(CapacityMeter.CATALOG))
                        .count());
        double datapoints = Math.max(1, st.datapointsIn);
        double records = Math.max(1, st.records);
        double invocations = Math.max(1, st.ingestInvocations());
        double runs = Math.max(1, st.compactRuns.size());
        double queries = Math.max(1, st.queries);
        double hourlyItemBytes = hourly[0] == 0 ? 0 : hourly[1] / (double) hourly[0] - ItemSize.STORAGE_OVERHEAD;
        CapacityMeter.Tally dailyWrites = sim.tally(Term.DAILY_BUILD_WRITES);
        double indexPerDailyBuild = dailyWrites.items() == 0 ? 0 : dailyWrites.indexUnits() / dailyWrites.items();
        double[] builder = builderTimes(st);
        Map<String, Double> v = new LinkedHashMap<>();
        v.put("seriesHours", (double) hourly[0]);
        v.put("dpPerSeriesMinute", datapoints / (seriesHours * 60));
        v.put("dpPerRecord", datapoints / records);
        v.put("recordBytes", st.recordBytes / records);
        v.put("putUnitsPerRecord", st.putUnits / records);
        v.put("partialWruPerDp", sim.tally(Term.PARTIALS).units() / datapoints);
        v.put("checkpointWruPerInvocation", sim.tally(Term.CHECKPOINTS).units() / invocations);
        v.put("catalogWruPerSeries", sim.tally(Term.CATALOG).units() / series);
        v.put("hourMarkWruPerSeriesHour", sim.tally(Term.HOUR_MARKS).units() / seriesHours);
        v.put("dayMarkWruPerSeriesDay", sim.tally(Term.DAY_MARKS).units() / seriesDays);
        v.put("hourlyRruPerSeriesHour", sim.tally(Term.HOURLY_BUILD_READS).units() / seriesHours);
        v.put("hourlyWruPerSeriesHour", sim.tally(Term.HOURLY_BUILD_WRITES).units() / seriesHours);
        // A steady day has 24 hours: its build reads 24 hourly items in one Query and writes the 24-hour item.
        v.put("dailyRruPerSeriesDay", (double) ItemSize.readUnits(Math.round(24 * hourlyItemBytes), true));
        v.put("dailyWruPerSeriesDay", ItemSize.writeUnits(Math.round(l.daily24Bytes())) + indexPerDailyBuild);
        v.put("markClearWruPerSeriesHour", sim.tally(Term.MARK_CLEARS).units() / seriesHours);
        v.put("queueScanRruPerRun", sim.tally(Term.QUEUE_SCANS).units() / runs);
        v.put(
                "queryPartialRruPerDashboardQuery",
                sim.tally(Term.QUERY_PARTIAL_READS).units() / queries);
        v.put("partialBytesPerSeriesHour", l.partialBytes() / seriesHours);
        v.put("hourlyBytesPerSeriesHour", hourly[0] == 0 ? 0 : hourly[1] / (double) hourly[0]);
        v.put("dailyBytesPerSeriesDay", l.daily24Bytes() + ItemSize.STORAGE_OVERHEAD);
        v.put("catalogBytesPerSeries", l.catalog()[1] / series);
        v.put("ingestMsPerRecord", st.ingestMs() / records);
        v.put("ingestLogBytesPerInvocation", st.ingestLogBytes / invocations);
        v.put("builderMsPerRun", builder[0]);
        v.put("builderMsPerBuild", builder[1]);
        v.put("builderLogBytesPerRun", st.compactLogBytes / runs);
        v.put("queryMsPerDashboardQuery", st.queryMs / queries);
        v.put("queryPagesPerDashboardQuery", st.queryPages / queries);
        v.put("queryLogBytesPerPage", st.queryLogBytes / Math.max(1.0, st.queryPages));
        return v;
    }

    /** {ms of a run without builds (median), ms a build}. */
    static double[] builderTimes(CostSim.Stats st) {
        List<Double> empty = new ArrayList<>();
        double compactMs = 0;
        double builds = 0;
        for (double[] r : st.compactRuns) {
            if (r[1] + r[2] == 0) {
                empty.add(r[0]);
            }
        }
        double base = empty.isEmpty()
                ? 0
                : Samples.of(empty.stream().mapToDouble(Double::doubleValue).toArray())
                        .median();
        for (double[] r : st.compactRuns) {
            if (r[1] + r[2] > 0) {
                compactMs += Math.max(0, r[0] - base);
                builds += r[1] + r[2];
            }
        }
        return new double[] {base, builds == 0 ? 0 : compactMs / builds};
    }

    /** Shards a provisioned stream needs for the workload's rate (from its first 10 minutes). */
    private static int shards(CostTraffic.Traffic t, long start) {
        List<CostTraffic.Rec> sample = t.arrivals(start, start + 10 * CostTraffic.MINUTE);
        double perSecond = sample.size() / 600.0;
        double bytes = sample.stream().mapToLong(r -> r.data().length).sum() / 600.0;
        return (int) Math.max(1, Math.ceil(Math.max(perSecond / 1000, bytes / 1e6) / SHARD_UTILISATION));
    }

    /** The units of every term over the run, with what they were spent on. */
    private static List<String> terms(String name, CostSim sim) {
        List<String> out = new ArrayList<>();
        double dp = Math.max(1, sim.stats.datapointsIn);
        long seriesHours = sim.ledger.rollups(CapacityMeter.HOURLY)[0];
        out.add(String.format(
                Locale.ROOT,
                "%s: units counted over the run (%,d datapoints, %,d series-hours built):",
                name,
                sim.stats.datapointsIn,
                seriesHours));
        out.add(String.format(
                Locale.ROOT,
                "  %-38s %12s %9s %12s %12s %14s %14s",
                "term",
                "units",
                "of GSI",
                "requests",
                "items",
                "per datapoint",
                "per series-h"));
        for (Term t : Term.values()) {
            CapacityMeter.Tally tally = sim.tally(t);
            double u = sim.tally(t).units();
            if (u == 0 && tally.requests() == 0) {
                continue;
            }
            out.add(String.format(
                    Locale.ROOT,
                    "  %-38s %12s %9s %12s %12s %14.5f %14.3f",
                    t.label() + (t.write() ? " (W)" : " (R)"),
                    Format.count(u),
                    Format.count(tally.indexUnits()),
                    Format.count(tally.requests()),
                    Format.count(tally.items()),
                    u / dp,
                    u / Math.max(1, seriesHours)));
        }
        return out;
    }

    // --- Checks: a cheap wrong answer must fail the run ---------------------------------------------------------

    /** The recording's table, all of it: partials hold every datapoint ingested, every rollup is complete and exact. */
    private static String checkRecording(BenchEnv env, CostSim sim) throws Exception {
        DynamoDbClient c = env.dynamoSync();
        Map<String, Long> partialCounts = new HashMap<>(); // series|hourStart -> count
        Map<String, Map<String, AttributeValue>> hourly = new HashMap<>();
        Map<String, Map<String, AttributeValue>> daily = new HashMap<>();
        long partialTotal = 0;
        List<Map<String, AttributeValue>> partials = new ArrayList<>();
        for (Map<String, AttributeValue> item : c.scanPaginator(
                        b -> b.tableName(sim.table()).consistentRead(true))
                .items()) {
            String pk = item.get(KeyScheme.PK).s();
            if (pk.startsWith(CapacityMeter.PARTIAL)) {
                partials.add(item);
            } else if (pk.startsWith(CapacityMeter.HOURLY)) {
                hourly.put(pk + "|" + item.get(KeyScheme.SK).s(), item);
            } else if (pk.startsWith(CapacityMeter.DAILY)) {
                daily.put(pk + "|" + item.get(KeyScheme.SK).s(), item);
            }
        }
        for (Map<String, AttributeValue> item :
                LatestPartials.newestOf(partials)) { // the newest generation of each slot, as readers sum
            String pk = item.get(KeyScheme.PK).s();
            long n = SummaryAttributes.read(item, false).count();
            long minute = KeyScheme.partialMinute(pk, item.get(KeyScheme.SK).s());
            partialTotal += n;
            String series = pk.substring(CapacityMeter.PARTIAL.length(), pk.lastIndexOf('#'));
            partialCounts.merge(
                    series + "|" + Math.floorDiv(minute, CostTraffic.HOUR) * CostTraffic.HOUR, n, Long::sum);
        }
        if (partialTotal != sim.stats.datapointsIn) {
            throw new IllegalStateException("recording: the partials count " + partialTotal
                    + " datapoints, ingest reported " + sim.stats.datapointsIn);
        }
        long now = sim.clock().millis();
        long graceMs = sim.config().compactGrace().toMillis();
        int hoursChecked = 0;
        Map<String, Long> perDay = new HashMap<>();
        for (Map.Entry<String, Long> e : partialCounts.entrySet()) {
            String series = e.getKey().substring(0, e.getKey().lastIndexOf('|'));
            long hour = Long.parseLong(e.getKey().substring(e.getKey().lastIndexOf('|') + 1));
            perDay.merge(
                    series + "|" + Math.floorDiv(hour, CostTraffic.DAY) * CostTraffic.DAY, e.getValue(), Long::sum);
            if (hour
                            + CostTraffic.HOUR
                            + graceMs
                            + 2 * sim.config().markSettle().toMillis()
                    > now) {
                continue; // not buildable yet
            }
            Map<String, AttributeValue> item =
                    hourly.get(KeyScheme.hourlyPk(series, hour) + "|" + KeyScheme.hour(hour));
            if (item == null || !RollupItems.complete(item) || count(item, RollupItems.MINUTES) != e.getValue()) {
                throw new IllegalStateException(
                        "recording: the hourly rollup of " + series + " at " + Instant.ofEpochMilli(hour)
                                + " is "
                                + (item == null
                                        ? "missing"
                                        : RollupItems.complete(item)
                                                ? "count " + count(item, RollupItems.MINUTES)
                                                : "not complete")
                                + ", its partials count " + e.getValue());
            }
            hoursChecked++;
        }
        int daysChecked = 0;
        for (Map.Entry<String, Long> e : perDay.entrySet()) {
            String series = e.getKey().substring(0, e.getKey().lastIndexOf('|'));
            long day = Long.parseLong(e.getKey().substring(e.getKey().lastIndexOf('|') + 1));
            if (day + CostTraffic.DAY + graceMs
                    > now - sim.config().markSettle().toMillis()) {
                continue;
            }
            Map<String, AttributeValue> item = daily.get(KeyScheme.dailyPk(series, day) + "|" + KeyScheme.day(day));
            if (item == null || !RollupItems.complete(item) || count(item, RollupItems.HOURS) != e.getValue()) {
                throw new IllegalStateException("recording: the daily rollup of " + series + " on " + KeyScheme.day(day)
                        + " is wrong or incomplete: " + item + ", its partials count " + e.getValue());
            }
            daysChecked++;
        }
        return String.format(
                Locale.ROOT,
                "recording: %,d datapoints in the partials = ingested, %,d hourly and %,d daily rollups"
                        + " complete with their partials' counts",
                partialTotal,
                hoursChecked,
                daysChecked);
    }

    /** The mix: every datapoint ingested; the dashboard series' rollups and a query over the run exact. */
    private static String checkMix(
            BenchEnv env, CostSim sim, CostTraffic.Mix mix, List<Integer> dashboard, long dataStart, long dataEnd)
            throws Exception {
        long minutes = (dataEnd - dataStart) / CostTraffic.MINUTE;
        long expected = (long) mix.series() * minutes * CostTraffic.Mix.PER_MINUTE;
        if (sim.stats.datapointsIn != expected || sim.stats.poison != 0) {
            throw new IllegalStateException("mix: ingested " + sim.stats.datapointsIn + " datapoints ("
                    + sim.stats.poison + " poison records), sent " + expected);
        }
        DynamoDbClient c = env.dynamoSync();
        long buildable = sim.config().compactGrace().toMillis()
                + 2 * sim.config().markSettle().toMillis();
        int rollups = 0;
        int buckets = (int) ((dataEnd - dataStart) / (5 * CostTraffic.MINUTE));
        Map<String, long[]> counts = new HashMap<>();
        Map<String, double[]> sums = new HashMap<>();
        Map<String, double[]> max = new HashMap<>();
        for (int i : dashboard) {
            long[] cnt = new long[buckets];
            double[] sum = new double[buckets];
            double[] mx = new double[buckets];
            java.util.Arrays.fill(mx, Double.NEGATIVE_INFINITY);
            Map<Long, Long> perDay = new HashMap<>();
            for (long hour = Math.floorDiv(dataStart, CostTraffic.HOUR) * CostTraffic.HOUR;
                    hour < dataEnd;
                    hour += CostTraffic.HOUR) {
                long inHour = 0;
                for (long m = Math.max(hour, dataStart);
                        m < Math.min(hour + CostTraffic.HOUR, dataEnd);
                        m += CostTraffic.MINUTE) {
                    for (double[] dp : mix.datapoints(i, m)) {
                        int b = (int) (((long) dp[0] - dataStart) / (5 * CostTraffic.MINUTE));
                        cnt[b]++;
                        sum[b] += dp[1];
                        mx[b] = Math.max(mx[b], dp[1]);
                        inHour++;
                    }
                }
                perDay.merge(Math.floorDiv(hour, CostTraffic.DAY) * CostTraffic.DAY, inHour, Long::sum);
                if (hour + CostTraffic.HOUR + buildable > sim.clock().millis()) {
                    continue; // not buildable yet
                }
                final long h = hour;
                Map<String, AttributeValue> item = c.getItem(b -> b.tableName(sim.table())
                                .consistentRead(true)
                                .key(Map.of(
                                        KeyScheme.PK, AttributeValue.fromS(KeyScheme.hourlyPk(mix.key(i), h)),
                                        KeyScheme.SK, AttributeValue.fromS(KeyScheme.hour(h)))))
                        .item();
                if (item == null || !RollupItems.complete(item) || count(item, RollupItems.MINUTES) != inHour) {
                    throw new IllegalStateException(
                            "mix: the hourly rollup of " + mix.key(i) + " at " + Instant.ofEpochMilli(hour)
                                    + " is missing, incomplete or short (expected count " + inHour + "): " + item);
                }
                rollups++;
            }
            for (Map.Entry<Long, Long> d : perDay.entrySet()) {
                if (d.getKey() + CostTraffic.DAY + buildable > sim.clock().millis()) {
                    continue; // the day has not closed
                }
                Map<String, AttributeValue> item = c.getItem(b -> b.tableName(sim.table())
                                .consistentRead(true)
                                .key(Map.of(
                                        KeyScheme.PK, AttributeValue.fromS(KeyScheme.dailyPk(mix.key(i), d.getKey())),
                                        KeyScheme.SK, AttributeValue.fromS(KeyScheme.day(d.getKey())))))
                        .item();
                if (item == null || !RollupItems.complete(item) || count(item, RollupItems.HOURS) != d.getValue()) {
                    throw new IllegalStateException("mix: the daily rollup of " + mix.key(i) + " on "
                            + KeyScheme.day(d.getKey()) + " is missing, incomplete or short (expected count "
                            + d.getValue() + "): " + item);
                }
                rollups++;
            }
            counts.put(mix.key(i), cnt);
            sums.put(mix.key(i), sum);
            max.put(mix.key(i), mx);
        }
        List<JsonNode> answer = sim.query(dataStart, dataEnd, "PT5M", List.of("count", "sum", "max"), false);
        if (answer.size() != dashboard.size()) {
            throw new IllegalStateException(
                    "mix: the check query answered " + answer.size() + " of " + dashboard.size() + " series");
        }
        for (JsonNode s : answer) {
            String key = s.path("key").asText();
            long[] cnt = counts.get(key);
            if (cnt == null) {
                throw new IllegalStateException("mix: the check query answered a series it was not asked for: " + key);
            }
            for (int b = 0; b < buckets; b++) {
                long got = s.path("values").path("count").get(b).asLong();
                double sum = s.path("values").path("sum").get(b).asDouble();
                double mx = s.path("values").path("max").get(b).asDouble();
                if (got != cnt[b]
                        || Math.abs(sum - sums.get(key)[b]) > 1e-6 * Math.max(1, Math.abs(sum))
                        || mx != max.get(key)[b]) {
                    throw new IllegalStateException(
                            "mix: wrong answer for " + key + " bucket " + b + ": count " + got + " sum " + sum + " max "
                                    + mx + ", expected " + cnt[b] + " / " + sums.get(key)[b] + " / " + max.get(key)[b]);
                }
            }
        }
        return String.format(
                Locale.ROOT,
                "mix: %,d datapoints ingested = sent, %,d hourly and daily rollups of the %d dashboard"
                        + " series complete and exact, a query over the run exact (count, sum, max in %d buckets)",
                expected,
                rollups,
                dashboard.size(),
                buckets);
    }

    /** A rollup's datapoints, from its buckets as the code decodes them. */
    private static long count(Map<String, AttributeValue> item, String level) {
        return RollupItems.total(item, level).count();
    }

    private static double floors(CostSim sim) {
        double f = 0;
        for (Term t : Term.values()) {
            f += sim.ingestMeter.tally(t).floorUnits()
                    + sim.compactMeter.tally(t).floorUnits()
                    + sim.queryMeter.tally(t).floorUnits();
        }
        return f;
    }

    private static long failed(CostSim sim) {
        long f = 0;
        for (Term t : Term.values()) {
            f += sim.ingestMeter.tally(t).failedConditions()
                    + sim.compactMeter.tally(t).failedConditions();
        }
        return f;
    }

    private static long[] add(long[] a, long[] b) {
        return new long[] {a[0] + b[0], a[1] + b[1]};
    }
}
