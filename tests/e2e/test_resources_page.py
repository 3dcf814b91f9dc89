"""The page's "Attach" picker in headless Chromium: the weather server's resource and template are listed, the
template's form fills its URI, the chosen ones show as chips, and the message carries them to the writer; the
question keeps them as chips, also once the conversation is opened again."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from tests.e2e.conftest import wait_for

SCREENSHOT = "/tmp/resources_page.png"  # looked at by a person: the picker open over the chosen chips
ATTACHED = "Attached by the user (their own material, not a tool result)"


def _open_picker(browser):
    browser.find_element(By.ID, "attach").click()
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#resource-list .picker-item"))
    return {item.find_element(By.CSS_SELECTOR, ".picker-uri").text: item
            for item in browser.find_elements(By.CSS_SELECTOR, "#resource-list .picker-item")}


def test_resources_are_attached_from_the_picker_and_reach_the_writer(browser, weather_gateway, fake_llm):
    browser = browser
    browser.get(weather_gateway.url)
    items = _open_picker(browser)
    assert set(items) == {"weather://cities", "weather://forecast/{city}"}
    items["weather://cities"].find_element(By.CSS_SELECTOR, ".picker-pick").click()
    items = _open_picker(browser)
    template = items["weather://forecast/{city}"]
    template.find_element(By.CSS_SELECTOR, "input[name=city]").send_keys("Paris")
    template.find_element(By.CSS_SELECTOR, ".picker-add").click()
    chips = [chip.text for chip in browser.find_elements(By.CSS_SELECTOR, "#attached .chip-label")]
    assert chips == ["Known cities", "City forecast: Paris"]
    _open_picker(browser)
    browser.save_screenshot(SCREENSHOT)
    browser.find_element(By.CSS_SELECTOR, "#resource-picker .lightbox-actions button").click()

    fake_llm.script({"content": "Let me see."}, {"content": "Paris is one of the cities you attached."})
    browser.find_element(By.ID, "message").send_keys("Is Paris on my list?")
    browser.find_element(By.ID, "send").click()
    wait_for(browser, lambda: "Paris is one of the cities" in browser.find_element(By.ID, "messages").text)
    assert not browser.find_element(By.ID, "attached").is_displayed()  # the chips went with the message
    written = fake_llm.requests()[1]["messages"][-1]["content"]
    assert f"{ATTACHED}, weather://cities from weather:" in written
    assert f"{ATTACHED}, weather://forecast/Paris from weather:" in written
    sent = ["weather://cities", "weather://forecast/Paris"]
    assert _sent_chips(browser) == sent
    browser.save_screenshot("/tmp/resources_page_answered.png")
    browser.refresh()  # the stored conversation, opened again
    wait_for(browser, lambda: _sent_chips(browser))
    assert _sent_chips(browser) == sent


def _sent_chips(browser) -> list[str]:
    return [chip.text for chip in browser.find_elements(By.CSS_SELECTOR, ".message.user .sent-attachments .chip-label")]
