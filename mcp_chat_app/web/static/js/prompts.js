// The MCP servers' prompts on the page: "/" at the start of the message (or the "/" button) lists them
// (GET /prompts, filtered by what follows the "/"); choosing one opens a small form for its arguments, whose submit
// hands `{server, name, arguments}` to `send`, and the gateway renders it (prompts/get) into the user's turn.
import { tokenJson } from "./api.js";
import { LANGUAGE } from "./i18n.js";
import { element } from "./reply.js";

// Kept here, not in i18n.js: only this module says them.
const WORDS = {
  en: { button: "/ prompts", title: "Prompts of the MCP servers", none: "No prompt matches.", down: "unavailable: {0}", send: "Send",
    cancel: "Cancel", failed: "Could not load the prompts: {0}" },
  zh: { button: "/ 提示", title: "MCP 服务提供的提示", none: "没有匹配的提示。", down: "不可用：{0}", send: "发送", cancel: "取消",
    failed: "无法加载提示：{0}" },
}[LANGUAGE];

// What the user's bubble says until the gateway answers with the rendered text.
export function promptLabel(prompt) {
  const values = Object.entries(prompt.arguments).map(([name, value]) => `${name}: ${value}`);
  return [`/${prompt.name}`, ...values].join("  ·  ");
}

function button(className, text, onClick) {
  const node = element("button", className, text);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

// `input`: the message textarea; `opener`: the "/" button; `panel`: where the menu and form show;
// `send(prompt)`: called with the chosen prompt and its arguments.
export function promptPicker({ input, opener, panel, send }) {
  let listing = { prompts: [], unavailable: [] };

  function close() {
    panel.hidden = true;
    panel.replaceChildren();
  }

  function showMenu(filter) {
    const wanted = filter.toLowerCase();
    const matching = listing.prompts.filter((p) => `${p.name} ${p.title || ""}`.toLowerCase().includes(wanted));
    const menu = element("div", "prompt-menu");
    menu.setAttribute("role", "menu");
    menu.append(element("div", "prompt-heading", WORDS.title));
    for (const prompt of matching) {
      const item = button("prompt-item", undefined, () => showForm(prompt));
      item.setAttribute("role", "menuitem");
      item.append(element("span", "prompt-name", `/${prompt.name}`),
        element("span", "prompt-title", prompt.title || ""), element("span", "prompt-server", prompt.server),
        element("span", "prompt-description", prompt.description || ""));
      menu.append(item);
    }
    if (!matching.length) menu.append(element("div", "prompt-empty", WORDS.none));
    for (const down of listing.unavailable) {
      menu.append(element("div", "prompt-empty", WORDS.down.replace("{0}", down.server)));
    }
    panel.replaceChildren(menu);
    panel.hidden = false;
  }

  function showForm(prompt) {
    const form = element("form", "prompt-form");
    form.dataset.prompt = prompt.name;
    form.append(element("div", "prompt-heading", `${prompt.title || prompt.name} · ${prompt.server}`));
    if (prompt.description) form.append(element("div", "prompt-description", prompt.description));
    const fields = prompt.arguments.map((argument) => {
      const label = element("label", "field");
      const field = element("input");
      field.name = argument.name;
      field.required = argument.required;
      field.placeholder = argument.description || "";
      label.append(element("span", "field-name", `${argument.name}${argument.required ? " *" : ""}`), field);
      form.append(label);
      return field;
    });
    const actions = element("div", "question-actions");
    const submit = element("button", "choice primary", WORDS.send);
    submit.type = "submit";
    actions.append(submit, button("choice ghost", WORDS.cancel, () => { close(); input.focus(); }));
    form.append(actions);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      // Blank optional fields are left out: the server's defaults apply.
      const values = fields.filter((field) => field.value.trim()).map((field) => [field.name, field.value.trim()]);
      close();
      input.value = "";
      send({ server: prompt.server, name: prompt.name, arguments: Object.fromEntries(values) });
    });
    panel.replaceChildren(form);
    panel.hidden = false;
    (fields[0] || submit).focus();
  }

  let loading = null; // the GET /prompts in flight: keys typed meanwhile share it
  const typedFilter = () => /^\/(\S*)$/.exec(input.value)?.[1];

  async function open() {
    loading ??= tokenJson("/prompts", { cache: "no-store" }).finally(() => { loading = null; });
    try {
      listing = await loading; // fetched on each open: a server's prompts may have changed
    } catch (error) {
      listing = { prompts: [], unavailable: [] };
      panel.replaceChildren(element("div", "prompt-empty", WORDS.failed.replace("{0}", error.message)));
      panel.hidden = false;
      return;
    }
    showMenu(typedFilter() ?? "");
  }

  // "/word" alone in the input filters the menu; anything else closes a menu (not a form being filled).
  input.addEventListener("input", () => {
    const filter = typedFilter();
    if (filter !== undefined && panel.hidden) open();
    else if (filter !== undefined) showMenu(filter);
    else if (panel.querySelector(".prompt-menu")) close();
  });
  // Captured before the textarea's own Enter-sends and the page's Escape-stops: while the panel is open, Escape
  // closes it, and Enter in the textarea picks the first match instead of sending "/…" as a message.
  document.addEventListener("keydown", (event) => {
    if (panel.hidden || (event.target !== input && !panel.contains(event.target))) return;
    if (event.key === "Escape") {
      event.stopPropagation();
      close();
      input.focus();
    } else if (event.target === input && event.key === "Enter" && !event.shiftKey) {
      const first = panel.querySelector(".prompt-item");
      if (!first) return;
      event.preventDefault();
      event.stopPropagation();
      first.click();
    } else if (event.target === input && event.key === "ArrowDown") {
      event.preventDefault();
      panel.querySelector("button")?.focus();
    }
  }, true);
  opener.textContent = WORDS.button;
  opener.addEventListener("click", () => (panel.hidden ? open() : close()));
}
