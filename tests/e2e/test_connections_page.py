"""The sidebar's Connections and the chat's sign-in card in a real headless Chromium (English browser), against the
gateway with two servers that act for each user through OAuth (oauth_identity_server.py behind the local
authorization server, tests/support/oauth_processes.py), the weather server that needs no sign-in, and the
scripted LLM. Two users: Alice connects from the section, Bob from the card an answer shows him; Alice
disconnects. The sign-in tab the page opens follows the authorization server's redirect to the gateway's callback,
as a person's browser does, and ends on the callback's page, which tells the chat page. Screenshots:
artifacts/connections_page.png, artifacts/connections_signed_in.png."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from cryptography.fernet import Fernet
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.gateway_processes import REPO, WEATHER_SERVER, GatewayProcess
from tests.support.oauth_processes import running_authorization_server, running_identity_server

from .conftest import start_chromium
from .test_web_page import _switch_user

SCREENSHOT = REPO / "artifacts" / "connections_page.png"
SIGNED_IN_SCREENSHOT = REPO / "artifacts" / "connections_signed_in.png"  # the sign-in tab's last page
ADMIN_TOKEN = "page-admin-token"  # to unregister a server mid-test


@pytest.fixture(scope="module")
def authorization_server(tmp_path_factory):
    with running_authorization_server(tmp_path_factory.mktemp("page_as"), access_ttl_s=60) as url:
        yield url


@pytest.fixture(scope="module")
def gateway(authorization_server, fake_llm, tmp_path_factory):
    with running_identity_server(tmp_path_factory.mktemp("page_identity"), authorization_server) as identity:
        servers = {"weather": WEATHER_SERVER, "ident": {"type": "http", "url": identity, "timeout": 20},
                   "ident2": {"type": "http", "url": identity, "timeout": 20}}
        process = GatewayProcess(tmp_path_factory.mktemp("connections_page"), servers, fake_llm.url,
                                 MCP_CHAT_TOKEN_KEY=Fernet.generate_key().decode(), MCP_CHAT_ADMIN_TOKEN=ADMIN_TOKEN)
        yield process
        process.stop()


@pytest.fixture(scope="module")
def browser(gateway):
    driver = start_chromium("en-US", height=800)
    yield driver
    driver.quit()


def _wait(driver, condition, timeout: float = 60):
    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=[StaleElementReferenceException]).until(lambda _: condition())


def _rows(driver) -> dict[str, str]:
    """The Connections section's servers and the state each shows."""
    return {item.get_attribute("data-server"): item.get_attribute("data-state")
            for item in driver.find_elements(By.CSS_SELECTOR, "#connection-list .connection")}


def _button(driver, server: str):
    return driver.find_element(By.CSS_SELECTOR, f'.connection[data-server="{server}"] button')


def _click(driver, server: str) -> None:
    """Click `server`'s button; the section may render its list again between the find and the click (a user
    switch refreshes it more than once), so a stale button is found again."""
    _wait(driver, lambda: _button(driver, server).click() or True)


def _connected(gateway: GatewayProcess, user: str) -> dict[str, bool]:
    """What the gateway says: per OAuth server, whether `user` is connected."""
    return {row["server"]: row["connected"] for row in gateway.get(f"/chat/{user}/oauth").json()["servers"]}


def _sign_in(driver, gateway: GatewayProcess, authorization_server: str, person: str, server: str, click,
             screenshot: Path | None = None) -> None:
    """`person` signs in to `server`: `click()` opens the sign-in tab, which consents at the authorization server
    and is sent back to the gateway's callback, whose page says so and tells the chat page (which hears it on its
    BroadcastChannel); the tab is closed and the page is shown again."""
    httpx.post(f"{authorization_server}/_login", json={"subject": person}).raise_for_status()
    page = driver.current_window_handle
    driver.execute_script("window.heard = []; window.hearing?.close();"
                          "window.hearing = new BroadcastChannel('mcp-chat.connections');"
                          "window.hearing.onmessage = (event) => window.heard.push(event.data);")
    click()
    [tab] = _wait(driver, lambda: [handle for handle in driver.window_handles if handle != page])
    driver.switch_to.window(tab)
    _wait(driver, lambda: driver.current_url.startswith(f"{gateway.url}/oauth/callback?"))
    _wait(driver, lambda: driver.find_element(By.TAG_NAME, "h1").text == f"Signed in to {server} as {person}.")
    assert driver.find_element(By.TAG_NAME, "p").text == "You can close this window."
    assert driver.title == f"Signed in to {server}"
    if screenshot is not None:
        screenshot.parent.mkdir(exist_ok=True)
        driver.save_screenshot(str(screenshot))
    driver.close()
    driver.switch_to.window(page)
    assert _wait(driver, lambda: driver.execute_script("return window.heard")) == [
        {"server": server, "user": person, "ok": True}]


