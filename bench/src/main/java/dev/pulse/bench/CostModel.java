package dev.pulse.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Monthly cost at a rate (datapoints/s) from rates the cost benchmark measured: units per datapoint for what scales
 * with datapoints (Kinesis records, ingest time, partial writes), units per series-hour and series-day for what
 * scales with series (marks, hourly and daily builds, rollup storage), per run and per query for what the schedule
 * and the dashboard fix. The shape of the traffic (datapoints a series sends a minute, datapoints a record) is the
 * measured mix's. One source of truth for the cost line of {@code make bench ONLY=cost} and for docs/capacity.md.
 */
public final class CostModel {

    /** One measured input: its key in docs/benchmarks.json and what it is. */
    public enum In {
        DP_PER_SERIES_MINUTE("dpPerSeriesMinute", "datapoints a series sends a minute (the mix's shape)"),
        DP_PER_RECORD("dpPerRecord", "datapoints a Kinesis record"),
        RECORD_BYTES("recordBytes", "bytes a Kinesis record"),
        PUT_UNITS_PER_RECORD("putUnitsPerRecord", "Kinesis PUT payload units (25 KB) a record"),
        ONDEMAND_BYTES_PER_RECORD("onDemandBytesPerRecord", "bytes a record bills in Kinesis ON_DEMAND (rounded up to 1 KB)"),
        BATCH_SIZE("batchSize", "template BatchSize"),
        BATCHING_WINDOW_S("batchingWindowS", "template MaximumBatchingWindowInSeconds"),
        INGEST_MS_PER_INVOCATION("ingestMsPerInvocation", "ingest handler time an invocation, fixed part (ms, least squares)"),
        INGEST_MS_PER_RECORD("ingestMsPerRecord", "ingest handler time a record (ms, least squares)"),
        INGEST_LOG_BYTES_PER_INVOCATION("ingestLogBytesPerInvocation", "ingest EMF and log bytes an invocation"),
        INGEST_MEMORY_MB("ingestMemoryMb", "IngestFunction MemorySize"),
        PARTIAL_WRU_PER_DP("partialWruPerDp", "partial write units a datapoint"),
        CHECKPOINT_WRU_PER_INVOCATION("checkpointWruPerInvocation", "shard checkpoint write units an ingest invocation (claim and commit)"),
        CATALOG_WRU_PER_SERIES("catalogWruPerSeries", "catalog write units a series, once per ingest container"),
        HOUR_MARK_WRU_PER_SERIES_HOUR("hourMarkWruPerSeriesHour", "hour-mark write units a series-hour (with the due index)"),
        DAY_MARK_WRU_PER_SERIES_DAY("dayMarkWruPerSeriesDay", "day-mark write units a series-day (with the due index)"),
        HOURLY_RRU_PER_SERIES_HOUR("hourlyRruPerSeriesHour", "hourly build read units a series-hour (its partials, strongly consistent)"),
        HOURLY_WRU_PER_SERIES_HOUR("hourlyWruPerSeriesHour", "hourly build write units a series-hour (the item, the due index)"),
        DAILY_RRU_PER_SERIES_DAY("dailyRruPerSeriesDay", "daily build read units a series-day (24 hourly items)"),
        DAILY_WRU_PER_SERIES_DAY("dailyWruPerSeriesDay", "daily build write units a series-day (24 hour summaries)"),
        MARK_CLEAR_WRU_PER_SERIES_HOUR("markClearWruPerSeriesHour", "mark clears (expired marks) a series-hour"),
        QUEUE_SCAN_RRU_PER_RUN("queueScanRruPerRun", "build-queue read units a builder run (DynamoDB's minimum per empty page)"),
        BUILD_RUNS_PER_HOUR("buildRunsPerHour", "builder runs an hour (template BuildSchedule)"),
        BUILDER_MS_PER_RUN("builderMsPerRun", "builder time a run without builds (ms; the queue scans)"),
        BUILDER_MS_PER_HOURLY_BUILD("builderMsPerHourlyBuild", "builder time an hourly build (ms)"),
        BUILDER_MS_PER_DAILY_BUILD("builderMsPerDailyBuild", "builder time a daily build (ms)"),
        BUILDER_LOG_BYTES_PER_RUN("builderLogBytesPerRun", "builder EMF and log bytes a run"),
        COMPACT_MEMORY_MB("compactMemoryMb", "CompactFunction MemorySize"),
        DASHBOARD_QUERIES_PER_HOUR("dashboardQueriesPerHour", "dashboard queries an hour"),
        DASHBOARD_SERIES("dashboardSeries", "series a dashboard query asks for"),
        DASHBOARD_HOURS("dashboardHours", "hours a dashboard query spans"),
        QUERY_RRU_PER_DASHBOARD_QUERY("queryRruPerDashboardQuery", "read units a dashboard query, steady state"),
        QUERY_MS_PER_DASHBOARD_QUERY("queryMsPerDashboardQuery", "query handler time a dashboard query (ms, all pages)"),
        QUERY_PAGES_PER_DASHBOARD_QUERY("queryPagesPerDashboardQuery", "invocations (pages) a dashboard query"),
        QUERY_LOG_BYTES_PER_PAGE("queryLogBytesPerPage", "query EMF and log bytes an invocation"),
        QUERY_MEMORY_MB("queryMemoryMb", "QueryFunction MemorySize"),
        PARTIAL_BYTES_PER_SERIES_HOUR("partialBytesPerSeriesHour", "stored partial bytes a series-hour (with DynamoDB's 100 B an item)"),
        HOURLY_BYTES_PER_SERIES_HOUR("hourlyBytesPerSeriesHour", "stored hourly rollup bytes a series-hour"),
        DAILY_BYTES_PER_SERIES_DAY("dailyBytesPerSeriesDay", "stored daily rollup bytes a series-day (24 hour summaries)"),
        CATALOG_BYTES_PER_SERIES("catalogBytesPerSeries", "stored catalog bytes a series"),
        PARTIAL_TTL_DAYS("partialTtlDays", "template PartialTtlDays"),
        HOURLY_TTL_DAYS("hourlyTtlDays", "template HourlyTtlDays"),
        DAILY_TTL_DAYS("dailyTtlDays", "template DailyTtlDays");

