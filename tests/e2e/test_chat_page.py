"""The chat page's features in a real headless Chromium (Chinese browser), against the gateway with the real
weather server (simulated data), the tiny MCP server and the scripted LLM: Markdown and hostile text, stop,
notices and live progress, conversations, a tool's question, approving and denying a call, copy and regenerate,
charts, and the phone layout. One browser and one gateway for the module; screenshots under artifacts/."""

from __future__ import annotations

import base64
import time

import httpx
import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.gateway_processes import REPO, TINY_SERVER, WEATHER_SERVER, GatewayProcess

from .conftest import start_chromium

ARTIFACTS = REPO / "artifacts"
HOSTILE = '<img src=x onerror=window.pwned=1><script>window.pwned=2</script>'
MARKDOWN = ("Here is the overview:\n\n| City | Note |\n|---|---|\n| **Oslo** | calm and dry |\n| Lima | foggy |\n\n"
            f"- first point\n- second point\n\nA note that tried {HOSTILE} to run.")
WIDE = ("Here is the table you asked for, with the weather of the whole day:\n\n"
        "| City | Morning | Afternoon | Evening | Night |\n|---|---|---|---|---|\n"
        "| Reykjavik | light drizzle | heavy showers | very windy | mostly clear |\n\n"
        "And one very long word for the narrow screen: "
        "Supercalifragilisticexpialidociousandthensomemorewithoutanybreaks")
LONG_ANSWER = "Tomorrow looks calm in Oslo. Light winds blow all day. Clear skies stay through the evening hours."
# Every text each progress line had, in order, so the test can see it advance while the search runs.
WATCH_PROGRESS = """
window.progressTexts = [];
new MutationObserver(() => {
  const line = document.querySelector('.message.assistant:last-child .progress-text');
  if (line && line.textContent !== window.progressTexts.at(-1)) window.progressTexts.push(line.textContent);
}).observe(document.getElementById('messages'), {childList: true, subtree: true, characterData: true});
"""


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("chat_page"),
                             {"weather": WEATHER_SERVER, "tiny": TINY_SERVER}, fake_llm.url)
    yield process
    process.stop()


# Every text the last answer's bubble had, in order: the prefill's percentages, then the answer.
WATCH_BUBBLE = """
window.bubbleTexts = [];
new MutationObserver(() => {
  const bubble = document.querySelector('.message.assistant:last-child .bubble');
  if (bubble && bubble.textContent !== window.bubbleTexts.at(-1)) window.bubbleTexts.push(bubble.textContent);
}).observe(document.getElementById('messages'), {childList: true, subtree: true, characterData: true});
"""


@pytest.fixture(scope="module")
def reporting_gateway(fake_llm, tmp_path_factory):
    """A gateway whose LLM reports its prefill (as llm_backend does)."""
    process = GatewayProcess(tmp_path_factory.mktemp("chat_page_prefill"), {}, fake_llm.url,
                             profile={"prefill_progress": True})
    yield process
    process.stop()


@pytest.fixture(scope="module")
def browser(gateway):
    driver = start_chromium("zh-CN")
    driver.get(gateway.url)
    yield driver
    driver.quit()


def _wait(driver, condition, timeout: float = 60):
    # The page re-renders lists it refreshes: an element found a moment before may be gone; look again.
    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=[StaleElementReferenceException]).until(lambda _: condition())


def _js(driver, script: str, *args):
    return driver.execute_script(script, *args)


def _open_user(driver, gateway, user: str) -> None:
    """The page for `user`, freshly loaded (their last conversation open)."""
    driver.get(gateway.url)
    _js(driver, "localStorage.setItem('mcp-chat.user', arguments[0])", user)
    driver.get(gateway.url)
    _wait(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#conversation-list .conversation"))


def _send(driver, text: str) -> None:
    driver.find_element(By.ID, "message").send_keys(text, Keys.ENTER)


def _answers(driver):
    return driver.find_elements(By.CSS_SELECTOR, ".message.assistant")


def _finished(driver, count: int = 1):
    """The last answer, once `count` answers have their footer actions (the stream is over)."""
    _wait(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, ".message.assistant .copy")) >= count)
    return _answers(driver)[-1]


