#!/usr/bin/env python3
"""docs/capacity.md from the measured figures in docs/benchmarks.json and list prices given as parameters.

    python3 scripts/capacity.py [--bench docs/benchmarks.json] [--out docs/capacity.md] [--price-... VALUE ...]

Every price and traffic assumption is a flag (defaults: AWS list prices, us-east-1, arm64, as of 2026-11; check
https://aws.amazon.com/{kinesis/data-streams,lambda,dynamodb,cloudwatch}/pricing/ for yours). The document shows
the arithmetic, so a reader can redo it with their own numbers.
"""
import argparse
import json
import math
import sys
from pathlib import Path

SECONDS_PER_MONTH = 730 * 3600  # AWS bills a month as 730 hours


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", default="docs/benchmarks.json", help="figures written by make bench")
    p.add_argument("--out", default="docs/capacity.md")
    p.add_argument("--rates", default="1000,10000,100000", help="datapoints/s to size for (comma-separated)")
    # Traffic shape.
    p.add_argument("--datapoints-per-record", type=float, default=10, help="datapoints in one Kinesis record")
    p.add_argument("--record-bytes", type=float, default=1000, help="average Kinesis record size")
    p.add_argument("--datapoints-per-series-minute", type=float, default=10,
                   help="datapoints a series sends per minute (a 6 s period); active series = rate x 60 / this")
    p.add_argument("--partials-per-series-minute", type=float, default=1,
                   help="batches a series' minute is split over (1: its minute arrives in one record, as EMF arrays "
                        "and agents that flush once a minute send it)")
    p.add_argument("--shard-utilisation", type=float, default=0.8, help="provisioned shards sized to this share of a limit")
    p.add_argument("--batch-size", type=float, default=500, help="template BatchSize")
    p.add_argument("--batching-window-s", type=float, default=1, help="template MaximumBatchingWindowInSeconds")
    p.add_argument("--ingest-memory-mb", type=float, default=1024)
    p.add_argument("--compact-memory-mb", type=float, default=1024)
    p.add_argument("--compact-ms-per-target", type=float, default=6,
                   help="CompactFunction time per (series, hour) recomputed (not benchmarked: an estimate, see the text)")
    p.add_argument("--partial-item-bytes", type=float, default=260, help="a minute partial item")
    p.add_argument("--emf-bytes", type=float, default=1500, help="one EMF document (one per invocation)")
    # Prices.
    p.add_argument("--price-shard-hour", type=float, default=0.015)
    p.add_argument("--price-put-payload-million", type=float, default=0.014, help="per million 25 KB PUT payload units")
    p.add_argument("--price-lambda-gb-s", type=float, default=0.0000133334, help="arm64")
    p.add_argument("--price-lambda-million-requests", type=float, default=0.20)
    p.add_argument("--price-ddb-million-wru", type=float, default=0.625, help="on-demand write request units")
    p.add_argument("--price-ddb-million-rru", type=float, default=0.125, help="on-demand read request units")
    p.add_argument("--price-ddb-gb-month", type=float, default=0.25)
    p.add_argument("--price-logs-gb", type=float, default=0.50, help="CloudWatch Logs ingestion")
    return p.parse_args(argv)


def figures(path):
    data = json.loads(Path(path).read_text())
    b = data["benchmarks"]

    def value(bench, key):
        v = b.get(bench, {}).get("values", {}).get(key)
        if v is None:
            sys.exit(f"capacity: {path} has no {bench}.{key}; run make bench first")
        return v

    e2e_ms = value("ingest-end-to-end", "batchMillis")
    e2e_records = value("ingest-end-to-end", "records")
    return {
        "source": f"{path} ({data['date']}, commit {data['commit']})",
        "ingest_ms_per_record": e2e_ms / e2e_records,
        "e2e_batch_ms": e2e_ms, "e2e_records": e2e_records,
        "decode_dps": value("ingest-decode", "ndjsonDatapointsPerSecond"),
        "hourly_bytes": value("query", "hourlyItemBytes"),
        "daily_bytes": value("query", "dailyItemBytes"),
        "query_cold_ms": value("query", "coldQueryMillis"),
    }


