// The chat page: streams `POST /chat/<user>` (SSE over fetch), shows each tool call as a collapsible
// trace, charts inline, per-user history, and a banner while the LLM or an MCP server is down.
"use strict";

const USER_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;
const HEALTH_INTERVAL_MS = 15000;
const MAX_RESULT_CHARS = 4000;
const STORAGE = { user: "mcp-chat.user", users: "mcp-chat.users" };

const $ = (id) => document.getElementById(id);
const ui = {
  messages: $("messages"),
  welcome: $("welcome"),
  banner: $("banner"),
  health: $("health"),
  userForm: $("user-form"),
  userInput: $("user-input"),
  knownUsers: $("known-users"),
  clearHistory: $("clear-history"),
  composer: $("composer"),
  message: $("message"),
  useTools: $("use-tools"),
  send: $("send"),
};

let currentUser = localStorage.getItem(STORAGE.user) || "web_user";
let busy = false;

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function scrollToEnd() {
  ui.messages.scrollTop = ui.messages.scrollHeight;
}

// ---- error banner and health -------------------------------------------------------------

const bannerSources = new Map(); // "health" | "request" -> message

function setBanner(source, message) {
  if (message) bannerSources.set(source, message);
  else bannerSources.delete(source);
  ui.banner.textContent = [...bannerSources.values()].join("\n");
  ui.banner.hidden = bannerSources.size === 0;
}

function healthProblems(health) {
  const problems = [];
  for (const llm of health.llm || []) {
    if (!llm.reachable) problems.push(`LLM unreachable: ${llm.model} at ${llm.base_url} · 语言模型不可用`);
  }
  for (const [name, server] of Object.entries(health.servers || {})) {
    if (!server.up && !server.disabled) {
      const why = server.last_error ? ` (${server.last_error})` : "";
      problems.push(`MCP server "${name}" is down${why} · 工具服务不可用`);
    }
  }
  return problems;
}

async function checkHealth() {
  let state = "down";
  let problems;
  try {
    const response = await fetch("/health", { cache: "no-store" });
    const health = await response.json();
    problems = healthProblems(health);
    state = problems.length ? "degraded" : "ok";
  } catch (error) {
    problems = ["The gateway is not reachable · 无法连接服务"];
  }
  ui.health.dataset.state = state;
  ui.health.title = problems.length ? problems.join("\n") : "All components are up";
  setBanner("health", problems.join("\n"));
}

// ---- users and history -------------------------------------------------------------------

function knownUsers() {
  try {
    const users = JSON.parse(localStorage.getItem(STORAGE.users) || "[]");
    return Array.isArray(users) ? users.filter((user) => USER_PATTERN.test(user)) : [];
  } catch {
    return [];
  }
}

function rememberUser(user) {
  const users = [user, ...knownUsers().filter((known) => known !== user)].slice(0, 20);
  localStorage.setItem(STORAGE.users, JSON.stringify(users));
  localStorage.setItem(STORAGE.user, user);
  ui.knownUsers.replaceChildren(...users.map((known) => new Option(known, known)));
}

function clearMessages() {
  ui.messages.replaceChildren(ui.welcome);
  ui.welcome.hidden = false;
}

async function switchUser(user) {
  if (user === currentUser) return; // Enter fires both `change` and `submit`
  if (!USER_PATTERN.test(user)) {
    setBanner("request", "A user name is 1–64 letters, digits, '_', '.', '@' or '-'.");
    ui.userInput.value = currentUser;
    return;
  }
  setBanner("request", null);
  currentUser = user;
  ui.userInput.value = user;
  rememberUser(user);
  await loadHistory();
}

// A gateway exposed beyond loopback wants each user's API token: asked for once, then kept.
function tokenKey(user) {
  return `mcp-chat.token.${user}`;
}

