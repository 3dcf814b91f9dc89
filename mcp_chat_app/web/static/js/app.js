// The chat page: streams `POST /chat/<user>` (SSE over fetch) with a stop button, renders Markdown answers,
// shows each tool call as a collapsible trace with live progress, asks the person what tools ask, draws charts
// inline, keeps several conversations per user, and says in a banner when the LLM or an MCP server is down.
import { USER_PATTERN, session, userJson } from "./api.js";
import { refreshApprovalRules } from "./approvals.js";
import { loadConnections } from "./connections.js";
import { conversationList } from "./conversations.js";
import { exportButtons } from "./export.js";
import { t, translatePage } from "./i18n.js";
import { loadProfiles, pickedProfile, profileKept, showProfile } from "./profiles.js";
import { promptLabel, promptPicker } from "./prompts.js";
import { addAssistantMessage, element } from "./reply.js";
import { attachedChips, resourcePicker } from "./resources.js";
import { conversationSearch } from "./search.js";
import { streamChat } from "./stream.js";

const HEALTH_INTERVAL_MS = 15000;
const STORAGE = { user: "mcp-chat.user", users: "mcp-chat.users", confirm: "mcp-chat.confirm-tools" };

const $ = (id) => document.getElementById(id);
const ui = {
  messages: $("messages"), welcome: $("welcome"), banner: $("banner"), health: $("health"),
  userForm: $("user-form"), userInput: $("user-input"), knownUsers: $("known-users"),
  clearHistory: $("clear-history"), composer: $("composer"), message: $("message"), useTools: $("use-tools"),
  confirmTools: $("confirm-tools"), send: $("send"), stop: $("stop"), newChat: $("new-chat"),
  sidebar: $("sidebar"), toggleChats: $("toggle-chats"), lightbox: $("lightbox"), prompts: $("prompts"),
  promptPanel: $("prompt-panel"),
};

const picker = resourcePicker({ button: $("attach"), dialog: $("resource-picker"), list: $("resource-list"),
  chips: $("attached") });
let busy = false;
let controller = null; // aborts the answer in flight (the stop button)

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
    if (!llm.reachable) problems.push(t("llmDown", llm.model, llm.base_url));
  }
  const servers = Object.entries(health.servers || {});
  for (const [name, server] of servers) {
    // A server each user signs in to is not down: the sidebar's Connections says whether this user has.
    if (!server.up && !server.disabled && !server.needs_authorization) {
      problems.push(t("serverDown", name, server.last_error ? ` (${server.last_error})` : ""));
    }
  }
  if (!servers.some(([, server]) => server.up || server.needs_authorization)) problems.push(t("noServers"));
  return problems;
}

async function checkHealth() {
  let state = "down";
  let problems;
  try {
    const response = await fetch("/health", { cache: "no-store" });
    problems = healthProblems(await response.json());
    state = problems.length ? "degraded" : "ok";
  } catch {
    problems = [t("gatewayDown")];
  }
  ui.health.dataset.state = state;
  ui.health.title = problems.length ? problems.join("\n") : t("allUp");
  ui.health.setAttribute("aria-label", ui.health.title);
  setBanner("health", problems.join("\n"));
}

// ---- users and conversations ----------------------------------------------------------------

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

const conversationKey = () => `mcp-chat.conversation.${session.user}`;

const conversations = conversationList({
  open: openConversation,
  failed: (message) => setBanner("request", message),
});
const search = conversationSearch(ui.newChat, $("conversation-list"), {
  open: openConversation,
  failed: (message) => setBanner("request", message),
});
exportButtons(ui.sidebar, { failed: (message) => setBanner("request", message) });

function clearMessages() {
  ui.messages.replaceChildren(ui.welcome);
  ui.welcome.hidden = false;
}

let loadGeneration = 0;

async function openConversation(id) {
  const generation = ++loadGeneration;
  session.conversation = id;
  localStorage.setItem(conversationKey(), id);
  conversations.render();
  refreshApprovalRules(); // another user's, or a deleted conversation's went with it
  ui.sidebar.classList.remove("open");
  ui.toggleChats.setAttribute("aria-expanded", "false");
  clearMessages();
  try {
    const { messages, profile } = await userJson(`/conversations/${encodeURIComponent(id)}`, { cache: "no-store" });
    if (generation !== loadGeneration) return; // switched again meanwhile
    showProfile(profile);
    let last = null;
    for (const message of messages) {
      if (message.role === "user") {
        last = message.content;
        addUserMessage(message.content, message.attachments);
      } else if (message.role === "assistant" && last !== null) {
        newReply(last).finish({ response: message.content, notices: message.notices, images: message.images,
          media: message.media });
      }
    }
    markLastAnswer();
    scrollToEnd();
  } catch (error) {
    setBanner("request", t("historyFailed", error.message));
  }
}

async function switchUser(user) {
  if (user === session.user) return; // Enter fires both `change` and `submit`
  if (!USER_PATTERN.test(user)) {
    setBanner("request", t("badUser"));
    ui.userInput.value = session.user;
    return;
  }
  setBanner("request", null);
  session.user = user;
  search.clear();
  ui.userInput.value = user;
  rememberUser(user);
  await loadUser();
}

async function loadUser() {
  const known = await conversations.refresh();
  loadConnections(); // after the list, so a token the gateway asked for is not asked for twice at once
  const saved = localStorage.getItem(conversationKey());
  await openConversation(known.some((c) => c.id === saved) ? saved : "default");
}

