"""Fixtures shared by the whole-product tests: the scripted LLM and a gateway on the real weather server.

Both process wrappers come from tests/gateway (the gateway's own test harness), reused as they are.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "gateway"))

from gateway.conftest import fake_llm  # noqa: E402,F401  (the module-scoped scripted LLM, reused)
from gateway_processes import WEATHER_SERVER, FakeLlm, GatewayProcess  # noqa: E402

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def start_chromium(language: str, width: int = 1100, height: int = 1250) -> webdriver.Chrome:
    """Headless Chromium whose page sees `language` first in navigator.languages (what the page's words follow;
    --lang alone does not reach a headless page)."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("chromium/chromedriver are not installed (scripts/setup.sh installs them when run as root)")
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 f"--window-size={width},{height}", f"--lang={language}"):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    return driver


@pytest.fixture(scope="module")
def weather_gateway(fake_llm: FakeLlm, tmp_path_factory: pytest.TempPathFactory):
    """`mcp-chat serve` on the scripted LLM, with the real weather server (simulated data) over stdio."""
    gateway = GatewayProcess(tmp_path_factory.mktemp("gateway"), {"weather": WEATHER_SERVER}, fake_llm.url)
    yield gateway
    gateway.stop()
