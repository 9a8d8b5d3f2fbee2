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
for candidate in "${LOCALSTACK_PYTHON:-}" python3.13 $(ls -d "$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"/versions/3.13*/bin/python3.13 2>/dev/null | sort -V -r); do
  if [ -n "$candidate" ] && is313 "$candidate"; then
    python=$candidate
    break
  fi
done
[ -n "$python" ] || fail "the localstack backend needs Python 3.13 and found none (python3.13 on PATH, pyenv's 3.13.x, LOCALSTACK_PYTHON): install it (apt-get install python3.13 python3.13-venv, or pyenv install 3.13) or set LOCALSTACK_PYTHON=/path/to/python3.13"

start=$(date +%s)
echo "installing LocalStack $LOCALSTACK_VERSION (host mode) into $venv with $python (about 500 MB, once) ..."
rm -rf "$venv"
"$python" -m venv "$venv" >"$log" 2>&1 \
  || fail "$python could not create $venv (see $log): install Python 3.13's venv module (apt-get install python3.13-venv)"
"$venv/bin/pip" install -q --disable-pip-version-check -c "$home/constraints.txt" "localstack-core[runtime]==$LOCALSTACK_VERSION" >>"$log" 2>&1 \
  || fail "installing localstack-core[runtime]==$LOCALSTACK_VERSION from PyPI into $venv failed (see $log): check that PyPI is reachable, then run make again"
npm ci --prefix "$home" --no-audit --no-fund --loglevel=error >>"$log" 2>&1 \
  || fail "installing kinesis-mock (npm kinesis-local) into $home/node_modules failed (see $log): check that node, npm and the npm registry are reachable, then run make again"
touch "$venv/.installed"
echo "LocalStack installed in $(( $(date +%s) - start )) s"
