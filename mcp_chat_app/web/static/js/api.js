// The gateway's user routes, with the user's API token when the gateway wants one (asked for once, then kept).
import { t } from "./i18n.js";

export const USER_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;
export const session = { user: localStorage.getItem("mcp-chat.user") || "web_user", conversation: "default" };

function tokenKey(user) {
  return `mcp-chat.token.${user}`;
}

// `url` with the user's token (asked for on a 401/403); JSON bodies are sent as JSON.
export async function tokenFetch(url, options = {}) {
  const send = () => {
    const headers = { ...(options.headers || {}) };
    const token = localStorage.getItem(tokenKey(session.user));
    if (token) headers.Authorization = `Bearer ${token}`;
    let { body } = options;
    if (body !== undefined && typeof body !== "string") {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(body);
    }
    return fetch(url, { ...options, headers, body });
  };
  const response = await send();
  if (response.status !== 401 && response.status !== 403) return response;
  const token = window.prompt(t("tokenPrompt", session.user));
  if (!token) return response;
  localStorage.setItem(tokenKey(session.user), token.trim());
  return send();
}

const userUrl = (path) => `/chat/${encodeURIComponent(session.user)}${path}`;

// `path` under /chat/<user>.
export function userFetch(path, options = {}) {
  return tokenFetch(userUrl(path), options);
}

// The gateway's error message and code, or the HTTP status.
export function errorMessage(body, status) {
  return body?.error?.message ? `${body.error.message} (${body.error.code})` : t("requestFailed", status);
}

// The JSON of a gateway route (`tokenFetch`), or an Error with the gateway's message.
export async function tokenJson(url, options = {}) {
  const response = await tokenFetch(url, options);
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error(errorMessage(body, response.status));
  return body;
}

// The JSON of a user route.
export function userJson(path, options = {}) {
  return tokenJson(userUrl(path), options);
}
