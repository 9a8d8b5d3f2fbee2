#!/usr/bin/env python3
"""Generate Lambda event fixtures for Pulse's IngestFunction (Kinesis) and CompactFunction (schedule).

Usage:
    python3 scripts/gen_events.py                 # fixed instant 2026-11-21T12:00:00Z (committed files)
    python3 scripts/gen_events.py --now now       # current time: timestamps pass the live ingest window
    python3 scripts/gen_events.py --now 2026-12-01T08:30:00Z --out /tmp/events

Options:
    --now INSTANT   ISO-8601 instant ("2026-11-21T12:00:00Z", "...T12:00:00.250+00:00"; a value
                    without an offset is taken as UTC), or the word "now" for the current time
                    (truncated to the millisecond). Default: 2026-11-21T12:00:00Z.
    --out DIR       Output folder. Default: the repository's events/ folder.

Writes (Python 3.11 standard library only, byte-identical for the same --now):
    DIR/ingest-kinesis-native.json   native datapoints (DESIGN.md input format A): a single object,
                                     a JSON array, NDJSON, an ISO-8601 "ts", dims in another key
                                     order for the same series, and a datapoint without dims/unit
    DIR/ingest-kinesis-cwlogs.json   gzip CloudWatch Logs subscription payloads (format B): EMF
                                     documents, Lambda REPORT lines (cold and warm), START/END and
                                     plain log lines (skipped), and one CONTROL_MESSAGE record
    DIR/ingest-kinesis-poison.json   good native records with exactly one undecodable record
    DIR/compact-scheduled.json       the EventBridge "Scheduled Event" the rule of CompactFunction's Schedule
                                     event (Build) sends, at --now (to the second); no expectations file
    DIR/expected/<same name>.json    what ingesting each event must produce:
        {"now": epoch ms, "records": N, "poisonRecords": K, "poisonSequenceNumbers": [...],
         "skippedEvents": S, "datapoints": D,
         "series": {"<canonical key>": {"<minute start epoch ms>":
                                        {"count": c, "sum": s, "min": lo, "max": hi}}}}

The expectations are computed from the same in-memory datapoints that get encoded, so they
cannot drift from the events. Sums are exact (math.fsum: the correctly rounded sum of the values),
which is what the pipeline stores whatever order it adds them in, so tests compare them exactly. Canonical series key: name{k1=v1,k2=v2}, dims sorted by
key, the characters { } = , \\ escaped with a backslash, no dims -> name{}.

Every ingest event is a real-shaped Lambda Kinesis event; sequence numbers are 56-digit decimal strings
(fixed prefix + zero-padded counter, a separate block per file) that increase strictly within
shardId-000000000000 and sort the same as strings and as numbers. All datapoint timestamps lie in
the few minutes before --now, inside the default ingest window now-14d .. now+2h.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import gzip
import hashlib
import json
import math
import sys
import uuid
from pathlib import Path
from typing import Any

DEFAULT_NOW = "2026-11-21T12:00:00Z"
ACCOUNT = "123456789012"
REGION = "us-east-1"
SHARD_ID = "shardId-000000000000"
STREAM_ARN = f"arn:aws:kinesis:{REGION}:{ACCOUNT}:stream/pulse-stream"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/pulse-ingest"
SCHEDULE_RULE = "pulse-CompactFunctionBuild-1J8Q3ZKX0V7RD"

SEQ_PREFIX = "4959033827149025660855969253836157109592157598913"  # 49 digits + 7-digit counter
SEQ_WIDTH = 56
CWL_ID_PREFIX = "3656756321812354738582901349192309153937152453"  # 46 digits + 10-digit counter
CWL_ID_WIDTH = 56

MINUTE_MS = 60_000
WINDOW_PAST_MS = 14 * 24 * 3600 * 1000
WINDOW_FUTURE_MS = 2 * 3600 * 1000

FIRST_REQUEST_ID = "3f5c1b2e-8a8d-4c1e-9b51-2f0e6d1c9a77"


# ---------------------------------------------------------------------------------------------
# helpers


def parse_now(text: str) -> int:
    """Return epoch milliseconds for an ISO-8601 instant or the word 'now'."""
    if text.strip().lower() == "now":
        return int(dt.datetime.now(dt.timezone.utc).timestamp() * 1000)
    try:
        parsed = dt.datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"invalid instant {text!r}: expected ISO-8601 like {DEFAULT_NOW} or 'now'"
        ) from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.timezone.utc)
    # integer arithmetic on the timedelta avoids float rounding of the milliseconds
    delta = parsed - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def iso_ms(epoch_ms: int) -> str:
    """2026-11-21T11:58:30.250Z style."""
    instant = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(milliseconds=epoch_ms)
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{epoch_ms % 1000:03d}Z"


def compact(obj: Any) -> str:
    """Compact JSON keeping dict insertion order (dims key order matters for one fixture)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def escape_key_part(text: str) -> str:
    return "".join("\\" + c if c in "{}=,\\" else c for c in text)


