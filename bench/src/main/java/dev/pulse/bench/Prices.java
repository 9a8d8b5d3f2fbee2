package dev.pulse.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * List prices and the few assumptions the cost figures need, each a named parameter with its default (AWS list
 * prices, us-east-1, arm64, as docs/capacity.md had them at 341b57c; the CloudWatch and Amazon Managed Prometheus tiers as
 * issue 12 priced them). Not fetched: check them for your region. Given as {@code --price-NAME VALUE} to
 * {@link CapacityDoc}, or as {@code BENCH_PRICES="NAME=VALUE,..."} to {@code make bench ONLY=cost}.
 */
public final class Prices {

    /** AWS bills a month as 730 hours. */
    public static final double HOURS_PER_MONTH = 730;
    public static final double SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600;

    /** One parameter: name (as in the flag), default, what it is. */
    public record Param(String name, double value, String what) {
    }

    private static final List<Param> DEFAULTS = List.of(
            new Param("lambda-gb-s", 0.0000133334, "Lambda duration, per GB-second (arm64)"),
            new Param("lambda-million-requests", 0.20, "Lambda requests, per million"),
            new Param("ddb-million-wru", 0.625, "DynamoDB on-demand write request units, per million"),
            new Param("ddb-million-rru", 0.125, "DynamoDB on-demand read request units, per million"),
            new Param("ddb-wcu-hour", 0.00065, "DynamoDB provisioned write capacity unit, per hour"),
            new Param("ddb-rcu-hour", 0.00013, "DynamoDB provisioned read capacity unit, per hour"),
            new Param("ddb-provisioned-utilisation", 0.7, "provisioned capacity sized to this share of it (auto scaling's target)"),
            new Param("ddb-gb-month", 0.25, "DynamoDB storage (Standard table class), per GB-month"),
            new Param("ddb-pitr-gb-month", 0.20, "point-in-time recovery (template PointInTimeRecovery, on by default), per GB-month of table size"),
            new Param("shard-hour", 0.015, "Kinesis provisioned shard-hour"),
            new Param("put-payload-million", 0.014, "Kinesis PUT payload units (25 KB), per million"),
            new Param("shard-utilisation", 0.8, "provisioned shards sized to this share of a shard's limits"),
            new Param("kinesis-ondemand-stream-hour", 0.04, "Kinesis ON_DEMAND stream-hour (shown beside the provisioned stream)"),
            new Param("kinesis-ondemand-gb-in", 0.08, "Kinesis ON_DEMAND data in, per GB (records rounded up to 1 KB)"),
            new Param("kinesis-ondemand-gb-out", 0.04, "Kinesis ON_DEMAND data retrieved, per GB"),
            new Param("logs-gb", 0.50, "CloudWatch Logs ingestion, per GB (EMF documents and log lines)"),
            new Param("api-million-requests", 1.00, "API Gateway HTTP API, per million requests"),
            new Param("cw-metric-tier1", 0.30, "CloudWatch custom metric-month, first 10,000 metrics"),
            new Param("cw-metric-tier2", 0.10, "CloudWatch custom metric-month, next 240,000"),
            new Param("cw-metric-tier3", 0.05, "CloudWatch custom metric-month, next 750,000"),
            new Param("cw-metric-tier4", 0.02, "CloudWatch custom metric-month, over 1,000,000"),
            new Param("cw-emf-bytes-per-datapoint", 100, "EMF log bytes a datapoint costs when sent to CloudWatch (issue 12's figures)"),
            new Param("cw-get-metric-data-per-1000", 0.01, "CloudWatch GetMetricData, per 1,000 metrics requested (the dashboard)"),
            new Param("amp-ingest-tier1-per-10m", 0.90, "Amazon Managed Prometheus samples ingested, per 10 million, first 2 billion"),
            new Param("amp-ingest-tier2-per-10m", 0.35, "AMP samples, per 10 million, next 250 billion"),
            new Param("amp-ingest-tier3-per-10m", 0.16, "AMP samples, per 10 million, over 252 billion"),
            new Param("amp-gb-month", 0.03, "AMP storage, per GB-month"),
            new Param("amp-bytes-per-sample", 2, "AMP storage a sample takes (assumption)"),
            new Param("amp-retention-days", 150, "AMP retention (its default)"),
            new Param("amp-query-per-billion-samples", 0.10, "AMP query samples processed, per billion"),
            new Param("container-lifetime-hours", 6, "how long an ingest container lives: it writes its series' catalog entries once"));