def test_each_user_connects_and_disconnects_their_own_servers(browser, gateway, fake_llm, authorization_server):
    _wait(browser, lambda: set(_connected(gateway, "alice")) == {"ident", "ident2"})  # both asked for a sign-in
    assert "weather" in {row["name"] for row in gateway.get("/servers").json()["servers"]}
    browser.get(gateway.url)
    _switch_user(browser, "alice")
    section = _wait(browser, lambda: browser.find_element(By.ID, "connections"))
    _wait(browser, section.is_displayed)
    # Only the servers that ask each user to sign in; the weather server needs none.
    _wait(browser, lambda: _rows(browser) == {"ident": "disconnected", "ident2": "disconnected"})
    assert [button.text for button in section.find_elements(By.TAG_NAME, "button")] == ["Connect", "Connect"]
    # ... and the banner does not call them down: nobody has signed in to ident2, yet it is not broken.
    _wait(browser, lambda: browser.find_element(By.ID, "health").get_attribute("data-state") != "unknown")
    assert "ident" not in browser.find_element(By.ID, "banner").get_attribute("textContent")

    # Alice connects ident from the section: only that one, only hers.
    _sign_in(browser, gateway, authorization_server, "alice", "ident", lambda: _click(browser, "ident"),
             SIGNED_IN_SCREENSHOT)
    _wait(browser, lambda: _rows(browser) == {"ident": "connected", "ident2": "disconnected"})
    assert _button(browser, "ident").text == "Disconnect"
    assert _connected(gateway, "alice") == {"ident": True, "ident2": False}

    # Bob's page: Alice's connection is not his. An answer that needs ident shows him a card with his own link,
    # and once he signs in there the card and the section say he is connected.
    _switch_user(browser, "bob")
    _wait(browser, lambda: _rows(browser) == {"ident": "disconnected", "ident2": "disconnected"})
    fake_llm.script({"tool_calls": [{"name": "ident__whoami", "arguments": {}}]}, {"content": "Checked."})
    browser.find_element(By.ID, "message").send_keys("who am I at the identity server?", Keys.ENTER)
    card = _wait(browser, lambda: browser.find_element(By.CSS_SELECTOR, ".question-card.authorization"))
    assert card.find_element(By.CLASS_NAME, "question-title").text == "ident needs you to sign in"
    link = card.find_element(By.CSS_SELECTOR, "a.sign-in")
    _wait(browser, lambda: _rows(browser).get("ident") == "pending")
    pending = gateway.get("/chat/bob/oauth").json()["servers"]
    assert link.get_attribute("href") == next(row for row in pending if row["server"] == "ident")["authorization_url"]
    _wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, ".message.assistant .copy"))  # the answer ended
    badge = browser.find_element(By.CSS_SELECTOR, '.notice[data-kind="authorization"] a')  # kept with the answer
    assert badge.text == "the sign-in page" and badge.get_attribute("href") == link.get_attribute("href")
    _sign_in(browser, gateway, authorization_server, "bob", "ident", link.click)
    _wait(browser, lambda: "Connected to ident: ask again to use it." in card.text)
    assert not card.find_elements(By.CSS_SELECTOR, "a.sign-in")
    _wait(browser, lambda: _rows(browser) == {"ident": "connected", "ident2": "disconnected"})
    assert _connected(gateway, "bob") == {"ident": True, "ident2": False}
    SCREENSHOT.parent.mkdir(exist_ok=True)
    browser.save_screenshot(str(SCREENSHOT))

    # Alice disconnects: her section and the gateway say so; Bob keeps his connection.
    _switch_user(browser, "alice")
    _wait(browser, lambda: _rows(browser) == {"ident": "connected", "ident2": "disconnected"})
    _click(browser, "ident")
    _wait(browser, lambda: _rows(browser) == {"ident": "disconnected", "ident2": "disconnected"})
    assert _connected(gateway, "alice") == {"ident": False, "ident2": False}
    assert _connected(gateway, "bob")["ident"] is True

    # A refused request is said in the section: ident2 was unregistered after the list was read.
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    assert httpx.delete(f"{gateway.url}/servers/ident2", headers=admin).status_code == 200
    _click(browser, "ident2")
    error = _wait(browser, lambda: browser.find_element(By.ID, "connection-error"))
    _wait(browser, error.is_displayed)
    assert error.text == ("Could not connect ident2: no server 'ident2' that asks each user to authorize "
                          "(unknown_server)")
    _wait(browser, lambda: len(browser.window_handles) == 1)  # the tab opened for it closed again
    _wait(browser, lambda: _rows(browser) == {"ident": "disconnected"})