def series_key(name: str, dims: dict[str, str] | None) -> str:
    parts = [f"{escape_key_part(k)}={escape_key_part(v)}" for k, v in sorted((dims or {}).items())]
    return f"{escape_key_part(name)}{{{','.join(parts)}}}"


def det_uuid(seed: str) -> str:
    """Deterministic UUID-shaped id (no entropy source involved)."""
    return str(uuid.UUID(bytes=hashlib.md5(seed.encode()).digest(), version=4))


class Datapoint:
    __slots__ = ("name", "dims", "ts", "value")

    def __init__(self, name: str, dims: dict[str, str] | None, ts: int, value: float):
        self.name, self.dims, self.ts, self.value = name, dims, ts, value


class Expectation:
    """Accumulates what the ingest of one event file must produce."""

    def __init__(self, now_ms: int):
        self.now_ms = now_ms
        self.records = 0
        self.poison: list[str] = []
        self.skipped = 0
        self.datapoints = 0
        self.series: dict[str, dict[int, dict[str, Any]]] = {}

    def add(self, dp: Datapoint) -> None:
        assert 1 <= len(dp.name) <= 255, dp.name
        assert len(dp.dims or {}) <= 30
        for k, v in (dp.dims or {}).items():
            assert 1 <= len(k) <= 255 and 1 <= len(v) <= 255, (k, v)
        assert isinstance(dp.value, (int, float)) and math.isfinite(dp.value), dp.value
        assert self.now_ms - WINDOW_PAST_MS <= dp.ts <= self.now_ms + WINDOW_FUTURE_MS, dp.ts
        value = float(dp.value)
        minute = dp.ts // MINUTE_MS * MINUTE_MS
        agg = self.series.setdefault(series_key(dp.name, dp.dims), {}).get(minute)
        if agg is None:
            self.series[series_key(dp.name, dp.dims)][minute] = {
                "count": 1,
                "values": [value],
                "min": value,
                "max": value,
            }
        else:
            agg["count"] += 1
            agg["values"].append(value)
            agg["min"] = min(agg["min"], value)
            agg["max"] = max(agg["max"], value)
        self.datapoints += 1

    def to_json(self) -> dict[str, Any]:
        return {
            "now": self.now_ms,
            "records": self.records,
            "poisonRecords": len(self.poison),
            "poisonSequenceNumbers": self.poison,
            "skippedEvents": self.skipped,
            "datapoints": self.datapoints,
            "series": {
                key: {
                    str(m): {
                        "count": agg["count"],
                        "sum": math.fsum(agg["values"]),
                        "min": agg["min"],
                        "max": agg["max"],
                        "percentiles": sample_percentiles(agg["values"]),
                    }
                    for m, agg in sorted(minutes.items())
                }
                for key, minutes in sorted(self.series.items())
            },
        }


# The percentiles the query API answers (p50, p90, p99) and the tolerance each answer is held to.
PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99))
SKETCH_RELATIVE_ACCURACY = 0.01


def nearest_rank(count: int, q: float) -> int:
    """The API's percentile rank, from 1: ceil(q x count), at least 1."""
    return max(1, math.ceil(q * count * (1 - 1e-12)))


def sample_percentiles(values: list[float]) -> dict[str, dict[str, float]]:
    """Exact order statistics of raw samples (nearest rank, ceil(q x count)): the lowest and the highest rank are
    answered with the exact min and max, the others from the DDSketch, within its 1%."""
    ordered = sorted(values)
    out = {}
    for name, q in PERCENTILES:
        r = nearest_rank(len(ordered), q)
        v = ordered[r - 1]
        exact = r in (1, len(ordered))
        out[name] = {"value": v, "tolerance": 0.0 if exact else SKETCH_RELATIVE_ACCURACY * abs(v)}
    return out


