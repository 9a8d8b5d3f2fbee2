#!/usr/bin/env python3
"""What packing the minute partials of one entity (one dims set) into one item would save, on the bundled recording.

Issue 12's open lever: a partial is one write unit per series and minute whatever it holds (250 of 1,024 bytes), 72%
of the on-demand bill. Series that share their dims (the metrics of one EMF document, the four of a Lambda REPORT
line) could share an item. This replays a recording (default events/replay/sample.ndjson.gz) in batches of --batch
records and counts, per batch, the series-minutes (today's partials, a write unit each) against the (dims, minute)
groups and their write units, for an item of about 120 bytes of keys plus 150 bytes a series. An estimate of units,
not a design: the exactly-once keys, the builder and the query would all change.

Usage: scripts/entity_packing.py [--batch N] [--recording FILE]
"""

import argparse
import base64
import collections
import gzip
import json
import math
import sys

KEY_BYTES = 120
SERIES_BYTES = 150
REPORT_FIELDS = ("Duration", "Billed Duration", "Max Memory Used", "Init Duration")


def datapoints(line):
    """(name, dims, epoch ms) of one replay record: a native datapoint or a CloudWatch Logs payload."""
    o = json.loads(line)
    if "data" not in o:
        return [(o["name"], tuple(sorted(o.get("dims", {}).items())), o["ts"])]
    payload = json.loads(gzip.decompress(base64.b64decode(o["data"])))
    if payload.get("messageType") != "DATA_MESSAGE":
        return []
    function = payload["logGroup"].split("/")[-1]
    out = []
    for event in payload["logEvents"]:
        message = event["message"]
        if message.startswith("{") and '"_aws"' in message:
            doc = json.loads(message)
            aws = doc["_aws"]
            for directive in aws["CloudWatchMetrics"]:
                for dim_set in directive["Dimensions"]:
                    dims = tuple(sorted((k, str(doc[k])) for k in dim_set))
                    out += [(m["Name"], dims, aws["Timestamp"]) for m in directive["Metrics"]]
        elif message.startswith("REPORT"):
            dims = (("function", function),)
            out += [
                ("lambda." + f.lower().replace(" ", "_"), dims, event["timestamp"])
                for f in REPORT_FIELDS
                if f + ":" in message
            ]
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=100, help="records a batch (default 100)")
    parser.add_argument("--recording", default="events/replay/sample.ndjson.gz")
    args = parser.parse_args(argv)
    if args.batch < 1:
        parser.error("--batch must be at least 1")
    with gzip.open(args.recording, "rt") as f:
        records = [datapoints(line) for line in f]
    total = partials = items = item_units = 0
    for i in range(0, len(records), args.batch):
        batch = [d for r in records[i : i + args.batch] for d in r]
        total += len(batch)
        series_minutes = {(name, dims, ts // 60_000) for name, dims, ts in batch}
        partials += len(series_minutes)
        groups = collections.Counter((dims, minute) for _, dims, minute in series_minutes)
        items += len(groups)
        item_units += sum(math.ceil((KEY_BYTES + SERIES_BYTES * n) / 1024) for n in groups.values())
    print(
        f"batch {args.batch}: {total:,} datapoints; partials (series-minutes, a write unit each) {partials:,}; "
        f"entity items {items:,}, {item_units:,} write units; saving {1 - item_units / partials:.1%}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
