"""The chat page in a real headless Chromium, against the gateway with the real weather server (simulated
data) and the scripted LLM: streamed text, a tool trace, a chart that loads, per-user history, the error banner."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.gateway_processes import REPO, GatewayProcess

from .conftest import start_chromium

ARTIFACTS = REPO / "artifacts"

QUESTION = "画出北京未来五天的温度曲线"
ANSWER = "这是北京未来五天的温度曲线。气温整体平稳。变化不大。详见下图。"  # shown a checked sentence at a time

# Records every text the answer bubble had, so the test can see it grow piece by piece.
WATCH_BUBBLE = """
window.bubbleTexts = [];
new MutationObserver((records) => {
  for (const record of records) {
    const bubble = record.target.closest && record.target.closest('.message.assistant .bubble');
    if (bubble) window.bubbleTexts.push(bubble.textContent);
    for (const node of record.addedNodes) {
      if (node.nodeType === Node.TEXT_NODE && record.target.matches('.message.assistant .bubble')) {
        window.bubbleTexts.push(node.data);
      }
    }
  }
}).observe(document.getElementById('messages'), {childList: true, subtree: true, characterData: true});
"""


@pytest.fixture(scope="module")
def browser():
    driver = start_chromium("en-US")  # the page's words in English (test_chat_page.py has them in Chinese)
    yield driver
    driver.quit()


def _wait(driver, condition, timeout: float = 90):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda _: condition())


def _switch_user(driver, user: str) -> None:
    field = driver.find_element(By.ID, "user-input")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(user, Keys.ENTER)
    _wait(driver, lambda: driver.execute_script("return localStorage.getItem('mcp-chat.user')") == user)


def test_a_question_streams_an_answer_with_a_tool_trace_and_a_chart(browser, weather_gateway, fake_llm):
    fake_llm.script(
        {"tool_calls": [{"name": "weather__get_weather_chart",
                         "arguments": {"city": "北京", "days": 5, "kind": "temperature"}}]},
        {"content": ANSWER},
    )
    browser.get(weather_gateway.url)
    _switch_user(browser, "web_test")
    _wait(browser, lambda: browser.find_element(By.ID, "welcome").is_displayed())
    browser.execute_script(WATCH_BUBBLE)
    browser.find_element(By.ID, "message").send_keys(QUESTION, Keys.ENTER)

    meta = _wait(browser, lambda: browser.find_element(By.CSS_SELECTOR, ".message.assistant .meta").text)
    assert "fake-model" in meta
    bubble = browser.find_element(By.CSS_SELECTOR, ".message.assistant .bubble")
    assert bubble.text == ANSWER
    # The simulated data is said in a badge under the answer, not in the answer's text.
    (notice,) = browser.find_elements(By.CSS_SELECTOR, ".message.assistant .notice")
    assert notice.get_attribute("data-kind") == "simulated" and "模拟数据" in notice.text
    growing = [text for text in browser.execute_script("return window.bubbleTexts") if text]
    partial = {text for text in growing if ANSWER.startswith(text) and text != ANSWER}
    assert len(partial) >= 3, f"the answer did not stream: {growing}"

    (trace,) = browser.find_elements(By.CSS_SELECTOR, ".message.assistant .tool-call")
    assert trace.get_attribute("data-state") == "done"
    assert trace.find_element(By.CLASS_NAME, "tool-name").text == "get_weather_chart"
    assert trace.find_element(By.CLASS_NAME, "tool-server").text == "weather"
    assert trace.find_element(By.CLASS_NAME, "tool-duration").text.endswith(" ms")
    assert not trace.find_element(By.CLASS_NAME, "tool-arguments").is_displayed()  # collapsed by default
    trace.find_element(By.TAG_NAME, "summary").click()
    assert '"kind": "temperature"' in trace.find_element(By.CLASS_NAME, "tool-arguments").text
    assert "Beijing" in trace.find_element(By.CLASS_NAME, "tool-result").text

    (image,) = browser.find_elements(By.CSS_SELECTOR, ".message.assistant .images img")
    assert image.get_attribute("src").startswith(f"{weather_gateway.url}/media/")
    _wait(browser, lambda: browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth",
                                                  image) > 200)
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "web_chat.png"))


def test_history_is_per_user_and_can_be_cleared(browser, weather_gateway, fake_llm):
    fake_llm.script({"content": "Hello, Ann!"})
    browser.get(weather_gateway.url)
    _switch_user(browser, "ann")
    browser.find_element(By.ID, "message").send_keys("Hi, I am Ann", Keys.ENTER)
    _wait(browser, lambda: browser.find_element(By.CSS_SELECTOR, ".message.assistant .meta").text)

    _switch_user(browser, "bob")
    _wait(browser, lambda: browser.find_element(By.ID, "welcome").is_displayed())
    assert not browser.find_elements(By.CSS_SELECTOR, ".message")

    _switch_user(browser, "ann")
    _wait(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, ".message")) == 2)
    texts = [bubble.text for bubble in browser.find_elements(By.CSS_SELECTOR, ".message .bubble")]
    assert texts == ["Hi, I am Ann", "Hello, Ann!"]
    assert "bob" in browser.execute_script(
        "return [...document.querySelectorAll('#known-users option')].map(o => o.value)")

    browser.find_element(By.ID, "clear-history").click()
    _wait(browser, lambda: not browser.find_elements(By.CSS_SELECTOR, ".message"))
    assert weather_gateway.get("/chat/ann/history").json()["messages"] == []


def test_the_banner_says_when_the_llm_and_a_server_are_down(browser, tmp_path: Path):
    broken_server = {"command": "python", "args": ["-c", "raise SystemExit(3)"], "timeout": 5}
    gateway = GatewayProcess(tmp_path, {"broken": broken_server}, "http://127.0.0.1:9")
    try:
        browser.get(gateway.url)
        banner = browser.find_element(By.ID, "banner")
        _wait(browser, banner.is_displayed)
        assert "The language model is unreachable (fake-model at http://127.0.0.1:9/v1)" in banner.text
        assert "MCP server “broken” is down" in banner.text
        assert "No weather (MCP) server is connected" in banner.text
        assert browser.find_element(By.ID, "health").get_attribute("data-state") == "degraded"

        browser.find_element(By.ID, "message").send_keys("Hello?", Keys.ENTER)
        failed = _wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, ".bubble.failed"))
        assert failed[0].text.startswith("⚠ The answer failed:") and "llm_unavailable" in failed[0].text
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / "web_banner.png"))
        assert httpx.get(f"{gateway.url}/health", timeout=30).json()["status"] == "degraded"
    finally:
        gateway.stop()