class EventBuilder:
    """Builds the Lambda Kinesis event for one file."""

    def __init__(self, seq_block: int, now_ms: int):
        self.counter = seq_block
        self.now_ms = now_ms
        self.records: list[dict[str, Any]] = []

    def next_seq(self) -> str:
        self.counter += 1
        seq = SEQ_PREFIX + str(self.counter).zfill(SEQ_WIDTH - len(SEQ_PREFIX))
        assert len(seq) == SEQ_WIDTH, seq
        return seq

    def add(self, partition_key: str, data: bytes, arrival_ms: int) -> str:
        seq = self.next_seq()
        self.records.append(
            {
                "kinesis": {
                    "kinesisSchemaVersion": "1.0",
                    "partitionKey": partition_key,
                    "sequenceNumber": seq,
                    "data": base64.b64encode(data).decode("ascii"),
                    "approximateArrivalTimestamp": arrival_ms / 1000,
                },
                "eventSource": "aws:kinesis",
                "eventVersion": "1.0",
                "eventID": f"{SHARD_ID}:{seq}",
                "eventName": "aws:kinesis:record",
                "invokeIdentityArn": ROLE_ARN,
                "awsRegion": REGION,
                "eventSourceARN": STREAM_ARN,
            }
        )
        return seq

    def event(self) -> dict[str, Any]:
        seqs = [r["kinesis"]["sequenceNumber"] for r in self.records]
        assert all(a < b and int(a) < int(b) for a, b in zip(seqs, seqs[1:])), seqs
        return {"Records": self.records}


def native_obj(dp: Datapoint, unit: str | None = None, ts_iso: bool = False) -> dict[str, Any]:
    obj: dict[str, Any] = {"name": dp.name}
    if dp.dims is not None:
        obj["dims"] = dp.dims
    obj["ts"] = iso_ms(dp.ts) if ts_iso else dp.ts
    obj["value"] = dp.value
    if unit is not None:
        obj["unit"] = unit
    return obj


# ---------------------------------------------------------------------------------------------
# file 1: native datapoints


def build_native(now: int) -> tuple[dict, dict]:
    ev, exp = EventBuilder(0, now), Expectation(now)
    pay = lambda: {"service": "checkout", "op": "Pay"}  # noqa: E731  (fresh dict each time)

    def put(pk: str, body: str, dps: list[Datapoint], arrival: int) -> None:
        ev.add(pk, body.encode("utf-8"), arrival)
        exp.records += 1
        for dp in dps:
            exp.add(dp)

    # 1. a single object
    dp = Datapoint("checkout.latency", pay(), now - 170_000, 12.5)
    put("checkout.latency", compact(native_obj(dp, "Milliseconds")), [dp], now - 169_200)

    # 2. a JSON array of objects
    arr = [
        (Datapoint("checkout.latency", pay(), now - 165_000, 30.1), "Milliseconds"),
        (Datapoint("checkout.orders", {"service": "checkout"}, now - 165_000, 1), "Count"),
        (Datapoint("checkout.latency", {"service": "checkout", "op": "Refund"}, now - 160_000, 45.0), "Milliseconds"),
    ]
    put("checkout", compact([native_obj(d, u) for d, u in arr]), [d for d, _ in arr], now - 159_400)

    # 3. NDJSON, one object per line (trailing newline); the route value needs key escaping
    nd = [
        (Datapoint("cart.items", {"service": "cart"}, now - 120_000, 3), "Count"),
        (Datapoint("cart.items", {"service": "cart"}, now - 110_000, 1), "Count"),
        (Datapoint("api.requests", {"service": "cart", "route": "GET /cart/{id}"}, now - 100_000, 1), "Count"),
        (Datapoint("cart.items", {"service": "cart"}, now - 95_000, 2), "Count"),
    ]
    put("cart", "".join(compact(native_obj(d, u)) + "\n" for d, u in nd), [d for d, _ in nd], now - 94_100)

    # 4. ts as an ISO-8601 string with milliseconds
    dp = Datapoint("checkout.latency", pay(), now - 89_750, 7.2)
    put("checkout.latency", compact(native_obj(dp, "Milliseconds", ts_iso=True)), [dp], now - 89_000)

    # 5. same series as 1, 2 and 4, dims in the other key order
    dp = Datapoint("checkout.latency", {"op": "Pay", "service": "checkout"}, now - 60_000, 18.0)
    put("checkout.latency", compact(native_obj(dp, "Milliseconds")), [dp], now - 59_300)

    # 6. no dims, no unit
    dp = Datapoint("pulse.heartbeat", None, now - 30_000, 1)
    put("pulse.heartbeat", compact(native_obj(dp)), [dp], now - 29_500)

    return ev.event(), exp.to_json()


