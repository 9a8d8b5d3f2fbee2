#!/usr/bin/env python3
"""Writes the fuzz harnesses' seed inputs from the project's own examples (events/ and the decoder fixtures).

Each harness reads its seeds from src/test/resources/<package>/<Class>Inputs/<method>/seeds/: Jazzer starts fuzzing
from them, and in regression mode (make test) runs each as a JUnit test. Run from the repository root:
    python3 fuzz/seeds.py
The output is deterministic, so re-running it changes nothing unless events/ or the fixtures changed.
"""

import base64
import gzip
import json
import os
import pathlib
import shutil
import zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
RES = ROOT / "fuzz/src/test/resources/dev/pulse"
OTLP = ROOT / "layers/common/src/test/resources/otlp"

CODEC = RES / "codec/RecordDecoderFuzzTestInputs"
RAW = CODEC / "decodeUnits_whenAnyRecordBytes_answersUnitsOrPoisonAlike"
LOGS = CODEC / "decodeUnits_whenGzippedLogsPayload_answersUnitsOrPoisonAlike"
OTLP_ANY = CODEC / "decodeUnits_whenOtlpInAnyCompression_answersUnitsOrPoisonAlike"
KPL = CODEC / "decodeUnits_whenKplAggregateBody_answersUnitsOrPoisonAlike"
QUERY = RES / "query/QueryApiFuzzTestInputs"
QUERY_BODY = QUERY / "handleRequest_whenAnyQueryBody_answers200OrClientError"
QUERY_ANY = QUERY / "handleRequest_whenAnyHttpRequest_answers200OrClientError"
REPLAY = RES / "loadgen/ReplaySourceFuzzTestInputs/read_whenAnyRecording_answersRecordsOrFieldError"

KPL_MAGIC = bytes([0xF3, 0x89, 0x9A, 0xC2])


def write(method_dir, name, data):
    d = method_dir / "seeds"
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def event_records(name):
    with open(ROOT / "events" / name) as f:
        return [base64.b64decode(r["kinesis"]["data"]) for r in json.load(f)["Records"]]


def main():
    for d in (RAW, LOGS, OTLP_ANY, KPL, QUERY_BODY, QUERY_ANY, REPLAY):
        shutil.rmtree(d / "seeds", ignore_errors=True)

    for fmt in ("native", "cwlogs", "kpl", "otlp", "poison"):
        for i, data in enumerate(event_records(f"ingest-kinesis-{fmt}.json")):
            write(RAW, f"{fmt}-{i}", data)
            if data[:2] == b"\x1f\x8b":
                plain = zlib.decompressobj(wbits=31).decompress(data)  # the OTLP exporter omits the trailer
                if fmt == "otlp":
                    write(OTLP_ANY, f"{fmt}-{i}", b"\x01" + plain)  # selector 1: gzip
                else:
                    write(LOGS, f"{fmt}-{i}", plain)
            elif fmt == "otlp":
                write(OTLP_ANY, f"{fmt}-{i}", b"\x00" + data)
            if data[:4] == KPL_MAGIC:
                write(KPL, f"{fmt}-{i}", data[4:-16])
    for f in sorted(OTLP.iterdir()):
        write(RAW, f"otlp-fixture-{f.name}", f.read_bytes())
    # The fixtures' plain encodings under each compression the exporter offers (selector byte: see the harness).
    for name in ("metrics.pb", "metrics.json"):
        plain = (OTLP / name).read_bytes()
        for selector, label in (
            (0x00, "none"),
            (0x01, "gzip"),
            (0x02, "zlib"),
            (0x03, "flate"),
            (0x83, "flate-finished"),
        ):
            write(OTLP_ANY, f"fixture-{name}-{label}", bytes([selector]) + plain)

    with open(ROOT / "events/query-post.json") as f:
        write(QUERY_BODY, "query-post", json.load(f)["body"])
    write(QUERY_BODY, "minimal", '{"series":[{"name":"x"}],"start":1795262400000,"end":1795266000000}')
    write(
        QUERY_BODY,
        "next-token",
        '{"series":[{"name":"a","dims":{"k":"v"}},{"name":"b"}],"start":"2026-11-21T11:00:00Z",'
        '"end":"2026-11-21T12:00:00Z","period":60,"stats":["sum","p99"],"nextToken":"abc"}',
    )
    requests = {
        "query": "POST /query\n\n"
        + '{"series":[{"name":"x"}],"start":"2026-11-21T11:00:00Z","end":"2026-11-21T12:00:00Z"}',
        "series": "GET /series\nname=checkout.latency&limit=50",
        "prom-range": "GET /prometheus/api/v1/query_range\nquery=sum(rate(x%7Bservice%3D%22checkout%22%7D%5B5m%5D))"
        "%20by%20(op)&start=1795262400&end=1795266000&step=60",
        "prom-range-post": "POST /prometheus/api/v1/query_range\n\nquery=quantile_over_time(0.99%2C%20x%5B5m%5D)"
        "&start=2026-11-21T11:00:00Z&end=2026-11-21T12:00:00Z&step=5m",
        "prom-instant": "GET /prometheus/api/v1/query\nquery=max_over_time(x%5B1h%5D)%20*%202%20%2B%201&time=1795262400.5",
        "prom-series": "GET /prometheus/api/v1/series\nmatch[]=x%7Ba%3D~%22b.*%22%7D&start=0&end=1795266000",
        "prom-labels": "GET /prometheus/api/v1/labels\n",
        "prom-label-values": "GET /prometheus/api/v1/label/service/values\nmatch[]=x",
        "prom-duration": "GET /prometheus/api/v1/query_range\nquery=count_over_time(x%5B1w2d3h4m5s6ms%5D)&start=1e3&end=2e3"
        "&step=0.5&timeout=10s",
    }
    for name, text in requests.items():
        write(QUERY_ANY, name, text)

    with gzip.open(ROOT / "events/replay/sample.ndjson.gz", "rt") as f:
        lines = [next(f) for _ in range(6)]
    write(REPLAY, "sample-head", "".join(lines))
    write(REPLAY, "recorded-record", lines[0])
    write(REPLAY, "native-datapoint", lines[1])


if __name__ == "__main__":
    main()
