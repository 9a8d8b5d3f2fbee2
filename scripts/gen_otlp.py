#!/usr/bin/env python3
"""Generate OTLP metrics fixtures with the OpenTelemetry Python SDK and its OTLP encoder (encode_metrics).

Usage (needs the pinned packages of requirements-dev.txt, e.g. /work/main/.venv/bin/python):
    python scripts/gen_otlp.py                       # writes the committed fixtures
    python scripts/gen_otlp.py --out DIR --events-out DIR2

Writes, all from one SDK collection of the instruments below:
    OUT/metrics.pb           ExportMetricsServiceRequest, protobuf (the exporter's otlp_proto)
    OUT/metrics.json         the same request as OTLP/JSON (the exporter's otlp_json): protobuf's JSON mapping
                             with lowerCamelCase names and enums as integers, as the OTLP/JSON spec asks
    OUT/metrics.pb.gz        protobuf, then compressed the way the Collector's awskinesis exporter does it
    OUT/metrics.pb.zlib      (encoding.compression gzip / zlib / flate, BestSpeed): the compressor is
    OUT/metrics.pb.flate     flushed, never closed, so the streams carry no trailer (no CRC/Adler, no final block)
    OUT/metrics.json.gz      OTLP/JSON gzip-compressed the same way
    EVENTS/ingest-kinesis-otlp.json  a Kinesis event with those records (base64) for `make invoke`
    EVENTS/expected/ingest-kinesis-otlp.json  what ingesting it must store (the format of scripts/gen_events.py)

Instruments (the Java tests assert these numbers; keep them in step):
    requests          Counter, delta               route=/pay: 1+2+3 = 6;  route=/refund: 4
    queue.depth       UpDownCounter, cumulative    +10 -3 = 7 (a sample of the running total)
    temperature       Gauge                        21.5
    latency           Histogram ms, delta, explicit buckets [0,5,10,25,50,75,100,250,500,1000]:
                      3, 7, 12, 15, 40, 250 -> count 6, sum 327, min 3, max 250
    payload.size      Histogram By, delta, exponential buckets (max_size 160):
                      100, 200, 300, 1000, 5000 -> count 5, sum 6600, min 100, max 5000
    rpc.duration      Summary (the SDK has no summary instrument, so it is added with the official OTLP
                      protobuf classes): count 4, sum 10.5, quantiles 0 -> 0.5, 1 -> 6.0

The SDK stamps the collection time; every time_unix_nano is then set to a fixed instant (TIME below, start
times one minute earlier) so the files are the same on every run and pass the ingest window in tests that use
it as the reference time. Values and attributes are the SDK's own.
"""

import argparse
import math
import base64
import json
import os
import sys
import zlib

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.metrics_encoder import encode_metrics
from opentelemetry.proto.metrics.v1 import metrics_pb2
from opentelemetry.sdk.metrics import (
    Counter,
    Histogram,
    MeterProvider,
    ObservableCounter,
    ObservableUpDownCounter,
    UpDownCounter,
)
from opentelemetry.sdk.metrics.export import AggregationTemporality, InMemoryMetricReader
from opentelemetry.sdk.metrics.view import (
    ExplicitBucketHistogramAggregation,
    ExponentialBucketHistogramAggregation,
    View,
)
from opentelemetry.sdk.resources import Resource

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_events as g  # noqa: E402  (same folder: series keys and percentile ranks stay one definition)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIME_NS = 1795262400_000_000_000  # 2026-11-21T12:00:00Z
START_NS = TIME_NS - 60_000_000_000


