#!/usr/bin/env python3
"""Generate CloudWatch metric stream fixtures in both output formats, and the Firehose requests that carry them.

Usage (needs the pinned packages of requirements-dev.txt, e.g. .venv/bin/python):
    python scripts/gen_metric_stream.py            # writes the committed fixtures
    python scripts/gen_metric_stream.py --out DIR --events-out DIR2

Writes:
    OUT/documented.json      the example of AWS's page "CloudWatch metric stream output in JSON format", byte for byte
                             once its pretty-printing is removed ("in practice the whole format is on a single line")
    OUT/documented.otel1     the same metric update in the OpenTelemetry 1.0.0 format (below)
    OUT/metrics.json         JSON output format: one object per line, as AWS documents it ("each Firehose record
                             contains multiple JSON objects separated by a newline character")
    OUT/metrics.otel1        OpenTelemetry 1.0.0 output format: ExportMetricsServiceRequests, each after its length
                             as an unsigned varint, built with the official OTLP protobuf classes (opentelemetry-proto)
                             in the structure of AWS's page "CloudWatch metric stream output in OpenTelemetry 1.0.0
                             format": resource attributes cloud.provider, cloud.account.id, cloud.region,
                             aws.exporter.arn; metric name amazonaws.com/<Namespace>/<MetricName>; a summary data point
                             with the period's start and end, count, sum, quantile 0 (Minimum), 1 (Maximum) and the
                             additional percentiles; attributes Namespace, MetricName and Dimensions (a key-value list).
    EVENTS/metricstream-firehose-json.json   API Gateway (HTTP API, payload 2.0) events of POST /firehose/metric-stream
    EVENTS/metricstream-firehose-otel1.json  whose bodies are Firehose HTTP endpoint requests (protocol 1.0) carrying
                             metrics.json and metrics.otel1: {"requestId", "timestamp", "records": [{"data": base64}]},
                             with the headers Firehose sends (its request id, protocol version, the access key
                             ACCESS_KEY, which the local stack's secret holds)

The same metric updates are in both formats (except the JSON-only trimmed mean of the documented example), so the
Java tests can check that both give the same datapoints (documented.*: the first; metrics.*: the others):
    AWS/EC2 DiskWriteOps InstanceId=i-123456789012       count 3, sum 20, min 0, max 18, p99 17.56, p99.9 17.8764
                                                         (JSON also TM(25%:75%) 16.43), unit Seconds, at 1611929698000
    AWS/Lambda Duration FunctionName=checkout            count 120, sum 5400, min 12, max 480, p50 38, p90 95, p99 410
    AWS/Lambda Errors FunctionName=checkout              count 120, sum 3, min 0, max 1
    AWS/DynamoDB ThrottledRequests TableName=pulse,
                 Operation=BatchWriteItem                count 4, sum 7, min 1, max 3
    AWS/DynamoDB ConsumedWriteCapacityUnits
                 TableName=pulse                         count 60, sum 9000, min 100, max 200
The others are stamped at TIME (a minute of 2026-11-20).
"""

from __future__ import annotations

import argparse
import base64
import json
import pathlib

from google.protobuf.internal.encoder import _VarintBytes
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue, KeyValueList

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "layers/common/src/test/resources/metricstream"
EVENTS = ROOT / "events"
ACCESS_KEY = "pulse-local-firehose-access-key"

ACCOUNT = "123456789012"
REGION = "us-east-1"
STREAM = "MyMetricStream"
TIME = 1795262400000  # 2026-11-20T12:00:00Z, epoch ms: the start of the period

# AWS's documented JSON example, on one line as a stream writes it.
DOCUMENTED_JSON = (
    '{"metric_stream_name":"MyMetricStream","account_id":"1234567890","region":"us-east-1","namespace":"AWS/EC2",'
    '"metric_name":"DiskWriteOps","dimensions":{"InstanceId":"i-123456789012"},"timestamp":1611929698000,'
    '"value":{"count":3.0,"sum":20.0,"max":18.0,"min":0.0,"p99":17.56,"p99.9":17.8764,"TM(25%:75%)":16.43},'
    '"unit":"Seconds"}'
)

# (namespace, metric, dimensions, unit (CloudWatch, UCUM), count, sum, min, max, percentiles, time ms, account)
UPDATES = [
    (
        "AWS/EC2",
        "DiskWriteOps",
        {"InstanceId": "i-123456789012"},
        ("Seconds", "s"),
        3,
        20.0,
        0.0,
        18.0,
        {0.99: 17.56, 0.999: 17.8764},
        1611929698000,
        "1234567890",
    ),
    (
        "AWS/Lambda",
        "Duration",
        {"FunctionName": "checkout"},
        ("Milliseconds", "ms"),
        120,
        5400.0,
        12.0,
        480.0,
        {0.5: 38.0, 0.9: 95.0, 0.99: 410.0},
        TIME,
        ACCOUNT,
    ),
    ("AWS/Lambda", "Errors", {"FunctionName": "checkout"}, ("Count", "{Count}"), 120, 3.0, 0.0, 1.0, {}, TIME, ACCOUNT),
    (
        "AWS/DynamoDB",
        "ThrottledRequests",
        {"TableName": "pulse", "Operation": "BatchWriteItem"},
        ("Count", "{Count}"),
        4,
        7.0,
        1.0,
        3.0,
        {},
        TIME,
        ACCOUNT,
    ),
    (
        "AWS/DynamoDB",
        "ConsumedWriteCapacityUnits",
        {"TableName": "pulse"},
        ("Count", "{Count}"),
        60,
        9000.0,
        100.0,
        200.0,
        {},
        TIME,
        ACCOUNT,
    ),
]


