#!/usr/bin/env bash
# Prints the home of a JDK >= 21: JAVA_HOME if it qualifies, else the newest one under /usr/lib/jvm.
# Exits 1 (printing nothing) when there is none.
set -u
major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }
ok() { [ -x "$1/bin/javac" ] && v=$(major "$1") && [ -n "$v" ] && [ "${v%%.*}" -ge 21 ] 2>/dev/null; }
if [ -n "${JAVA_HOME:-}" ] && ok "$JAVA_HOME"; then echo "$JAVA_HOME"; exit 0; fi
best=""; bestv=0
for d in /usr/lib/jvm/*/; do
  d=${d%/}
  [ -L "$d" ] && continue
  if ok "$d"; then v=$(major "$d"); v=${v%%.*}; if [ "$v" -gt "$bestv" ]; then best=$d; bestv=$v; fi; fi
done
[ -n "$best" ] && { echo "$best"; exit 0; }
exit 1
