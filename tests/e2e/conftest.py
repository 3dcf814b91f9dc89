"""Fixtures shared by the whole-product tests: a browser, and a gateway on the real weather server and the scripted
LLM (tests/conftest.py's `fake_llm`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.gateway_processes import WEATHER_SERVER, FakeLlm, GatewayProcess

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


def wait_for(driver: webdriver.Chrome, condition, timeout: float = 60):
    """What `condition()` returns once it is truthy, polled every 0.1 s (TimeoutException after `timeout` s)."""
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda _: condition())


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a test module, the page's words in English (a module may define its own)."""
    driver = start_chromium("en-US")
    yield driver
    driver.quit()



@pytest.fixture(scope="module")
def weather_gateway(fake_llm: FakeLlm, tmp_path_factory: pytest.TempPathFactory):
    """`mcp-chat serve` on the scripted LLM, with the real weather server (simulated data) over stdio."""
    gateway = GatewayProcess(tmp_path_factory.mktemp("gateway"), {"weather": WEATHER_SERVER}, fake_llm.url)
    yield gateway
    gateway.stop()