def stat_name(q: float) -> str:
    s = f"{q * 100:.4f}".rstrip("0").rstrip(".")
    return "p" + s


def json_lines() -> bytes:
    lines = []
    for ns, metric, dims, unit, count, total, lo, hi, pct, t, account in UPDATES[1:]:
        value = {"count": float(count), "sum": total, "max": hi, "min": lo}
        value.update({stat_name(q): v for q, v in pct.items()})
        lines.append(
            json.dumps(
                {
                    "metric_stream_name": STREAM,
                    "account_id": account,
                    "region": REGION,
                    "namespace": ns,
                    "metric_name": metric,
                    "dimensions": dims,
                    "timestamp": t,
                    "value": value,
                    "unit": unit[0],
                },
                separators=(",", ":"),
            )
        )
    return ("\n".join(lines) + "\n").encode()


def kv(key: str, value: str) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(string_value=value))


def otel_request(account: str, updates) -> ExportMetricsServiceRequest:
    req = ExportMetricsServiceRequest()
    rm = req.resource_metrics.add()
    rm.resource.attributes.extend(
        [
            kv("cloud.provider", "aws"),
            kv("cloud.account.id", account),
            kv("cloud.region", REGION),
            kv("aws.exporter.arn", f"arn:aws:cloudwatch:{REGION}:{account}:metric-stream/{STREAM}"),
        ]
    )
    sm = rm.scope_metrics.add()
    for ns, metric, dims, unit, count, total, lo, hi, pct, t, _ in updates:
        m = sm.metrics.add()
        m.name = f"amazonaws.com/{ns}/{metric}"
        m.unit = unit[1]
        p = m.summary.data_points.add()
        p.start_time_unix_nano = t * 1_000_000
        p.time_unix_nano = (t + 60_000) * 1_000_000
        p.count = count
        p.sum = total
        p.quantile_values.add(quantile=0.0, value=lo)
        for q, v in sorted(pct.items()):
            p.quantile_values.add(quantile=q, value=v)
        p.quantile_values.add(quantile=1.0, value=hi)
        p.attributes.extend(
            [
                kv("Namespace", ns),
                kv("MetricName", metric),
                KeyValue(
                    key="Dimensions",
                    value=AnyValue(kvlist_value=KeyValueList(values=[kv(k, v) for k, v in dims.items()])),
                ),
            ]
        )
    return req


def otel_record(requests) -> bytes:
    out = b""
    for req in requests:
        body = req.SerializeToString()
        out += _VarintBytes(len(body)) + body
    return out


def firehose_event(request_id: str, data: bytes) -> str:
    body = json.dumps(
        {
            "requestId": request_id,
            "timestamp": TIME + 180_000,
            "records": [{"data": base64.b64encode(data).decode()}],
        },
        separators=(",", ":"),
    )
    return (
        json.dumps(
            {
                "version": "2.0",
                "routeKey": "POST /firehose/metric-stream",
                "rawPath": "/firehose/metric-stream",
                "rawQueryString": "",
                "headers": {
                    "content-type": "application/json",
                    "host": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
                    "user-agent": "Amazon Kinesis Data Firehose Agent/1.0",
                    "x-amz-firehose-protocol-version": "1.0",
                    "x-amz-firehose-request-id": request_id,
                    "x-amz-firehose-source-arn": f"arn:aws:firehose:{REGION}:{ACCOUNT}:deliverystream/pulse-metric-stream",
                    "x-amz-firehose-access-key": ACCESS_KEY,
                },
                "requestContext": {
                    "accountId": ACCOUNT,
                    "apiId": "a1b2c3d4e5",
                    "domainName": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
                    "domainPrefix": "a1b2c3d4e5",
                    "http": {
                        "method": "POST",
                        "path": "/firehose/metric-stream",
                        "protocol": "HTTP/1.1",
                        "sourceIp": "203.0.113.20",
                        "userAgent": "Amazon Kinesis Data Firehose Agent/1.0",
                    },
                    "requestId": "Kx9aXmPLvHcESHA=",
                    "routeKey": "POST /firehose/metric-stream",
                    "stage": "$default",
                    "time": "20/Nov/2026:12:03:00 +0000",
                    "timeEpoch": TIME + 180_000,
                },
                "body": body,
                "isBase64Encoded": False,
            },
            indent=2,
        )
        + "\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=pathlib.Path, default=OUT)
    ap.add_argument("--events-out", type=pathlib.Path, default=EVENTS)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.events_out.mkdir(parents=True, exist_ok=True)
    js = json_lines()
    # Two requests in one record, as a stream packs them: the Lambda metrics, then the DynamoDB ones.
    ot = otel_record([otel_request(ACCOUNT, UPDATES[1:3]), otel_request(ACCOUNT, UPDATES[3:])])
    (args.out / "documented.json").write_bytes((DOCUMENTED_JSON + "\n").encode())
    (args.out / "documented.otel1").write_bytes(otel_record([otel_request("1234567890", UPDATES[:1])]))
    (args.out / "metrics.json").write_bytes(js)
    (args.out / "metrics.otel1").write_bytes(ot)
    (args.events_out / "metricstream-firehose-json.json").write_text(
        firehose_event("ed4acda5-034f-9f42-bba1-f29aea6d7d8f", js)
    )
    (args.events_out / "metricstream-firehose-otel1.json").write_text(
        firehose_event("0b0c7a3e-5d3f-4c0e-8f6b-3f3c1f4c2a11", ot)
    )


if __name__ == "__main__":
    main()