async function userFetch(path, options = {}) {
  const send = () => {
    const headers = { ...(options.headers || {}) };
    const token = localStorage.getItem(tokenKey(currentUser));
    if (token) headers.Authorization = `Bearer ${token}`;
    return fetch(path, { ...options, headers });
  };
  const response = await send();
  if (response.status !== 401 && response.status !== 403) return response;
  const token = window.prompt(`API token for ${currentUser} (mcp-chat token ${currentUser})`);
  if (!token) return response;
  localStorage.setItem(tokenKey(currentUser), token.trim());
  return send();
}

let historyGeneration = 0;

async function loadHistory() {
  const generation = ++historyGeneration;
  clearMessages();
  try {
    const response = await userFetch(`/chat/${encodeURIComponent(currentUser)}/history`, { cache: "no-store" });
    const body = await response.json();
    if (generation !== historyGeneration) return; // the user was switched again meanwhile
    if (!response.ok) throw new Error(errorMessage(body, response.status));
    for (const message of body.messages) {
      if (message.role === "user") addUserMessage(message.content);
      else if (message.role === "assistant") addAssistantMessage().setText(message.content);
    }
    scrollToEnd();
  } catch (error) {
    setBanner("request", `Could not load the history: ${error.message}`);
  }
}

async function clearHistory() {
  if (busy) return;
  const response = await userFetch(`/chat/${encodeURIComponent(currentUser)}/history`, { method: "DELETE" });
  if (response.ok) clearMessages();
  else setBanner("request", `Could not clear the history (HTTP ${response.status})`);
}

// ---- messages ----------------------------------------------------------------------------

function addUserMessage(text) {
  ui.welcome.hidden = true;
  const wrapper = element("div", "message user");
  wrapper.append(element("div", "bubble", text));
  ui.messages.append(wrapper);
  return wrapper;
}

