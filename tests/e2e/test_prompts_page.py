"""The page's MCP prompts in a real headless Chromium, against the gateway with the real weather server and the
scripted LLM: "/" opens the servers' prompts, choosing one shows a form for its arguments, and sending it answers
the rendered prompt. Screenshots under artifacts/."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.support.gateway_processes import REPO, weather_call

from .conftest import wait_for

ARTIFACTS = REPO / "artifacts"
RENDERED_START = "Write a short weather report for Paris in French."


def _items(browser) -> list[str]:
    return [item.find_element(By.CLASS_NAME, "prompt-name").text
            for item in browser.find_elements(By.CSS_SELECTOR, "#prompt-panel .prompt-item")]


def test_slash_lists_the_prompts_and_a_filled_form_is_answered(browser, weather_gateway, fake_llm):
    browser.get(weather_gateway.url)
    browser.execute_script("localStorage.setItem('mcp-chat.user', 'prompt_user')")
    browser.get(weather_gateway.url)
    wait_for(browser, lambda: browser.find_element(By.ID, "welcome").is_displayed())
    message = browser.find_element(By.ID, "message")

    message.send_keys("/")
    wait_for(browser, lambda: set(_items(browser)) == {"/weather_report", "/trip_planning"})
    message.send_keys("trip")
    wait_for(browser, lambda: _items(browser) == ["/trip_planning"])
    message.send_keys(Keys.ESCAPE)
    assert not browser.find_element(By.ID, "prompt-panel").is_displayed()

    # Enter in the input picks the first match (no "/wea" message is sent).
    message.send_keys(Keys.CONTROL, "a")
    message.send_keys(Keys.BACKSPACE)
    message.send_keys("/wea")
    wait_for(browser, lambda: _items(browser) == ["/weather_report"])
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "prompts_menu.png"))
    message.send_keys(Keys.ENTER)
    form = wait_for(browser, lambda: browser.find_element(By.CSS_SELECTOR, "#prompt-panel .prompt-form"))
    assert not browser.find_elements(By.CSS_SELECTOR, ".message")  # nothing was sent yet
    city, language = form.find_elements(By.TAG_NAME, "input")
    assert city.get_attribute("name") == "city" and city.get_attribute("required") == "true"
    assert language.get_attribute("name") == "language" and language.get_attribute("required") is None
    assert browser.switch_to.active_element == city
    city.send_keys("Paris")
    language.send_keys("French")
    browser.save_screenshot(str(ARTIFACTS / "prompts_form.png"))

    # (a weather report is looked up, never written from memory: the model calls the tool first)
    fake_llm.script(weather_call("get_current_weather", city="Paris"), {"content": "Paris : doux et sec, pas de pluie."})
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(browser, lambda: browser.find_element(By.CSS_SELECTOR, ".message.assistant .meta").text)
    question, answer = (b.text for b in browser.find_elements(By.CSS_SELECTOR, ".message .bubble"))
    # The user's bubble ends up with the rendered prompt, as the history keeps it; the model read that text.
    assert question.startswith(RENDERED_START) and answer.startswith("Paris")
    assert any(RENDERED_START in m["content"] for request in fake_llm.requests() for m in request["messages"]
               if m["role"] == "user")
    stored = weather_gateway.get("/chat/prompt_user/history").json()["messages"]
    assert stored[0]["content"] == question and not browser.find_element(By.ID, "prompt-panel").is_displayed()
    browser.save_screenshot(str(ARTIFACTS / "prompts_page.png"))


def test_the_prompts_button_opens_the_menu_and_a_missing_argument_is_refused(browser, weather_gateway):
    browser.get(weather_gateway.url)
    browser.find_element(By.ID, "prompts").click()
    wait_for(browser, lambda: set(_items(browser)) == {"/weather_report", "/trip_planning"})
    next(item for item in browser.find_elements(By.CSS_SELECTOR, ".prompt-item")
         if "/trip_planning" in item.text).click()
    form = wait_for(browser, lambda: browser.find_element(By.CSS_SELECTOR, "#prompt-panel .prompt-form"))
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    # The required field stops the submit in the page itself: the form stays, nothing is asked.
    assert browser.find_element(By.CSS_SELECTOR, "#prompt-panel .prompt-form").is_displayed()
    assert browser.execute_script("return document.querySelector('#prompt-panel input[name=cities]').validity"
                                  ".valueMissing")