async function clearConversation() {
  if (busy) return;
  try {
    // The default conversation is emptied; any other is removed.
    await userJson(`/conversations/${encodeURIComponent(session.conversation)}`, { method: "DELETE" });
  } catch (error) {
    setBanner("request", error.message);
    return;
  }
  const left = await conversations.refresh();
  await openConversation(left.some((c) => c.id === session.conversation) ? session.conversation
    : left[0]?.id || "default");
}

// ---- messages ----------------------------------------------------------------------------

// `attachments`: the resources sent with it (`{server, uri}`), as chips under the bubble.
function addUserMessage(text, attachments = []) {
  ui.welcome.hidden = true;
  const wrapper = element("div", "message user");
  wrapper.append(element("div", "bubble", text));
  if (attachments.length) wrapper.append(attachedChips(attachments));
  ui.messages.append(wrapper);
  return wrapper;
}

// `question`: the message, or `{prompt}` (then regenerating renders the prompt again).
function newReply(question, finished) {
  ui.welcome.hidden = true;
  const reply = addAssistantMessage(ui.messages, {
    enlarge: showChart,
    regenerate: () => regenerate(reply, question),
    finished,
  });
  return reply;
}

// Only the last answer can be regenerated (it replaces the stored one).
function markLastAnswer() {
  const answers = ui.messages.querySelectorAll(".message.assistant");
  answers.forEach((node, index) => node.classList.toggle("last", index === answers.length - 1));
}

function showChart(image) {
  const picture = $("lightbox-image");
  picture.src = image.url;
  picture.alt = image.alt || "chart";
  $("lightbox-caption").textContent = image.alt || "";
  $("lightbox-download").href = image.url;
  ui.lightbox.showModal();
  $("lightbox-close").focus();
}

// ---- asking ------------------------------------------------------------------------------

function setBusy(on) {
  busy = on;
  ui.send.hidden = on;
  ui.stop.hidden = !on;
  for (const control of [ui.clearHistory, ui.userInput, ui.newChat, ui.prompts]) control.disabled = on;
  ui.messages.classList.toggle("busy", on);
}

async function run(reply, body) {
  setBusy(true);
  controller = new AbortController();
  reply.setStreaming(true);
  scrollToEnd();
  try {
    const outcome = await streamChat(body, reply, controller.signal, scrollToEnd,
      (message) => setBanner("request", message));
    if (outcome === "stopped") reply.markStopped();
    else if (body.profile) profileKept(body.profile); // the gateway stored the switch with the answer
    setBanner("request", null);
  } catch (error) {
    const message = error instanceof TypeError ? t("gatewayDown") : error.message;
    reply.fail(`⚠ ${t("failed", message)}`);
    setBanner("request", t("failed", message));
    checkHealth();
  } finally {
    controller = null;
    reply.setStreaming(false);
    setBusy(false);
    markLastAnswer();
    scrollToEnd();
    conversations.refresh();
    ui.message.focus();
  }
}

function requestBody(question) {
  return { ...(typeof question === "string" ? { message: question } : question), use_tools: ui.useTools.checked,
    confirm_tools: ui.confirmTools.checked, conversation: session.conversation, profile: pickedProfile() };
}

async function submit() {
  const text = ui.message.value.trim();
  if (!text || busy) return;
  ui.message.value = "";
  growComposer();
  const attachments = picker.take();
  addUserMessage(text, attachments);
  await run(newReply(text), { ...requestBody(text), attachments });
}

// An MCP prompt (prompts.js): the bubble shows what was chosen until the answer brings the rendered text.
async function submitPrompt(prompt) {
  if (busy) return;
  growComposer();
  const bubble = addUserMessage(promptLabel(prompt)).firstChild;
  const finished = (result) => { if (result.prompt) bubble.textContent = result.prompt.text; };
  await run(newReply({ prompt }, finished), requestBody({ prompt }));
}

async function regenerate(old, question) {
  if (busy) return;
  const reply = newReply(question);
  old.node.replaceWith(reply.node);
  await run(reply, { ...requestBody(question), regenerate: true });
}

function growComposer() {
  ui.message.style.height = "auto";
  ui.message.style.height = `${ui.message.scrollHeight + 2}px`;
}

// ---- wiring ------------------------------------------------------------------------------

translatePage();
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
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && controller && !ui.lightbox.open) controller.abort();
});
ui.message.addEventListener("input", growComposer);
ui.stop.addEventListener("click", () => controller?.abort());
ui.userForm.addEventListener("submit", (event) => {
  event.preventDefault();
  switchUser(ui.userInput.value.trim());
});
ui.userInput.addEventListener("change", () => switchUser(ui.userInput.value.trim()));
ui.clearHistory.addEventListener("click", clearConversation);
ui.newChat.addEventListener("click", () => conversations.create());
ui.toggleChats.addEventListener("click", () => {
  const open = ui.sidebar.classList.toggle("open");
  ui.toggleChats.setAttribute("aria-expanded", String(open));
});
ui.confirmTools.checked = localStorage.getItem(STORAGE.confirm) === "true";
ui.confirmTools.addEventListener("change", () => localStorage.setItem(STORAGE.confirm, ui.confirmTools.checked));
$("lightbox-close").addEventListener("click", () => ui.lightbox.close());
ui.lightbox.addEventListener("click", (event) => { if (event.target === ui.lightbox) ui.lightbox.close(); });
for (const example of document.querySelectorAll(".example")) {
  example.addEventListener("click", () => {
    ui.message.value = example.textContent;
    submit();
  });
}

promptPicker({ input: ui.message, opener: ui.prompts, panel: ui.promptPanel, send: submitPrompt });

ui.userInput.value = session.user;
rememberUser(session.user);
loadUser();
loadProfiles();
checkHealth();
setInterval(checkHealth, HEALTH_INTERVAL_MS);