def units(size_bytes, unit_bytes):
    return max(1, math.ceil(size_bytes / unit_bytes))


def size(rate, a, f):
    """Everything for one rate (datapoints/s); returns rows of (what, arithmetic, value)."""
    rows = []
    rec_s = rate / a.datapoints_per_record
    mb_s = rec_s * a.record_bytes / 1e6
    shards = math.ceil(max(rec_s / 1000, mb_s / 1.0) / a.shard_utilisation)
    rows.append(("records/s", f"{rate:,.0f} / {a.datapoints_per_record:g} datapoints a record", rec_s))
    rows.append(("Kinesis shards (provisioned)",
                 f"ceil(max({rec_s:,.0f}/1,000 records, {mb_s:.2f}/1 MB) / {a.shard_utilisation:g})", shards))
    put_units = rec_s * units(a.record_bytes, 25_000)
    kinesis = shards * a.price_shard_hour * 730 + put_units * SECONDS_PER_MONTH / 1e6 * a.price_put_payload_million
    rows.append(("Kinesis $/month", f"{shards} x {a.price_shard_hour} x 730 h + {put_units:,.0f} PUT units/s x 2.63M s"
                 f" x ${a.price_put_payload_million}/M", kinesis))

    # Ingest: one batch in flight per shard; its duration scales with the records in it.
    per_shard = rec_s / shards
    batch = min(a.batch_size, max(1.0, per_shard * a.batching_window_s))
    busy = per_shard * f["ingest_ms_per_record"] / 1000
    invocations_s = rec_s / batch
    gb_s = rec_s * f["ingest_ms_per_record"] / 1000 * a.ingest_memory_mb / 1024
    rows.append(("ingest records a batch", f"min({a.batch_size:g}, {per_shard:,.0f} records/s a shard x {a.batching_window_s:g} s window)", batch))
    rows.append(("ingest busy share of each shard's one invocation slot",
                 f"{per_shard:,.0f} records/s x {f['ingest_ms_per_record']:.3f} ms a record (measured)", busy))
    rows.append(("ingest concurrency", f"{shards} shards x ParallelizationFactor 1" + (" (raise it: busy > 1)" if busy > 1 else ""), shards))
    lam_ingest = gb_s * SECONDS_PER_MONTH * a.price_lambda_gb_s + invocations_s * SECONDS_PER_MONTH / 1e6 * a.price_lambda_million_requests
    rows.append(("ingest Lambda $/month", f"{gb_s:.3f} GB-s/s x 2.63M s x ${a.price_lambda_gb_s} + {invocations_s:,.1f} invocations/s x 2.63M s x ${a.price_lambda_million_requests}/M", lam_ingest))

    # DynamoDB: minute partials from ingest; compaction recomputes a (series, hour) and its day per changed partial.
    series = rate * 60 / a.datapoints_per_series_minute
    partials_s = series / 60 * a.partials_per_series_minute
    avg_hourly = f["hourly_bytes"] / 2   # an hour is half full on average while it is being written
    avg_day_reads = 12 * f["hourly_bytes"]  # the day's recompute reads its (on average 12) hourly items
    wru_s = partials_s * (units(a.partial_item_bytes, 1024) + units(avg_hourly, 1024) + units(f["daily_bytes"] / 2, 1024))
    rru_s = partials_s * (units(30 * a.partial_item_bytes * a.partials_per_series_minute, 4096)
                          + units(avg_day_reads, 4096))
    rows.append(("active series", f"{rate:,.0f} x 60 / {a.datapoints_per_series_minute:g} datapoints a series-minute", series))
    rows.append(("partial items written/s", f"{series:,.0f} / 60 x {a.partials_per_series_minute:g}", partials_s))
    rows.append(("write request units/s",
                 f"{partials_s:,.0f} x (partial {units(a.partial_item_bytes, 1024)} + hourly {units(avg_hourly, 1024)}"
                 f" + daily {units(f['daily_bytes'] / 2, 1024)}) (hourly item full: {f['hourly_bytes']:,.0f} B, measured)", wru_s))
    rows.append(("read request units/s (strongly consistent)",
                 f"{partials_s:,.0f} x (hour's partials {units(30 * a.partial_item_bytes * a.partials_per_series_minute, 4096)}"
                 f" + day's hourly items {units(avg_day_reads, 4096)})", rru_s))
    ddb = (wru_s * a.price_ddb_million_wru + rru_s * a.price_ddb_million_rru) * SECONDS_PER_MONTH / 1e6
    rows.append(("DynamoDB on-demand $/month (requests)",
                 f"({wru_s:,.0f} WRU x ${a.price_ddb_million_wru} + {rru_s:,.0f} RRU x ${a.price_ddb_million_rru}) /M x 2.63M s", ddb))
    gb_month = series * 24 * 30 * (f["hourly_bytes"] + f["daily_bytes"] / 24) / 1e9
    rows.append(("rollup storage added a month (GB)", f"{series:,.0f} series x 720 h x ({f['hourly_bytes']:,.0f} + {f['daily_bytes']:,.0f}/24) B", gb_month))

    compact_gb_s = partials_s * a.compact_ms_per_target / 1000 * a.compact_memory_mb / 1024
    compact_inv_s = partials_s / a.batch_size + shards  # at least one per shard-equivalent stream shard and window
    lam_compact = compact_gb_s * SECONDS_PER_MONTH * a.price_lambda_gb_s + compact_inv_s * SECONDS_PER_MONTH / 1e6 * a.price_lambda_million_requests
    rows.append(("compact Lambda $/month (estimate)", f"{partials_s:,.0f} targets/s x {a.compact_ms_per_target:g} ms x {a.compact_memory_mb/1024:g} GB", lam_compact))
    logs = (invocations_s + compact_inv_s) * a.emf_bytes * SECONDS_PER_MONTH / 1e9 * a.price_logs_gb
    rows.append(("CloudWatch Logs (EMF) $/month", f"{invocations_s + compact_inv_s:,.1f} invocations/s x {a.emf_bytes:g} B x ${a.price_logs_gb}/GB", logs))
    total = kinesis + lam_ingest + ddb + lam_compact + logs
    rows.append(("**total $/month** (excluding storage and the query API)", "sum of the $ rows", total))
    return rows


