#!/usr/bin/env bash
# Fuzzes every harness for a fixed budget with Jazzer (make fuzz): one JVM per harness at the Lambda's heap.
# Usage (from the repository root, after `mvn -pl fuzz -am process-test-classes`):
#   fuzz/run.sh SECONDS [Class#method ...]      (no harness named: all of them)
# Per harness it prints the executions, the coverage reached (libFuzzer's cov: edges of Pulse's and the parsers'
# instrumented code) and the findings. A finding's input is written next to the harness's seeds
# (fuzz/src/test/resources/<package>/<Class>Inputs/<method>/crash-<sha1>, or timeout-/oom-), where make test runs it as
# a regression test; the script then exits 1. Logs: fuzz/target/fuzz-logs/; generated corpus: fuzz/target/corpus/.
set -euo pipefail

SECONDS_EACH=${1:?usage: fuzz/run.sh SECONDS [Class#method ...]}
shift
HARNESSES=("$@")
if [ ${#HARNESSES[@]} -eq 0 ]; then
  HARNESSES=(
    dev.pulse.codec.RecordDecoderFuzzTest#decodeUnits_whenAnyRecordBytes_answersUnitsOrPoisonAlike
    dev.pulse.codec.RecordDecoderFuzzTest#decodeUnits_whenGzippedLogsPayload_answersUnitsOrPoisonAlike
    dev.pulse.codec.RecordDecoderFuzzTest#decodeUnits_whenOtlpInAnyCompression_answersUnitsOrPoisonAlike
    dev.pulse.codec.RecordDecoderFuzzTest#decodeUnits_whenKplAggregateBody_answersUnitsOrPoisonAlike
    dev.pulse.query.QueryApiFuzzTest#handleRequest_whenAnyQueryBody_answers200OrClientError
    dev.pulse.query.QueryApiFuzzTest#handleRequest_whenAnyHttpRequest_answers200OrClientError
    dev.pulse.loadgen.ReplaySourceFuzzTest#read_whenAnyRecording_answersRecordsOrFieldError
  )
fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FUZZ="$ROOT/fuzz"
CP="$FUZZ/target/test-classes:$(cat "$FUZZ/target/classpath.txt")"
LOGS="$FUZZ/target/fuzz-logs"
mkdir -p "$LOGS"
# Edges counted for guidance: Pulse's code, Jackson's tokenizer and protobuf's wire reader. Instrumenting all of
# protobuf and OTLP's generated classes as well tripled each harness's start (about 80 s instead of 25 s on a busy
# 2-core machine) for guidance the wire reader already gives.
INSTRUMENT='dev.pulse.**:com.fasterxml.jackson.core.**:com.google.protobuf.CodedInputStream*'

failed=0
summary=()
for h in "${HARNESSES[@]}"; do
  class=${h%%#*}
  method=${h#*#}
  pkg_dir=$(dirname "${class//.//}")
  simple=${class##*.}
  inputs="$FUZZ/src/test/resources/$pkg_dir/${simple}Inputs/$method"
  corpus="$FUZZ/target/corpus/$simple/$method"
  log="$LOGS/$simple.$method.log"
  case "$simple" in
    RecordDecoderFuzzTest) dict=decoders.dict ;;
    QueryApiFuzzTest) dict=query.dict ;;
    *) dict=replay.dict ;;
  esac
  mkdir -p "$inputs" "$corpus"
  echo "== $simple#$method: ${SECONDS_EACH}s"
  # -Xmx768m: the Lambda's heap (1024 MB x 0.75); an OutOfMemoryError is a finding. -rss_limit_mb: the whole
  # process (heap, metaspace, the instrumentation's code cache). -timeout: seconds per input. -keep_going: report
  # up to 20 distinct findings (by stack trace) in one run instead of stopping at the first.
  set +e
  (cd "$FUZZ" && java -Xmx768m -Xss1m -XX:+EnableDynamicAgentLoading -XX:-OmitStackTraceInFastThrow \
      --enable-native-access=ALL-UNNAMED -cp "$CP" com.code_intelligence.jazzer.Jazzer \
      --target_class="$class" --target_method="$method" \
      --instrumentation_includes="$INSTRUMENT" --custom_hook_includes="$INSTRUMENT" \
      --keep_going=20 --reproducer_path="$LOGS" \
      -max_total_time="$SECONDS_EACH" -timeout=5 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
      -dict="$FUZZ/dicts/$dict" \
      -artifact_prefix="$inputs/" "$corpus" "$inputs" >"$log" 2>&1)
  rc=$?
  set -e
  runs=$(grep -oE '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1 | awk '{print $2}')
  stat=$(grep -E '^#[0-9]+' "$log" | grep -E 'cov: ' | tail -1)
  cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$stat")
  corp=$(sed -nE 's/.*corp: ([0-9]+)\/.*/\1/p' <<<"$stat")
  execs_per_s=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | awk '{print $2}' | tail -1)
  findings=$(grep -cE '^== Java Exception|^==[0-9]+== ERROR: libFuzzer: (timeout|out-of-memory)' "$log" || true)
  written=$(grep -oE 'Test unit written to .*' "$log" | sed 's/Test unit written to //' || true)
  line=$(printf '%-70s %10s execs %6s/s  cov %5s  corpus %5s  findings %s' "$simple#$method" "${runs:-?}" \
      "${execs_per_s:-?}" "${cov:-?}" "${corp:-?}" "$findings")
  summary+=("$line")
  echo "$line"
  if [ "$findings" -gt 0 ] || [ "$rc" -ne 0 ]; then
    failed=1
    grep -E '^== Java Exception|^==[0-9]+== ERROR: libFuzzer|^DEDUP_TOKEN' "$log" | sed 's/^/   /' || true
    if [ -n "$written" ]; then
      sed 's/^/   input: /' <<<"$written"
    fi
    [ "$findings" -gt 0 ] || echo "   Jazzer exited with $rc; see $log"
  fi
done

echo
echo "== make fuzz: ${SECONDS_EACH}s per harness"
printf '%s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
  echo "FINDINGS: inputs above (make test now runs them as regression tests); logs in $LOGS"
  exit 1
fi
echo "no findings"
