"""Exports metrics with the real OpenTelemetry Python SDK and its OTLP/HTTP exporter to Pulse's push endpoint.

Each request is signed with SigV4 for execute-api by botocore, through a requests session handed to the exporter
(its `session` argument): how a Python service reaches the AWS_IAM-protected endpoint. Credentials and region come
from botocore's usual chain (here the environment). Records a counter, a gauge and a histogram (delta temporality:
Pulse keeps histograms as delta), exports once in protobuf with gzip, and prints the export result as JSON
(PushClientsIT).

usage: otlp_push_check.py <endpoint, e.g. http://127.0.0.1:3000/otlp/v1/metrics> <run id>
"""

import json
import sys

import botocore.session
import requests
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.sdk.metrics import Histogram, MeterProvider
from opentelemetry.sdk.metrics.export import AggregationTemporality, InMemoryMetricReader
from opentelemetry.sdk.resources import Resource


class SigV4(requests.auth.AuthBase):
    """Signs a prepared requests request for API Gateway (service execute-api), body and content headers included."""

    def __init__(self, session):
        self.credentials = session.get_credentials()
        self.region = session.get_config_variable("region") or "us-east-1"

    def __call__(self, r):
        body = r.body or b""
        headers = {k: v for k, v in r.headers.items() if k.lower() in ("content-type", "content-encoding")}
        signed = AWSRequest(method=r.method, url=r.url, data=body, headers=headers)
        SigV4Auth(self.credentials, "execute-api", self.region).add_auth(signed)
        r.headers.update(dict(signed.headers.items()))
        return r


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    endpoint, run = sys.argv[1], sys.argv[2]
    session = requests.Session()
    session.auth = SigV4(botocore.session.get_session())
    exporter = OTLPMetricExporter(
        endpoint=endpoint,
        session=session,
        compression=Compression.Gzip,
        preferred_temporality={Histogram: AggregationTemporality.DELTA},
        # The request meets PushFunction's cold start (a JVM's): longer than the default 10 s on a busy machine (the
        # test gives the script 60 s).
        timeout=45,
    )
    # The reader collects on demand; the exporter is called once with what it collected: one request, known values.
    reader = InMemoryMetricReader(preferred_temporality={Histogram: AggregationTemporality.DELTA})
    provider = MeterProvider(resource=Resource.create({"service.name": "push-it", "run": run}), metric_readers=[reader])
    meter = provider.get_meter("push-clients-it")
    requests_counter = meter.create_counter("push.requests", unit="{request}")
    requests_counter.add(5, {"route": "/a"})
    requests_counter.add(7, {"route": "/b"})
    requests_counter.add(1, {"route": "/a"})
    meter.create_gauge("push.temperature", unit="Cel").set(21.25, {"room": "lab"})
    latency = meter.create_histogram("push.latency", unit="ms")
    for v in (1.0, 2.0, 3.0, 10.0):
        latency.record(v, {"route": "/a"})
    data = reader.get_metrics_data()
    result = exporter.export(data)
    exporter.shutdown()
    provider.shutdown()
    print(json.dumps({"result": result.name}))


if __name__ == "__main__":
    main()