def collect():
    # Delta for counters and histograms, as Pulse wants them (the Collector's cumulativetodelta does the same
    # for producers that only speak cumulative); the up-down counter stays cumulative on purpose.
    reader = InMemoryMetricReader(
        preferred_temporality={
            Counter: AggregationTemporality.DELTA,
            Histogram: AggregationTemporality.DELTA,
            ObservableCounter: AggregationTemporality.DELTA,
            UpDownCounter: AggregationTemporality.CUMULATIVE,
            ObservableUpDownCounter: AggregationTemporality.CUMULATIVE,
        }
    )
    views = [
        View(
            instrument_name="latency",
            aggregation=ExplicitBucketHistogramAggregation(boundaries=(0, 5, 10, 25, 50, 75, 100, 250, 500, 1000)),
        ),
        View(instrument_name="payload.size", aggregation=ExponentialBucketHistogramAggregation(max_size=160)),
    ]
    # A fixed instance id: the SDK draws a random one per process, which would change the files on every run.
    resource = Resource.create(
        {"service.name": "checkout", "deployment.environment": "test", "service.instance.id": "fixture-1"}
    )
    provider = MeterProvider(resource=resource, metric_readers=[reader], views=views)
    meter = provider.get_meter("pulse.fixtures", "1.0")

    requests = meter.create_counter("requests", unit="{request}")
    for v in (1, 2, 3):
        requests.add(v, {"route": "/pay"})
    requests.add(4, {"route": "/refund"})
    depth = meter.create_up_down_counter("queue.depth")
    depth.add(10)
    depth.add(-3)
    meter.create_gauge("temperature", unit="Cel").set(21.5, {"room": "lab"})
    latency = meter.create_histogram("latency", unit="ms")
    for v in (3, 7, 12, 15, 40, 250):
        latency.record(v, {"route": "/pay"})
    # Enough values in enough buckets that most percentiles come from the buckets, not from the exact min and max.
    for v in SEARCH_LATENCIES:
        latency.record(v, {"route": "/search"})
    size = meter.create_histogram("payload.size", unit="By")
    for v in (100, 200, 300, 1000, 5000):
        size.record(v)

    request = encode_metrics(reader.get_metrics_data())
    provider.shutdown()
    add_summary(request)
    fix_times(request)
    return request


def add_summary(request):
    scope = request.resource_metrics[0].scope_metrics[0]
    metric = scope.metrics.add(name="rpc.duration", unit="s", description="a summary, as Prometheus clients send")
    dp = metric.summary.data_points.add(count=4, sum=10.5)
    dp.quantile_values.add(quantile=0.0, value=0.5)
    dp.quantile_values.add(quantile=1.0, value=6.0)
    dp.attributes.add(key="method", value={"string_value": "Get"})


def fix_times(request):
    for rm in request.resource_metrics:
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                kind = m.WhichOneof("data")
                for dp in getattr(m, kind).data_points:
                    dp.time_unix_nano = TIME_NS
                    dp.start_time_unix_nano = START_NS


def exporter_compress(data, wbits):
    # Go's compress/* writers at BestSpeed, Flush()ed and never Closed, as the awskinesis exporter's compressor
    # does: a sync flush ends the data, with no trailer after it.
    c = zlib.compressobj(1, zlib.DEFLATED, wbits)
    return c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)


# What one record must store, by series, from the values recorded above, not from the decoder: the raw values
# of one record and how they reach the sketch ("sample": as themselves; "explicit"/"exponential": through the
# histogram's buckets, docs/otlp-input.md "Histogram accuracy"). Resource dims: service.name and
# deployment.environment (telemetry.sdk.* and service.instance.id are left out by Pulse's rule).
RESOURCE_DIMS = {"service.name": "checkout", "deployment.environment": "test"}
LATENCY_BOUNDS = (0, 5, 10, 25, 50, 75, 100, 250, 500, 1000)
SEARCH_LATENCIES = [round(1.5 * i**1.7, 3) for i in range(1, 41)]  # 1.5 .. 795, across 9 buckets
PER_RECORD = [
    ("requests", {"route": "/pay"}, [6.0], "sample"),
    ("requests", {"route": "/refund"}, [4.0], "sample"),
    ("queue.depth", {}, [7.0], "sample"),
    ("temperature", {"room": "lab"}, [21.5], "sample"),
    ("latency", {"route": "/pay"}, [3.0, 7.0, 12.0, 15.0, 40.0, 250.0], "explicit"),
    ("latency", {"route": "/search"}, SEARCH_LATENCIES, "explicit"),
    ("payload.size", {}, [100.0, 200.0, 300.0, 1000.0, 5000.0], "exponential"),
    ("rpc.duration.count", {"method": "Get"}, [4.0], "sample"),
    ("rpc.duration.sum", {"method": "Get"}, [10.5], "sample"),
]
SKETCH = g.SKETCH_RELATIVE_ACCURACY