    private final Map<String, Double> values;

    private Prices(Map<String, Double> values) {
        this.values = values;
    }

    /** The defaults. */
    public static Prices defaults() {
        return with(Map.of());
    }

    /** The defaults with {@code overrides} (names as in {@link #params()}); an unknown name is an error. */
    public static Prices with(Map<String, Double> overrides) {
        Map<String, Double> v = new LinkedHashMap<>();
        DEFAULTS.forEach(p -> v.put(p.name(), p.value()));
        overrides.forEach((k, x) -> {
            if (!v.containsKey(k)) {
                throw new IllegalArgumentException("no price parameter '" + k + "'; known: " + String.join(", ", v.keySet()));
            }
            if (!(x >= 0) || Double.isInfinite(x)) {
                throw new IllegalArgumentException("price parameter " + k + " must be a number >= 0, got " + x);
            }
            v.put(k, x);
        });
        return new Prices(v);
    }

    /** {@code "a=1,b=2"} (the {@code BENCH_PRICES} form); blank means the defaults. */
    public static Prices parse(String spec) {
        Map<String, Double> o = new LinkedHashMap<>();
        if (spec != null && !spec.isBlank()) {
            for (String pair : spec.split(",")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("expected NAME=VALUE, got '" + pair.strip() + "'");
                }
                String name = pair.substring(0, eq).strip();
                try {
                    o.put(name, Double.parseDouble(pair.substring(eq + 1).strip()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("price parameter " + name + " must be a number, got '"
                            + pair.substring(eq + 1).strip() + "'");
                }
            }
        }
        return with(o);
    }

    public static List<Param> params() {
        return DEFAULTS;
    }

    public double get(String name) {
        Double v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no price parameter " + name);
        }
        return v;
    }

    /** Every parameter with its value, in declaration order. */
    public Map<String, Double> values() {
        return java.util.Collections.unmodifiableMap(values);
    }

    /** The parameters that differ from the defaults. */
    public Map<String, Double> changed() {
        Map<String, Double> out = new LinkedHashMap<>();
        for (Param p : DEFAULTS) {
            if (values.get(p.name()) != p.value()) {
                out.put(p.name(), values.get(p.name()));
            }
        }
        return out;
    }

    /** The parameters that differ from the defaults, as {@code name=value,...} (empty when none). */
    public String overrides() {
        StringBuilder sb = new StringBuilder();
        for (Param p : DEFAULTS) {
            double v = values.get(p.name());
            if (v != p.value()) {
                sb.append(sb.isEmpty() ? "" : ",").append(p.name()).append('=').append(fmt(v));
            }
        }
        return sb.toString();
    }

    static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.format(Locale.ROOT, "%.0f", v)
                : String.format(Locale.ROOT, "%s", v);
    }

    // --- Tiered prices of the alternatives -------------------------------------------------------------------

    /** CloudWatch custom metrics a month for {@code metrics} metrics (each series is one metric), tiered. */
    public double cloudWatchMetricsMonth(double metrics) {
        return tiered(metrics, new double[] {10_000, 240_000, 750_000},
                new double[] {get("cw-metric-tier1"), get("cw-metric-tier2"), get("cw-metric-tier3"), get("cw-metric-tier4")});
    }

    /** Amazon Managed Prometheus ingestion of {@code samples} samples in a month, tiered. */
    public double ampIngestMonth(double samples) {
        return tiered(samples, new double[] {2e9, 250e9},
                new double[] {get("amp-ingest-tier1-per-10m") / 1e7, get("amp-ingest-tier2-per-10m") / 1e7,
                    get("amp-ingest-tier3-per-10m") / 1e7});
    }

    /**
     * {@code quantity} priced by tiers: the first {@code sizes[0]} at {@code prices[0]}, the next {@code sizes[1]}
     * at {@code prices[1]}, ..., the rest at the last price.
     */
    static double tiered(double quantity, double[] sizes, double[] prices) {
        if (prices.length != sizes.length + 1) {
            throw new IllegalArgumentException("one price more than tier sizes expected");
        }
        double left = Math.max(0, quantity);
        double cost = 0;
        for (int i = 0; i < sizes.length && left > 0; i++) {
            double in = Math.min(left, sizes[i]);
            cost += in * prices[i];
            left -= in;
        }
        return cost + left * prices[prices.length - 1];
    }
}
