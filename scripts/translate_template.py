#!/usr/bin/env python3
"""Runs the SAM transform on template.yaml offline and fails on any error.

`sam validate --lint` skips checks that only the transform makes (for example a SAM property that must be a
plain string but was given an intrinsic function), so a template can pass it and still fail at deploy
time. Local CodeUri/ContentUri paths are swapped for placeholder S3 URIs, as `sam package` would do.
Also asserts what the deployed stack relies on: IAM auth on every API route, finite retries and bisection on every
event source mapping, and a schedule expression EventBridge accepts on every rule a Schedule event creates (for a
parameter: its Default and each of its AllowedValues; a bad one would only fail at deploy time). For SnapStart: every
function with SnapStart on published versions has an AutoPublishAlias, and whatever invokes it (event source mappings,
EventBridge rule targets, the HTTP API's integrations and their invoke permissions) names the alias, not the function
itself, which would run $LATEST: never from a snapshot.
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
            values = ([("Default", param["Default"])] if "Default" in param else []) + [
                ("AllowedValues", v) for v in param.get("AllowedValues", [])
            ]
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


def check_aliases(template, out):
    """Problems with SnapStart and the alias its callers must name, and how many invoker references were checked."""
    problems = []
    aliases = {}  # function logical id -> the alias's logical id in the transformed template
    for name, res in template.get("Resources", {}).items():
        if res["Type"] != "AWS::Serverless::Function":
            continue
        props = res.get("Properties", {})
        alias = props.get("AutoPublishAlias")
        snap = props.get("SnapStart", {}).get("ApplyOn")
        if snap is not None and snap != "PublishedVersions":
            problems.append(f"{name}: SnapStart.ApplyOn is {snap!r}, expected PublishedVersions")
        if snap == "PublishedVersions" and not alias:
            problems.append(
                f"{name}: SnapStart without AutoPublishAlias; its events would invoke $LATEST, never a snapshot"
            )
        if alias:
            if not isinstance(alias, str):
                problems.append(f"{name}: AutoPublishAlias must be a plain string")
                continue
            aliases[name] = name + "Alias" + alias
            fn = out["Resources"].get(name, {}).get("Properties", {})
            if fn.get("SnapStart", {}).get("ApplyOn") != "PublishedVersions":
                problems.append(f"{name}: no SnapStart on published versions in the transformed AWS::Lambda::Function")
            target = out["Resources"].get(aliases[name])
            if not target or target["Type"] != "AWS::Lambda::Alias":
                problems.append(f"{name}: the transform made no alias {aliases[name]}")
    checked = 0
    per_alias = {}

    def names(value, where):
        """The function or alias a reference names (Ref, GetAtt or a ${...} in a Sub), checked against the alias."""
        nonlocal checked
        refs = set()
        if isinstance(value, dict) and "Ref" in value:
            refs.add(value["Ref"])
        elif isinstance(value, dict) and "Fn::GetAtt" in value:
            att = value["Fn::GetAtt"]
            refs.add(att[0] if isinstance(att, list) else att.split(".")[0])
        else:
            text = sub_string(value)
            if text:
                refs.update(m.split(".")[0] for m in PLACEHOLDER.findall(text))
        for ref in refs:
            if ref in aliases:
                problems.append(f"{where} names {ref} ($LATEST), not its alias {aliases[ref]}")
            if ref in aliases.values():
                checked += 1
                per_alias[ref] = per_alias.get(ref, 0) + 1

    for name, res in out["Resources"].items():
        props = res.get("Properties", {})
        if res["Type"] in ("AWS::Lambda::EventSourceMapping", "AWS::Lambda::Permission"):
            names(props.get("FunctionName"), name)
        elif res["Type"] == "AWS::Events::Rule":
            for t in props.get("Targets", []):
                names(t.get("Arn"), f"{name} target {t.get('Id')}")
        elif res["Type"] == "AWS::ApiGatewayV2::Api":
            for route, ops in props.get("Body", {}).get("paths", {}).items():
                for method, op in ops.items():
                    names(op.get("x-amazon-apigateway-integration", {}).get("uri"), f"{name} {method.upper()} {route}")
    for fn, alias in aliases.items():
        if template["Resources"][fn].get("Properties", {}).get("Events") and not per_alias.get(alias):
            problems.append(f"{fn} has events but nothing in the transformed template invokes its alias {alias}")
    return problems, checked, sorted(aliases)


class NoManagedPolicies:
    def load(self):
        return {}


# Routes whose caller cannot sign requests with SigV4 and presents a key the function checks instead: Firehose's HTTP
# endpoint delivery sends X-Amz-Firehose-Access-Key (MetricStreamFunction compares it with its secret).
ACCESS_KEY_ROUTES = {("post", "/firehose/metric-stream")}


def sub_mapped(template, value):
    """A string, a Fn::Join of such, or a Fn::Sub whose variables are Fn::FindInMap lookups, resolved against the
    template's Mappings."""
    if isinstance(value, str):
        return value
    if "Fn::FindInMap" in value:
        m, k1, k2 = value["Fn::FindInMap"]
        return template["Mappings"][m][k1][k2]
    if "Fn::Join" in value:
        sep, parts = value["Fn::Join"]
        return sep.join(sub_mapped(template, p) for p in parts)
    text, names = value["Fn::Sub"]
    for name, lookup in names.items():
        m, k1, k2 = lookup["Fn::FindInMap"]
        text = text.replace("${" + name + "}", template["Mappings"][m][k1][k2])
    return text


