#!/usr/bin/env bash
# Create .venv-repro/, the environment under test for the CPU-reproducible articles:
# torch 2.13.0 (the CPU wheel pip finds through its configured find-links; never a range or
# a bare "torch", which would pull gigabytes of CUDA wheels) plus the union of the
# requires.packages of every article with gpus: 0, installed under the constraint
# torch==2.13.0 so nothing upgrades it.
#
# Cached: a stamp holds the hash of what was installed; the script does nothing until that
# set changes (a new article needs a new package). Safe to run concurrently (flock).
#
#   scripts/repro-env.sh            # then: errkb verify --python .venv-repro/bin/python
#
# Environment: PYTHON (the base interpreter, default python3: it must be 3.11 for the cp311
# wheel), REPRO_VENV (default .venv-repro), ERRKB_PYTHON (errkb's own, default .venv/bin/python).
set -euo pipefail
cd "$(dirname "$0")/.."

TORCH_VERSION=2.13.0
SCRIPT_VERSION=1
PYTHON=${PYTHON:-python3}
REPRO_VENV=${REPRO_VENV:-.venv-repro}
ERRKB_PYTHON=${ERRKB_PYTHON:-.venv/bin/python}
STAMP="$REPRO_VENV/.errkb-stamp"

requirements=$("$ERRKB_PYTHON" -m app.verify.envspec kb)
wanted=$(printf 'v%s\ntorch==%s\n%s\n' "$SCRIPT_VERSION" "$TORCH_VERSION" "$requirements" \
    | sha256sum | cut -d' ' -f1)

mkdir -p "$REPRO_VENV"
exec 9>"$REPRO_VENV/.errkb-lock"
flock 9

if [ -x "$REPRO_VENV/bin/python" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$wanted" ]; then
    echo "$REPRO_VENV is up to date"
    exit 0
fi

[ -x "$REPRO_VENV/bin/python" ] || "$PYTHON" -m venv "$REPRO_VENV"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "torch==$TORCH_VERSION" >"$work/constraints.txt"
{ echo "torch==$TORCH_VERSION"; printf '%s\n' "$requirements"; } | sed '/^$/d' >"$work/requirements.txt"

echo "installing into $REPRO_VENV:" $(cat "$work/requirements.txt")
"$REPRO_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    -c "$work/constraints.txt" -r "$work/requirements.txt"
"$REPRO_VENV/bin/python" -c "import importlib.metadata as m; v = m.version('torch'); \
assert v.split('+')[0] == '$TORCH_VERSION', v; print('torch', v)"
echo "$wanted" >"$STAMP"
