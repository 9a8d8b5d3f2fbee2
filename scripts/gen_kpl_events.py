#!/usr/bin/env python3
"""Generate events/ingest-kinesis-kpl.json (and events/expected/ingest-kinesis-kpl.json): KPL-aggregated Kinesis
records made by the real aggregation library, PyPI aws-kinesis-agg (pinned in requirements-dev.txt), not by Pulse.

Usage (the venv has aws-kinesis-agg):
    .venv/bin/python scripts/gen_kpl_events.py [--now INSTANT] [--out DIR]

The event holds, in stream order on one shard:
  1. an aggregate of three native user records with three partition keys (a single object, an array, NDJSON);
  2. a plain native record between aggregates;
  3. an aggregate whose second user record is truncated JSON: that user record alone is poison
     (sequence number "<seq>.1"), the other two are stored;
  4. a corrupt aggregate (one byte of its protobuf body flipped, so its MD5 trailer no longer matches):
     the whole Kinesis record is poison.
Byte-identical for the same --now (the aggregator adds no randomness without explicit hash keys), which
KplFixtureTest checks by regenerating when the venv is present. Options as in gen_events.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_events as g  # noqa: E402  (same folder: the event shape and expectations stay one definition)

import aws_kinesis_agg.aggregator as agg  # noqa: E402


def aggregate(user_records: list[tuple[str, bytes]]) -> tuple[str, bytes]:
    a = agg.RecordAggregator()
    for pk, data in user_records:
        assert a.add_user_record(pk, data) is None, "fixture must fit one aggregate"
    rec = a.clear_and_get()
    pk, _ehk, data = rec.get_contents()
    return pk, data


def build_kpl(now: int) -> tuple[dict, dict]:
    ev, exp = g.EventBuilder(3000, now), g.Expectation(now)
    obj = lambda dp, unit=None: g.compact(g.native_obj(dp, unit))  # noqa: E731

    # 1. three user records, three partition keys
    a1 = g.Datapoint("checkout.latency", {"service": "checkout", "op": "Pay"}, now - 150_000, 12.5)
    a2 = [
        g.Datapoint("cart.items", {"service": "cart"}, now - 149_000, 3),
        g.Datapoint("checkout.orders", {"service": "checkout"}, now - 148_000, 1),
    ]
    a3 = [
        g.Datapoint("checkout.latency", {"op": "Pay", "service": "checkout"}, now - 147_000, 30.25),
        g.Datapoint("checkout.latency", {"service": "checkout", "op": "Refund"}, now - 146_000, 45.0),
    ]
    pk, data = aggregate(
        [
            ("checkout.latency", obj(a1, "Milliseconds").encode()),
            ("cart", g.compact([g.native_obj(d, "Count") for d in a2]).encode()),
            ("checkout", "".join(obj(d, "Milliseconds") + "\n" for d in a3).encode()),
        ]
    )
    ev.add(pk, data, now - 145_000)
    for dp in [a1, *a2, *a3]:
        exp.add(dp)
    exp.records += 1

    # 2. a plain record
    p = g.Datapoint("pulse.heartbeat", None, now - 120_000, 1)
    ev.add("pulse.heartbeat", obj(p).encode(), now - 119_000)
    exp.add(p)
    exp.records += 1

    # 3. one poison user record inside an otherwise good aggregate
    b1 = g.Datapoint("checkout.latency", {"service": "checkout", "op": "Pay"}, now - 90_000, 21.5)
    b3 = g.Datapoint("cart.items", {"service": "cart"}, now - 88_000, 7)
    full = obj(g.Datapoint("checkout.latency", {"service": "checkout", "op": "Pay"}, now - 89_000, 99.0))
    broken = full[: full.index('"value"') + len('"val')]
    pk, data = aggregate(
        [
            ("checkout.latency", obj(b1, "Milliseconds").encode()),
            ("checkout.latency", broken.encode()),
            ("cart", obj(b3, "Count").encode()),
        ]
    )
    seq = ev.add(pk, data, now - 87_000)
    exp.add(b1)
    exp.add(b3)
    exp.poison.append(seq + ".1")
    exp.records += 1

    # 4. a corrupt aggregate: its datapoint must not be stored
    c1 = g.Datapoint("checkout.latency", {"service": "checkout", "op": "Pay"}, now - 60_000, 1000.0)
    pk, data = aggregate([("checkout.latency", obj(c1, "Milliseconds").encode())])
    corrupt = bytearray(data)
    corrupt[6] ^= 0x01  # inside the protobuf body, after the 4 magic bytes
    seq = ev.add(pk, bytes(corrupt), now - 59_000)
    exp.poison.append(seq)
    exp.records += 1

    # 5. forty latencies of one series and minute in one user record: percentiles answered from the sketch
    spread = [
        g.Datapoint(
            "checkout.latency",
            {"service": "search", "op": "Find"},
            now - 200_000 + i * 100,
            round(2.0 + 0.37 * i * i, 3),
        )
        for i in range(40)
    ]
    pk, data = aggregate([("search", "".join(obj(d, "Milliseconds") + "\n" for d in spread).encode())])
    ev.add(pk, data, now - 100_000)
    for dp in spread:
        exp.add(dp)
    exp.records += 1

    return ev.event(), exp.to_json()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--now", type=g.parse_now, default=g.DEFAULT_NOW, metavar="INSTANT")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "events", metavar="DIR")
    args = parser.parse_args(argv)
    event, expected = build_kpl(args.now)
    name = "ingest-kinesis-kpl.json"
    g.write_json(args.out / name, event)
    g.write_json(args.out / "expected" / name, expected, sort_keys=True)
    print(
        f"{args.out / name}: {expected['records']} records, {expected['datapoints']} datapoints, "
        f"{expected['poisonRecords']} poison"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
