// The sidebar's search box: the user's messages holding every word typed (GET /chat/<user>/search), newest
// first, each opening its conversation. While results are shown, the conversation list steps aside.
import { userJson } from "./api.js";
import { titleOf } from "./conversations.js";
import { t } from "./i18n.js";
import { element } from "./reply.js";

const WAIT_MS = 250; // after the last key, before asking

// The snippet as text with each term marked (text nodes and <mark>s only: a message is never HTML here).
function marked(snippet, terms) {
  const escaped = terms.map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const parts = escaped.length ? snippet.split(new RegExp(`(${escaped.join("|")})`, "i")) : [snippet];
  return parts.map((part, index) => (index % 2 ? element("mark", "", part) : document.createTextNode(part)));
}

// `hooks`: {open(id), failed(message)}; `after`: the node the box goes after.
export function conversationSearch(after, list, hooks) {
  const box = element("input", "conversation-search");
  Object.assign(box, { type: "search", placeholder: t("searchChats"), spellcheck: false, maxLength: 200 });
  box.setAttribute("aria-label", t("searchChats"));
  const results = element("ul", "search-results");
  results.hidden = true;
  after.after(box, results);
  let timer = null;
  let asked = 0;

  function show(found, terms) {
    results.replaceChildren(...found.map((match) => {
      const item = element("li", "search-result");
      const open = element("button", "search-open");
      open.type = "button";
      const snippet = element("span", "search-snippet");
      snippet.append(...marked(match.snippet, terms));
      open.append(element("span", "search-title", titleOf({ id: match.conversation, title: match.title })),
        snippet);
      open.addEventListener("click", () => { clear(); hooks.open(match.conversation); });
      item.append(open);
      return item;
    }));
    if (!found.length) results.append(element("li", "search-none", t("noMatches")));
    results.hidden = false;
    list.hidden = true;
  }

  async function run() {
    const query = box.value.trim();
    const mine = ++asked;
    if (!query) { clear(false); return; }
    try {
      const { results: found } = await userJson(`/search?q=${encodeURIComponent(query)}`, { cache: "no-store" });
      if (mine === asked) show(found, query.split(/\s+/));
    } catch (error) {
      hooks.failed(error.message);
    }
  }

  function clear(emptyBox = true) {
    if (emptyBox) box.value = "";
    asked += 1; // an answer still on its way is not shown
    results.hidden = true;
    list.hidden = false;
  }

  box.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, WAIT_MS); });
  box.addEventListener("keydown", (event) => { if (event.key === "Escape") clear(); });
  return { clear };
}