def test_markdown_renders_and_hostile_html_stays_text(browser, gateway, fake_llm):
    fake_llm.script({"content": MARKDOWN})
    _open_user(browser, gateway, "md_user")
    assert browser.find_element(By.ID, "send").text == "发送"  # the page's words follow the browser
    field = browser.find_element(By.ID, "message")
    field.send_keys("Give me an overview,", Keys.SHIFT, Keys.ENTER, Keys.SHIFT, "as a table please", Keys.ENTER)
    answer = _finished(browser)
    # Shift+Enter made a new line; Enter sent; the focus is back in the message field.
    assert browser.find_element(By.CSS_SELECTOR, ".message.user .bubble").text == \
        "Give me an overview,\nas a table please"
    assert _js(browser, "return document.activeElement.id") == "message"
    bubble = answer.find_element(By.CLASS_NAME, "bubble")
    headers = [cell.text for cell in bubble.find_elements(By.CSS_SELECTOR, "table th")]
    assert headers == ["City", "Note"]
    assert bubble.find_element(By.CSS_SELECTOR, "table td strong").text == "Oslo"
    assert [item.text for item in bubble.find_elements(By.TAG_NAME, "li")] == ["first point", "second point"]
    # The model's HTML is shown as typed: no element was made from it and no script ran.
    assert HOSTILE in bubble.text
    assert _js(browser, "return document.querySelectorAll('#messages img, #messages script').length") == 0
    assert _js(browser, "return window.pwned === undefined")


def test_hostile_tool_data_stays_text(browser, gateway, fake_llm):
    fake_llm.script({"tool_calls": [{"name": "tiny__echo", "arguments": {"text": HOSTILE}}]},
                    {"content": f"The tool said: {HOSTILE}"})
    _open_user(browser, gateway, "hostile_user")
    _send(browser, "Echo this back to me")
    answer = _finished(browser)
    trace = answer.find_element(By.CLASS_NAME, "tool-call")
    trace.find_element(By.TAG_NAME, "summary").click()
    assert HOSTILE in trace.find_element(By.CLASS_NAME, "tool-arguments").text
    assert HOSTILE in trace.find_element(By.CLASS_NAME, "tool-result").text
    assert HOSTILE in answer.find_element(By.CLASS_NAME, "bubble").text
    assert _js(browser, "return document.querySelectorAll('#messages img, #messages script').length") == 0
    assert _js(browser, "return window.pwned === undefined")


def test_stop_keeps_the_partial_answer_and_the_gateway_cancels(browser, gateway, fake_llm):
    fake_llm.script({"content": LONG_ANSWER, "token_gap": 0.15})
    _open_user(browser, gateway, "stop_user")
    _send(browser, "How is Oslo tomorrow?")
    bubble = _wait(browser, lambda: browser.find_element(By.CSS_SELECTOR, ".message.assistant .bubble"))
    _wait(browser, lambda: len(bubble.text) >= 12)
    stop = browser.find_element(By.ID, "stop")
    assert stop.is_displayed() and not browser.find_element(By.ID, "send").is_displayed()
    stop.click()
    badge = _wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, ".message.assistant.stopped .stopped-badge"))
    assert badge[0].text == "■ 已停止"
    partial = bubble.text
    assert partial and LONG_ANSWER.startswith(partial) and partial != LONG_ANSWER
    time.sleep(0.5)
    assert bubble.text == partial  # nothing more arrives
    assert browser.find_element(By.ID, "send").is_displayed()
    # The gateway closed the LLM stream and stored nothing.
    _wait(browser, lambda: fake_llm.closed_streams(), timeout=10)
    assert gateway.get("/chat/stop_user/history").json()["messages"] == []