# ---------------------------------------------------------------------------------------------
# file 2: CloudWatch Logs subscription payloads


class LogBatch:
    """One DATA_MESSAGE payload; tracks the datapoints and skipped events it implies."""

    def __init__(self, log_group: str, log_stream: str):
        self.log_group, self.log_stream = log_group, log_stream
        self.function = log_group.removeprefix("/aws/lambda/")
        self.events: list[dict[str, Any]] = []
        self.dps: list[Datapoint] = []
        self.skipped = 0

    def _event(self, ids: list[int], ts: int, message: str) -> None:
        ids[0] += 1
        event_id = CWL_ID_PREFIX + str(ids[0]).zfill(CWL_ID_WIDTH - len(CWL_ID_PREFIX))
        self.events.append({"id": event_id, "timestamp": ts, "message": message})

    def skipped_line(self, ids: list[int], ts: int, message: str) -> None:
        self._event(ids, ts, message)
        self.skipped += 1

    def emf(
        self,
        ids: list[int],
        ts: int,
        namespace: str,
        dim_sets: list[list[str]],
        metrics: list[tuple[str, str, Any]],
        members: dict[str, str],
    ) -> None:
        doc: dict[str, Any] = {
            "_aws": {
                "Timestamp": ts,
                "CloudWatchMetrics": [
                    {
                        "Namespace": namespace,
                        "Dimensions": dim_sets,
                        "Metrics": [{"Name": n, "Unit": u} for n, u, _ in metrics],
                    }
                ],
            },
        }
        doc.update(members)
        for name, _, values in metrics:
            doc[name] = values
        self._event(ids, ts, compact(doc))
        # one datapoint per value per dimension set (ts = _aws.Timestamp = event timestamp)
        for dim_set in dim_sets:
            dims = {k: members[k] for k in dim_set}
            for name, _, values in metrics:
                for v in values if isinstance(values, list) else [values]:
                    self.dps.append(Datapoint(f"{namespace}/{name}", dict(dims), ts, v))

    def invocation(
        self,
        ids: list[int],
        start_ts: int,
        request_id: str,
        duration: float,
        memory_size: int,
        max_memory: int,
        init: float | None,
        body: list[tuple[str, Any]],
    ) -> None:
        """START, the body lines (('emf', kwargs) or ('log', text)), END, REPORT."""
        self.skipped_line(ids, start_ts, f"START RequestId: {request_id} Version: $LATEST\n")
        ts = start_ts
        for kind, payload in body:
            ts += 7
            if kind == "emf":
                self.emf(ids, ts, **payload)
            else:
                self.skipped_line(ids, ts, payload)
        assert float(f"{duration:.2f}") == duration and (init is None or float(f"{init:.2f}") == init)
        end_ts = start_ts + math.ceil(duration)
        billed = math.ceil(duration)
        self.skipped_line(ids, end_ts, f"END RequestId: {request_id}\n")
        report = (
            f"REPORT RequestId: {request_id}\tDuration: {duration:.2f} ms\t"
            f"Billed Duration: {billed} ms\tMemory Size: {memory_size} MB\t"
            f"Max Memory Used: {max_memory} MB\t"
        )
        if init is not None:
            report += f"Init Duration: {init:.2f} ms\t"
        self._event(ids, end_ts, report)
        dims = {"function": self.function}
        self.dps.append(Datapoint("lambda.duration", dict(dims), end_ts, duration))
        self.dps.append(Datapoint("lambda.billed_duration", dict(dims), end_ts, billed))
        self.dps.append(Datapoint("lambda.memory_size", dict(dims), end_ts, memory_size))
        self.dps.append(Datapoint("lambda.max_memory_used", dict(dims), end_ts, max_memory))
        if init is not None:
            self.dps.append(Datapoint("lambda.init_duration", dict(dims), end_ts, init))

    def payload(self) -> dict[str, Any]:
        return {
            "messageType": "DATA_MESSAGE",
            "owner": ACCOUNT,
            "logGroup": self.log_group,
            "logStream": self.log_stream,
            "subscriptionFilters": ["pulse"],
            "logEvents": self.events,
        }


