package dev.pulse.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.bench.CapacityMeter.Term;
import dev.pulse.bench.CostModel.In;
import dev.pulse.testing.StdoutCapture;
import dev.pulse.store.KeyScheme;
import dev.pulse.store.LatestPartials;
import dev.pulse.store.RollupItems;
import dev.pulse.store.SummaryAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * cost: hours of traffic through the real functions on a simulated clock against DynamoDB Local, every read and
 * write unit counted from what DynamoDB reports, turned into dollars per million datapoints with list prices, and
 * compared with CloudWatch custom metrics (EMF) and Amazon Managed Service for Prometheus for the same data.
 */
final class CostBench implements Benchmark {

    static final double TARGET_ON_DEMAND = 0.10;
    static final double TARGET_PROVISIONED = 0.05;
    static final double TARGET_CLOUDWATCH_RATIO = 3;
    static final double[] RATES = {1_000, 10_000, 100_000};
    /** 2026-11-20T00:00Z: the day the bundled recording starts. */
    static final long SIM_DAY = 1_795_132_800_000L;
    static final int STORAGE_MONTH = 12;
    static final int DASHBOARD_SERIES = 100;
    static final int DASHBOARD_HOURS = 24;
    static final List<String> DASHBOARD_STATS = List.of("count", "avg", "max", "p99");
    static final int STEADY_PROBE_QUERIES = 10;

    @Override
    public String name() {
        return "cost";
    }