def test_a_range_search_shows_live_progress_and_the_simulated_data_badge(browser, gateway, fake_llm):
    fake_llm.script({"tool_calls": [{"name": "weather__find_cities_by_temperature",
                                     "arguments": {"relation": "above", "temp": -50, "day": 1}}]},
                    {"content": "明天这些城市都在零下五十度以上。"})
    _open_user(browser, gateway, "range_user")
    _js(browser, WATCH_PROGRESS)
    _send(browser, "明天零下五十度以上的城市有哪些？")
    answer = _finished(browser)
    texts = _js(browser, "return window.progressTexts")
    counts = [int(text.split("/")[0].removeprefix("已查 ")) for text in texts]
    assert len(counts) >= 5 and counts == sorted(counts), texts  # it advanced, step by step
    assert texts[-1].startswith(f"已查 {counts[-1]}/") and texts[-1].endswith(f"/{counts[-1]} 个城市")
    (notice,) = answer.find_elements(By.CLASS_NAME, "notice")
    assert notice.get_attribute("data-kind") == "simulated" and "模拟数据" in notice.text and notice.is_displayed()


def test_conversations_are_created_switched_and_renamed(browser, gateway, fake_llm):
    _open_user(browser, gateway, "conv_user")
    fake_llm.script({"content": "Main answer."}, {"content": "Side answer."})
    _send(browser, "In the main chat")
    _finished(browser)
    browser.find_element(By.ID, "new-chat").click()
    _wait(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, ".conversation")) == 2
          and browser.find_element(By.ID, "welcome").is_displayed())
    _send(browser, "In a side chat")
    _finished(browser)
    items = browser.find_elements(By.CSS_SELECTOR, ".conversation")
    current = browser.find_element(By.CSS_SELECTOR, '.conversation-open[aria-current="true"]')
    assert current.text == "未命名对话"

    current.find_element(By.XPATH, "..").find_element(By.CLASS_NAME, "conversation-rename").click()
    prompt = _wait(browser, lambda: browser.switch_to.alert)
    prompt.send_keys("去奥斯陆")
    prompt.accept()
    _wait(browser, lambda: browser.find_element(By.CSS_SELECTOR, '.conversation-open[aria-current="true"]').text
          == "去奥斯陆")

    main = next(item for item in browser.find_elements(By.CSS_SELECTOR, ".conversation-open") if item.text == "主对话")
    main.click()
    _wait(browser, lambda: [b.text for b in browser.find_elements(By.CSS_SELECTOR, ".message .bubble")] == [
        "In the main chat", "Main answer."])
    side = next(item for item in browser.find_elements(By.CSS_SELECTOR, ".conversation-open") if item.text == "去奥斯陆")
    side.click()
    _wait(browser, lambda: [b.text for b in browser.find_elements(By.CSS_SELECTOR, ".message .bubble")] == [
        "In a side chat", "Side answer."])
    listed = {c["title"]: c["turns"] for c in gateway.get("/chat/conv_user/conversations").json()["conversations"]}
    assert listed == {"去奥斯陆": 2, "": 2} and len(items) == 2


def test_a_tools_question_is_answered_with_the_picker(browser, gateway, fake_llm):
    fake_llm.script({"tool_calls": [{"name": "tiny__choose_size", "arguments": {"item": "shirt"}}]},
                    {"content": "Your shirt comes in size M."})
    _open_user(browser, gateway, "picker_user")
    _send(browser, "I want a shirt")
    card = _wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, ".question-card"))[0]
    assert "Which size of shirt?" in card.text
    choices = card.find_elements(By.CSS_SELECTOR, ".choice")
    assert [choice.text for choice in choices] == ["S", "M", "L", "拒绝", "取消"]
    assert _js(browser, "return document.activeElement.textContent") == "S"  # the keyboard is on the picker
    choices[1].click()
    answer = _finished(browser)
    assert card.get_attribute("data-outcome") == "accept" and "已回答：M" in card.text
    assert not card.find_elements(By.CSS_SELECTOR, ".choice")
    answer.find_element(By.TAG_NAME, "summary").click()
    assert "shirt in size M" in answer.find_element(By.CLASS_NAME, "tool-result").text
    assert answer.find_element(By.CLASS_NAME, "bubble").text == "Your shirt comes in size M."