def render(a, f):
    out = ["# Capacity and cost", "",
           "Generated by `python3 scripts/capacity.py` from the figures `make bench` measured"
           f" ({f['source']}) and the parameters below; change any of them with the script's flags"
           " (`python3 scripts/capacity.py --help`). Prices are AWS list prices (us-east-1, arm64) given as"
           " parameters, not fetched: check them for your region.", "",
           "## Parameters", "", "| parameter | value |", "|---|---|"]
    for k, v in sorted(vars(a).items()):
        if k not in ("bench", "out"):
            out.append(f"| `--{k.replace('_', '-')}` | {v} |")
    out += ["", "## Measured inputs", "",
            f"- ingest: a {f['e2e_records']:,.0f}-record batch through IngestHandler into DynamoDB Local took"
            f" {f['e2e_batch_ms']:,.0f} ms: **{f['ingest_ms_per_record']:.3f} ms a record** (ingest-end-to-end).",
            f"- decode alone: {f['decode_dps']:,.0f} datapoints/s on one thread (ingest-decode).",
            f"- a full hourly rollup item {f['hourly_bytes']:,.0f} bytes, a daily item {f['daily_bytes']:,.0f} bytes (query).",
            ""]
    for rate in [float(r) for r in a.rates.split(",")]:
        out += [f"## {rate:,.0f} datapoints/s", "", "| what | arithmetic | value |", "|---|---|---|"]
        for what, how, value in size(rate, a, f):
            shown = f"{value:,.0f}" if abs(value) >= 100 or float(value).is_integer() else f"{value:,.2f}"
            out.append(f"| {what} | {how} | {shown} |")
        out.append("")
    return "\n".join(out)


def main(argv):
    a = parse_args(argv)
    f = figures(a.bench)
    text = render(a, f)
    Path(a.out).write_text(text + "\n" + Path(__file__).with_name("capacity-notes.md").read_text())
    print(f"capacity: wrote {a.out}")


if __name__ == "__main__":
    main(sys.argv[1:])
