// The sidebar's "Connections": the servers that act for each user through OAuth (GET /chat/<user>/oauth) and
// whether this user has connected each. "Connect" starts the user's flow (POST) and opens its sign-in page in a
// new tab, whose callback page tells this one when it is done; "Disconnect" forgets the user's tokens (DELETE).
// Servers that need no sign-in are not listed, and the section stays hidden while there are none. A failed request
// is said in the section's error line.
import { session, userJson } from "./api.js";
import { t } from "./i18n.js";
import { element } from "./reply.js";

const POLL_MS = 2000;
// After a sign-in page is done, the gateway still exchanges the code for the tokens: the list is read a while
// longer, so a connection that completes just after its pending URL went is seen.
const SETTLE_MS = 15000;

const panel = document.getElementById("connections");
const list = document.getElementById("connection-list");
const errorLine = document.getElementById("connection-error");

const watchers = new Map(); // server -> callbacks for when this user is connected (the chat's sign-in cards)
let lastPending = 0;
let timer = null;
let generation = 0;

const path = (server) => `/oauth/${encodeURIComponent(server)}`;
const signingIn = () => Date.now() - lastPending < SETTLE_MS;

function stateOf(entry) {
  if (entry.connected) return "connected";
  return entry.authorization_url ? "pending" : "disconnected";
}

// `source`: "load" (the list; a later read that works clears it) or "action" (a click; the next click clears it).
function showError(message, source = "action") {
  errorLine.textContent = message || "";
  errorLine.hidden = !message;
  errorLine.dataset.source = source;
  if (message) panel.hidden = false;
}

// A tab opened on the click (a tab opened after the request would be blocked as a pop-up), pointed at the
// sign-in page once the gateway gives it; without a tab, the pending row's link still leads there.
async function connect(server) {
  const tab = window.open("", "_blank");
  if (tab) tab.opener = null; // the authorization server's page gets no handle on this one
  try {
    const state = await userJson(path(server), { method: "POST" });
    if (state.authorization_url && tab) tab.location.replace(state.authorization_url);
    else tab?.close();
    showError(null);
  } catch (error) {
    tab?.close();
    showError(t("connectFailed", server, error.message));
  }
  await refresh();
}

async function disconnect(server) {
  try {
    await userJson(path(server), { method: "DELETE" });
    showError(null);
  } catch (error) {
    showError(t("disconnectFailed", server, error.message));
  }
  await refresh();
}

function button(label, className, onClick) {
  const node = element("button", `ghost ${className}`, label);
  node.type = "button";
  node.addEventListener("click", () => {
    node.disabled = true;
    onClick();
  });
  return node;
}

// One server of GET /chat/<user>/oauth: {server, connected, session_up, authorization_url, last_error}.
function row(entry) {
  const state = stateOf(entry);
  const item = element("li", "connection");
  Object.assign(item.dataset, { server: entry.server, state });
  const label = element("span", "connection-label");
  const status = element("span", "connection-state");
  if (state === "pending") {
    const link = element("a", "", t("signInPending"));
    Object.assign(link, { href: entry.authorization_url, target: "_blank", rel: "noopener noreferrer" });
    status.append(link);
  } else {
    status.textContent = t(state === "connected" ? "connected" : "notConnected");
  }
  label.append(element("strong", "", entry.server), status);
  // Why the last flow failed (refused, timed out); while one waits or holds tokens the link or state says it.
  if (state === "disconnected" && entry.last_error) label.append(element("span", "connection-why", entry.last_error));
  const action = state === "connected"
    ? button(t("disconnect"), "connection-disconnect", () => disconnect(entry.server))
    : button(t(state === "pending" ? "signIn" : "connect"), "connection-connect", () => connect(entry.server));
  action.setAttribute("aria-label", `${action.textContent}: ${entry.server}`);
  item.append(label, action);
  return item;
}

function notifyConnected(servers) {
  for (const entry of servers) {
    if (!entry.connected) continue;
    for (const callback of watchers.get(entry.server) || []) callback();
    watchers.delete(entry.server);
  }
}

// Read the list again; while a sign-in waits (or has just ended) it is read every POLL_MS.
async function refresh() {
  const asked = ++generation;
  clearTimeout(timer);
  try {
    const { servers } = await userJson("/oauth", { cache: "no-store" });
    if (asked !== generation) return; // another user, or a newer read, meanwhile
    if (errorLine.dataset.source === "load") showError(null);
    show(servers);
  } catch (error) {
    if (asked !== generation) return;
    showError(t("connectionsFailed", error.message), "load");
  }
  if (signingIn()) timer = setTimeout(refresh, POLL_MS);
}

function show(servers) {
  list.replaceChildren(...(servers.length ? servers.map(row)
    : [element("li", "connection-none", t("noConnections"))]));
  panel.hidden = servers.length === 0 && errorLine.hidden;
  notifyConnected(servers);
  if (servers.some((entry) => stateOf(entry) === "pending")) lastPending = Date.now();
}

// Another user's list: their errors and waiting cards are not this one's.
export function loadConnections() {
  watchers.clear();
  lastPending = 0;
  showError(null);
  refresh();
}

// `onConnected()` once this user holds a connection to `server` (a sign-in card closes then); the list is read
// now, as the gateway has just started that user's flow.
export function watchConnection(server, onConnected) {
  watchers.set(server, [...(watchers.get(server) || []), onConnected]);
  refresh();
}

// Back from the sign-in tab: the list says at once what happened there (only then: a read that asks for a token
// must not ask again each time the page gets the focus back).
function backAgain() {
  if (document.visibilityState === "visible" && signingIn()) refresh();
}
document.addEventListener("visibilitychange", backAgain);
window.addEventListener("focus", backAgain);

// The callback's page in the sign-in tab says a sign-in of this user ended (signed_in.js): the list is read at once,
// and a while longer as the gateway exchanges the code.
if ("BroadcastChannel" in window) {
  new BroadcastChannel("mcp-chat.connections").addEventListener("message", ({ data }) => {
    if (data?.user !== session.user) return;
    lastPending = Date.now();
    refresh();
  });
}
