#!/usr/bin/env python3
"""make sam-local's checks, run by run.sh inside its network namespace once dockerd and the local stack are up.

`sam local invoke` for every event file of every function (events/<prefix>-*.json: ingest-, query-, compact-, loadgen-,
metricstream-, push-, as make invoke maps them) with events/env-local.json, then `sam local start-api` for the routes of
the query and push events;
each result is compared as MakeInvokeIT does, and the ingest events with events/expected/ (records, datapoints, poison
records and skipped events from the function's EMF document). The containers reach the emulators, which listen on
127.0.0.1, through forwarders on the namespace's bridge address (host.docker.internal inside the containers).
Prints one line per function and event; exits 1 on any failure.
"""

import argparse
import asyncio
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request

PORTS = (8000, 4567, 4566, 9001, 3000)
PREFIXES = {
    "ingest-": "IngestFunction",
    "query-": "QueryFunction",
    "compact-": "CompactFunction",
    "loadgen-": "LoadGenFunction",
    "metricstream-": "MetricStreamFunction",
    "push-": "PushFunction",
}
# The events whose routes sam local start-api serves (HTTP API events): each is sent there too.
API_PREFIXES = ("query-", "push-")
EMF_FIELDS = {"RecordsIn": "records", "DatapointsIn": "datapoints", "PoisonRecords": "poisonRecords"}


