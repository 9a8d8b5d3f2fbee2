#!/usr/bin/env python3
"""Runs the SAM transform on template.yaml offline and fails on any error.

`sam validate --lint` skips checks that only the transform makes (for example a SAM property that must be a
plain string but was given an intrinsic function), so a template can pass it and still fail at deploy
time. Local CodeUri/ContentUri paths are swapped for placeholder S3 URIs, as `sam package` would do.
Also asserts what the deployed stack relies on: IAM auth on every API route and the compactor's filter.
Usage: translate_template.py [template.yaml]   (run with the SAM CLI's Python, from .venv)
"""
import json
import os
import sys

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse


class NoManagedPolicies:
    def load(self):
        return {}


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "template.yaml"
    if len(sys.argv) > 2:
        print("usage: translate_template.py [template.yaml]", file=sys.stderr)
        return 2
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    with open(path, encoding="utf-8") as f:
        template = yaml_parse(f.read())
    for resource in template.get("Resources", {}).values():
        props = resource.get("Properties", {})
        if resource["Type"] == "AWS::Serverless::Function":
            props["CodeUri"] = "s3://placeholder/code.zip"
        elif resource["Type"] == "AWS::Serverless::LayerVersion":
            props["ContentUri"] = "s3://placeholder/layer.zip"
    try:
        out = transform(template, {}, NoManagedPolicies())
    except Exception as e:  # the transform raises several exception types; all mean the same here
        print(f"{path}: SAM transform failed: {e}", file=sys.stderr)
        return 1
    problems = []
    for name, res in out["Resources"].items():
        if res["Type"] == "AWS::ApiGatewayV2::Api":
            for route, ops in res["Properties"].get("Body", {}).get("paths", {}).items():
                for method, op in ops.items():
                    if op.get("security") != [{"AWS_IAM": []}]:
                        problems.append(f"{name} {method.upper()} {route} is not AWS_IAM-authorized")
        if res["Type"] == "AWS::Lambda::EventSourceMapping":
            props = res["Properties"]
            for key in ("MaximumRetryAttempts", "MaximumRecordAgeInSeconds", "DestinationConfig"):
                if key not in props:
                    problems.append(f"{name} has no {key}: Lambda's defaults retry a bad batch for days")
            if props.get("BisectBatchOnFunctionError") is not True:
                problems.append(f"{name} does not bisect failing batches")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(f"{path}: SAM transform OK ({len(out['Resources'])} resources)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