function formatJson(value) {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n…` : text;
}

// An assistant reply under construction: its trace, streamed text, images and footer.
function addAssistantMessage() {
  ui.welcome.hidden = true;
  const wrapper = element("div", "message assistant");
  const trace = element("div", "trace");
  const bubble = element("div", "bubble");
  const images = element("div", "images");
  const notices = element("div", "notices");
  const meta = element("div", "meta");
  wrapper.append(trace, bubble, images, notices, meta);
  ui.messages.append(wrapper);
  const shownImages = new Set();

  return {
    setText(text) { bubble.textContent = text; },
    appendText(text) { bubble.textContent += text; },
    setStreaming(on) { bubble.classList.toggle("streaming", on); },
    fail(message) {
      bubble.classList.add("failed");
      bubble.textContent = message;
    },
    addToolCall(call) {
      const item = element("details", "tool-call");
      item.dataset.state = "pending";
      item.dataset.key = `${call.server}/${call.tool}`;
      const summary = element("summary");
      summary.append(element("span", "tool-name", call.tool), element("span", "tool-server", call.server),
        element("span", "tool-duration"));
      item.append(summary, element("span", "label", "arguments"), element("pre", "tool-arguments",
        formatJson(call.arguments)));
      trace.append(item);
      return item;
    },
    completeToolCall(result) {
      const key = `${result.server}/${result.tool}`;
      const item = [...trace.querySelectorAll('.tool-call[data-state="pending"]')]
        .find((pending) => pending.dataset.key === key) || this.addToolCall(result);
      item.dataset.state = result.is_error ? "error" : "done";
      item.querySelector(".tool-duration").textContent = `${Math.round(result.duration_ms)} ms`;
      const shown = result.structured_content ?? result.text;
      item.append(element("span", "label", result.is_error ? "error" : "result"),
        element("pre", "tool-result", formatJson(shown)));
      this.addImages(result.images || []);
    },
    addImages(list) {
      for (const image of list) {
        if (shownImages.has(image.url)) continue;
        shownImages.add(image.url);
        const img = element("img");
        img.src = image.url;
        img.alt = image.alt || "chart";
        img.loading = "lazy";
        img.addEventListener("load", scrollToEnd);
        images.append(img);
      }
    },
    finish(result) {
      // Notices (e.g. simulated data) end the response text; the page shows them as badges instead.
      let text = result.response;
      for (const notice of result.notices || []) {
        text = text.replace(notice.text, "");
        const badge = element("div", "notice", notice.text);
        badge.dataset.kind = notice.kind;
        notices.append(badge);
      }
      bubble.textContent = text.trim();
      this.addImages(result.images || []);
      const seconds = ((result.timings?.total_ms || 0) / 1000).toFixed(1);
      const composed = result.answer_source === "composed" ? " · from the tool data" : "";
      meta.textContent = `${result.model} · ${seconds} s${composed}`;
    },
  };
}

function errorMessage(body, status) {
  return body?.error?.message ? `${body.error.message} (${body.error.code})` : `HTTP ${status}`;
}

// ---- streaming ---------------------------------------------------------------------------

// Splits an SSE byte stream into {event, data} records; `data` is one JSON line per event.
async function* readEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      if (data.length) yield { event, data: JSON.parse(data.join("\n")) };
    }
  }
}

function applyEvent(reply, { event, data }) {
  switch (event) {
    case "tool_call": reply.addToolCall(data); break;
    case "tool_result": reply.completeToolCall(data); break;
    case "token": reply.appendText(data.text); break;
    case "rewrite": reply.setText(""); break; // the first draft is replaced by a rewritten answer
    case "done": reply.finish(data); return "done";
    case "error": throw new Error(errorMessage(data, data.status));
    default: break;
  }
  return null;
}

async function ask(text) {
  addUserMessage(text);
  const reply = addAssistantMessage();
  reply.setStreaming(true);
  scrollToEnd();
  try {
    const response = await userFetch(`/chat/${encodeURIComponent(currentUser)}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ message: text, use_tools: ui.useTools.checked, stream: true }),
    });
    if (!response.ok) throw new Error(errorMessage(await response.json().catch(() => null), response.status));
    let finished = false;
    for await (const item of readEvents(response)) {
      finished = applyEvent(reply, item) === "done" || finished;
      scrollToEnd();
    }
    if (!finished) throw new Error("the answer stream ended early");
    setBanner("request", null);
  } catch (error) {
    const message = error instanceof TypeError ? "The gateway is not reachable · 无法连接服务" : error.message;
    reply.fail(`⚠ ${message}`);
    setBanner("request", message);
    checkHealth();
  } finally {
    reply.setStreaming(false);
    scrollToEnd();
  }
}

// ---- composer ----------------------------------------------------------------------------

function setBusy(on) {
  busy = on;
  ui.send.disabled = on;
  ui.clearHistory.disabled = on;
  ui.userInput.disabled = on;
}

async function submit() {
  const text = ui.message.value.trim();
  if (!text || busy) return;
  ui.message.value = "";
  growComposer();
  setBusy(true);
  try {
    await ask(text);
  } finally {
    setBusy(false);
    ui.message.focus();
  }
}

function growComposer() {
  ui.message.style.height = "auto";
  ui.message.style.height = `${ui.message.scrollHeight + 2}px`;
}

ui.composer.addEventListener("submit", (event) => {
  event.preventDefault();
  submit();
});
ui.message.addEventListener("keydown", (event) => {
  // Enter sends; Shift+Enter is a new line; Enter while an IME composes (拼音) picks a candidate.
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing && event.keyCode !== 229) {
    event.preventDefault();
    submit();
  }
});
ui.message.addEventListener("input", growComposer);
ui.userForm.addEventListener("submit", (event) => {
  event.preventDefault();
  switchUser(ui.userInput.value.trim());
});
ui.userInput.addEventListener("change", () => switchUser(ui.userInput.value.trim()));
ui.clearHistory.addEventListener("click", clearHistory);
for (const example of document.querySelectorAll(".example")) {
  example.addEventListener("click", () => {
    ui.message.value = example.textContent;
    submit();
  });
}

ui.userInput.value = currentUser;
rememberUser(currentUser);
loadHistory();
checkHealth();
setInterval(checkHealth, HEALTH_INTERVAL_MS);
