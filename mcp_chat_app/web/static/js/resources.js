// The "Attach" picker: the servers' MCP resources (GET /resources), a template's {variables} filled in a small
// form; the chosen ones show as chips above the input and go with the next message as `attachments`, then as
// chips under its bubble (also when a stored conversation is opened again).
import { tokenJson } from "./api.js";
import { t } from "./i18n.js";
import { element } from "./reply.js";

const VARIABLE = /\{([A-Za-z0-9_]+)\}/g; // RFC 6570's simple {name}, what servers' templates use

function resourceItem(resource, choose) {
  const item = element("li", "picker-item");
  const pick = element("button", "picker-pick");
  pick.type = "button";
  pick.append(element("span", "picker-name", resource.name), element("code", "picker-uri", resource.uri));
  pick.title = resource.description || resource.uri;
  pick.addEventListener("click", () => choose(resource.server, resource.uri, resource.name));
  item.append(pick, element("span", "picker-server", resource.server));
  return item;
}

function templateItem(template, choose) {
  const item = element("li", "picker-item");
  const form = element("form", "picker-template");
  form.title = template.description || template.uriTemplate;
  form.append(element("span", "picker-name", template.name), element("code", "picker-uri", template.uriTemplate));
  const names = [...template.uriTemplate.matchAll(VARIABLE)].map((match) => match[1]);
  const inputs = names.map((name) => {
    const input = element("input", "picker-variable");
    input.name = name;
    input.placeholder = name;
    input.required = true;
    input.setAttribute("aria-label", name);
    return input;
  });
  const add = element("button", "picker-add", t("attachAdd"));
  add.type = "submit";
  form.append(...inputs, add);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = Object.fromEntries(inputs.map((input) => [input.name, input.value.trim()]));
    const uri = template.uriTemplate.replace(VARIABLE, (_, name) => encodeURIComponent(values[name]));
    choose(template.server, uri, `${template.name}: ${Object.values(values).join(", ")}`);
  });
  item.append(form, element("span", "picker-server", template.server));
  return item;
}

// What a sent message carried: a chip per resource, its URI (the name it was picked by is not stored).
export function attachedChips(attachments) {
  const chips = element("div", "sent-attachments");
  for (const { server, uri } of attachments) {
    const chip = element("span", "chip");
    chip.title = `${server}: ${uri}`;
    chip.append(element("span", "chip-label", uri));
    chips.append(chip);
  }
  return chips;
}

// `button` opens `dialog`, whose `list` it fills; `chips` shows what is chosen. `take()` hands the choice to a
// message and clears it.
export function resourcePicker({ button, dialog, list, chips }) {
  let chosen = [];

  function renderChips() {
    chips.replaceChildren(...chosen.map((entry, index) => {
      const chip = element("span", "chip");
      chip.title = `${entry.server}: ${entry.uri}`;
      const remove = element("button", "chip-remove", "×");
      remove.type = "button";
      remove.setAttribute("aria-label", t("attachRemove", entry.label));
      remove.addEventListener("click", () => {
        chosen.splice(index, 1);
        renderChips();
      });
      chip.append(element("span", "chip-label", entry.label), remove);
      return chip;
    }));
    chips.hidden = chosen.length === 0;
  }

  function choose(server, uri, label) {
    if (!chosen.some((entry) => entry.server === server && entry.uri === uri)) chosen.push({ server, uri, label });
    renderChips();
    dialog.close();
  }

  async function open() {
    list.replaceChildren(element("li", "picker-empty", t("attachLoading")));
    dialog.showModal();
    try {
      const { resources, templates } = await tokenJson("/resources");
      const items = [...resources.map((r) => resourceItem(r, choose)), ...templates.map((r) => templateItem(r, choose))];
      list.replaceChildren(...(items.length ? items : [element("li", "picker-empty", t("attachNone"))]));
    } catch (error) {
      list.replaceChildren(element("li", "picker-empty", error.message));
    }
  }

  button.addEventListener("click", open);
  dialog.addEventListener("click", (event) => { if (event.target === dialog) dialog.close(); });
  return {
    take() {
      const taken = chosen.map(({ server, uri }) => ({ server, uri }));
      chosen = [];
      renderChips();
      return taken;
    },
  };
}
