// `POST /chat/<user>` as an SSE stream over fetch: each event goes to the reply it belongs to. Aborting the fetch
// (the stop button) closes the stream, and the gateway then cancels the LLM and tool work and stores nothing.
import { errorMessage, userFetch, userJson } from "./api.js";
import { t } from "./i18n.js";
import { watchConnection } from "./connections.js";
import { approvalCard, authorizationCard, closeCard, elicitationCard } from "./questions.js";

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

// Shows a question's card; its reply is posted to `path` (a refused one is reported with `onError`), and the
// chosen values are kept on the card to say what was answered once it closes.
function showCard(reply, makeCard, path, onError) {
  let card = null;
  card = makeCard(async (body) => {
    card.dataset.chosen = Object.values(body.content || {}).join(", ");
    try {
      await userJson(path, { method: "POST", body });
    } catch (error) {
      onError(error.message);
    }
  });
  reply.questionArea.append(card);
  card.querySelector("button")?.focus();
}

// A sign-in card per server and answer (each call to it says so); it closes once the user is connected there.
function showAuthorization(reply, data) {
  if (reply.questionArea.querySelector(`.authorization[data-server="${CSS.escape(data.server)}"]`)) return;
  const card = authorizationCard(data);
  reply.questionArea.append(card);
  watchConnection(data.server, () => closeCard(card, t("authorizationDone", data.server)));
}

const ACTION_WORDS = { decline: "decline", cancel: "cancel" };
const DECISION_WORDS = {
  approve: "approved", deny: "denied", timeout: "timedOut", "approve-conversation": "approvedConversation",
  "approve-always": "approvedAlways", "deny-always": "deniedAlways", "deny-conversation": "denied",
};

function closeQuestion(reply, event, data) {
  const card = reply.questionArea.querySelector(`[data-id="${CSS.escape(data.id)}"]`);
  if (!card) return;
  card.dataset.outcome = data.decision || data.action;
  if (event === "approval_closed") {
    closeCard(card, t(DECISION_WORDS[data.remember ? `${data.decision}-${data.remember}` : data.decision]));
    if (data.remember) document.dispatchEvent(new CustomEvent("approval-rules-changed"));
  }
  else closeCard(card, data.action === "accept" ? t("answered", card.dataset.chosen) : t(ACTION_WORDS[data.action]));
}

function applyEvent(reply, { event, data }, onError) {
  switch (event) {
    case "prefill": reply.showPrefill(data); break;
    case "tool_call": reply.addToolCall(data); break;
    case "tool_result": reply.completeToolCall(data); break;
    case "progress": reply.showProgress(data); break;
    case "elicitation":
      showCard(reply, (send) => elicitationCard(data, send), `/elicitations/${encodeURIComponent(data.id)}`, onError);
      break;
    case "approval":
      showCard(reply, (send) => approvalCard(data, send), `/approvals/${encodeURIComponent(data.id)}`, onError);
      break;
    case "authorization": showAuthorization(reply, data); break;
    case "elicitation_closed": case "approval_closed": closeQuestion(reply, event, data); break;
    case "token": reply.appendText(data.text); break;
    case "rewrite": reply.setText(""); break; // a draft failed its whole check: the pieces it showed are withdrawn
    case "done": reply.finish(data); return "done";
    case "error": throw new Error(errorMessage(data, data.status));
    default: break;
  }
  return null;
}

// Streams one chat request into `reply`; resolves "done", or "stopped" once `signal` aborts it; throws on failure.
export async function streamChat(body, reply, signal, onEvent, onError) {
  const response = await userFetch("", { method: "POST", body: { ...body, stream: true }, signal });
  if (!response.ok) throw new Error(errorMessage(await response.json().catch(() => null), response.status));
  try {
    for await (const item of readEvents(response)) {
      if (applyEvent(reply, item, onError) === "done") return "done";
      onEvent();
    }
  } catch (error) {
    if (signal.aborted) return "stopped";
    throw error;
  }
  if (signal.aborted) return "stopped";
  throw new Error(t("endedEarly"));
}
