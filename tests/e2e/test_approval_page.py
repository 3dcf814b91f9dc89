"""The approval card's remember buttons and the sidebar's remembered approvals in a real headless Chromium
(English browser), against the gateway with an MCP server whose tools declare what they do
(tests/support/annotated_mcp_server.py) and the scripted LLM. Screenshot: /tmp/approvals_page.png."""

from __future__ import annotations

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.gateway_processes import ANNOTATED_SERVER, GatewayProcess

from .conftest import start_chromium

SCREENSHOT = "/tmp/approvals_page.png"


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("approval_page"), {"notes": ANNOTATED_SERVER}, fake_llm.url)
    yield process
    process.stop()


@pytest.fixture(scope="module")
def browser(gateway):
    driver = start_chromium("en-US")
    yield driver
    driver.quit()


def _wait(driver, condition, timeout: float = 60):
    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=[StaleElementReferenceException]).until(lambda _: condition())


def _ask(driver, fake_llm, tool: str, path, count: int) -> None:
    """Send a message the model answers by calling `tool`; wait for the `count`th answer's card or its end."""
    done = {"content": f"Done with {tool}."}  # twice: the answer check may have it written again
    fake_llm.script({"tool_calls": [{"name": f"notes__{tool}", "arguments": {"path": str(path)}}]}, done, done)
    driver.find_element(By.ID, "message").send_keys(f"{tool} the file", Keys.ENTER)
    _wait(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, ".message.assistant")) == count)


def _cards(driver):
    return driver.find_elements(By.CSS_SELECTOR, ".question-card.approval")


def _finished(driver, count: int) -> None:
    _wait(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, ".message.assistant .copy")) >= count)


def _rules(driver) -> list[str]:
    return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#approval-rule-list li")]


def test_remember_buttons_and_the_list_of_remembered_approvals(browser, gateway, fake_llm, tmp_path):
    browser.get(gateway.url)
    browser.execute_script("localStorage.setItem('mcp-chat.user', 'page_user')")
    browser.get(gateway.url)
    _wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#conversation-list .conversation"))
    browser.find_element(By.CSS_SELECTOR, "#approval-rules summary").click()
    _wait(browser, lambda: _rules(browser) == ["None: each call is decided by its defaults."])

    # A writing tool: every remember choice is offered; "Allow in this chat" stops the asking in this chat.
    _ask(browser, fake_llm, "write", tmp_path / "one", 1)
    card = _wait(browser, lambda: _cards(browser))[0]
    assert [button.text for button in card.find_elements(By.CSS_SELECTOR, ".choice")] == [
        "Allow once", "Allow in this chat", "Always allow", "Deny", "Always deny"]
    card.find_element(By.CLASS_NAME, "approve-conversation").click()
    _finished(browser, 1)
    assert "Allowed in this chat" in card.text and (tmp_path / "one").exists()
    _wait(browser, lambda: _rules(browser) == ["notes · write\nallowed in Main chat\n✕"])
    _ask(browser, fake_llm, "write", tmp_path / "two", 2)
    _finished(browser, 2)
    assert len(_cards(browser)) == 1 and (tmp_path / "two").exists()

    # A destructive tool: warned, and no allow for the chat only; "Always deny" is remembered too.
    _ask(browser, fake_llm, "erase", tmp_path / "one", 3)
    card = _wait(browser, lambda: len(_cards(browser)) == 2 and _cards(browser))[-1]
    assert "may delete or overwrite data" in card.text
    assert [button.text for button in card.find_elements(By.CSS_SELECTOR, ".choice")] == [
        "Allow once", "Always allow", "Deny", "Always deny"]
    browser.save_screenshot(SCREENSHOT)  # the open card's buttons beside the remembered allow
    card.find_element(By.CLASS_NAME, "deny-always").click()
    _finished(browser, 3)
    assert "Always denied" in card.text and (tmp_path / "one").exists()
    _wait(browser, lambda: len(_rules(browser)) == 2)
    assert _rules(browser) == ["notes · erase\nalways denied\n✕", "notes · write\nallowed in Main chat\n✕"]

    # Revoking one, then all: the list and the gateway agree, and the tool is asked about again.
    browser.find_elements(By.CSS_SELECTOR, ".approval-rule-revoke")[0].click()
    _wait(browser, lambda: _rules(browser) == ["notes · write\nallowed in Main chat\n✕"])
    browser.find_element(By.ID, "revoke-all").click()
    _wait(browser, lambda: _rules(browser) == ["None: each call is decided by its defaults."])
    assert gateway.get("/chat/page_user/approvals/policy").json()["rules"] == []
    _ask(browser, fake_llm, "write", tmp_path / "three", 4)
    card = _wait(browser, lambda: len(_cards(browser)) == 3 and _cards(browser))[-1]
    card.find_element(By.CLASS_NAME, "deny").click()
    _finished(browser, 4)
    assert not (tmp_path / "three").exists()
