// Export the open conversation as Markdown or JSON (GET /chat/<user>/conversations/<id>/export), fetched through
// the user's routes so a token the gateway asks for goes with it, then saved under the gateway's file name.
import { errorMessage, session, userFetch } from "./api.js";
import { t } from "./i18n.js";
import { element } from "./reply.js";

async function download(format) {
  const path = `/conversations/${encodeURIComponent(session.conversation)}/export?format=${format}`;
  const response = await userFetch(path, { cache: "no-store" });
  if (!response.ok) throw new Error(errorMessage(await response.json().catch(() => null), response.status));
  const disposition = response.headers.get("Content-Disposition") || "";
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] || `chat.${format}`;
  const url = URL.createObjectURL(await response.blob());
  const link = element("a");
  Object.assign(link, { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

// `hooks`: {failed(message)}; the buttons go at the end of `container`.
export function exportButtons(container, hooks) {
  const row = element("div", "export");
  row.append(element("span", "export-label", t("export")));
  for (const [format, label] of [["md", "Markdown"], ["json", "JSON"]]) {
    const button = element("button", `export-${format}`, label);
    button.type = "button";
    button.title = t("exportTitle", label);
    button.addEventListener("click", () => download(format).catch((error) => hooks.failed(error.message)));
    row.append(button);
  }
  container.append(row);
}