    @Override
    public String howToRead() {
        return """
                What a datapoint costs, from units counted, not modelled. Two workloads, each on its own DynamoDB Local \
                table (with the template's `due` index), replay 22:00 to 01:00 UTC on a simulated clock through the real \
                wiring of the three functions at the template's defaults (`IngestFunction`, `CompactFunction` and \
                `QueryFunction` of a config, each on its own client and the same clock): (a) the bundled recording \
                `events/replay/sample.ndjson.gz`, retimed onto the simulated day; (b) a high-cardinality mix of 10,000 \
                series (Lambda and DynamoDB metrics of 1,000 functions and tables), each sending its minute as one record \
                of 10 datapoints once a minute. Records go to shards by the MD5 of their partition key and reach \
                IngestFunction in batches as the event source mapping forms them (BatchSize, \
                MaximumBatchingWindowInSeconds); the builder (CompactFunction) runs on the template's BuildSchedule; a \
                dashboard asks the mix for 100 series over the last 24 hours at PT5M (count, avg, max, p99) every \
                simulated minute. An SDK interceptor on each function's DynamoDB client asks every request for its \
                consumed capacity and adds it to a term (partials, catalog, marks, hourly and daily builds, queue scans, \
                queries); DynamoDB Local's reports follow DynamoDB's billing rules except for two minimum charges it \
                leaves out (an empty Query page, a BatchGetItem key without an item), added here. Lambda GB-s are the \
                measured handler durations at the template's MemorySize (DynamoDB Local on this machine is slower than \
                DynamoDB, so they are pessimistic); Kinesis PUT payload units from the record sizes; CloudWatch Logs from \
                every byte the handlers print (EMF documents and log lines); storage from the stored items' sizes by \
                DynamoDB's rules (100 bytes an item more) kept for each item type's TTL at month 12, with PITR. The \
                daily build and the daily item are measured for the hours the simulated day has and scaled to 24 hour \
                summaries by their measured sizes. The figure is the mix's all-in cost per million datapoints at its own \
                rate, on-demand (DynamoDB PAY_PER_REQUEST, the template's default) and with provisioned capacity; the \
                baselines are CloudWatch custom metrics through EMF and Amazon Managed Service for Prometheus for the \
                same series, datapoints and dashboard. Prices are parameters (`BENCH_PRICES="name=value,..."`, names in \
                docs/capacity.md). Targets: <= $0.10 per million on-demand and <= $0.05 provisioned at the measured rate \
                and at 1k, 10k and 100k datapoints/s, and >= 3x cheaper than CloudWatch EMF at 1k, 10k and 100k. \
                docs/capacity.md is generated from the same measured inputs (`make capacity`).""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        long started = System.nanoTime();
        CostSettings settings = CostSettings.load(env.root());
        Prices prices = Prices.parse(System.getenv("BENCH_PRICES"));
        // 22:00 to 01:00 UTC: three hours and a day boundary (a smoke run: 23:40 to 00:20). -Dbench.cost.start and
        // -Dbench.cost.end (minutes from the simulated day's midnight) change it.
        long dataStart = SIM_DAY + Long.getLong("bench.cost.start", env.scale(22 * 60, 23 * 60 + 40)) * CostTraffic.MINUTE;
        long dataEnd = SIM_DAY + Long.getLong("bench.cost.end", env.scale(25 * 60, 24 * 60 + 20)) * CostTraffic.MINUTE;
        long until = dataEnd + 15 * CostTraffic.MINUTE;
        int seriesCount = Integer.getInteger("bench.cost.series", env.scale(10_000, 100));
        List<String> details = new ArrayList<>();
        List<String> progress = new ArrayList<>();

        CostTraffic.Recording recording = new CostTraffic.Recording(env.root().resolve("events/replay/sample.ndjson.gz"), dataEnd);
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
        Map<Term, Double> mixRun;
        Map<Term, Double> recRun;
        double steadyClosedRru;
        double steadyMs;
        List<String> checks = new ArrayList<>();
        try (StdoutCapture out = StdoutCapture.install()) {
            java.util.function.Consumer<String> log = line -> {
                progress.add(line);
                System.err.println("bench: cost: " + line);
            };
            rec = new CostSim(env, "recording", recording, shards(recording, dataStart, prices), settings, null, dataStart, out);
            rec.run(dataStart, dataEnd, until, log);
            recRun = snapshot(rec);
            mixed = new CostSim(env, "mix", mix, shards(mix, dataStart, prices), settings, dashboard, dataStart, out);
            mixed.run(dataStart, dataEnd, until, log);
            mixRun = snapshot(mixed);

            // Steady state of the dashboard: the same series over closed, built hours only, once a simulated minute,
            // with the query's own cache (the run's 24-hour window is mostly empty hours, which cost the minimum).
            double before = mixed.queryMeter.tally(Term.QUERY_ROLLUP_READS).units() + mixed.queryMeter.tally(Term.QUERY_PARTIAL_READS).units();
            long pagesBefore = mixed.stats.queryPages;
            long t0 = System.nanoTime();
            for (int q = 0; q < STEADY_PROBE_QUERIES; q++) {
                mixed.clock().setMillis(until + q * CostTraffic.MINUTE);
                mixed.query(dataStart, dataEnd, "PT5M", DASHBOARD_STATS, false);
            }
            steadyMs = (System.nanoTime() - t0) / 1e6 / STEADY_PROBE_QUERIES;
            double after = mixed.queryMeter.tally(Term.QUERY_ROLLUP_READS).units() + mixed.queryMeter.tally(Term.QUERY_PARTIAL_READS).units();
            long hoursTouched = Math.floorDiv(dataEnd + CostTraffic.HOUR - 1, CostTraffic.HOUR) - Math.floorDiv(dataStart, CostTraffic.HOUR);
            double closedSeriesHours = dashboardSeries.size() * (double) hoursTouched;
            steadyClosedRru = (after - before) / STEADY_PROBE_QUERIES / closedSeriesHours;
            if (mixed.stats.queryPages != pagesBefore) {
                throw new IllegalStateException("the probe counted as dashboard queries");
            }

            checks.add(checkRecording(env, rec));
            checks.add(checkMix(env, mixed, mix, dashboardIndex, dataStart, dataEnd));
        }

        CostModel.Inputs mixInputs = inputs(mixed, mixRun, settings, mixed, mixRun, steadyClosedRru, steadyMs);
        CostModel.Inputs recInputs = inputs(rec, recRun, settings, mixed, mixRun, steadyClosedRru, steadyMs);
        CostModel model = new CostModel(mixInputs, prices, STORAGE_MONTH);
        CostModel recModel = new CostModel(recInputs, prices, STORAGE_MONTH);
        double measuredRate = mixed.stats.datapointsIn / ((dataEnd - dataStart) / 1000.0);
        CostModel.Bill here = model.bill(measuredRate);
        List<CostModel.Bill> bills = new ArrayList<>();
        for (double r : RATES) {
            bills.add(model.bill(r));
        }

        boolean met = here.perMillionOnDemand() <= TARGET_ON_DEMAND && here.perMillionProvisioned() <= TARGET_PROVISIONED;
        for (CostModel.Bill b : bills) {
            met &= b.perMillionOnDemand() <= TARGET_ON_DEMAND && b.perMillionProvisioned() <= TARGET_PROVISIONED
                    && b.cloudWatch() / b.onDemand() >= TARGET_CLOUDWATCH_RATIO;
        }

        String exact = String.format(Locale.ROOT, "cost: $%.4f per million datapoints (CloudWatch EMF $%.4f, %.1fx; Amazon Managed"
                + " Prometheus $%.4f, %.1fx)", here.perMillionOnDemand(), here.perMillion(here.cloudWatch()),
                here.cloudWatch() / here.onDemand(), here.perMillion(here.prometheus()), here.prometheus() / here.onDemand());
        details.add(exact + " at " + Format.count(measuredRate) + " datapoints/s (" + Format.count(here.series())
                + " series), on-demand; provisioned $" + String.format(Locale.ROOT, "%.4f", here.perMillionProvisioned())
                + " per million");
        details.add("");
        details.addAll(summary(bills, mixInputs));
        details.add("");
        details.addAll(terms("mix", mixed, mixRun, here, mixInputs, model));
        details.add("");
        details.addAll(storage(mixed, mixInputs));
        details.add("");
        details.addAll(recordingSummary(rec, recRun, recInputs, recModel));
        details.add("");
        details.addAll(functions(mixed, mixInputs, model, settings));
        details.add("");
        details.add("checks: " + String.join("; ", checks));
        long[] sizeChecks = add(mixed.ingestMeter.sizeChecks(), mixed.compactMeter.sizeChecks());
        details.add("item sizes by DynamoDB's rules (ItemSize) against DynamoDB Local's reported write units: " + sizeChecks[1]
                + " of " + Format.count(sizeChecks[0]) + " writes differ");
        details.add(String.format(Locale.ROOT, "minimum charges DynamoDB Local leaves out, added: %s RRU (mix), %s RRU (recording);"
                + " conditional writes that failed, charged at their item size: %d (mix)", Format.count(floors(mixed)),
                Format.count(floors(rec)), failed(mixed)));
        details.add("prices: " + (prices.overrides().isEmpty() ? "defaults (docs/capacity.md lists them)" : prices.overrides()));
        details.addAll(progress);

        Map<String, Double> values = new LinkedHashMap<>(mixInputs.byKey());
        values.put("measuredRate", measuredRate);
        values.put("measuredSeries", here.series());
        values.put("perMillionOnDemand", here.perMillionOnDemand());
        values.put("perMillionProvisioned", here.perMillionProvisioned());
        values.put("perMillionCloudWatch", here.perMillion(here.cloudWatch()));
        values.put("perMillionPrometheus", here.perMillion(here.prometheus()));
        for (CostModel.Bill b : bills) {
            String k = Format.count(b.rate() / 1000).replace(",", "") + "k";
            values.put("monthlyOnDemand" + k, b.onDemand());
            values.put("monthlyProvisioned" + k, b.provisioned());
            values.put("monthlyCloudWatch" + k, b.cloudWatch());
            values.put("monthlyPrometheus" + k, b.prometheus());
        }
        recInputs.byKey().forEach((k, v) -> values.put("recording." + k, v));
        values.put("simulatedHours", (dataEnd - dataStart) / (double) CostTraffic.HOUR);
        values.put("mixSeries", (double) seriesCount);
        values.put("mixDatapoints", (double) mixed.stats.datapointsIn);
        values.put("recordingDatapoints", (double) rec.stats.datapointsIn);
        values.put("runSeconds", (System.nanoTime() - started) / 1e9);

        return new Result(name(),
                String.format(Locale.ROOT, "$%.4f per million datapoints on-demand, $%.4f provisioned, at %s datapoints/s of %s series",
                        here.perMillionOnDemand(), here.perMillionProvisioned(), Format.count(measuredRate), Format.count(here.series())),
                String.format(Locale.ROOT, "CloudWatch EMF $%.4f", here.perMillion(here.cloudWatch())),
                String.format(Locale.ROOT, "%.1fx; Amazon Managed Prometheus $%.4f, %.1fx", here.cloudWatch() / here.onDemand(),
                        here.perMillion(here.prometheus()), here.prometheus() / here.onDemand()),
                "<= $0.10 per million on-demand, <= $0.05 provisioned, >= 3x cheaper than CloudWatch EMF at 1k, 10k and 100k datapoints/s",
                met, details, values);
    }

    // --- The measured inputs ---------------------------------------------------------------------------------

    /** Units of every term at the end of the run (before the steady-state probe and the checks read more). */
    private static Map<Term, Double> snapshot(CostSim sim) {
        Map<Term, Double> m = new EnumMap<>(Term.class);
        for (Term t : Term.values()) {
            m.put(t, sim.tally(t).units());
        }
        return m;
    }

    /**
     * The model's inputs from one workload's run; the dashboard's (a deployment's fixed cost, not a workload's) from
     * {@code dash}, the mix.
     */
    static CostModel.Inputs inputs(CostSim sim, Map<Term, Double> run, CostSettings settings, CostSim dash,
            Map<Term, Double> dashRun, double steadyClosedRru, double steadyMs) {
        CostSim.Stats st = sim.stats;
        CapacityMeter.Ledger l = sim.ledger;
        long[] hourly = l.rollups(CapacityMeter.HOURLY);
        long[] daily = l.rollups(CapacityMeter.DAILY);
        double seriesHours = Math.max(1, hourly[0]);
        double seriesDays = Math.max(1, l.rollups.keySet().stream().filter(k -> k.startsWith(CapacityMeter.DAILY)).count());
        double series = Math.max(1, l.catalog.keySet().stream().filter(k -> k.startsWith(CapacityMeter.CATALOG)).count());
        double datapoints = Math.max(1, st.datapointsIn);
        Map<In, Double> v = new EnumMap<>(In.class);
        v.put(In.DP_PER_SERIES_MINUTE, datapoints / (seriesHours * 60));
        v.put(In.DP_PER_RECORD, datapoints / Math.max(1, st.records));
        v.put(In.RECORD_BYTES, st.recordBytes / (double) Math.max(1, st.records));
        v.put(In.PUT_UNITS_PER_RECORD, st.putUnits / (double) Math.max(1, st.records));
        v.put(In.ONDEMAND_BYTES_PER_RECORD, st.onDemandBytes / (double) Math.max(1, st.records));
        v.put(In.BATCH_SIZE, (double) settings.batchSize());
        v.put(In.BATCHING_WINDOW_S, settings.batchingWindowMillis() / 1000.0);
        double[] fit = fit(st.ingestCalls);
        v.put(In.INGEST_MS_PER_INVOCATION, fit[0]);
        v.put(In.INGEST_MS_PER_RECORD, fit[1]);
        v.put(In.INGEST_LOG_BYTES_PER_INVOCATION, st.ingestLogBytes / (double) Math.max(1, st.ingestInvocations()));
        v.put(In.INGEST_MEMORY_MB, (double) settings.ingest().memoryMb());
        v.put(In.PARTIAL_WRU_PER_DP, run.get(Term.PARTIALS) / datapoints);
        v.put(In.CATALOG_WRU_PER_SERIES, run.get(Term.CATALOG) / series);
        v.put(In.CHECKPOINT_WRU_PER_INVOCATION, run.get(Term.CHECKPOINTS) / Math.max(1, st.ingestInvocations()));
        v.put(In.HOUR_MARK_WRU_PER_SERIES_HOUR, run.get(Term.HOUR_MARKS) / seriesHours);
        v.put(In.DAY_MARK_WRU_PER_SERIES_DAY, run.get(Term.DAY_MARKS) / seriesDays);
        v.put(In.HOURLY_RRU_PER_SERIES_HOUR, run.get(Term.HOURLY_BUILD_READS) / seriesHours);
        v.put(In.HOURLY_WRU_PER_SERIES_HOUR, run.get(Term.HOURLY_BUILD_WRITES) / seriesHours);
        double hourlyItemBytes = hourly[0] == 0 ? 0 : hourly[1] / (double) hourly[0] - ItemSize.STORAGE_OVERHEAD;
        double dailyItemBytes = projectedDailyBytes(l);
        CapacityMeter.Tally dailyWrites = sim.tally(Term.DAILY_BUILD_WRITES);
        double indexPerDailyBuild = dailyWrites.items() == 0 ? 0 : dailyWrites.indexUnits() / dailyWrites.items();
        v.put(In.DAILY_RRU_PER_SERIES_DAY, ItemSize.readUnits(Math.round(24 * hourlyItemBytes), true));
        v.put(In.DAILY_WRU_PER_SERIES_DAY, ItemSize.writeUnits(Math.round(dailyItemBytes)) + indexPerDailyBuild);
        v.put(In.MARK_CLEAR_WRU_PER_SERIES_HOUR, run.get(Term.MARK_CLEARS) / seriesHours);
        v.put(In.QUEUE_SCAN_RRU_PER_RUN, run.get(Term.QUEUE_SCANS) / Math.max(1, st.buildRuns.size()));
        v.put(In.BUILD_RUNS_PER_HOUR, 3_600_000.0 / settings.buildScheduleMillis());
        double[] builder = builderTimes(st);
        v.put(In.BUILDER_MS_PER_RUN, builder[0]);
        v.put(In.BUILDER_MS_PER_HOURLY_BUILD, builder[1]);
        v.put(In.BUILDER_MS_PER_DAILY_BUILD, builder[1]);
        v.put(In.BUILDER_LOG_BYTES_PER_RUN, st.compactLogBytes / (double) Math.max(1, st.buildRuns.size()));
        v.put(In.COMPACT_MEMORY_MB, (double) settings.compact().memoryMb());
        // The dashboard, from the mix: every minute, the open hour from partials (as measured in the run) and the
        // other hours from built hourly items, at what the steady-state probe measured a closed series-hour to cost.
        CostSim.Stats ds = dash.stats;
        double queries = Math.max(1, ds.queries);
        double openPerSeries = dashRun.get(Term.QUERY_PARTIAL_READS) / queries / DASHBOARD_SERIES;
        v.put(In.DASHBOARD_QUERIES_PER_HOUR, 60.0);
        v.put(In.DASHBOARD_SERIES, (double) DASHBOARD_SERIES);
        v.put(In.DASHBOARD_HOURS, (double) DASHBOARD_HOURS);
        v.put(In.QUERY_RRU_PER_DASHBOARD_QUERY, DASHBOARD_SERIES * ((DASHBOARD_HOURS - 1) * steadyClosedRru + openPerSeries));
        v.put(In.QUERY_MS_PER_DASHBOARD_QUERY, Math.max(ds.queryMs / queries, steadyMs * DASHBOARD_HOURS / 3.0));
        v.put(In.QUERY_PAGES_PER_DASHBOARD_QUERY, ds.queryPages / queries);
        v.put(In.QUERY_LOG_BYTES_PER_PAGE, ds.queryLogBytes / (double) Math.max(1, ds.queryPages));
        v.put(In.QUERY_MEMORY_MB, (double) settings.query().memoryMb());
        v.put(In.PARTIAL_BYTES_PER_SERIES_HOUR, l.partialBytes() / seriesHours);
        v.put(In.HOURLY_BYTES_PER_SERIES_HOUR, hourly[0] == 0 ? 0 : hourly[1] / (double) hourly[0]);
        v.put(In.DAILY_BYTES_PER_SERIES_DAY, dailyItemBytes + ItemSize.STORAGE_OVERHEAD);
        v.put(In.CATALOG_BYTES_PER_SERIES, l.catalog()[1] / series);
        v.put(In.PARTIAL_TTL_DAYS, (double) sim.config().partialTtl().toDays());
        v.put(In.HOURLY_TTL_DAYS, (double) sim.config().hourlyTtl().toDays());
        v.put(In.DAILY_TTL_DAYS, (double) sim.config().dailyTtl().toDays());
        return new CostModel.Inputs(v);
    }

    /** A daily item of 24 hour summaries: the measured ones, with the missing hours at the measured bytes an hour. */
    static double projectedDailyBytes(CapacityMeter.Ledger l) {
        return l.daily24Bytes();
    }

    /** Least squares of ms = a + b x records over the invocations; {a, b}, both >= 0. */
    static double[] fit(List<double[]> calls) {
        int n = calls.size();
        if (n == 0) {
            return new double[] {0, 0};
        }
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        for (double[] c : calls) {
            sx += c[0];
            sy += c[1];
            sxx += c[0] * c[0];
            sxy += c[0] * c[1];
        }
        double d = n * sxx - sx * sx;
        if (n < 2 || Math.abs(d) < 1e-9) {
            return new double[] {0, sx == 0 ? 0 : sy / sx};
        }
        double b = (n * sxy - sx * sy) / d;
        double a = (sy - b * sx) / n;
        if (a < 0 || b < 0) {
            return new double[] {0, sy / sx};
        }
        return new double[] {a, b};
    }

    /** {ms of a run without builds (median), ms a build}. */
    static double[] builderTimes(CostSim.Stats st) {
        List<Double> empty = new ArrayList<>();
        double buildMs = 0;
        double builds = 0;
        int withBuilds = 0;
        for (double[] r : st.buildRuns) {
            if (r[1] + r[2] == 0) {
                empty.add(r[0]);
            }
        }
        double base = empty.isEmpty() ? 0 : Samples.of(empty.stream().mapToDouble(Double::doubleValue).toArray()).median();
        for (double[] r : st.buildRuns) {
            if (r[1] + r[2] > 0) {
                withBuilds++;
                buildMs += Math.max(0, r[0] - base);
                builds += r[1] + r[2];
            }
        }
        return new double[] {base, builds == 0 ? 0 : buildMs / builds, withBuilds};
    }

    /** Shards a provisioned stream needs for the workload's rate (from its first 10 minutes). */
    private static int shards(CostTraffic.Traffic t, long start, Prices prices) {
        List<CostTraffic.Rec> sample = t.arrivals(start, start + 10 * CostTraffic.MINUTE);
        double perSecond = sample.size() / 600.0;
        double bytes = sample.stream().mapToLong(r -> r.data().length).sum() / 600.0;
        return (int) Math.max(1, Math.ceil(Math.max(perSecond / 1000, bytes / 1e6) / prices.get("shard-utilisation")));
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
        for (Map<String, AttributeValue> item : c.scanPaginator(b -> b.tableName(sim.table()).consistentRead(true)).items()) {
            String pk = item.get(KeyScheme.PK).s();
            if (pk.startsWith(CapacityMeter.PARTIAL)) {
                partials.add(item);
            } else if (pk.startsWith(CapacityMeter.HOURLY)) {
                hourly.put(pk + "|" + item.get(KeyScheme.SK).s(), item);
            } else if (pk.startsWith(CapacityMeter.DAILY)) {
                daily.put(pk + "|" + item.get(KeyScheme.SK).s(), item);
            }
        }
        for (Map<String, AttributeValue> item : LatestPartials.newestOf(partials)) { // the newest generation of each slot, as readers sum
            String pk = item.get(KeyScheme.PK).s();
            long n = SummaryAttributes.read(item, false).count();
            long minute = KeyScheme.partialMinute(pk, item.get(KeyScheme.SK).s());
            partialTotal += n;
            String series = pk.substring(CapacityMeter.PARTIAL.length(), pk.lastIndexOf('#'));
            partialCounts.merge(series + "|" + Math.floorDiv(minute, CostTraffic.HOUR) * CostTraffic.HOUR, n, Long::sum);
        }
        if (partialTotal != sim.stats.datapointsIn) {
            throw new IllegalStateException("recording: the partials count " + partialTotal + " datapoints, ingest reported "
                    + sim.stats.datapointsIn);
        }
        long now = sim.clock().millis();
        long graceMs = sim.config().buildGrace().toMillis();
        int hoursChecked = 0;
        Map<String, Long> perDay = new HashMap<>();
        for (Map.Entry<String, Long> e : partialCounts.entrySet()) {
            String series = e.getKey().substring(0, e.getKey().lastIndexOf('|'));
            long hour = Long.parseLong(e.getKey().substring(e.getKey().lastIndexOf('|') + 1));
            perDay.merge(series + "|" + Math.floorDiv(hour, CostTraffic.DAY) * CostTraffic.DAY, e.getValue(), Long::sum);
            if (hour + CostTraffic.HOUR + graceMs + 2 * sim.config().markSettle().toMillis() > now) {
                continue; // not buildable yet
            }
            Map<String, AttributeValue> item = hourly.get(KeyScheme.hourlyPk(series, hour) + "|" + KeyScheme.hour(hour));
            if (item == null || !RollupItems.complete(item) || count(item, RollupItems.MINUTES) != e.getValue()) {
                throw new IllegalStateException("recording: the hourly rollup of " + series + " at " + Instant.ofEpochMilli(hour)
                        + " is " + (item == null ? "missing" : RollupItems.complete(item) ? "count " + count(item, RollupItems.MINUTES)
                        : "not complete") + ", its partials count " + e.getValue());
            }
            hoursChecked++;
        }
        int daysChecked = 0;
        for (Map.Entry<String, Long> e : perDay.entrySet()) {
            String series = e.getKey().substring(0, e.getKey().lastIndexOf('|'));
            long day = Long.parseLong(e.getKey().substring(e.getKey().lastIndexOf('|') + 1));
            if (day + CostTraffic.DAY + graceMs > now - sim.config().markSettle().toMillis()) {
                continue;
            }
            Map<String, AttributeValue> item = daily.get(KeyScheme.dailyPk(series, day) + "|" + KeyScheme.day(day));
            if (item == null || !RollupItems.complete(item) || count(item, RollupItems.HOURS) != e.getValue()) {
                throw new IllegalStateException("recording: the daily rollup of " + series + " on " + KeyScheme.day(day)
                        + " is wrong or incomplete: " + item + ", its partials count " + e.getValue());
            }
            daysChecked++;
        }
        return String.format(Locale.ROOT, "recording: %,d datapoints in the partials = ingested, %,d hourly and %,d daily rollups"
                + " complete with their partials' counts", partialTotal, hoursChecked, daysChecked);
    }

    /** The mix: every datapoint ingested; the dashboard series' rollups and a query over the run exact. */
    private static String checkMix(BenchEnv env, CostSim sim, CostTraffic.Mix mix, List<Integer> dashboard, long dataStart,
            long dataEnd) throws Exception {
        long minutes = (dataEnd - dataStart) / CostTraffic.MINUTE;
        long expected = (long) mix.series() * minutes * CostTraffic.Mix.PER_MINUTE;
        if (sim.stats.datapointsIn != expected || sim.stats.poison != 0) {
            throw new IllegalStateException("mix: ingested " + sim.stats.datapointsIn + " datapoints (" + sim.stats.poison
                    + " poison records), sent " + expected);
        }
        DynamoDbClient c = env.dynamoSync();
        long buildable = sim.config().buildGrace().toMillis() + 2 * sim.config().markSettle().toMillis();
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
            for (long hour = Math.floorDiv(dataStart, CostTraffic.HOUR) * CostTraffic.HOUR; hour < dataEnd; hour += CostTraffic.HOUR) {
                long inHour = 0;
                for (long m = Math.max(hour, dataStart); m < Math.min(hour + CostTraffic.HOUR, dataEnd); m += CostTraffic.MINUTE) {
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
                Map<String, AttributeValue> item = c.getItem(b -> b.tableName(sim.table()).consistentRead(true).key(Map.of(
                        KeyScheme.PK, AttributeValue.fromS(KeyScheme.hourlyPk(mix.key(i), h)),
                        KeyScheme.SK, AttributeValue.fromS(KeyScheme.hour(h))))).item();
                if (item == null || !RollupItems.complete(item) || count(item, RollupItems.MINUTES) != inHour) {
                    throw new IllegalStateException("mix: the hourly rollup of " + mix.key(i) + " at " + Instant.ofEpochMilli(hour)
                            + " is missing, incomplete or short (expected count " + inHour + "): " + item);
                }
                rollups++;
            }
            for (Map.Entry<Long, Long> d : perDay.entrySet()) {
                if (d.getKey() + CostTraffic.DAY + buildable > sim.clock().millis()) {
                    continue; // the day has not closed
                }
                Map<String, AttributeValue> item = c.getItem(b -> b.tableName(sim.table()).consistentRead(true).key(Map.of(
                        KeyScheme.PK, AttributeValue.fromS(KeyScheme.dailyPk(mix.key(i), d.getKey())),
                        KeyScheme.SK, AttributeValue.fromS(KeyScheme.day(d.getKey()))))).item();
                if (item == null || !RollupItems.complete(item) || count(item, RollupItems.HOURS) != d.getValue()) {
                    throw new IllegalStateException("mix: the daily rollup of " + mix.key(i) + " on " + KeyScheme.day(d.getKey())
                            + " is missing, incomplete or short (expected count " + d.getValue() + "): " + item);
                }
                rollups++;
            }
            counts.put(mix.key(i), cnt);
            sums.put(mix.key(i), sum);
            max.put(mix.key(i), mx);
        }
        List<JsonNode> answer = sim.query(dataStart, dataEnd, "PT5M", List.of("count", "sum", "max"), false);
        if (answer.size() != dashboard.size()) {
            throw new IllegalStateException("mix: the check query answered " + answer.size() + " of " + dashboard.size() + " series");
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
                if (got != cnt[b] || Math.abs(sum - sums.get(key)[b]) > 1e-6 * Math.max(1, Math.abs(sum)) || mx != max.get(key)[b]) {
                    throw new IllegalStateException("mix: wrong answer for " + key + " bucket " + b + ": count " + got + " sum " + sum
                            + " max " + mx + ", expected " + cnt[b] + " / " + sums.get(key)[b] + " / " + max.get(key)[b]);
                }
            }
        }
        return String.format(Locale.ROOT, "mix: %,d datapoints ingested = sent, %,d hourly and daily rollups of the %d dashboard"
                + " series complete and exact, a query over the run exact (count, sum, max in %d buckets)", expected, rollups,
                dashboard.size(), buckets);
    }

    /** A rollup's datapoints, from its buckets as the code decodes them. */
    private static long count(Map<String, AttributeValue> item, String level) {
        return RollupItems.total(item, level).count();
    }

    // --- The details ---------------------------------------------------------------------------------------------

    private static List<String> summary(List<CostModel.Bill> bills, CostModel.Inputs in) {
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "monthly at the mix's shape (%.1f datapoints a series-minute, %.1f a record), storage at"
                + " month %d; before = docs/capacity.md at 341b57c (no storage, no queries):", in.get(In.DP_PER_SERIES_MINUTE),
                in.get(In.DP_PER_RECORD), STORAGE_MONTH));
        out.add(String.format(Locale.ROOT, "  %-13s %12s %9s %12s %9s %14s %14s %16s", "datapoints/s", "on-demand", "$/M dp",
                "provisioned", "$/M dp", "CloudWatch", "Prometheus", "before"));
        for (CostModel.Bill b : bills) {
            Double before = CostModel.before(b.rate()).get("total in that model (no storage, no queries)");
            out.add(String.format(Locale.ROOT, "  %-13s %12s %9s %12s %9s %14s %14s %16s", Format.count(b.rate()),
                    CostModel.money(b.onDemand()), String.format(Locale.ROOT, "%.4f", b.perMillionOnDemand()),
                    CostModel.money(b.provisioned()), String.format(Locale.ROOT, "%.4f", b.perMillionProvisioned()),
                    CostModel.money(b.cloudWatch()) + String.format(Locale.ROOT, " %.1fx", b.cloudWatch() / b.onDemand()),
                    CostModel.money(b.prometheus()) + String.format(Locale.ROOT, " %.1fx", b.prometheus() / b.onDemand()),
                    before == null ? "n/a" : CostModel.money(before) + String.format(Locale.ROOT, " %.2f", b.perMillion(before))));
        }
        StringBuilder kinesis = new StringBuilder("  with a Kinesis ON_DEMAND stream (the template's default StreamMode), on-demand $/M dp:");
        for (CostModel.Bill b : bills) {
            kinesis.append(String.format(Locale.ROOT, " %s/s %.4f;", Format.count(b.rate()), b.perMillion(b.allOnDemand())));
        }
        out.add(kinesis.substring(0, kinesis.length() - 1));
        return out;
    }

    private static List<String> terms(String name, CostSim sim, Map<Term, Double> run, CostModel.Bill here, CostModel.Inputs in,
            CostModel model) {
        List<String> out = new ArrayList<>();
        double dp = Math.max(1, sim.stats.datapointsIn);
        long seriesHours = sim.ledger.rollups(CapacityMeter.HOURLY)[0];
        out.add(String.format(Locale.ROOT, "%s: units counted over the run (%,d datapoints, %,d series-hours built):", name,
                sim.stats.datapointsIn, seriesHours));
        out.add(String.format(Locale.ROOT, "  %-26s %12s %9s %12s %12s %14s %14s", "term", "units", "of GSI", "requests",
                "items", "per datapoint", "per series-h"));
        for (Term t : Term.values()) {
            CapacityMeter.Tally tally = sim.tally(t);
            double u = run.get(t);
            if (u == 0 && tally.requests() == 0) {
                continue;
            }
            out.add(String.format(Locale.ROOT, "  %-26s %12s %9s %12s %12s %14.5f %14.3f", t.label() + (t.write() ? " (W)" : " (R)"),
                    Format.count(u), Format.count(tally.indexUnits()), Format.count(tally.requests()), Format.count(tally.items()),
                    u / dp, u / Math.max(1, seriesHours)));
        }
        out.add(String.format(Locale.ROOT, "  scaled inputs: hour marks %.2f WRU a series-hour, day marks %.2f a series-day;"
                + " hourly build %.2f RRU + %.2f WRU a series-hour; daily build %.1f RRU + %.1f WRU a series-day (24 hours);"
                + " queue scans %.0f RRU a run; dashboard %.0f RRU a query (steady state)", in.get(In.HOUR_MARK_WRU_PER_SERIES_HOUR),
                in.get(In.DAY_MARK_WRU_PER_SERIES_DAY), in.get(In.HOURLY_RRU_PER_SERIES_HOUR), in.get(In.HOURLY_WRU_PER_SERIES_HOUR),
                in.get(In.DAILY_RRU_PER_SERIES_DAY), in.get(In.DAILY_WRU_PER_SERIES_DAY), in.get(In.QUEUE_SCAN_RRU_PER_RUN),
                in.get(In.QUERY_RRU_PER_DASHBOARD_QUERY)));
        out.add(String.format(Locale.ROOT, "the bill at %s datapoints/s (%s series), per term:", Format.count(here.rate()),
                Format.count(here.series())));
        out.add(String.format(Locale.ROOT, "  %-40s %12s %12s %10s", "term", "on-demand", "provisioned", "$/M dp"));
        for (CostModel.Line l : here.lines()) {
            out.add(String.format(Locale.ROOT, "  %-40s %12s %12s %10.5f", l.term(), CostModel.money(l.onDemand()),
                    CostModel.money(l.provisioned()), here.perMillion(l.onDemand())));
        }
        out.add(String.format(Locale.ROOT, "  %-40s %12s %12s %10.5f", "total", CostModel.money(here.onDemand()),
                CostModel.money(here.provisioned()), here.perMillionOnDemand()));
        out.add(String.format(Locale.ROOT, "  (Kinesis ON_DEMAND, the template's default StreamMode, would be %s instead of %s:"
                + " %s, $%.4f a million, all on-demand)", CostModel.money(here.kinesisOnDemand()),
                CostModel.money(here.line("Kinesis (provisioned stream)").onDemand()), CostModel.money(here.allOnDemand()),
                here.perMillion(here.allOnDemand())));
        return out;
    }

    private static List<String> storage(CostSim sim, CostModel.Inputs in) {
        CapacityMeter.Ledger l = sim.ledger;
        long[] hourly = l.rollups(CapacityMeter.HOURLY);
        long[] daily = l.rollups(CapacityMeter.DAILY);
        long[] marks = l.markOnly();
        long[] catalog = l.catalog();
        List<String> out = new ArrayList<>();
        out.add("stored (item sizes by DynamoDB's rules + 100 B an item), mix:");
        out.add(String.format(Locale.ROOT, "  partials       %,10d items, %7.0f B an item, %,8.0f B a series-hour", l.partialItems(),
                l.partialBytes() / (double) Math.max(1, l.partialItems()), in.get(In.PARTIAL_BYTES_PER_SERIES_HOUR)));
        out.add(String.format(Locale.ROOT, "  hourly rollups %,10d items, %7.0f B an item, %,8.0f B a series-hour", hourly[0],
                hourly[1] / (double) Math.max(1, hourly[0]), in.get(In.HOURLY_BYTES_PER_SERIES_HOUR)));
        out.add(String.format(Locale.ROOT, "  daily rollups  %,10d items, %7.0f B an item of %.1f hours;"
                + " %,.0f B a series-day at 24 hours (re-encoded), %,.0f B a series-hour", daily[0], daily[1] / (double) Math.max(1, daily[0]),
                l.dailyHours().values().stream().mapToInt(Integer::intValue).average().orElse(0),
                in.get(In.DAILY_BYTES_PER_SERIES_DAY), in.get(In.DAILY_BYTES_PER_SERIES_DAY) / 24));
        out.add(String.format(Locale.ROOT, "  catalog        %,10d items, %,.0f B a series", catalog[0], in.get(In.CATALOG_BYTES_PER_SERIES)));
        out.add(String.format(Locale.ROOT, "  marked, not built yet (open periods): %,d items, %,d B", marks[0], marks[1]));
        double partialsKept = in.get(In.PARTIAL_BYTES_PER_SERIES_HOUR) * 24 * in.get(In.PARTIAL_TTL_DAYS);
        double hourlyKept = in.get(In.HOURLY_BYTES_PER_SERIES_HOUR) * 24 * Math.min(365, in.get(In.HOURLY_TTL_DAYS));
        double dailyKept = in.get(In.DAILY_BYTES_PER_SERIES_DAY) * Math.min(365, in.get(In.DAILY_TTL_DAYS));
        out.add(String.format(Locale.ROOT, "  a series at month %d: partials %.1f MB (%.0f days), hourly %.1f MB (%.0f days), daily"
                + " %.1f MB (%.0f days): %.1f MB (before: 95.3 MB)", STORAGE_MONTH, partialsKept / 1e6, in.get(In.PARTIAL_TTL_DAYS),
                hourlyKept / 1e6, Math.min(365, in.get(In.HOURLY_TTL_DAYS)), dailyKept / 1e6, Math.min(365, in.get(In.DAILY_TTL_DAYS)),
                (partialsKept + hourlyKept + dailyKept + in.get(In.CATALOG_BYTES_PER_SERIES)) / 1e6));
        return out;
    }

    private static List<String> recordingSummary(CostSim rec, Map<Term, Double> run, CostModel.Inputs in, CostModel model) {
        List<String> out = new ArrayList<>();
        CostSim.Stats st = rec.stats;
        out.add(String.format(Locale.ROOT, "recording: %,d records (%.2f datapoints a record, %.0f B), %,d datapoints, %,d series,"
                + " %,d ingest invocations (%.1f records each), %,d partials (%.2f datapoints a partial)", st.records,
                in.get(In.DP_PER_RECORD), in.get(In.RECORD_BYTES), st.datapointsIn,
                rec.ledger.catalog.keySet().stream().filter(k -> k.startsWith(CapacityMeter.CATALOG)).count(),
                st.ingestInvocations(), st.records / (double) Math.max(1, st.ingestInvocations()), rec.ledger.partialItems(),
                st.datapointsIn / (double) Math.max(1, rec.ledger.partialItems())));
        StringBuilder sb = new StringBuilder("  units:");
        for (Term t : Term.values()) {
            if (run.get(t) > 0) {
                sb.append(' ').append(t.label()).append(' ').append(Format.count(run.get(t))).append(',');
            }
        }
        out.add(sb.substring(0, sb.length() - 1));
        out.add("  traffic shaped like the recording (" + String.format(Locale.ROOT, "%.2f", in.get(In.DP_PER_SERIES_MINUTE))
                + " datapoints a series-minute, one a record), per million datapoints on-demand / provisioned:");
        for (double r : RATES) {
            CostModel.Bill b = model.bill(r);
            out.add(String.format(Locale.ROOT, "    %s datapoints/s: $%.4f / $%.4f (CloudWatch EMF $%.4f)", Format.count(r),
                    b.perMillionOnDemand(), b.perMillionProvisioned(), b.perMillion(b.cloudWatch())));
        }
        return out;
    }

    private static List<String> functions(CostSim sim, CostModel.Inputs in, CostModel model, CostSettings s) {
        CostSim.Stats st = sim.stats;
        double[] builder = builderTimes(st);
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "mix, functions: ingest %,d invocations, %,.0f ms (%.2f ms + %.4f ms a record by least"
                + " squares), EMF %,d B and log lines %,d B (%.0f B an invocation), %d shard(s)", st.ingestInvocations(),
                st.ingestMs(), in.get(In.INGEST_MS_PER_INVOCATION), in.get(In.INGEST_MS_PER_RECORD), st.ingestEmfBytes,
                st.ingestLogBytes - st.ingestEmfBytes, in.get(In.INGEST_LOG_BYTES_PER_INVOCATION), st.ingestCalls.isEmpty() ? 0
                : sim.ingestShards()));
        out.add(String.format(Locale.ROOT, "  builder (%s): %,d runs, %,.0f ms, %,d hours and %,d days built, %d losing writes,"
                + " %d runs stopped at the deadline; %.0f ms a run without builds (queue scans), %.2f ms a build; EMF %,d B, logs %,d B",
                s.buildSchedule(), st.buildRuns.size(), st.builderMs(), st.hoursBuilt(), st.daysBuilt(), st.losingWrites(),
                st.stoppedRuns(), builder[0], builder[1], st.compactEmfBytes, st.compactLogBytes - st.compactEmfBytes));
        if (builder[1] > 0) {
            double window = (s.compact().timeoutSeconds() * 1000.0 - sim.config().safetyMarginMillis()) * 3_600_000.0
                    / s.buildScheduleMillis();
            double perHour = window / builder[1];
            out.add(String.format(Locale.ROOT, "  builder capacity at that speed: %,.0f builds an hour (%s runs of %d s); the mix at"
                    + " 100k datapoints/s needs %,.0f hourly builds an hour (+ %,.0f daily builds at midnight)", perHour,
                    Prices.fmt(3_600_000.0 / s.buildScheduleMillis()), s.compact().timeoutSeconds(), model.series(100_000),
                    model.series(100_000)));
        }
        out.add(String.format(Locale.ROOT, "  dashboard: %,d queries, %,d invocations, %,.0f ms (%.0f ms a query), EMF %,d B, logs %,d B",
                st.queries, st.queryPages, st.queryMs, st.queryMs / Math.max(1, st.queries), st.queryEmfBytes,
                st.queryLogBytes - st.queryEmfBytes));
        out.add(String.format(Locale.ROOT, "  Kinesis: %,d records, %.0f B a record, %.2f PUT payload units a record; dead-letter"
                + " messages %d", st.records, in.get(In.RECORD_BYTES), in.get(In.PUT_UNITS_PER_RECORD), st.deadLetters));
        return out;
    }

    private static double floors(CostSim sim) {
        double f = 0;
        for (Term t : Term.values()) {
            f += sim.ingestMeter.tally(t).floorUnits() + sim.compactMeter.tally(t).floorUnits() + sim.queryMeter.tally(t).floorUnits();
        }
        return f;
    }

    private static long failed(CostSim sim) {
        long f = 0;
        for (Term t : Term.values()) {
            f += sim.ingestMeter.tally(t).failedConditions() + sim.compactMeter.tally(t).failedConditions();
        }
        return f;
    }

    private static long[] add(long[] a, long[] b) {
        return new long[] {a[0] + b[0], a[1] + b[1]};
    }
}