def gzip_json(obj: Any) -> bytes:
    return gzip.compress(compact(obj).encode("utf-8"), compresslevel=9, mtime=0)


def cwl_partition_key(log_group: str, log_stream: str, n: int) -> str:
    return hashlib.md5(f"{log_group}|{log_stream}|{n}".encode()).hexdigest()


def build_cwlogs(now: int) -> tuple[dict, dict]:
    ev, exp = EventBuilder(1000, now), Expectation(now)
    day = iso_ms(now)[:10].replace("-", "/")
    ids = [0]
    checkout_emf = dict(
        namespace="Checkout",
        dim_sets=[["service"], ["service", "op"]],
        members={"service": "checkout", "op": "Pay"},
    )

    batches: list[tuple[LogBatch, int]] = []

    # record 1: checkout-api, a cold start then a warm invocation
    b = LogBatch("/aws/lambda/checkout-api", f"{day}/[$LATEST]abcdef0123456789")
    b.invocation(
        ids,
        now - 200_000,
        FIRST_REQUEST_ID,
        123.45,
        512,
        98,
        456.78,
        [
            ("log", f"{iso_ms(now - 199_990)}\t{FIRST_REQUEST_ID}\tINFO\tPayment authorized for order 8812\n"),
            (
                "emf",
                dict(checkout_emf, metrics=[("Latency", "Milliseconds", [12.5, 30.1, 7.2]), ("Orders", "Count", 1)]),
            ),
        ],
    )
    rid = det_uuid("checkout-api-2")
    b.invocation(
        ids,
        now - 195_000,
        rid,
        41.07,
        512,
        101,
        None,
        [
            ("emf", dict(checkout_emf, metrics=[("Latency", "Milliseconds", [9.8, 14.25]), ("Orders", "Count", 2)])),
        ],
    )
    batches.append((b, now - 194_000))

    # record 2: checkout-api, a later minute, Refund op
    b = LogBatch("/aws/lambda/checkout-api", f"{day}/[$LATEST]abcdef0123456789")
    rid = det_uuid("checkout-api-3")
    b.invocation(
        ids,
        now - 130_000,
        rid,
        88.6,
        512,
        103,
        None,
        [
            (
                "emf",
                dict(
                    namespace="Checkout",
                    dim_sets=[["service"], ["service", "op"]],
                    members={"service": "checkout", "op": "Refund"},
                    metrics=[("Latency", "Milliseconds", [55.5]), ("Orders", "Count", 0)],
                ),
            ),
            ("log", f"{iso_ms(now - 129_980)}\t{rid}\tWARN\tRefund took the slow path\n"),
        ],
    )
    batches.append((b, now - 129_000))

    # record 3: orders-worker, cold start, one EMF with an array and a scalar
    b = LogBatch("/aws/lambda/orders-worker", f"{day}/[$LATEST]0123456789abcdef")
    rid = det_uuid("orders-worker-1")
    b.invocation(
        ids,
        now - 70_000,
        rid,
        250.03,
        1024,
        187,
        812.5,
        [
            ("log", f"{iso_ms(now - 69_990)}\t{rid}\tINFO\tProcessing 2 messages\n"),
            (
                "emf",
                dict(
                    namespace="Orders",
                    dim_sets=[["service"]],
                    members={"service": "orders-worker"},
                    metrics=[("ProcessingTime", "Milliseconds", [88.2, 91.7]), ("MessagesProcessed", "Count", 2)],
                ),
            ),
        ],
    )
    batches.append((b, now - 69_000))

    for n, (batch, arrival) in enumerate(batches):
        ev.add(cwl_partition_key(batch.log_group, batch.log_stream, n), gzip_json(batch.payload()), arrival)
        exp.records += 1
        exp.skipped += batch.skipped
        for dp in batch.dps:
            exp.add(dp)

    # record 4: CloudWatch Logs health check, skipped as a whole (counts 1)
    control = {
        "messageType": "CONTROL_MESSAGE",
        "owner": "CloudwatchLogs",
        "logGroup": "",
        "logStream": "",
        "subscriptionFilters": [],
        "logEvents": [
            {
                "id": "",
                "timestamp": now - 20_000,
                "message": "CWL CONTROL MESSAGE: Checking health of destination Kinesis stream.",
            }
        ],
    }
    ev.add(cwl_partition_key("", "", 99), gzip_json(control), now - 19_500)
    exp.records += 1
    exp.skipped += 1

    return ev.event(), exp.to_json()