        private final String key;
        private final String what;

        In(String key, String what) {
            this.key = key;
            this.what = what;
        }

        public String key() {
            return key;
        }

        public String what() {
            return what;
        }
    }

    /** The measured inputs, every {@link In} present. */
    public record Inputs(Map<In, Double> values) {
        public Inputs {
            values = new EnumMap<>(values);
            for (In in : In.values()) {
                Double v = values.get(in);
                if (v == null || v.isNaN() || v.isInfinite()) {
                    throw new IllegalArgumentException("measured input " + in.key() + " is missing or not a number");
                }
            }
        }

        public double get(In in) {
            return values.get(in);
        }

        /** As named values (docs/benchmarks.json). */
        public Map<String, Double> byKey() {
            Map<String, Double> out = new LinkedHashMap<>();
            values.forEach((k, v) -> out.put(k.key(), v));
            return out;
        }

        /** From named values; the names not inputs are ignored. */
        public static Inputs fromKeys(Map<String, Double> named) {
            Map<In, Double> v = new EnumMap<>(In.class);
            for (In in : In.values()) {
                if (named.containsKey(in.key())) {
                    v.put(in, named.get(in.key()));
                }
            }
            return new Inputs(v);
        }
    }

    /** Where a line of the bill belongs. */
    public enum Group { KINESIS, LAMBDA, DYNAMODB_WRITES, DYNAMODB_READS, STORAGE, LOGS }

    /**
     * One line of the bill: the same cost whether DynamoDB is on-demand or provisioned, except for request units.
     *
     * @param units       the line's quantity (units/s, GB, ...), with {@code unit} its name
     * @param arithmetic  how the figure comes about, for a reader to redo it
     */
    public record Line(String term, Group group, double units, String unit, String arithmetic, double onDemand,
            double provisioned) {
    }

