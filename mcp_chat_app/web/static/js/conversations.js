// The sidebar: the user's conversations (new, open, rename, delete), through /chat/<user>/conversations.
import { session, userJson } from "./api.js";
import { t } from "./i18n.js";
import { element } from "./reply.js";

const list = document.getElementById("conversation-list");

export function titleOf(conversation) {
  if (conversation.title) return conversation.title;
  return conversation.id === "default" ? t("defaultChat") : t("untitled");
}

function iconButton(className, label, symbol, onClick) {
  const node = element("button", className, symbol);
  node.type = "button";
  node.title = label;
  node.setAttribute("aria-label", label);
  node.addEventListener("click", onClick);
  return node;
}

// `hooks`: {open(id), failed(message)}; rendering marks the open conversation.
export function conversationList(hooks) {
  let known = [];

  function render() {
    list.replaceChildren(...known.map((conversation) => {
      const item = element("li", "conversation");
      item.dataset.id = conversation.id;
      const open = element("button", "conversation-open", titleOf(conversation));
      open.type = "button";
      if (conversation.id === session.conversation) open.setAttribute("aria-current", "true");
      open.addEventListener("click", () => hooks.open(conversation.id));
      item.append(open,
        iconButton("conversation-rename", t("rename"), "✎", () => rename(conversation)),
        iconButton("conversation-delete", t("delete"), "✕", () => remove(conversation)));
      return item;
    }));
  }

  async function refresh() {
    try {
      known = (await userJson("/conversations", { cache: "no-store" })).conversations;
    } catch (error) {
      hooks.failed(error.message);
      known = [];
    }
    render();
    return known;
  }

  async function create() {
    try {
      const created = await userJson("/conversations", { method: "POST", body: {} });
      known.unshift(created);
      await hooks.open(created.id);
    } catch (error) {
      hooks.failed(error.message);
    }
  }

  async function rename(conversation) {
    const title = window.prompt(t("renamePrompt"), titleOf(conversation));
    if (!title || !title.trim()) return;
    try {
      await userJson(`/conversations/${conversation.id}`, { method: "PATCH", body: { title: title.trim() } });
    } catch (error) {
      hooks.failed(error.message);
    }
    await refresh();
  }

  async function remove(conversation) {
    if (!window.confirm(t("deleteConfirm", titleOf(conversation)))) return;
    try {
      await userJson(`/conversations/${conversation.id}`, { method: "DELETE" });
    } catch (error) {
      hooks.failed(error.message);
    }
    const left = await refresh();
    if (conversation.id === session.conversation) await hooks.open(left[0]?.id || "default");
  }

  return { refresh, render, create };
}
