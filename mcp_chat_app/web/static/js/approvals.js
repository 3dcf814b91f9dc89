// The sidebar's "Remembered approvals": what the user let the approval cards remember (allowed in a chat, always
// allowed or denied), each with a revoke button, through /chat/<user>/approvals/policy. Loaded when opened, and
// again when a card remembers something.
import { session, userJson } from "./api.js";
import { t } from "./i18n.js";
import { element } from "./reply.js";

const panel = document.getElementById("approval-rules");
const list = document.getElementById("approval-rule-list");
const revokeAll = document.getElementById("revoke-all");

// A conversation by the title the sidebar shows for it (its id if the list does not have it).
function chatName(id) {
  const shown = document.querySelector(`#conversation-list [data-id="${CSS.escape(id)}"] .conversation-open`);
  return shown?.textContent || id;
}

function describe(rule) {
  const kind = `rule${rule.decision === "allow" ? "Allow" : "Deny"}`;
  return rule.scope === "always" ? t(`${kind}Always`) : t(`${kind}Conversation`, chatName(rule.conversation));
}

function row(rule) {
  const item = element("li", "approval-rule");
  item.dataset.decision = rule.decision;
  const label = element("span", "approval-rule-label");
  label.append(element("strong", "", `${rule.server} · ${rule.tool}`), element("span", "", describe(rule)));
  const revoke = element("button", "approval-rule-revoke", "✕");
  revoke.type = "button";
  revoke.title = t("revoke");
  revoke.setAttribute("aria-label", `${t("revoke")}: ${rule.server} · ${rule.tool}`);
  const query = rule.scope === "conversation" ? `?conversation=${encodeURIComponent(rule.conversation)}` : "";
  revoke.addEventListener("click", () => change(`/approvals/policy/${encodeURIComponent(rule.server)}/`
    + `${encodeURIComponent(rule.tool)}${query}`));
  item.append(label, revoke);
  return item;
}

async function refresh() {
  try {
    const { rules } = await userJson("/approvals/policy", { cache: "no-store" });
    list.replaceChildren(...(rules.length ? rules.map(row) : [element("li", "approval-rule-none", t("noRules"))]));
    revokeAll.hidden = rules.length === 0;
  } catch (error) {
    list.replaceChildren(element("li", "approval-rule-none", t("rulesFailed", error.message)));
    revokeAll.hidden = true;
  }
}

async function change(path) {
  try {
    await userJson(path, { method: "DELETE" });
  } catch {
    // refreshed below: the list then says what is really stored
  }
  await refresh();
}

panel.addEventListener("toggle", () => { if (panel.open) refresh(); });
revokeAll.addEventListener("click", () => change("/approvals/policy"));
document.addEventListener("approval-rules-changed", () => { if (panel.open) refresh(); });
// Another user (or another conversation to name them by) makes the shown list stale.
export function refreshApprovalRules() {
  if (panel.open && session.user) refresh();
}