def test_a_tool_call_is_approved_then_another_denied(browser, gateway, fake_llm):
    _open_user(browser, gateway, "approval_user")
    browser.find_element(By.ID, "confirm-tools").click()  # 调用前询问
    try:
        fake_llm.script({"tool_calls": [{"name": "tiny__echo", "arguments": {"text": "hello"}}]},
                        {"content": "The echo tool answered: hello."}, {"content": "The echo tool answered: hello."})
        _send(browser, "Echo hello")
        card = _wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, ".question-card.approval"))[0]
        assert "允许调用 tiny 的 echo 吗？" in card.text and '"text": "hello"' in card.text
        card.find_element(By.CLASS_NAME, "approve").click()
        answer = _finished(browser)
        assert card.get_attribute("data-outcome") == "approve" and "已允许" in card.text
        assert answer.find_element(By.CLASS_NAME, "tool-call").get_attribute("data-state") == "done"

        fake_llm.script({"tool_calls": [{"name": "tiny__echo", "arguments": {"text": "again"}}]},
                        {"content": "The echo says again."})
        _send(browser, "Echo again")
        cards = lambda: browser.find_elements(By.CSS_SELECTOR, ".question-card.approval")  # noqa: E731
        card = _wait(browser, lambda: len(cards()) == 2 and cards())[-1]
        card.find_element(By.CLASS_NAME, "deny").click()
        answer = _finished(browser, 2)
        assert card.get_attribute("data-outcome") == "deny" and "已拒绝" in card.text
        assert answer.find_element(By.CLASS_NAME, "tool-call").get_attribute("data-state") == "denied"
        assert answer.find_element(By.CLASS_NAME, "bubble").text == \
            "You did not allow the call to echo (tiny), so I did not look that up."
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / "chat_page_approval.png"))
    finally:
        browser.find_element(By.ID, "confirm-tools").click()


def test_copy_and_regenerate_the_last_answer(browser, gateway, fake_llm):
    fake_llm.script({"content": "A **first** answer."}, {"content": "A better answer."})
    _open_user(browser, gateway, "copy_user")
    _send(browser, "Say something")
    answer = _finished(browser)
    _js(browser, "window.copied = []; navigator.clipboard.writeText = async (text) => { window.copied.push(text); };")
    answer.find_element(By.CLASS_NAME, "copy").click()
    _wait(browser, lambda: answer.find_element(By.CLASS_NAME, "copy").text == "已复制")
    assert _js(browser, "return window.copied") == ["A **first** answer."]  # the answer as written

    answer.find_element(By.CLASS_NAME, "regenerate").click()
    _wait(browser, lambda: browser.find_element(By.CSS_SELECTOR, ".message.assistant .bubble").text
          == "A better answer." and browser.find_elements(By.CSS_SELECTOR, ".message.assistant .copy"))
    assert len(_answers(browser)) == 1
    assert [m["content"] for m in gateway.get("/chat/copy_user/history").json()["messages"]] == [
        "Say something", "A better answer."]


