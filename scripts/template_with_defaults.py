#!/usr/bin/env python3
"""Writes a copy of a template with other Defaults for some parameters, for scanners that evaluate Conditions.

checkov drops the resources whose Condition is false with the parameters' Defaults, so a resource that is off by
default (the log subscription: SubscribeAccountLogs) would never be scanned. `make lint` scans this copy too.
Only the Default line of each named parameter changes (textually: the template keeps its short-form tags).
Usage: template_with_defaults.py TEMPLATE OUT NAME=VALUE...
"""

import re
import sys


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    source, out, overrides = argv[1], argv[2], dict(a.split("=", 1) for a in argv[3:])
    lines = open(source, encoding="utf-8").read().split("\n")
    in_parameters, current, done = False, None, set()
    for i, line in enumerate(lines):
        if re.match(r"^\S", line):
            in_parameters, current = line.rstrip() == "Parameters:", None
            continue
        if not in_parameters:
            continue
        name = re.match(r"^  ([A-Za-z0-9]+):\s*$", line)
        if name:
            current = name.group(1)
            continue
        default = re.match(r"^    Default:", line)
        if default and current in overrides:
            lines[i] = "    Default: '%s'" % overrides[current]
            done.add(current)
    missing = set(overrides) - done
    if missing:
        sys.exit("%s: no Default line for parameter(s) %s" % (source, ", ".join(sorted(missing))))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("%s: %s with %s" % (out, source, ", ".join("%s=%s" % kv for kv in sorted(overrides.items()))))


if __name__ == "__main__":
    main(sys.argv)
