"""Runs the PyPI Prometheus API client (prometheus-api-client) against Pulse's Prometheus API.

Each request is signed with SigV4 for execute-api by botocore, passed to the client as a requests auth: how a user
reaches the AWS_IAM-protected API from Python. Credentials and region come from botocore's usual chain (here the
environment). Reads a JSON list of calls on stdin, prints a JSON list of their results (PrometheusClientsIT).

usage: prometheus_client_check.py <base url, e.g. http://127.0.0.1:3000/prometheus> < calls.json
"""

import datetime
import json
import sys

import botocore.session
import requests
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from prometheus_api_client import PrometheusConnect


class SigV4(requests.auth.AuthBase):
    """Signs a prepared requests request for API Gateway (service execute-api)."""

    def __init__(self, session):
        self.credentials = session.get_credentials()
        self.region = session.get_config_variable("region") or "us-east-1"

    def __call__(self, r):
        body = r.body or b""
        headers = {k: v for k, v in r.headers.items() if k.lower() == "content-type"}
        signed = AWSRequest(method=r.method, url=r.url, data=body, headers=headers)
        SigV4Auth(self.credentials, "execute-api", self.region).add_auth(signed)
        r.headers.update(dict(signed.headers.items()))
        return r


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    prom = PrometheusConnect(url=sys.argv[1], auth=SigV4(botocore.session.get_session()))
    results = []
    for call in json.load(sys.stdin):
        kind = call["kind"]
        if kind == "range":
            results.append(
                prom.custom_query_range(
                    call["query"],
                    start_time=datetime.datetime.fromtimestamp(call["start"], datetime.timezone.utc),
                    end_time=datetime.datetime.fromtimestamp(call["end"], datetime.timezone.utc),
                    step=call["step"],
                )
            )
        elif kind == "instant":
            results.append(prom.custom_query(call["query"], params={"time": call["time"]}))
        elif kind == "series":
            results.append(
                prom.get_series(
                    start=datetime.datetime.fromtimestamp(call["start"], datetime.timezone.utc),
                    end=datetime.datetime.fromtimestamp(call["end"], datetime.timezone.utc),
                    params={"match[]": call["match"]},
                )
            )
        elif kind == "labels":
            results.append(prom.get_label_names())
        elif kind == "label_values":
            results.append(prom.get_label_values(call["name"]))
        elif kind == "metrics":
            results.append(prom.all_metrics())
        else:
            print("unknown call kind " + kind, file=sys.stderr)
            sys.exit(2)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
