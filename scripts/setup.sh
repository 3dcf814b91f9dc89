#!/usr/bin/env bash
# Idempotent setup: a virtualenv with the project and its test/backend extras, a CJK font
# for charts, and the tiny SmolLM2 model the engine tests run on.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
stamp=.venv/.installed-$(cat pyproject.toml | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
    .venv/bin/pip install -q --upgrade pip
    .venv/bin/pip install -q -e ".[backend,test]"
    touch "$stamp"
fi