# ---------------------------------------------------------------------------------------------
# file 3: poison record among good native records


def build_poison(now: int) -> tuple[dict, dict]:
    ev, exp = EventBuilder(2000, now), Expectation(now)

    def good(pk: str, body: str, dps: list[Datapoint], arrival: int) -> None:
        ev.add(pk, body.encode("utf-8"), arrival)
        exp.records += 1
        for dp in dps:
            exp.add(dp)

    dp = Datapoint("checkout.latency", {"service": "checkout", "op": "Pay"}, now - 140_000, 21.5)
    good("checkout.latency", compact(native_obj(dp, "Milliseconds")), [dp], now - 139_000)

    arr = [
        Datapoint("cart.items", {"service": "cart"}, now - 130_000, 4),
        Datapoint("checkout.orders", {"service": "checkout"}, now - 125_000, 1),
    ]
    good("cart", compact([native_obj(d, "Count") for d in arr]), arr, now - 124_000)

    # the poison record: a truncated object (invalid JSON)
    full = compact(
        native_obj(
            Datapoint("checkout.latency", {"service": "checkout", "op": "Pay"}, now - 100_000, 33.3), "Milliseconds"
        )
    )
    broken = full[: full.index('"value"') + len('"val')]
    try:
        json.loads(broken)
        raise AssertionError("poison record unexpectedly decodes")
    except json.JSONDecodeError:
        pass
    seq = ev.add("checkout.latency", broken.encode("utf-8"), now - 99_000)
    exp.records += 1
    exp.poison.append(seq)

    nd = [
        Datapoint("checkout.latency", {"op": "Pay", "service": "checkout"}, now - 70_000, 15.0),
        Datapoint("checkout.latency", {"service": "checkout", "op": "Pay"}, now - 65_000, 27.75),
    ]
    good("checkout.latency", "".join(compact(native_obj(d, "Milliseconds")) + "\n" for d in nd), nd, now - 64_000)

    dp = Datapoint("pulse.heartbeat", None, now - 30_000, 1)
    good("pulse.heartbeat", compact(native_obj(dp)), [dp], now - 29_000)

    return ev.event(), exp.to_json()


# ---------------------------------------------------------------------------------------------


def build_compact_scheduled(now: int) -> dict:
    """What EventBridge sends CompactFunction each CompactSchedule period (a rate rule SAM names
    <stack>-CompactFunctionBuild-<suffix>); the builder reads only `time`."""
    instant = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=now // 1000)
    return {
        "version": "0",
        "id": det_uuid(f"compact-scheduled/{now // 1000}"),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": ACCOUNT,
        "time": instant.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": REGION,
        "resources": [f"arn:aws:events:{REGION}:{ACCOUNT}:rule/{SCHEDULE_RULE}"],
        "detail": {},
    }


def write_json(path: Path, obj: Any, sort_keys: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(obj, indent=2, ensure_ascii=False, sort_keys=sort_keys, allow_nan=False)
    path.write_bytes((text + "\n").encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Generate Lambda event fixtures (and the ingest events' expected results) for Pulse."
    )
    parser.add_argument(
        "--now",
        type=parse_now,
        default=DEFAULT_NOW,
        metavar="INSTANT",
        help=f"ISO-8601 UTC instant or 'now' (default: {DEFAULT_NOW})",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent.parent / "events",
        metavar="DIR",
        help="output folder (default: the repository's events/)",
    )
    args = parser.parse_args(argv)
    now = args.now

    builders = {
        "ingest-kinesis-native.json": build_native,
        "ingest-kinesis-cwlogs.json": build_cwlogs,
        "ingest-kinesis-poison.json": build_poison,
    }
    for filename, build in builders.items():
        event, expected = build(now)
        write_json(args.out / filename, event)
        write_json(args.out / "expected" / filename, expected, sort_keys=True)
        print(
            f"{args.out / filename}: {expected['records']} records, "
            f"{expected['datapoints']} datapoints, {len(expected['series'])} series, "
            f"{expected['poisonRecords']} poison, {expected['skippedEvents']} skipped"
        )
    scheduled = build_compact_scheduled(now)
    write_json(args.out / "compact-scheduled.json", scheduled)
    print(f"{args.out / 'compact-scheduled.json'}: Scheduled Event at {scheduled['time']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
