#!/usr/bin/env bash
# Installs LocalStack (localstack-core[runtime], host mode) into tools/localstack/.venv with the committed
# constraints, and kinesis-mock (npm kinesis-local, pinned in tools/localstack/package-lock.json) into
# tools/localstack/node_modules: the localstack backend of `make run` / `make invoke` and LocalStackBackendIT.
# Every failure is one line saying what is missing and how to get it, and exit status 2.
set -uo pipefail

LOCALSTACK_VERSION=2026.3.0
home=${1:-tools/localstack}
venv=$home/.venv
log=$home/install.log

fail() {
  echo "error: $*" >&2
  exit 2
}

is313() {
  "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' >/dev/null 2>&1
}

# LocalStack 2026.3 is built and tested for Python 3.13: LOCALSTACK_PYTHON, python3.13 on PATH, or pyenv's 3.13.x.
python=
if [ -n "${LOCALSTACK_PYTHON:-}" ] && ! is313 "$LOCALSTACK_PYTHON"; then
  fail "LOCALSTACK_PYTHON=$LOCALSTACK_PYTHON is not a Python 3.13: point it at a python3.13, or unset it to use the one on PATH or pyenv's"
fi
for candidate in "${LOCALSTACK_PYTHON:-}" python3.13 $(ls -d "$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"/versions/3.13*/bin/python3.13 2>/dev/null | sort -V -r); do
  if [ -n "$candidate" ] && is313 "$candidate"; then
    python=$candidate
    break
  fi
done
[ -n "$python" ] || fail "the localstack backend needs Python 3.13 and found none (python3.13 on PATH, pyenv's 3.13.x, LOCALSTACK_PYTHON): install it (apt-get install python3.13 python3.13-venv, or pyenv install 3.13) or set LOCALSTACK_PYTHON=/path/to/python3.13"

start=$(date +%s)
echo "installing LocalStack $LOCALSTACK_VERSION (host mode) into $venv with $python (about 500 MB, once) ..."
# A failed attempt must not cost the install that worked: it is kept aside and put back (moved back to the same
# path, so its scripts' shebangs stay valid) unless the new one completes.
rm -rf "$venv.previous"
[ -d "$venv" ] && mv "$venv" "$venv.previous"
restore() {
  rm -rf "$venv"
  if [ -d "$venv.previous" ]; then
    mv "$venv.previous" "$venv"
    echo "note: the previous install in $venv was kept" >&2
  fi
}
pip_error() {
  grep -E '^(ERROR|error):' "$log" | tail -1 | cut -c1-300
}
"$python" -m venv "$venv" >"$log" 2>&1 \
  || { restore; fail "$python could not create $venv (see $log): install Python 3.13's venv module (apt-get install python3.13-venv)"; }
if ! "$venv/bin/pip" install -q --disable-pip-version-check -c "$home/constraints.txt" "localstack-core[runtime]==$LOCALSTACK_VERSION" >>"$log" 2>&1; then
  cause=$(pip_error)
  restore
  if grep -qE 'NewConnectionError|Connection refused|Could not fetch URL|Name or service not known|Temporary failure in name resolution|timed out|from versions: none' "$log"; then
    fail "installing localstack-core[runtime]==$LOCALSTACK_VERSION failed: PyPI is not reachable, or offers no localstack-core (${cause:-see $log}); check the network or PIP_INDEX_URL, then run make again"
  fi
  case "$cause" in
    *ResolutionImpossible*|*"conflicting dependencies"*|*"No matching distribution"*)
      fail "installing localstack-core[runtime]==$LOCALSTACK_VERSION failed: the pins in $home/constraints.txt cannot be met (${cause:-see $log}); fix the pin, then run make again" ;;
    *)
      fail "installing localstack-core[runtime]==$LOCALSTACK_VERSION from PyPI into $venv failed (${cause:-see $log}): check that PyPI is reachable, then run make again" ;;
  esac
fi
npm ci --prefix "$home" --no-audit --no-fund --loglevel=error >>"$log" 2>&1 \
  || { restore; fail "installing kinesis-mock (npm kinesis-local) into $home/node_modules failed (see $log): check that node, npm and the npm registry are reachable, then run make again"; }
rm -rf "$venv.previous"
touch "$venv/.installed"
echo "LocalStack installed in $(( $(date +%s) - start )) s"