def check_local_env(template, out, base):
    """The endpoint variables sam local needs are declared (SAM's --env-vars overrides only declared variables) but
    absent from the deployed functions (AWS::NoValue after the transform: an empty value would be the SDK's endpoint),
    and every variable events/env-local.json sets is declared for the function it names (else SAM drops it silently).
    Returns (problems, endpoint variables checked)."""
    problems, checked = [], 0
    declared = {}
    for name, res in out["Resources"].items():
        if res["Type"] != "AWS::Lambda::Function":
            continue
        variables = res["Properties"].get("Environment", {}).get("Variables", {})
        declared[name] = set(variables)
        for var, value in variables.items():
            if var.startswith("AWS_ENDPOINT_URL"):
                checked += 1
                if value != {"Ref": "AWS::NoValue"}:
                    problems.append(f"{name} {var} must be !Ref AWS::NoValue when deployed, is {value!r}")
    env_path = os.path.join(base, "events", "env-local.json")
    if os.path.exists(env_path):
        with open(env_path, encoding="utf-8") as f:
            env = json.load(f)
        functions = [n for n, r in template.get("Resources", {}).items() if r["Type"] == "AWS::Serverless::Function"]
        for section, values in env.items():
            targets = functions if section == "Parameters" else [section]
            if section != "Parameters" and section not in functions:
                problems.append(f"events/env-local.json: {section} is not a function of the template")
                continue
            for var, value in values.items():
                if var == "JAVA_TOOL_OPTIONS":
                    # It replaces the template's options: it must keep them and only add (kinesalite's
                    # -Daws.cborEnabled=false), or sam local would run another JVM configuration than Lambda.
                    for t in targets:
                        base_options = sub_mapped(
                            template, out["Resources"][t]["Properties"]["Environment"]["Variables"][var]
                        )
                        if not value.startswith(base_options + " "):
                            problems.append(
                                f"events/env-local.json: {section} JAVA_TOOL_OPTIONS must start with the template's '{base_options}'"
                            )
                missing = [t for t in targets if var not in declared.get(t, set())]
                if section != "Parameters" and missing or section == "Parameters" and len(missing) == len(targets):
                    problems.append(f"events/env-local.json: {var} ({section}) is not declared in the template")
    return problems, checked


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
    alias_problems, invokers_checked, aliased = check_aliases(template, out)
    env_problems, endpoints_checked = check_local_env(template, out, os.path.dirname(os.path.abspath(path)))
    problems = dashboard_problems + schedule_problems + alias_problems + env_problems
    for name, res in out["Resources"].items():
        if res["Type"] == "AWS::ApiGatewayV2::Api":
            for route, ops in res["Properties"].get("Body", {}).get("paths", {}).items():
                for method, op in ops.items():
                    if (method, route) in ACCESS_KEY_ROUTES:
                        if op.get("security") != [{"NONE": []}]:
                            problems.append(
                                f"{name} {method.upper()} {route} must have no authorizer (its caller cannot sign)"
                            )
                        continue
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
    print(
        f"{path}: SAM transform OK ({len(out['Resources'])} resources); "
        f"dashboard JSON and {metrics_checked} custom metric references OK; {schedules_checked} schedule expression(s) OK; "
        f"SnapStart and alias of {', '.join(aliased) or 'no function'} OK ({invokers_checked} invokers name the alias); "
        f"{endpoints_checked} endpoint variables absent when deployed, events/env-local.json declared"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