    /** The bill at one rate. */
    public record Bill(double rate, double series, double datapointsPerMonth, List<Line> lines, double kinesisOnDemand,
            double cloudWatch, double prometheus, String cloudWatchArithmetic, String prometheusArithmetic) {

        public double onDemand() {
            return lines.stream().mapToDouble(Line::onDemand).sum();
        }

        public double provisioned() {
            return lines.stream().mapToDouble(Line::provisioned).sum();
        }

        /** $ per million datapoints, on-demand. */
        public double perMillionOnDemand() {
            return onDemand() / (datapointsPerMonth / 1e6);
        }

        public double perMillionProvisioned() {
            return provisioned() / (datapointsPerMonth / 1e6);
        }

        /** The on-demand bill with the Kinesis stream in ON_DEMAND mode (the template's default StreamMode). */
        public double allOnDemand() {
            Line k = line("Kinesis (provisioned stream)");
            return onDemand() - (k == null ? 0 : k.onDemand()) + kinesisOnDemand;
        }

        public double perMillion(double monthly) {
            return monthly / (datapointsPerMonth / 1e6);
        }

        /** The line of {@code term}, or null. */
        public Line line(String term) {
            return lines.stream().filter(l -> l.term().equals(term)).findFirst().orElse(null);
        }
    }

    private final Inputs in;
    private final Prices p;
    /** Months of operation for the storage figure. */
    private final int storageMonth;

    public CostModel(Inputs in, Prices prices, int storageMonth) {
        this.in = in;
        this.p = prices;
        this.storageMonth = storageMonth;
    }

    public Inputs inputs() {
        return in;
    }

    public Prices prices() {
        return p;
    }

    public int storageMonth() {
        return storageMonth;
    }

    /** Active series at {@code rate} datapoints/s, for the mix's datapoints a series-minute. */
    public double series(double rate) {
        return rate * 60 / in.get(In.DP_PER_SERIES_MINUTE);
    }

    /** Provisioned Kinesis shards for {@code rate}. */
    public int shards(double rate) {
        double rec = rate / in.get(In.DP_PER_RECORD);
        double mb = rec * in.get(In.RECORD_BYTES) / 1e6;
        return (int) Math.max(1, Math.ceil(Math.max(rec / 1000, mb / 1.0) / p.get("shard-utilisation")));
    }

