"""The page's model picker in a real headless Chromium: the gateway's profiles listed (an unavailable one disabled,
its reason as the title), a pick sent with the next message and kept by the conversation, each conversation
showing its own. Real processes: the gateway and two scripted LLMs with different model names."""

from __future__ import annotations

import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from tests.support.gateway_processes import GatewayProcess

from .conftest import wait_for

SCREENSHOT = "/tmp/profiles_page.png"


@pytest.fixture(scope="module")
def gateway(fake_llm, second_fake_llm, tmp_path_factory):
    work_dir = tmp_path_factory.mktemp("gateway_profiles_page")
    models = work_dir / "models.json"
    models.write_text(json.dumps({"profiles": {
        "alpha": {"base_url": f"{fake_llm.url}/v1", "model": "alpha-model"},
        "beta": {"base_url": f"{second_fake_llm.url}/v1", "model": "beta-model"},
        "cloud": {"base_url": "https://api.example.invalid/v1", "model": "cloud-model",
                  "api_key_env": "PROFILES_PAGE_CLOUD_KEY"},
    }}))
    process = GatewayProcess(work_dir, {}, fake_llm.url, MCP_CHAT_MODELS_CONFIG=str(models), MCP_CHAT_PROFILE="alpha",
                             PROFILES_PAGE_CLOUD_KEY="")
    yield process
    process.stop()




def _ask(driver, text: str) -> str:
    """Send `text`; the new answer's meta line (which names the model) once it is done."""
    before = len(driver.find_elements(By.CSS_SELECTOR, ".message.assistant"))
    driver.find_element(By.ID, "message").send_keys(text, Keys.ENTER)
    wait_for(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, ".message.assistant .meta")) > before
          and driver.find_elements(By.CSS_SELECTOR, ".message.assistant .meta")[-1].text)
    return driver.find_elements(By.CSS_SELECTOR, ".message.assistant .meta")[-1].text


def _picker(driver) -> Select:
    return Select(driver.find_element(By.ID, "profile"))


def test_the_picker_switches_the_conversations_model_and_each_chat_shows_its_own(browser, gateway, fake_llm,
                                                                                 second_fake_llm):
    fake_llm.script(*[{"content": f"Alpha says hi ({n})."} for n in range(3)])
    second_fake_llm.script(*[{"content": f"Beta says hi ({n})."} for n in range(3)])
    browser.get(gateway.url)
    browser.execute_script("localStorage.setItem('mcp-chat.user', 'picker')")
    browser.get(gateway.url)
    wait_for(browser, lambda: len(_picker(browser).options) == 3 and browser.find_element(By.ID, "profile").is_displayed())
    options = {option.get_attribute("value"): option for option in _picker(browser).options}
    assert list(options) == ["alpha", "beta", "cloud"]
    assert options["cloud"].get_attribute("disabled") and not options["beta"].get_attribute("disabled")
    assert options["cloud"].get_attribute("title") == "PROFILES_PAGE_CLOUD_KEY is not set"
    assert "unavailable" in options["cloud"].text and options["beta"].text == "beta · beta-model"
    assert _picker(browser).first_selected_option.get_attribute("value") == "alpha"  # the default
    browser.find_element(By.ID, "use-tools").click()  # no tools: one model call per turn

    assert "alpha-model" in _ask(browser, "Hello, default")
    _picker(browser).select_by_value("beta")
    assert "beta-model" in _ask(browser, "Hello, beta")
    assert "beta-model" in _ask(browser, "Still beta?")  # the conversation keeps it
    assert [request["model"] for request in second_fake_llm.requests()] == ["beta-model", "beta-model"]
    assert [request["model"] for request in fake_llm.requests()] == ["alpha-model"]
    assert gateway.get("/chat/picker/conversations/default").json()["profile"] == "beta"
    browser.save_screenshot(SCREENSHOT)

    # A new chat starts on the default; reopening the first shows its own profile again.
    browser.find_element(By.ID, "new-chat").click()
    wait_for(browser, lambda: browser.find_element(By.ID, "welcome").is_displayed()
          and _picker(browser).first_selected_option.get_attribute("value") == "alpha")
    browser.find_element(By.CSS_SELECTOR, '.conversation[data-id="default"] .conversation-open').click()
    wait_for(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, ".message.assistant")) == 3)
    assert _picker(browser).first_selected_option.get_attribute("value") == "beta"
