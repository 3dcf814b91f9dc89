// What a chat asks its person mid-answer: a tool's question (MCP elicitation: a form from its JSON schema), the
// gateway's "may I call this tool?" (approval) and "sign in there first" (authorization). Each is a card in the
// answer; `send(body)` posts the reply.
import { t } from "./i18n.js";

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(label, className, onClick) {
  const node = element("button", className, label);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

// One form field from a JSON-schema property; returns [node, read()] (read gives the value, or undefined).
function field(name, schema, required) {
  const label = element("label", "field");
  label.append(element("span", "field-name", schema.title || name));
  const choices = schema.enum || (schema.oneOf || []).map((option) => option.const).filter((v) => v !== undefined);
  let input;
  if (choices.length) {
    input = element("select");
    if (!required) input.append(new Option("—", ""));
    for (const choice of choices) input.append(new Option(String(choice), String(choice)));
    const read = () => (input.value === "" ? undefined : choices.find((choice) => String(choice) === input.value));
    label.append(input);
    return [label, read];
  }
  input = element("input");
  if (schema.type === "boolean") {
    input.type = "checkbox";
    label.append(input);
    return [label, () => input.checked];
  }
  input.type = schema.type === "number" || schema.type === "integer" ? "number" : "text";
  if (schema.type === "integer") input.step = "1";
  if (schema.default !== undefined) input.value = String(schema.default);
  label.append(input);
  const read = () => {
    if (input.value === "") return undefined;
    return input.type === "number" ? Number(input.value) : input.value;
  };
  return [label, read];
}

// The picker for an `elicitation` event. A form of one choice is a row of buttons: one click answers.
export function elicitationCard(question, send) {
  const card = element("div", "question-card");
  card.dataset.id = question.id;
  card.append(element("div", "question-title", t("elicitTitle", question.tool)),
    element("div", "question-message", question.message));
  const properties = question.schema?.properties || {};
  const required = new Set(question.schema?.required || []);
  const names = Object.keys(properties);
  const actions = element("div", "question-actions");
  const only = names.length === 1 ? properties[names[0]] : null;
  if (only && only.enum) {
    for (const choice of only.enum) {
      actions.append(button(String(choice), "choice", () => send({ action: "accept", content: { [names[0]]: choice } })));
    }
  } else {
    const readers = {};
    const form = element("div", "question-fields");
    for (const name of names) {
      const [node, read] = field(name, properties[name], required.has(name));
      readers[name] = read;
      form.append(node);
    }
    card.append(form);
    actions.append(button(t("submit"), "choice primary", () => {
      const content = {};
      for (const [name, read] of Object.entries(readers)) {
        const value = read();
        if (value !== undefined) content[name] = value;
      }
      send({ action: "accept", content });
    }));
  }
  actions.append(button(t("decline"), "choice ghost", () => send({ action: "decline" })),
    button(t("cancel"), "choice ghost", () => send({ action: "cancel" })));
  card.append(actions);
  return card;
}

// The card for an `approval` event: allow once, for this conversation or always, deny once or always (as far
// as the event's `remember` offers: a destructive tool is never allowed only for the conversation).
export function approvalCard(request, send) {
  const card = element("div", "question-card approval");
  card.dataset.id = request.id;
  card.append(element("div", "question-title", t("approvalTitle", request.tool, request.server)));
  if (request.destructive) card.append(element("div", "question-warning", t("destructiveNote")));
  card.append(element("pre", "question-arguments", JSON.stringify(request.arguments, null, 2)));
  const offered = new Set(request.remember || ["once"]);
  const choices = [
    ["approve", "once", "approveOnce", "choice primary approve"],
    ["approve", "conversation", "approveConversation", "choice approve-conversation"],
    ["approve", "always", "approveAlways", "choice approve-always"],
    ["deny", "once", "deny", "choice ghost deny"],
    ["deny", "always", "denyAlways", "choice ghost deny-always"],
  ];
  const actions = element("div", "question-actions");
  for (const [decision, remember, label, className] of choices) {
    if (!offered.has(remember)) continue;
    const body = remember === "once" ? { decision } : { decision, remember };
    actions.append(button(t(label), className, () => send(body)));
  }
  card.append(actions);
  return card;
}

// The card for an `authorization` event: a server acts for each user, and this one has not connected it; the
// link opens its sign-in page in a new tab (the gateway's callback completes the connection).
export function authorizationCard(request) {
  const card = element("div", "question-card authorization");
  card.dataset.server = request.server;
  card.append(element("div", "question-title", t("authorizationTitle", request.server)),
    element("div", "question-message", t("authorizationMessage", request.server)));
  const link = element("a", "choice primary sign-in", t("signIn"));
  Object.assign(link, { href: request.authorization_url, target: "_blank", rel: "noopener noreferrer" });
  const actions = element("div", "question-actions");
  actions.append(link);
  card.append(actions);
  return card;
}

// A card once its question is closed: the buttons go, a line says what was decided.
export function closeCard(card, outcome) {
  card.querySelector(".question-actions")?.remove();
  card.querySelector(".question-fields")?.remove();
  card.classList.add("closed");
  card.append(element("div", "question-outcome", outcome));
}