    public Bill bill(double rate) {
        final double month = Prices.SECONDS_PER_MONTH;
        List<Line> lines = new ArrayList<>();
        double series = series(rate);

        // Kinesis: provisioned shards sized to the tighter limit, PUT payload units per record.
        double rec = rate / in.get(In.DP_PER_RECORD);
        int shards = shards(rate);
        double putUnits = rec * in.get(In.PUT_UNITS_PER_RECORD);
        double kinesis = shards * p.get("shard-hour") * Prices.HOURS_PER_MONTH
                + putUnits * month / 1e6 * p.get("put-payload-million");
        lines.add(same("Kinesis (provisioned stream)", Group.KINESIS, shards, "shards",
                f("%d shards x $%s x 730 h + %s PUT units/s x 2.63M s x $%s/M", shards, n(p.get("shard-hour")), c(putUnits),
                        n(p.get("put-payload-million"))), kinesis));
        double gbIn = rec * in.get(In.ONDEMAND_BYTES_PER_RECORD) * month / (1024.0 * 1024 * 1024);
        double kinesisOnDemand = p.get("kinesis-ondemand-stream-hour") * Prices.HOURS_PER_MONTH
                + gbIn * (p.get("kinesis-ondemand-gb-in") + p.get("kinesis-ondemand-gb-out"));

        // IngestFunction: one batch in flight per shard; a batch closes at BatchSize or after the window.
        double perShard = rec / shards;
        double batch = Math.min(in.get(In.BATCH_SIZE), Math.max(1, perShard * in.get(In.BATCHING_WINDOW_S)));
        double invocations = rec / batch;
        double ingestMs = invocations * in.get(In.INGEST_MS_PER_INVOCATION) + rec * in.get(In.INGEST_MS_PER_RECORD);
        double ingestGbS = ingestMs / 1000 * in.get(In.INGEST_MEMORY_MB) / 1024;
        double ingest = ingestGbS * month * p.get("lambda-gb-s") + invocations * month / 1e6 * p.get("lambda-million-requests");
        lines.add(same("IngestFunction", Group.LAMBDA, ingestGbS, "GB-s/s",
                f("%s invocations/s (batches of %s) x %s ms + %s records/s x %s ms, x %s GB; + requests",
                        c2(invocations), c(batch), n2(in.get(In.INGEST_MS_PER_INVOCATION)), c(rec),
                        n3(in.get(In.INGEST_MS_PER_RECORD)), n(in.get(In.INGEST_MEMORY_MB) / 1024)), ingest));

        // DynamoDB requests: on-demand per unit, provisioned per unit-hour at the utilisation target.
        double partials = rate * in.get(In.PARTIAL_WRU_PER_DP);
        lines.add(writes("partials", partials, f("%s datapoints/s x %s WRU a datapoint", c(rate), n4(in.get(In.PARTIAL_WRU_PER_DP)))));
        double checkpoints = invocations * in.get(In.CHECKPOINT_WRU_PER_INVOCATION);
        lines.add(writes("shard checkpoints", checkpoints, f("%s invocations/s x %s WRU (claim and commit)", c2(invocations),
                n2(in.get(In.CHECKPOINT_WRU_PER_INVOCATION)))));
        double catalog = series * in.get(In.CATALOG_WRU_PER_SERIES) / (p.get("container-lifetime-hours") * 3600);
        lines.add(writes("catalog", catalog, f("%s series x %s WRU once per container (%s h)", c(series),
                n2(in.get(In.CATALOG_WRU_PER_SERIES)), n(p.get("container-lifetime-hours")))));
        double marks = series * in.get(In.HOUR_MARK_WRU_PER_SERIES_HOUR) / 3600
                + series * in.get(In.DAY_MARK_WRU_PER_SERIES_DAY) / 86400
                + series * in.get(In.MARK_CLEAR_WRU_PER_SERIES_HOUR) / 3600;
        lines.add(writes("marks", marks, f("%s series x (%s WRU an hour + %s a day)", c(series),
                n2(in.get(In.HOUR_MARK_WRU_PER_SERIES_HOUR) + in.get(In.MARK_CLEAR_WRU_PER_SERIES_HOUR)),
                n2(in.get(In.DAY_MARK_WRU_PER_SERIES_DAY)))));
        double hourlyW = series * in.get(In.HOURLY_WRU_PER_SERIES_HOUR) / 3600;
        lines.add(writes("hourly builds, writes", hourlyW, f("%s series x %s WRU an hour", c(series),
                n2(in.get(In.HOURLY_WRU_PER_SERIES_HOUR)))));
        double dailyW = series * in.get(In.DAILY_WRU_PER_SERIES_DAY) / 86400;
        lines.add(writes("daily builds, writes", dailyW, f("%s series x %s WRU a day", c(series),
                n2(in.get(In.DAILY_WRU_PER_SERIES_DAY)))));
        double hourlyR = series * in.get(In.HOURLY_RRU_PER_SERIES_HOUR) / 3600;
        lines.add(reads("hourly builds, reads", hourlyR, f("%s series x %s RRU an hour", c(series),
                n2(in.get(In.HOURLY_RRU_PER_SERIES_HOUR)))));
        double dailyR = series * in.get(In.DAILY_RRU_PER_SERIES_DAY) / 86400;
        lines.add(reads("daily builds, reads", dailyR, f("%s series x %s RRU a day", c(series),
                n2(in.get(In.DAILY_RRU_PER_SERIES_DAY)))));
        double scans = in.get(In.QUEUE_SCAN_RRU_PER_RUN) * in.get(In.BUILD_RUNS_PER_HOUR) / 3600;
        lines.add(reads("queue scans", scans, f("%s RRU a run x %s runs an hour", c(in.get(In.QUEUE_SCAN_RRU_PER_RUN)),
                n(in.get(In.BUILD_RUNS_PER_HOUR)))));
        double queries = in.get(In.QUERY_RRU_PER_DASHBOARD_QUERY) * in.get(In.DASHBOARD_QUERIES_PER_HOUR) / 3600;
        lines.add(reads("query reads (dashboard)", queries, f("%s RRU a query x %s queries an hour",
                c(in.get(In.QUERY_RRU_PER_DASHBOARD_QUERY)), n(in.get(In.DASHBOARD_QUERIES_PER_HOUR)))));

        // CompactFunction (the builder) and QueryFunction.
        double builderMsPerHour = in.get(In.BUILD_RUNS_PER_HOUR) * in.get(In.BUILDER_MS_PER_RUN)
                + series * in.get(In.BUILDER_MS_PER_HOURLY_BUILD) + series / 24 * in.get(In.BUILDER_MS_PER_DAILY_BUILD);
        double builderGbS = builderMsPerHour / 3600 / 1000 * in.get(In.COMPACT_MEMORY_MB) / 1024;
        double builder = builderGbS * month * p.get("lambda-gb-s")
                + in.get(In.BUILD_RUNS_PER_HOUR) * Prices.HOURS_PER_MONTH / 1e6 * p.get("lambda-million-requests");
        lines.add(same("CompactFunction (builder)", Group.LAMBDA, builderGbS, "GB-s/s",
                f("%s runs/h x %s ms + %s hourly builds/h x %s ms + %s daily builds/h x %s ms, x %s GB", n(in.get(In.BUILD_RUNS_PER_HOUR)),
                        c(in.get(In.BUILDER_MS_PER_RUN)), c(series), n2(in.get(In.BUILDER_MS_PER_HOURLY_BUILD)), c(series / 24),
                        n2(in.get(In.BUILDER_MS_PER_DAILY_BUILD)), n(in.get(In.COMPACT_MEMORY_MB) / 1024)), builder));
        double qph = in.get(In.DASHBOARD_QUERIES_PER_HOUR);
        double pagesPerHour = qph * in.get(In.QUERY_PAGES_PER_DASHBOARD_QUERY);
        double queryGbS = qph * in.get(In.QUERY_MS_PER_DASHBOARD_QUERY) / 3600 / 1000 * in.get(In.QUERY_MEMORY_MB) / 1024;
        double query = queryGbS * month * p.get("lambda-gb-s") + pagesPerHour * Prices.HOURS_PER_MONTH / 1e6
                * (p.get("lambda-million-requests") + p.get("api-million-requests"));
        lines.add(same("QueryFunction and HTTP API (dashboard)", Group.LAMBDA, queryGbS, "GB-s/s",
                f("%s queries/h x %s ms x %s GB; %s requests/h (Lambda + API)", n(qph), c(in.get(In.QUERY_MS_PER_DASHBOARD_QUERY)),
                        n(in.get(In.QUERY_MEMORY_MB) / 1024), n(pagesPerHour)), query));

        // CloudWatch Logs: every byte the functions print (EMF documents and log lines).
        double logBytes = invocations * in.get(In.INGEST_LOG_BYTES_PER_INVOCATION)
                + in.get(In.BUILD_RUNS_PER_HOUR) / 3600 * in.get(In.BUILDER_LOG_BYTES_PER_RUN)
                + pagesPerHour / 3600 * in.get(In.QUERY_LOG_BYTES_PER_PAGE);
        double logs = logBytes * month / 1e9 * p.get("logs-gb");
        lines.add(same("CloudWatch Logs (EMF and log lines)", Group.LOGS, logBytes, "B/s",
                f("%s B/s (ingest %s B an invocation, builder %s B a run, query %s B a page) x $%s/GB", c(logBytes),
                        c(in.get(In.INGEST_LOG_BYTES_PER_INVOCATION)), c(in.get(In.BUILDER_LOG_BYTES_PER_RUN)),
                        c(in.get(In.QUERY_LOG_BYTES_PER_PAGE)), n(p.get("logs-gb"))), logs));

        // Storage at month N: each item type kept for its TTL (or for as long as the deployment ran).
        double days = 365.0 * storageMonth / 12;
        double gbMonth = p.get("ddb-gb-month") + p.get("ddb-pitr-gb-month");
        double partialGb = series * in.get(In.PARTIAL_BYTES_PER_SERIES_HOUR) * 24 * Math.min(days, in.get(In.PARTIAL_TTL_DAYS)) / 1e9;
        double hourlyGb = series * in.get(In.HOURLY_BYTES_PER_SERIES_HOUR) * 24 * Math.min(days, in.get(In.HOURLY_TTL_DAYS)) / 1e9;
        double dailyGb = series * in.get(In.DAILY_BYTES_PER_SERIES_DAY) * Math.min(days, in.get(In.DAILY_TTL_DAYS)) / 1e9;
        double catalogGb = series * in.get(In.CATALOG_BYTES_PER_SERIES) / 1e9;
        String sm = "month " + storageMonth;
        lines.add(same("storage: partials", Group.STORAGE, partialGb, "GB",
                f("%s series x %s B a series-hour x 24 x %s days (TTL) x $%s/GB-month (with PITR)", c(series),
                        c(in.get(In.PARTIAL_BYTES_PER_SERIES_HOUR)), n(Math.min(days, in.get(In.PARTIAL_TTL_DAYS))), n(gbMonth)),
                partialGb * gbMonth));
        lines.add(same("storage: hourly rollups", Group.STORAGE, hourlyGb, "GB",
                f("%s series x %s B a series-hour x 24 x %s days (TTL)", c(series), c(in.get(In.HOURLY_BYTES_PER_SERIES_HOUR)),
                        n(Math.min(days, in.get(In.HOURLY_TTL_DAYS)))), hourlyGb * gbMonth));
        lines.add(same("storage: daily rollups", Group.STORAGE, dailyGb, "GB",
                f("%s series x %s B a series-day x %s days (%s)", c(series), c(in.get(In.DAILY_BYTES_PER_SERIES_DAY)),
                        n(Math.min(days, in.get(In.DAILY_TTL_DAYS))), sm), dailyGb * gbMonth));
        lines.add(same("storage: catalog", Group.STORAGE, catalogGb, "GB",
                f("%s series x %s B", c(series), c(in.get(In.CATALOG_BYTES_PER_SERIES))), catalogGb * gbMonth));

        // The alternatives, for the same series, datapoints and dashboard.
        double dpMonth = rate * month;
        double metricsRequested = in.get(In.DASHBOARD_SERIES) * qph * Prices.HOURS_PER_MONTH;
        double cw = p.cloudWatchMetricsMonth(series) + dpMonth * p.get("cw-emf-bytes-per-datapoint") / 1e9 * p.get("logs-gb")
                + metricsRequested / 1000 * p.get("cw-get-metric-data-per-1000");
        String cwHow = f("%s metrics (tiered $%s/%s/%s/%s) + %s GB of EMF a month (%s B a datapoint) x $%s + GetMetricData %s metrics",
                c(series), n(p.get("cw-metric-tier1")), n(p.get("cw-metric-tier2")), n(p.get("cw-metric-tier3")),
                n(p.get("cw-metric-tier4")), c(dpMonth * p.get("cw-emf-bytes-per-datapoint") / 1e9),
                n(p.get("cw-emf-bytes-per-datapoint")), n(p.get("logs-gb")), c(metricsRequested));
        double ampDays = Math.min(days, p.get("amp-retention-days"));
        double ampGb = rate * 86400 * ampDays * p.get("amp-bytes-per-sample") / 1e9;
        double samplesQueried = in.get(In.DASHBOARD_SERIES) * in.get(In.DASHBOARD_HOURS) * 60 * in.get(In.DP_PER_SERIES_MINUTE)
                * qph * Prices.HOURS_PER_MONTH;
        double amp = p.ampIngestMonth(dpMonth) + ampGb * p.get("amp-gb-month")
                + samplesQueried / 1e9 * p.get("amp-query-per-billion-samples");
        String ampHow = f("%s billion samples (tiered $%s/%s/%s per 10M) + %s GB stored (%s days, %s B a sample) + %s billion samples queried",
                n2(dpMonth / 1e9), n(p.get("amp-ingest-tier1-per-10m")), n(p.get("amp-ingest-tier2-per-10m")),
                n(p.get("amp-ingest-tier3-per-10m")), c(ampGb), n(ampDays), n(p.get("amp-bytes-per-sample")), n2(samplesQueried / 1e9));
        return new Bill(rate, series, dpMonth, List.copyOf(lines), kinesisOnDemand, cw, amp, cwHow, ampHow);
    }

