#!/usr/bin/env python3
"""Generates the bundled load-test recording, events/replay/sample.ndjson.gz (deterministic).

One record per line, in arrival order, in the two formats the load generator replays:
- native datapoints (about 50,000) from 8 series with a diurnal shape (a quiet night, a morning ramp,
  a lunch peak) and short bursts, `ts` = the recorded arrival time;
- recorded Kinesis records `{"data": <base64>, "partitionKey", "arrival"}` whose data is a gzip CloudWatch
  Logs subscription payload with Lambda REPORT lines (cold and warm) and EMF documents, one every ~30 s.

The recording spans 24 hours starting --start (default 2026-11-20T00:00:00Z). Replayed in `rate` mode the
timestamps are irrelevant; in `recorded` mode their gaps set the pace (use `speed` to compress a day).
Usage: gen_replay.py [--start ISO] [--out PATH] [--datapoints N]
"""

import argparse
import base64
import gzip
import io
import json
import math
import random
import sys
from datetime import datetime, timezone

SERIES = [
    ("checkout.latency", {"service": "checkout", "op": "Pay"}, "Milliseconds", 40.0),
    ("checkout.latency", {"service": "checkout", "op": "Browse"}, "Milliseconds", 12.0),
    ("cart.items", {"service": "cart"}, "Count", 3.0),
    ("api.requests", {"route": "GET /items/{id}", "service": "catalog"}, "Count", 1.0),
    ("api.latency", {"route": "GET /items/{id}", "service": "catalog"}, "Milliseconds", 25.0),
    ("orders.value", {"service": "orders", "currency": "EUR"}, "None", 60.0),
    ("queue.depth", {"service": "worker"}, "Count", 100.0),
    ("login.failures", {"service": "auth"}, "Count", 0.2),
]


def diurnal(hour: float) -> float:
    """Relative traffic at an hour of the day: night trough, morning ramp, lunch and evening peaks."""
    return (
        0.15
        + 0.55 * math.exp(-(((hour - 12.5) / 3.0) ** 2))
        + 0.4 * math.exp(-(((hour - 19) / 2.5) ** 2))
        + 0.25 * max(0.0, math.sin((hour - 6) / 12 * math.pi))
    )


def cwlogs_record(rnd: random.Random, ts: int, cold: bool) -> dict:
    fn = rnd.choice(["checkout-api", "orders-worker"])
    duration = round(rnd.lognormvariate(3.5, 0.6), 2)
    report = (
        f"REPORT RequestId: {rnd.getrandbits(128):032x}\tDuration: {duration} ms\t"
        f"Billed Duration: {math.ceil(duration)} ms\tMemory Size: 512 MB\tMax Memory Used: {rnd.randint(80, 200)} MB\t"
    )
    if cold:
        report += f"Init Duration: {round(rnd.uniform(300, 900), 2)} ms\t"
    emf = {
        "_aws": {
            "Timestamp": ts,
            "CloudWatchMetrics": [
                {
                    "Namespace": "Checkout",
                    "Dimensions": [["service"]],
                    "Metrics": [{"Name": "Latency", "Unit": "Milliseconds"}],
                }
            ],
        },
        "service": "checkout",
        "Latency": [round(rnd.lognormvariate(3, 0.5), 2) for _ in range(3)],
    }
    payload = {
        "messageType": "DATA_MESSAGE",
        "owner": "123456789012",
        "logGroup": f"/aws/lambda/{fn}",
        "logStream": "2026/11/20/[$LATEST]0123456789abcdef",
        "subscriptionFilters": ["pulse"],
        "logEvents": [
            {"id": str(ts * 1000 + i), "timestamp": ts, "message": m}
            for i, m in enumerate([f"START RequestId: x Version: $LATEST\n", json.dumps(emf), report])
        ],
    }
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
        gz.write(json.dumps(payload, separators=(",", ":")).encode())
    return {"data": base64.b64encode(buf.getvalue()).decode(), "partitionKey": f"/aws/lambda/{fn}", "arrival": ts}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--start", default="2026-11-20T00:00:00Z")
    p.add_argument("--out", default="events/replay/sample.ndjson.gz")
    p.add_argument("--datapoints", type=int, default=50_000)
    a = p.parse_args()
    try:
        start = int(datetime.fromisoformat(a.start.replace("Z", "+00:00")).astimezone(timezone.utc).timestamp() * 1000)
    except ValueError:
        p.error(f"--start: not an ISO-8601 instant: {a.start}")
    rnd = random.Random(20261120)
    day = 86_400_000
    weights = [diurnal(h / 60) for h in range(24 * 60)]
    total = sum(weights)
    lines = []
    for minute, w in enumerate(weights):
        n = int(round(a.datapoints * w / total))
        if rnd.random() < 0.01:  # a burst: a retry storm or a batch job
            n *= 8
        for _ in range(n):
            ts = start + minute * 60_000 + rnd.randrange(60_000)
            name, dims, unit, base = rnd.choice(SERIES)
            value = round(rnd.lognormvariate(math.log(base + 1e-3), 0.5), 3)
            lines.append(
                (
                    ts,
                    json.dumps(
                        {"name": name, "dims": dims, "ts": ts, "value": value, "unit": unit}, separators=(",", ":")
                    ),
                )
            )
    for i, ts in enumerate(range(start, start + day, 30_000)):
        lines.append((ts, json.dumps(cwlogs_record(rnd, ts, cold=i % 40 == 0), separators=(",", ":"))))
    lines.sort(key=lambda t: t[0])
    with gzip.GzipFile(a.out, "wb", mtime=0) as out:
        for _, line in lines:
            out.write(line.encode() + b"\n")
    native = sum(1 for _, l in lines if l.startswith('{"name"'))
    print(f"{a.out}: {len(lines)} records ({native} native datapoints, {len(lines) - native} CloudWatch Logs payloads)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
