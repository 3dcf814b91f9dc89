"""The page shows every content type a tool returns (a resource link, a file to download, audio to play), and
finds and exports conversations, in a real headless Chromium against the gateway with
@modelcontextprotocol/server-everything (streamable HTTP), the content server and the scripted LLM. Screenshots:
/tmp/content_page.png and /tmp/search_page.png."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from tests.support.content_gateway import content_gateway

from .test_chat_page import _finished, _js, _open_user, _send, _wait


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    with content_gateway(tmp_path_factory.mktemp("content_page"), fake_llm.url) as process:
        yield process


def _media(answer):
    return answer.find_elements(By.CSS_SELECTOR, ".tool-media .media-item")


def test_a_reply_shows_a_link_a_download_and_audio(browser, gateway, fake_llm):
    fake_llm.script({"tool_calls": [
        {"name": "everything__get-resource-links", "arguments": {"count": 1}},
        # Read-only tools (MCP annotations): called without an approval card.
        {"name": "everything__get-resource-reference", "arguments": {"resourceType": "Blob", "resourceId": 2}},
        {"name": "content__play_chime", "arguments": {"seconds": 0.5}}]},
        {"content": "Here are the resource, the file and the chime you asked for."})
    _open_user(browser, gateway, "content_user")
    _send(browser, "Give me a resource, a file and a chime")
    answer = _finished(browser)
    link, download, audio = _media(answer)
    assert "Blob Resource 1" in link.text and "demo://resource/dynamic/blob/1" in link.text
    # Not a web address: read from its server through the gateway.
    assert link.get_attribute("href") == \
        f"{gateway.url}/resources/read?server=everything&uri=demo%3A%2F%2Fresource%2Fdynamic%2Fblob%2F1"
    assert download.tag_name == "a" and download.get_attribute("download") == "2.txt"
    assert download.get_attribute("href").endswith("/2.txt") and "text/plain" in download.text
    player = audio.find_element(By.TAG_NAME, "audio")
    # The browser read the stored clip's header: it is a real, playable WAV of the length the tool made.
    _wait(browser, lambda: _js(browser, "return arguments[0].readyState", player) >= 1)
    assert abs(_js(browser, "return arguments[0].duration", player) - 0.5) < 0.01
    browser.save_screenshot("/tmp/content_page.png")
    # A reopened conversation shows them again.
    _open_user(browser, gateway, "content_user")
    answer = _finished(browser)
    assert [node.get_attribute("class") for node in _media(answer)] == [
        "media-item link", "media-item file", "media-item audio"]


def test_the_search_box_finds_messages_and_opens_their_chat_and_the_chat_exports(browser, gateway, fake_llm,
                                                                                tmp_path):
    _open_user(browser, gateway, "search_user")
    fake_llm.script({"content": "Reykjavik will be windy, bring a warm coat."})
    _send(browser, "What should I pack for Reykjavik?")
    _finished(browser)
    browser.find_element(By.ID, "new-chat").click()
    _wait(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, "#conversation-list .conversation")) == 2)
    fake_llm.script({"content": "Lisbon is mild and sunny."})
    _send(browser, "And Lisbon?")
    _finished(browser)
    box = browser.find_element(By.CSS_SELECTOR, ".conversation-search")
    box.send_keys("warm coat")
    _wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, ".search-result"))
    (result,) = browser.find_elements(By.CSS_SELECTOR, ".search-result")
    assert result.find_element(By.CLASS_NAME, "search-title").text == "Main chat"
    assert [mark.text for mark in result.find_elements(By.TAG_NAME, "mark")] == ["warm", "coat"]
    assert not browser.find_element(By.ID, "conversation-list").is_displayed()
    browser.save_screenshot("/tmp/search_page.png")
    result.find_element(By.CLASS_NAME, "search-open").click()
    # The main chat is open again, the list is back, and the box is empty.
    _wait(browser, lambda: "Reykjavik" in browser.find_element(By.ID, "messages").text)
    assert browser.find_element(By.ID, "conversation-list").is_displayed() and box.get_attribute("value") == ""
    box.send_keys("snowstorm")
    _wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, ".search-none"))
    box.clear()
    box.send_keys(" ")  # nothing to look for: the list again
    _wait(browser, lambda: browser.find_element(By.ID, "conversation-list").is_displayed())
    # Export: the file the gateway names lands in the download folder.
    browser.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    browser.find_element(By.CSS_SELECTOR, ".export-md").click()
    _wait(browser, lambda: (tmp_path / "Main_chat-default.md").exists())
    text = (tmp_path / "Main_chat-default.md").read_text()
    assert text.startswith("# Main chat") and "**You:** What should I pack for Reykjavik?" in text