    private Line same(String term, Group group, double units, String unit, String how, double cost) {
        return new Line(term, group, units, unit, how, cost, cost);
    }

    private Line writes(String term, double wruPerSecond, String how) {
        double onDemand = wruPerSecond * Prices.SECONDS_PER_MONTH / 1e6 * p.get("ddb-million-wru");
        double provisioned = wruPerSecond / p.get("ddb-provisioned-utilisation") * Prices.HOURS_PER_MONTH * p.get("ddb-wcu-hour");
        return new Line(term, Group.DYNAMODB_WRITES, wruPerSecond, "WRU/s", how, onDemand, provisioned);
    }

    private Line reads(String term, double rruPerSecond, String how) {
        double onDemand = rruPerSecond * Prices.SECONDS_PER_MONTH / 1e6 * p.get("ddb-million-rru");
        double provisioned = rruPerSecond / p.get("ddb-provisioned-utilisation") * Prices.HOURS_PER_MONTH * p.get("ddb-rcu-hour");
        return new Line(term, Group.DYNAMODB_READS, rruPerSecond, "RRU/s", how, onDemand, provisioned);
    }

    // --- Before: the previous design, as docs/capacity.md had it at commit 341b57c (checked by hand) ----------

    /**
     * The previous design's monthly figures at 1k, 10k and 100k datapoints/s, per term, from docs/capacity.md at
     * commit 341b57c (its model: one partial per series-minute, each rebuilding its hour (4 WRU, 2 RRU) and its day
     * (8 WRU, 24 RRU)). Storage was left out of that model; the figure here is its item sizes (partial 260 B,
     * hourly 8,081 B, daily 15,010 B, plus DynamoDB's 100 B an item) kept for that template's TTLs (partials 35
     * days, hourly 400, daily 3650) at month 12, with PITR.
     */
    public static Map<String, Double> before(double rate) {
        Map<String, Double> b = new LinkedHashMap<>();
        double k = rate / 1000;
        double partialsPerSecond = rate / 10;
        double wru = 0.625 * Prices.SECONDS_PER_MONTH / 1e6;
        double rru = 0.125 * Prices.SECONDS_PER_MONTH / 1e6;
        // Kinesis, ingest Lambda, compact Lambda and logs are the rows of the old tables (not linear in the rate).
        double[] kinesis = {14.63, 58.69, 510};
        double[] ingest = {0.71, 2.86, 28.61};
        double[] compact = {21.65, 212, 2120};
        double[] logs = {4.34, 11.83, 104};
        int i = rate == 1000 ? 0 : rate == 10_000 ? 1 : rate == 100_000 ? 2 : -1;
        if (i < 0) {
            return b;
        }
        double series = rate * 6;
        double days = 365;
        double gbMonth = 0.25 + 0.20;
        b.put("Kinesis (provisioned stream)", kinesis[i]);
        b.put("IngestFunction", ingest[i]);
        b.put("partials", partialsPerSecond * 1 * wru);
        b.put("catalog", 0.0);
        b.put("marks", 0.0);
        b.put("hourly builds, writes", partialsPerSecond * 4 * wru);
        b.put("daily builds, writes", partialsPerSecond * 8 * wru);
        b.put("hourly builds, reads", partialsPerSecond * 2 * rru);
        b.put("daily builds, reads", partialsPerSecond * 24 * rru);
        b.put("queue scans", 0.0);
        b.put("query reads (dashboard)", Double.NaN);
        b.put("CompactFunction (builder)", compact[i]);
        b.put("QueryFunction and HTTP API (dashboard)", Double.NaN);
        b.put("CloudWatch Logs (EMF and log lines)", logs[i]);
        b.put("storage: partials", series * 360.0 * 1440 * 35 / 1e9 * gbMonth);
        b.put("storage: hourly rollups", series * 8181.0 * 24 * days / 1e9 * gbMonth);
        b.put("storage: daily rollups", series * 15110.0 * days / 1e9 * gbMonth);
        b.put("storage: catalog", Double.NaN);
        b.put("total in that model (no storage, no queries)", k == 1 ? 3031.0 : k == 10 ? 30179.0 : 301698.0);
        return b;
    }

    // --- Number formats -------------------------------------------------------------------------------------

    static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    /** Grouped, no decimals. */
    static String c(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    static String c2(double v) {
        return Math.abs(v) >= 100 ? c(v) : String.format(Locale.ROOT, "%,.2f", v);
    }

    static String n(double v) {
        return Prices.fmt(v);
    }

    static String n2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    static String n3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    static String n4(double v) {
        return String.format(Locale.ROOT, "%.4f", v);
    }

    /** Money: no decimals from $100, two below. */
    public static String money(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return Math.abs(v) >= 100 ? "$" + c(v) : String.format(Locale.ROOT, "$%,.2f", v);
    }
}
