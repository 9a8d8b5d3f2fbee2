package dev.pulse.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * docs/capacity.md from the units the cost benchmark measured ({@code make bench ONLY=cost}, or a full run) and
 * list prices given as parameters:
 *
 * <pre>
 * make capacity [BENCH_JSON=docs/benchmarks.json] [PRICES="--price-ddb-million-wru 0.5 ..."]
 * java -cp ... dev.pulse.bench.CapacityDoc [--bench FILE.json] [--out FILE.md] [--rates 1000,10000,100000]
 *      [--storage-month 12] [--price-NAME VALUE ...]
 * </pre>
 *
 * The arithmetic is {@link CostModel}'s, the same the benchmark's cost line uses; the document shows it so a reader
 * can redo it with their own numbers. Exit 0 when written (or when the figures hold no cost run: nothing to do),
 * 2 on a usage error.
 */
public final class CapacityDoc {

    private static final ObjectMapper JSON = new ObjectMapper();

    private CapacityDoc() {
    }

    public static void main(String[] args) throws IOException {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        Path bench = Path.of("docs/benchmarks.json");
        Path target = Path.of("docs/capacity.md");
        double[] rates = CostBench.RATES;
        int month = CostBench.STORAGE_MONTH;
        Map<String, Double> overrides = new LinkedHashMap<>();
        try {
            // BENCH_PRICES (what the benchmark's cost line used), then --prices and --price-NAME flags over it.
            overrides.putAll(Prices.parse(System.getenv("BENCH_PRICES")).changed());
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--help")) {
                    out.println(usage());
                    return 0;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                String v = args[++i];
                switch (a) {
                    case "--bench" -> bench = Path.of(v);
                    case "--out" -> target = Path.of(v);
                    case "--rates" -> rates = java.util.Arrays.stream(v.split(",")).mapToDouble(s -> Double.parseDouble(s.strip())).toArray();
                    case "--storage-month" -> month = Integer.parseInt(v);
                    case "--prices" -> overrides.putAll(Prices.parse(v).changed());
                    default -> {
                        if (!a.startsWith("--price-")) {
                            throw new IllegalArgumentException("unknown argument: " + a);
                        }
                        overrides.put(a.substring("--price-".length()), Double.parseDouble(v));
                    }
                }
            }
            Prices prices = Prices.with(overrides);
            JsonNode root = JSON.readTree(bench.toFile());
            JsonNode cost = root.path("benchmarks").path("cost").path("values");
            if (cost.isMissingNode() || cost.isEmpty()) {
                out.println("capacity: " + bench + " holds no cost figures (run make bench ONLY=cost); " + target + " left as it is");
                return 0;
            }
            Map<String, Double> values = new LinkedHashMap<>();
            cost.properties().forEach(e -> values.put(e.getKey(), e.getValue().asDouble()));
            String source = bench + " (" + root.path("command").asText() + ", " + root.path("date").asText() + ", commit "
                    + root.path("commit").asText() + ")";
            String doc = render(CostModel.Inputs.fromKeys(values), values, prices, rates, month, source);
            Files.createDirectories(target.toAbsolutePath().getParent());
            Files.writeString(target, doc, StandardCharsets.UTF_8);
            out.println("capacity: wrote " + target);
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("capacity: " + e.getMessage());
            err.println(usage());
            return 2;
        }
    }

    static String usage() {
        StringBuilder sb = new StringBuilder("""
                usage: capacity [--bench FILE.json] [--out FILE.md] [--rates R1,R2,...] [--storage-month N]
                                [--prices NAME=VALUE,...] [--price-NAME VALUE ...]
                  --bench          the figures make bench wrote (default docs/benchmarks.json; .local/bench.json after ONLY=cost)
                  --out            default docs/capacity.md
                  --rates          datapoints/s to size for (default 1000,10000,100000)
                  --storage-month  the month of operation storage is shown for (default 12)
                  --prices         NAME=VALUE,... as BENCH_PRICES takes them (BENCH_PRICES itself is read first)
                prices (defaults: AWS list prices, us-east-1, arm64):
                """);
        for (Prices.Param p : Prices.params()) {
            sb.append(String.format(Locale.ROOT, "  --price-%-32s %-12s %s%n", p.name(), Prices.fmt(p.value()), p.what()));
        }
        return sb.toString();
    }

    /** The whole document. */
    static String render(CostModel.Inputs in, Map<String, Double> values, Prices prices, double[] rates, int month, String source)
            throws IOException {
        CostModel model = new CostModel(in, prices, month);
        StringBuilder md = new StringBuilder();
        md.append("# Capacity and cost\n\n");
        md.append("Generated by `make capacity` (`dev.pulse.bench.CapacityDoc`) from the units `make bench ONLY=cost` counted (")
                .append(source).append(") and the prices below. Every figure is a measured rate (units a datapoint, a series-hour,")
                .append(" a series-day, a builder run, a dashboard query) times the traffic of the rate, priced with list prices given")
                .append(" as parameters (`make capacity ARGS=\"--price-NAME VALUE ...\"`; `ARGS=--help` lists them). The benchmark's own cost line is the same")
                .append(" arithmetic (`CostModel`). How it is measured: the cost benchmark in [benchmarks.md](benchmarks.md).\n\n");
        md.append(String.format(Locale.ROOT, "Traffic shape (the measured mix): %s datapoints a series-minute, %s datapoints a"
                + " record of %s bytes; so %s active series per 1,000 datapoints/s. Storage is shown at month %d. Prices are"
                + " AWS list prices (us-east-1, arm64), not fetched: check them for your region.%n%n",
                Prices.fmt(round(in.get(CostModel.In.DP_PER_SERIES_MINUTE), 2)), Prices.fmt(round(in.get(CostModel.In.DP_PER_RECORD), 2)),
                CostModel.c(in.get(CostModel.In.RECORD_BYTES)), CostModel.c(model.series(1000)), month));

        List<CostModel.Bill> bills = new ArrayList<>();
        for (double r : rates) {
            bills.add(model.bill(r));
        }
        md.append("## Summary\n\n");
        md.append("| datapoints/s | series | on-demand $/month | $ per million datapoints | provisioned $/month | $ per million |"
                + " CloudWatch EMF $/month (x Pulse) | Amazon Managed Prometheus $/month (x Pulse) | before (341b57c) $/month, $ per million |\n");
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (CostModel.Bill b : bills) {
            Map<String, Double> before = CostModel.before(b.rate());
            Double beforeTotal = before.get("total in that model (no storage, no queries)");
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %.4f | %s | %.4f | %s (%.1fx) | %s (%.1fx) | %s |%n",
                    CostModel.c(b.rate()), CostModel.c(b.series()), CostModel.money(b.onDemand()), b.perMillionOnDemand(),
                    CostModel.money(b.provisioned()), b.perMillionProvisioned(), CostModel.money(b.cloudWatch()),
                    b.cloudWatch() / b.onDemand(), CostModel.money(b.prometheus()), b.prometheus() / b.onDemand(),
                    beforeTotal == null ? "n/a" : CostModel.money(beforeTotal) + String.format(Locale.ROOT, ", %.2f",
                            b.perMillion(beforeTotal))));
        }
        md.append("\nTargets of issue 12: <= $0.10 per million datapoints on-demand, <= $0.05 provisioned, >= 3x cheaper than"
                + " CloudWatch EMF at each rate:");
        for (CostModel.Bill b : bills) {
            boolean met = b.perMillionOnDemand() <= CostBench.TARGET_ON_DEMAND && b.perMillionProvisioned() <= CostBench.TARGET_PROVISIONED
                    && b.cloudWatch() / b.onDemand() >= CostBench.TARGET_CLOUDWATCH_RATIO;
            md.append(" ").append(CostModel.c(b.rate())).append("/s ").append(met ? "met" : "MISSED").append(';');
        }
        md.setLength(md.length() - 1);
        md.append(".\n\n");
        md.append("The totals price a provisioned Kinesis stream, as the previous model did. With the template's default"
                + " `StreamMode` ON_DEMAND (billed per GB, each record rounded up to 1 KB) the on-demand figure is instead:");
        for (CostModel.Bill b : bills) {
            md.append(String.format(Locale.ROOT, " %s/s %s a month, $%.4f a million;", CostModel.c(b.rate()),
                    CostModel.money(b.allOnDemand()), b.perMillion(b.allOnDemand())));
        }
        md.setLength(md.length() - 1);
        md.append(".\n\n");
        md.append("The before column is the previous design (every partial rebuilt its hour and its day) as docs/capacity.md had it"
                + " at commit 341b57c, checked by hand; that model left out storage and the query, shown below where known.\n\n");

        md.append("## Bytes stored per series-hour, by item type\n\n");
        double partial = in.get(CostModel.In.PARTIAL_BYTES_PER_SERIES_HOUR);
        double hourly = in.get(CostModel.In.HOURLY_BYTES_PER_SERIES_HOUR);
        double daily = in.get(CostModel.In.DAILY_BYTES_PER_SERIES_DAY) / 24;
        md.append("Item sizes by DynamoDB's rules, with its 100 bytes an item (what storage is billed on); one partial a"
                + " series-minute. Before: the previous design's items (partial 260 B, hourly 8,081 B, daily 15,010 B, measured"
                + " by the query benchmark at 341b57c).\n\n");
        md.append("| item | before B a series-hour | after B a series-hour | kept (TTL) | a series at month ").append(month).append(" |\n");
        md.append("|---|---:|---:|---|---:|\n");
        double days = 365.0 * month / 12;
        md.append(storageRow("minute partials", 360 * 60, partial, in.get(CostModel.In.PARTIAL_TTL_DAYS), days, "35 days before"));
        md.append(storageRow("hourly rollups", 8181, hourly, in.get(CostModel.In.HOURLY_TTL_DAYS), days, "400 days before"));
        md.append(storageRow("daily rollups", 15110 / 24.0, daily, in.get(CostModel.In.DAILY_TTL_DAYS), days, "3650 days before"));
        double afterSeries = (partial * 24 * Math.min(days, in.get(CostModel.In.PARTIAL_TTL_DAYS))
                + hourly * 24 * Math.min(days, in.get(CostModel.In.HOURLY_TTL_DAYS)) + daily * 24 * Math.min(days, in.get(CostModel.In.DAILY_TTL_DAYS))
                + in.get(CostModel.In.CATALOG_BYTES_PER_SERIES)) / 1e6;
        double beforeSeries = (360.0 * 60 * 24 * 35 + 8181.0 * 24 * Math.min(days, 400) + 15110.0 * Math.min(days, 3650)) / 1e6;
        md.append(String.format(Locale.ROOT, "| **all** (with the catalog, %s B a series) | %s | %s | | **%.1f MB** (before %.1f MB) |%n%n",
                CostModel.c(in.get(CostModel.In.CATALOG_BYTES_PER_SERIES)), CostModel.c(360 * 60 + 8181 + 15110 / 24.0),
                CostModel.c(partial + hourly + daily), afterSeries, beforeSeries));

        for (CostModel.Bill b : bills) {
            md.append("## ").append(CostModel.c(b.rate())).append(" datapoints/s\n\n");
            md.append(String.format(Locale.ROOT, "%s active series, Kinesis shards (provisioned): %s, %s million datapoints a month.%n%n",
                    CostModel.c(b.series()), CostModel.c(model.shards(b.rate())), CostModel.c(b.datapointsPerMonth() / 1e6)));
            md.append("| term | before $/month | after, on-demand $/month | after, provisioned $/month | quantity | arithmetic |\n");
            md.append("|---|---:|---:|---:|---:|---|\n");
            Map<String, Double> before = CostModel.before(b.rate());
            for (CostModel.Line l : b.lines()) {
                Double bf = before.get(l.term());
                String beforeText = bf == null ? "n/a" : Double.isNaN(bf) ? "not in the model"
                        : l.group() == CostModel.Group.STORAGE ? CostModel.money(bf) + " (not in the model)" : CostModel.money(bf);
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s %s | %s |%n", l.term(), beforeText,
                        CostModel.money(l.onDemand()), CostModel.money(l.provisioned()),
                        l.unit().equals("shards") ? CostModel.c(l.units()) : quantity(l.units()), l.unit(), l.arithmetic()));
            }
            Double bt = before.get("total in that model (no storage, no queries)");
            md.append(String.format(Locale.ROOT, "| **total** | %s | **%s** | **%s** | | |%n",
                    bt == null ? "n/a" : CostModel.money(bt) + " (no storage, no queries)", CostModel.money(b.onDemand()),
                    CostModel.money(b.provisioned())));
            md.append(String.format(Locale.ROOT, "| **$ per million datapoints** | %s | **%.4f** | **%.4f** | | |%n%n",
                    bt == null ? "n/a" : String.format(Locale.ROOT, "%.2f", b.perMillion(bt)), b.perMillionOnDemand(),
                    b.perMillionProvisioned()));
            md.append(String.format(Locale.ROOT, "- Kinesis ON_DEMAND (the template's default StreamMode) instead of the provisioned"
                    + " stream: %s a month rather than %s.%n", CostModel.money(b.kinesisOnDemand()),
                    CostModel.money(b.line("Kinesis (provisioned stream)").onDemand())));
            md.append("- CloudWatch EMF, same series and datapoints: ").append(CostModel.money(b.cloudWatch())).append(": ")
                    .append(b.cloudWatchArithmetic()).append(".\n");
            md.append("- Amazon Managed Prometheus: ").append(CostModel.money(b.prometheus())).append(": ")
                    .append(b.prometheusArithmetic()).append(".\n\n");
        }

        md.append("## Measured inputs\n\n");
        md.append("From the mix's run (`make bench ONLY=cost`); the daily build and item are the measured ones re-encoded with 24"
                + " hour summaries; the dashboard's read units are the steady state (see benchmarks.md).\n\n");
        md.append("| input | value | what |\n|---|---:|---|\n");
        for (CostModel.In i : CostModel.In.values()) {
            md.append(String.format(Locale.ROOT, "| `%s` | %s | %s |%n", i.key(), quantity(in.get(i)), i.what()));
        }
        if (values.containsKey("recording." + CostModel.In.DP_PER_RECORD.key())) {
            CostModel recModel = new CostModel(CostModel.Inputs.fromKeys(prefixed(values, "recording.")), prices, month);
            md.append("\nTraffic shaped like the bundled recording instead (").append(Prices.fmt(round(
                    recModel.inputs().get(CostModel.In.DP_PER_SERIES_MINUTE), 2))).append(" datapoints a series-minute, ")
                    .append(Prices.fmt(round(recModel.inputs().get(CostModel.In.DP_PER_RECORD), 2)))
                    .append(" a record: nearly one partial a datapoint), $ per million datapoints on-demand / provisioned:");
            for (double r : rates) {
                CostModel.Bill b = recModel.bill(r);
                md.append(String.format(Locale.ROOT, " %s/s %.4f / %.4f (CloudWatch EMF %.4f);", CostModel.c(r),
                        b.perMillionOnDemand(), b.perMillionProvisioned(), b.perMillion(b.cloudWatch())));
            }
            md.setLength(md.length() - 1);
            md.append(".\n");
        }

        md.append("\n## Parameters\n\n| parameter | value | what |\n|---|---:|---|\n");
        for (Prices.Param p : Prices.params()) {
            double v = prices.get(p.name());
            md.append(String.format(Locale.ROOT, "| `--price-%s` | %s%s | %s |%n", p.name(), Prices.fmt(v),
                    v == p.value() ? "" : " (default " + Prices.fmt(p.value()) + ")", p.what()));
        }
        md.append('\n').append(notes());
        return md.toString();
    }

    private static String storageRow(String item, double before, double after, double ttlDays, double days, String beforeTtl) {
        double kept = Math.min(days, ttlDays);
        return String.format(Locale.ROOT, "| %s | %s | %s | %s days (%s) | %.1f MB |%n", item, CostModel.c(before), CostModel.c(after),
                Prices.fmt(ttlDays), beforeTtl, after * 24 * kept / 1e6);
    }

    private static Map<String, Double> prefixed(Map<String, Double> values, String prefix) {
        Map<String, Double> out = new LinkedHashMap<>();
        values.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        return out;
    }

    private static String quantity(double v) {
        if (v == 0) {
            return "0";
        }
        if (Math.abs(v) >= 100) {
            return CostModel.c(v);
        }
        return Math.abs(v) >= 1 ? String.format(Locale.ROOT, "%.2f", v) : String.format(Locale.ROOT, "%.4f", v);
    }

    private static double round(double v, int decimals) {
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }

    /** The hand-written part: how to read the model. */
    static String notes() throws IOException {
        try (InputStream in = CapacityDoc.class.getResourceAsStream("capacity-notes.md")) {
            if (in == null) {
                throw new IOException("capacity-notes.md is missing from the bench class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