def tolerance(kind, values, v, scale):
    """How far the API's percentile may be from the exact order statistic v, by docs/otlp-input.md."""
    ordered = sorted(values)
    if kind == "sample":
        return SKETCH * abs(v)
    if kind == "exponential":
        # v is in (base^i, base^(i+1)] and enters at base^(i+1/2) (sqrt(base) - 1 relative), and the sketch moves
        # that by 1% more: compounded, sqrt(base) x 1.01 - 1.
        base = 2.0 ** (2.0**-scale)
        return abs(v) * (math.sqrt(base) * (1 + SKETCH) - 1)
    # Explicit buckets: the bucket holding v, narrowed by the exact min and max, enters at its middle (half its
    # width from any value in it), then the sketch's 1%.
    edges = [-math.inf, *LATENCY_BOUNDS, math.inf]
    i = next(k for k in range(1, len(edges)) if v <= edges[k])
    low, high = max(edges[i - 1], ordered[0]), min(edges[i], ordered[-1])
    return (high - low) / 2 + SKETCH * max(abs(low), abs(high))


def exponential_scale(request):
    for rm in request.resource_metrics:
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                if m.name == "payload.size":
                    return m.exponential_histogram.data_points[0].scale
    raise AssertionError("payload.size is not an exponential histogram")


def expected(records, scale):
    minute = (TIME_NS // 1_000_000) // 60_000 * 60_000
    series = {}
    for name, dims, per_record, kind in PER_RECORD:
        values = sorted(per_record * records)
        percentiles = {}
        for label, q in g.PERCENTILES:
            r = g.nearest_rank(len(values), q)
            v = values[r - 1]
            # The lowest and the highest rank are answered with the exact min and max.
            exact = r in (1, len(values))
            percentiles[label] = {"value": v, "tolerance": 0.0 if exact else tolerance(kind, values, v, scale)}
        series[g.series_key(name, {**RESOURCE_DIMS, **dims})] = {
            str(minute): {
                "count": len(values),
                "max": max(values),
                "min": min(values),
                "sum": math.fsum(values),
                "percentiles": percentiles,
            }
        }
    return {
        "datapoints": len(PER_RECORD) * records,
        "now": TIME_NS // 1_000_000,
        "poisonRecords": 0,
        "poisonSequenceNumbers": [],
        "records": records,
        "series": series,
        "skippedEvents": 0,
    }


def kinesis_event(records):
    out = []
    for i, (key, data) in enumerate(records, start=1):
        seq = "49590338271490256608559692538361571095921575989150%06d" % i
        out.append(
            {
                "kinesis": {
                    "kinesisSchemaVersion": "1.0",
                    "partitionKey": key,
                    "sequenceNumber": seq,
                    "data": base64.b64encode(data).decode("ascii"),
                    "approximateArrivalTimestamp": TIME_NS / 1e9 + 1.5,
                },
                "eventSource": "aws:kinesis",
                "eventVersion": "1.0",
                "eventID": "shardId-000000000000:" + seq,
                "eventName": "aws:kinesis:record",
                "invokeIdentityArn": "arn:aws:iam::123456789012:role/pulse-ingest",
                "awsRegion": "us-east-1",
                "eventSourceARN": "arn:aws:kinesis:us-east-1:123456789012:stream/pulse-stream",
            }
        )
    return {"Records": out}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "layers/common/src/test/resources/otlp"))
    ap.add_argument("--events-out", default=os.path.join(ROOT, "events"))
    args = ap.parse_args()
    request = collect()
    pb = request.SerializeToString(deterministic=True)
    js = json.dumps(json_format.MessageToDict(request, use_integers_for_enums=True), separators=(",", ":")).encode(
        "utf-8"
    )
    files = {
        "metrics.pb": pb,
        "metrics.json": js,
        "metrics.pb.gz": exporter_compress(pb, 31),
        "metrics.pb.zlib": exporter_compress(pb, 15),
        "metrics.pb.flate": exporter_compress(pb, -15),
        "metrics.json.gz": exporter_compress(js, 31),
    }
    os.makedirs(args.out, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(args.out, name), "wb") as f:
            f.write(data)
    os.makedirs(args.events_out, exist_ok=True)
    # Two records: otlp_proto with gzip and otlp_json uncompressed, so `make invoke` shows both paths.
    event = kinesis_event([("otlp-proto-gzip", files["metrics.pb.gz"]), ("otlp-json", js)])
    with open(os.path.join(args.events_out, "ingest-kinesis-otlp.json"), "w") as f:
        json.dump(event, f, indent=2)
        f.write("\n")
    # The same expectations file scripts/gen_events.py writes for its events (IngestHandlerIT reads it).
    os.makedirs(os.path.join(args.events_out, "expected"), exist_ok=True)
    with open(os.path.join(args.events_out, "expected", "ingest-kinesis-otlp.json"), "w") as f:
        json.dump(expected(len(event["Records"]), exponential_scale(request)), f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