def test_a_chart_enlarges_has_the_tools_alt_text_and_downloads_as_png(browser, gateway, fake_llm):
    fake_llm.script({"tool_calls": [{"name": "weather__get_weather_chart",
                                     "arguments": {"city": "北京", "days": 5, "kind": "temperature"}}]},
                    {"content": "这是北京未来五天的温度曲线，详见下图。"})
    _open_user(browser, gateway, "chart_user")
    _send(browser, "画出北京未来五天的温度曲线")
    answer = _finished(browser)
    image = answer.find_element(By.CSS_SELECTOR, ".images img")
    alt = image.get_attribute("alt")
    assert alt.startswith("折线图《北京") and "最高气温" in alt
    _wait(browser, lambda: _js(browser, "return arguments[0].complete && arguments[0].naturalWidth", image) > 200)
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "chat_page_desktop.png"))
    # Dark mode follows the system's preference.
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme",
                                                                         "value": "dark"}]})
    try:
        assert _js(browser, "return getComputedStyle(document.body).backgroundColor") == "rgb(20, 23, 31)"
        browser.save_screenshot(str(ARTIFACTS / "chat_page_dark.png"))
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    assert _js(browser, "return getComputedStyle(document.body).backgroundColor") == "rgb(244, 246, 250)"

    answer.find_element(By.CLASS_NAME, "chart").click()
    _wait(browser, lambda: _js(browser, "return document.getElementById('lightbox').open"))
    big = browser.find_element(By.ID, "lightbox-image")
    assert big.get_attribute("src") == image.get_attribute("src") and big.get_attribute("alt") == alt
    assert browser.find_element(By.ID, "lightbox-caption").text == alt
    download = browser.find_element(By.ID, "lightbox-download")
    assert download.get_attribute("download") == "chart.png"
    png = httpx.get(download.get_attribute("href"), timeout=10)
    assert png.headers["content-type"] == "image/png" and png.content.startswith(b"\x89PNG")
    browser.save_screenshot(str(ARTIFACTS / "chat_page_lightbox.png"))
    browser.find_element(By.ID, "lightbox").send_keys(Keys.ESCAPE)
    _wait(browser, lambda: not _js(browser, "return document.getElementById('lightbox').open"))


def test_the_page_fits_a_phone_without_horizontal_scroll(browser, gateway, fake_llm):
    # The chart conversation again (its chart and badge), with a wide table and a long unbroken word added.
    fake_llm.script({"content": WIDE})
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 375, "height": 812, "deviceScaleFactor": 2, "mobile": True})
    try:
        _open_user(browser, gateway, "chart_user")
        _send(browser, "Show a wide table")
        answer = _finished(browser, 2)
        assert answer.find_elements(By.CSS_SELECTOR, ".bubble .table-wrap table")  # the wide table is there
        # The reopened conversation shows the earlier answer's chart and badge again, not the notice as text.
        earlier = _answers(browser)[0]
        assert earlier.find_elements(By.CSS_SELECTOR, ".images img")
        assert "模拟数据" in earlier.find_element(By.CLASS_NAME, "notice").text
        assert "模拟数据" not in earlier.find_element(By.CLASS_NAME, "bubble").text
        _wait(browser, lambda: _js(browser, "return [...document.images].every(i => i.complete)"))
        assert _js(browser, "return window.innerWidth") == 375
        assert _js(browser, "return document.documentElement.scrollWidth") <= 375
        assert not browser.find_element(By.ID, "sidebar").is_displayed() or \
            _js(browser, "return document.getElementById('sidebar').getBoundingClientRect().right") <= 0
        ARTIFACTS.mkdir(exist_ok=True)
        shot = browser.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
        (ARTIFACTS / "chat_page_phone.png").write_bytes(base64.b64decode(shot["data"]))
        browser.find_element(By.ID, "toggle-chats").click()  # the conversation list slides in
        _wait(browser, lambda: _js(browser, "return document.getElementById('sidebar')"
                                            ".getBoundingClientRect().left") >= 0)
        assert _js(browser, "return document.documentElement.scrollWidth") <= 375
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_long_prefill_shows_its_progress_until_the_first_token(browser, reporting_gateway, fake_llm):
    fake_llm.script({"prefill": {"total": 3000, "chunk_s": [0.4] * 4}, "content": "Oslo is calm today."})
    _open_user(browser, reporting_gateway, "prefill_user")
    _js(browser, WATCH_BUBBLE)
    _send(browser, "How is Oslo?")
    answer = _finished(browser)
    texts = _js(browser, "return window.bubbleTexts")
    reading = [text for text in texts if text.startswith("正在读取工具… ")]
    assert reading == ["正在读取工具… 25%", "正在读取工具… 50%", "正在读取工具… 75%", "正在读取工具… 100%"], texts
    after = texts[texts.index(reading[-1]) + 1]
    assert after and "Oslo is calm today.".startswith(after), texts  # replaced by the answer's first token
    assert answer.find_element(By.CLASS_NAME, "bubble").text == "Oslo is calm today."
