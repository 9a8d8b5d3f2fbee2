#!/usr/bin/env python3
"""Runs the SAM transform on template.yaml offline and fails on any error.

`sam validate --lint` skips checks that only the transform makes (for example a SAM property that must be a
plain string but was given an intrinsic function), so a template can pass it and still fail at deploy
time. Local CodeUri/ContentUri paths are swapped for placeholder S3 URIs, as `sam package` would do.
Also asserts what the deployed stack relies on: IAM auth on every API route, finite retries and bisection on every
event source mapping, and a schedule expression EventBridge accepts on every rule a Schedule event creates (for a
parameter: its Default and each of its AllowedValues; a bad one would only fail at deploy time).
Checks the CloudWatch dashboard too, which no linter reads: its body must be JSON once the !Sub placeholders are
filled in, and every custom metric a dashboard widget or an alarm names (namespace MetricsNamespace, dimension
Service=<POWERTOOLS_SERVICE_NAME>) must be a constant of that function's *Metric.java enums (in PascalCase).
Usage: translate_template.py [template.yaml]   (run with the SAM CLI's Python, from .venv)
"""
import glob
import json
import os
import re
import sys

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse


PLACEHOLDER = re.compile(r"\$\{([^}!]+)\}")


def sub_string(value):
    """The template string of a Fn::Sub (either form), or None."""
    if isinstance(value, dict) and list(value) == ["Fn::Sub"]:
        arg = value["Fn::Sub"]
        return arg if isinstance(arg, str) else arg[0]
    return None


def emitted_metrics(template, base):
    """{service: {metric names}} from each function's POWERTOOLS_SERVICE_NAME and the *Metric.java enums under its
    CodeUri: the CloudWatch name of a constant is the constant in PascalCase (dev.pulse.metrics.MetricName)."""
    services = {}
    for res in template.get("Resources", {}).values():
        if res["Type"] != "AWS::Serverless::Function":
            continue
        props = res.get("Properties", {})
        service = props.get("Environment", {}).get("Variables", {}).get("POWERTOOLS_SERVICE_NAME")
        code = props.get("CodeUri")
        if not isinstance(service, str) or not isinstance(code, str):
            continue
        names = services.setdefault(service, set())
        for java in glob.glob(os.path.join(base, code, "src", "main", "java", "**", "*Metric.java"), recursive=True):
            with open(java, encoding="utf-8") as f:
                source = f.read()
            body = re.search(r"\benum\s+\w+\s+implements\s+MetricName\s*\{(.*)", source, re.S)
            if body:
                for constant in re.findall(r"^    ([A-Z][A-Z0-9_]*)\b", body.group(1), re.M):
                    names.add("".join(w[:1] + w[1:].lower() for w in constant.split("_")))
    return services


def check_dashboards(template, base):
    """Problems with the dashboards' bodies and with the custom metrics that dashboards and alarms name, and how
    many such metric references were checked."""
    problems = []
    checked = []
    params = template.get("Parameters", {})
    services = emitted_metrics(template, base)

    def custom(where, namespace, metric, dims):
        if namespace != "${MetricsNamespace}":
            return
        service = dims.get("Service")
        checked.append(where)
        if service not in services:
            problems.append(f"{where}: {metric} has Service={service}, which no function emits")
        elif metric not in services[service]:
            problems.append(f"{where}: {metric} (Service={service}) is not in that function's *Metric.java enums")

    def fill(match):
        # A Number parameter stands for a JSON number (its Default); anything else is only valid inside a JSON
        # string, where the placeholder can stay as it is.
        param = params.get(match.group(1), {})
        return str(param["Default"]) if param.get("Type") == "Number" and "Default" in param else match.group(0)

    for name, res in template.get("Resources", {}).items():
        props = res.get("Properties", {})
        if res["Type"] == "AWS::CloudWatch::Dashboard":
            body = sub_string(props.get("DashboardBody"))
            if body is None:
                problems.append(f"{name}: DashboardBody is not a !Sub string")
                continue
            try:
                widgets = json.loads(PLACEHOLDER.sub(fill, body)).get("widgets", [])
            except ValueError as e:
                problems.append(f"{name}: DashboardBody is not JSON once its placeholders are filled in: {e}")
                continue
            for widget in widgets:
                title = widget.get("properties", {}).get("title", widget.get("type"))
                for row in widget.get("properties", {}).get("metrics", []):
                    fields = [f for f in row if not isinstance(f, dict)]
                    if len(fields) >= 2:
                        dims = dict(zip(fields[2::2], fields[3::2]))
                        custom(f"{name} widget '{title}'", fields[0], fields[1], dims)
        elif res["Type"] == "AWS::CloudWatch::Alarm":
            namespace = props.get("Namespace")
            if namespace == {"Ref": "MetricsNamespace"}:
                dims = {d["Name"]: d["Value"] for d in props.get("Dimensions", [])}
                custom(name, "${MetricsNamespace}", props.get("MetricName"), dims)
    return problems, len(checked)


RATE = re.compile(r"rate\((\d+) (minute|minutes|hour|hours|day|days)\)")
CRON = re.compile(r"cron\(([^()]+)\)")


def schedule_problem(expression):
    """Why EventBridge would refuse a schedule expression, or None."""
    if not isinstance(expression, str):
        return f"{expression!r} is not a string"
    rate = RATE.fullmatch(expression)
    if rate:
        value, unit = int(rate.group(1)), rate.group(2)
        if value < 1:
            return f"{expression}: the value must be a positive integer"
        if (value == 1) == unit.endswith("s"):
            return f"{expression}: the unit must be singular for 1 and plural above"
        return None
    cron = CRON.fullmatch(expression)
    if cron:
        fields = cron.group(1).split()
        if len(fields) != 6:
            return f"{expression}: cron takes 6 fields (minutes hours day-of-month month day-of-week year)"
        if "?" not in (fields[2], fields[4]):
            return f"{expression}: day-of-month or day-of-week must be '?'"
        return None
    return f"{expression!r} is neither rate(N unit) nor cron(...)"


def check_schedules(out, params):
    """Problems with the schedule expressions of the transformed template's EventBridge rules, and how many values
    were checked (a literal, or a parameter's Default and AllowedValues)."""
    problems = []
    checked = 0
    for name, res in out["Resources"].items():
        if res["Type"] != "AWS::Events::Rule" or "ScheduleExpression" not in res["Properties"]:
            continue
        expression = res["Properties"]["ScheduleExpression"]
        if isinstance(expression, dict) and list(expression) == ["Ref"] and expression["Ref"] in params:
            param = params[expression["Ref"]]
            values = ([("Default", param["Default"])] if "Default" in param else []) + \
                [("AllowedValues", v) for v in param.get("AllowedValues", [])]
            where = f"{name} (parameter {expression['Ref']} "
        else:
            values = [("ScheduleExpression", expression)]
            where = f"{name} ("
        for what, value in values:
            checked += 1
            problem = schedule_problem(value)
            if problem:
                problems.append(f"{where}{what}): {problem}")
    return problems, checked


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
    dashboard_problems, metrics_checked = check_dashboards(template, os.path.dirname(os.path.abspath(path)))
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
    schedule_problems, schedules_checked = check_schedules(out, template.get("Parameters", {}))
    problems = dashboard_problems + schedule_problems
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
    print(f"{path}: SAM transform OK ({len(out['Resources'])} resources); "
          f"dashboard JSON and {metrics_checked} custom metric references OK; {schedules_checked} schedule expression(s) OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