def forward(gateway):
    """TCP forwarders gateway:port -> 127.0.0.1:port for the emulators, in a daemon thread."""

    async def pipe(reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def serve():
        async def handler_for(port):
            async def handle(r, w):
                try:
                    ur, uw = await asyncio.open_connection("127.0.0.1", port)
                except OSError:
                    w.close()
                    return
                await asyncio.gather(pipe(r, uw), pipe(ur, w))

            return handle

        for port in PORTS:
            await asyncio.start_server(await handler_for(port), gateway, port)
        await asyncio.Event().wait()

    threading.Thread(target=lambda: asyncio.run(serve()), daemon=True).start()


def wait_for_stack(log, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.exists(log):
            with open(log, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if "the stack stays up" in text:
                return
        time.sleep(1)
    sys.exit(f"sam-local: FAILED: the local stack did not come up in {timeout} s (see {log})")


def first_sequence_number(path):
    with open(path, encoding="utf-8") as f:
        m = re.search(r'"sequenceNumber"\s*:\s*"(\d+)"', f.read())
    return int(m.group(1)) if m else 0


def emf_totals(text):
    totals = {}
    for line in text.splitlines():
        i = line.find('{"_aws":')
        if i < 0:
            continue
        try:
            doc = json.loads(line[i:])
        except json.JSONDecodeError:
            continue
        for metric in (m["Name"] for d in doc["_aws"]["CloudWatchMetrics"] for m in d["Metrics"]):
            v = doc.get(metric)
            totals[metric] = totals.get(metric, 0) + (sum(v) if isinstance(v, list) else v or 0)
    return totals


def invoke(root, args, fn, event):
    cmd = [
        os.path.join(root, ".venv/bin/sam"), "local", "invoke", fn, "-e", event,
        "--env-vars", args.env_file, "--parameter-overrides", "Architecture=x86_64",
        "--skip-pull-image", "--add-host", f"host.docker.internal:{args.gateway}",
    ]  # fmt: skip
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=600)
    return p, time.monotonic() - t0


def judge(fn, event, p, root):
    """(ok, detail) for one invoke, by MakeInvokeIT's rules and events/expected/."""
    if p.returncode != 0:
        return False, f"sam exited {p.returncode}: {p.stderr.strip().splitlines()[-1:]}"
    try:
        response = json.loads(p.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return False, f"no JSON response: {p.stdout[-300:]!r}"
    if isinstance(response, dict) and response.get("errorType"):
        return False, f"function error {response.get('errorType')}: {response.get('errorMessage', '')[:200]}"
    if fn == "IngestFunction":
        if response.get("batchItemFailures") != []:
            return False, f"batchItemFailures {response.get('batchItemFailures')}"
        expected_path = os.path.join(root, "events/expected", os.path.basename(event))
        if not os.path.exists(expected_path):
            return True, "no failures (no expected file)"
        with open(expected_path, encoding="utf-8") as f:
            expected = json.load(f)
        got = emf_totals(p.stderr + p.stdout)
        diffs = [
            f"{k} {got.get(m, 0):g} != {expected[k]}" for m, k in EMF_FIELDS.items() if got.get(m, 0) != expected[k]
        ]
        shown = " ".join(f"{k}={got.get(m, 0):g}" for m, k in EMF_FIELDS.items())
        return not diffs, shown + (" MISMATCH " + "; ".join(diffs) if diffs else " = expected")
    if fn == "CompactFunction":
        return "hoursBuilt" in response, f"hoursBuilt={response.get('hoursBuilt')}"
    if fn in ("QueryFunction", "MetricStreamFunction"):
        ok = response.get("statusCode") == 200 and (
            fn != "MetricStreamFunction" or "requestId" in response.get("body", "")
        )
        return ok, f"statusCode {response.get('statusCode')}"
    if fn == "PushFunction":
        # OTLP/HTTP's answer in the request's encoding (JSON): an ExportMetricsServiceResponse object. The event's
        # points are dated 2026-11-21, so after ACCEPT_PAST_SECONDS they are answered as rejected, still 200.
        try:
            body = json.loads(response.get("body") or "")
        except json.JSONDecodeError:
            body = None
        return response.get("statusCode") == 200 and isinstance(body, dict), f"statusCode {response.get('statusCode')}"
    canary = response.get("canary", {})
    ok = response.get("sent", 0) > 0 and response.get("acked") == response.get("sent")
    ok = ok and canary.get("lost", -1) == 0 and canary.get("duplicated", -1) == 0
    return ok, f"sent={response.get('sent')} acked={response.get('acked')} canary lost={canary.get('lost')}"


def start_api(root, args):
    """sam local start-api with one warm container per function, then the routes of the events/query-* and push-* files."""
    port = 3100
    cmd = [
        os.path.join(root, ".venv/bin/sam"), "local", "start-api", "--host", "127.0.0.1", "--port", str(port),
        "--env-vars", args.env_file, "--parameter-overrides", "Architecture=x86_64", "--skip-pull-image",
        "--warm-containers", "EAGER", "--add-host", f"host.docker.internal:{args.gateway}",
    ]  # fmt: skip
    log = open(os.path.join(args.work, "start-api.log"), "w", encoding="utf-8")
    proc = subprocess.Popen(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT)
    results = []
    try:
        end = time.monotonic() + 240
        while time.monotonic() < end:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/nowhere", timeout=2)
            except urllib.error.HTTPError:
                break
            except OSError:
                time.sleep(1)
        for name in sorted(os.listdir(os.path.join(root, "events"))):
            if not name.startswith(API_PREFIXES) or not name.endswith(".json"):
                continue
            with open(os.path.join(root, "events", name), encoding="utf-8") as f:
                ev = json.load(f)
            url = f"http://127.0.0.1:{port}{ev['rawPath']}" + (
                f"?{ev['rawQueryString']}" if ev.get("rawQueryString") else ""
            )
            body = ev.get("body")
            req = urllib.request.Request(
                url, data=body.encode() if body else None, method=ev["requestContext"]["http"]["method"],
                headers={"content-type": (ev.get("headers") or {}).get("content-type", "application/json")},
            )  # fmt: skip
            t0 = time.monotonic()
            try:
                with urllib.request.urlopen(req, timeout=120) as r:
                    status, text = r.status, r.read().decode()
            except urllib.error.HTTPError as e:
                status, text = e.code, e.read().decode()
            except OSError as e:
                status, text = 0, str(e)
            ok = status == 200 and text.lstrip().startswith("{")
            results.append(
                (ok, f"start-api {ev['routeKey']:<14} {name:<34} HTTP {status} {time.monotonic() - t0:5.1f}s")
            )
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--gateway", required=True)
    ap.add_argument("--stack-log", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    root = args.root

    forward(args.gateway)
    wait_for_stack(args.stack_log, 600)
    # The shipped env file, plus the local stack's Firehose access-key secret (its ARN is made at start).
    with open(os.path.join(root, "events/env-local.json"), encoding="utf-8") as f:
        env = json.load(f)
    import boto3  # the SAM CLI's

    sm = boto3.client("secretsmanager", endpoint_url="http://127.0.0.1:4566", region_name="us-east-1",
                      aws_access_key_id="local", aws_secret_access_key="local")  # fmt: skip
    secrets = [s["ARN"] for s in sm.list_secrets()["SecretList"]]
    env.setdefault("MetricStreamFunction", {})["FIREHOSE_ACCESS_KEY_SECRET_ARN"] = secrets[0] if secrets else ""
    args.env_file = os.path.join(args.work, "env-local.json")
    with open(args.env_file, "w", encoding="utf-8") as f:
        json.dump(env, f)

    by_fn = {}
    for name in sorted(os.listdir(os.path.join(root, "events"))):
        fn = next((f for p, f in PREFIXES.items() if name.startswith(p)), None)
        if fn and name.endswith(".json"):
            by_fn.setdefault(fn, []).append(os.path.join("events", name))
    # Ingest events share a shard: in sequence order, one after the other (as MakeInvokeIT).
    by_fn["IngestFunction"].sort(key=lambda e: first_sequence_number(os.path.join(root, e)))

    lines, failed = [], 0

    def run_chain(fn):
        out = []
        for ev in by_fn[fn]:
            p, secs = invoke(root, args, fn, ev)
            ok, detail = judge(fn, ev, p, root)
            with open(os.path.join(args.work, os.path.basename(ev) + ".log"), "w", encoding="utf-8") as f:
                f.write(p.stdout + "\n--- stderr\n" + p.stderr)
            out.append((ok, f"{fn:<21} {os.path.basename(ev):<34} {'ok  ' if ok else 'FAIL'} {secs:5.1f}s {detail}"))
            print(out[-1][1], flush=True)
        return out

    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for res in pool.map(run_chain, sorted(by_fn, key=lambda f: -len(by_fn[f]))):
            lines += res
    api = start_api(root, args)
    for ok, line in api:
        print(f"{line} {'ok' if ok else 'FAIL'}", flush=True)
    results = lines + api
    failed = sum(1 for ok, _ in results if not ok)
    print(f"sam-local: {len(results) - failed}/{len(results)} passed in {time.monotonic() - t0:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
