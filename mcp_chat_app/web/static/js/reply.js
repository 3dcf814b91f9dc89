// One assistant answer on the page: its tool trace (with live progress), the questions it asks, the streamed
// Markdown text, charts, audio, files and links, notice badges, and the copy / regenerate actions.
import { mediaNode } from "./tool_media.js";
import { t } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";

const MAX_RESULT_CHARS = 4000;

export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function formatJson(value) {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n…` : text;
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission (an http page on another host): the old way still works on a user gesture.
    const area = element("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
}

// A server this user has not authorized yet: its notice links to where they sign in (a new tab; the gateway's
// callback finishes the connection, and the question can be asked again). The link is named, not spelled out:
// the URL is a long line of query parameters.
function authorizationBadge(text) {
  const badge = element("div", "notice");
  const found = text.match(/https?:\/\/\S+/);
  if (!found) {
    badge.textContent = text;
    return badge;
  }
  const link = element("a", "", t("signInPage"));
  link.href = found[0];
  link.title = found[0];
  link.target = "_blank";
  link.rel = "noopener noreferrer";
  badge.append(text.slice(0, found.index), link, text.slice(found.index + found[0].length));
  return badge;
}

// `hooks`: {enlarge(image), regenerate(), finished?(result)}.
export function addAssistantMessage(container, hooks) {
  const wrapper = element("div", "message assistant");
  const trace = element("div", "trace");
  const questions = element("div", "questions");
  const bubble = element("div", "bubble markdown");
  const images = element("div", "images");
  const media = element("div", "tool-media");
  const notices = element("div", "notices");
  const footer = element("div", "footer");
  const meta = element("span", "meta");
  const actions = element("span", "actions");
  footer.append(meta, actions);
  wrapper.append(trace, questions, bubble, images, media, notices, footer);
  container.append(wrapper);
  const shownImages = new Set();
  const shownMedia = new Set();
  let text = "";

  const render = () => { bubble.innerHTML = renderMarkdown(text); };

  function addActions() {
    const copy = element("button", "action copy", t("copy"));
    copy.type = "button";
    copy.addEventListener("click", async () => {
      await copyText(text);
      copy.textContent = t("copied");
      setTimeout(() => { copy.textContent = t("copy"); }, 1500);
    });
    const again = element("button", "action regenerate", t("regenerate"));
    again.type = "button";
    again.addEventListener("click", () => hooks.regenerate());
    actions.replaceChildren(copy, again);
  }

  return {
    node: wrapper,
    setText(value) { text = value; render(); },
    appendText(value) { text += value; render(); },
    setStreaming(on) { bubble.classList.toggle("streaming", on); },
    // The model reading a long prompt (a cold start on a slow CPU): shown until the answer's first token.
    showPrefill({ done, total }) {
      if (text || !total) return;
      bubble.replaceChildren(element("span", "prefill", t("prefill", Math.floor((100 * done) / total))));
    },
    fail(message) {
      bubble.classList.add("failed");
      bubble.textContent = message;
    },
    markStopped() {
      wrapper.classList.add("stopped");
      notices.append(element("div", "notice stopped-badge", `■ ${t("stopped")}`));
      if (text) addActions();
    },
    questionArea: questions,
    addToolCall(call) {
      const item = element("details", "tool-call");
      item.dataset.state = "pending";
      item.dataset.key = `${call.server}/${call.tool}`;
      const summary = element("summary");
      summary.append(element("span", "tool-name", call.tool), element("span", "tool-server", call.server),
        element("span", "tool-duration", ""));
      item.append(summary, element("span", "label", t("arguments")), element("pre", "tool-arguments",
        formatJson(call.arguments)));
      trace.append(item);
      return item;
    },
    pendingCall(server, tool) {
      return [...trace.querySelectorAll('.tool-call[data-state="pending"]')]
        .find((pending) => pending.dataset.key === `${server}/${tool}`);
    },
    showProgress(update) {
      const item = this.pendingCall(update.server, update.tool) || trace.querySelector(".tool-call:last-child");
      if (!item) return;
      let bar = item.querySelector(".progress");
      if (!bar) {
        bar = element("div", "progress");
        bar.append(element("progress"), element("span", "progress-text"));
        item.querySelector("summary").after(bar);
      }
      const total = update.total || 0;
      const done = Math.min(update.progress, total || update.progress);
      Object.assign(bar.querySelector("progress"), { max: total || 1, value: total ? done : 0 });
      bar.querySelector(".progress-text").textContent = total ? t("progress", Math.round(done), total) : "";
      bar.dataset.done = String(done);
    },
    completeToolCall(result) {
      const item = this.pendingCall(result.server, result.tool) || this.addToolCall(result);
      item.dataset.state = result.is_error ? (result.reason === "denied" ? "denied" : "error") : "done";
      item.querySelector(".tool-duration").textContent = `${Math.round(result.duration_ms)} ms`;
      const shown = result.structured_content ?? result.text;
      item.append(element("span", "label", result.is_error ? t("error") : t("result")),
        element("pre", "tool-result", formatJson(shown)));
      this.addImages(result.images || []);
      this.addMedia(result.media || []);
    },
    addMedia(list) {
      for (const item of list) {
        const key = item.url || `${item.server} ${item.uri}`;
        const node = shownMedia.has(key) ? null : mediaNode(item);
        if (!node) continue;
        shownMedia.add(key);
        media.append(node);
      }
    },
    addImages(list) {
      for (const image of list) {
        if (shownImages.has(image.url)) continue;
        shownImages.add(image.url);
        const figure = element("button", "chart");
        figure.type = "button";
        figure.title = t("enlarge");
        const img = element("img");
        img.src = image.url;
        img.alt = image.alt || "chart";
        img.loading = "lazy";
        figure.append(img);
        figure.addEventListener("click", () => hooks.enlarge(image));
        images.append(figure);
      }
    },
    finish(result) {
      // Notices (e.g. simulated data) end the response text; the page shows them as badges instead.
      let answer = result.response;
      for (const notice of result.notices || []) {
        answer = answer.replace(notice.text, "");
        const badge = notice.kind === "authorization" ? authorizationBadge(notice.text) : element("div", "notice", notice.text);
        badge.dataset.kind = notice.kind;
        notices.append(badge);
      }
      this.setText(answer.trim());
      this.addImages(result.images || []);
      this.addMedia(result.media || []);
      if (result.timings) {
        const seconds = ((result.timings.total_ms || 0) / 1000).toFixed(1);
        const composed = result.answer_source === "composed" ? ` · ${t("fromData")}` : "";
        meta.textContent = `${result.model} · ${seconds} s${composed}`;
      }
      addActions();
      hooks.finished?.(result);
    },
  };
}
