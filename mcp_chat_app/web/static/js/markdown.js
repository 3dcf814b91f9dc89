// Answers are Markdown (lists, bold, tables). Model text and tool data are untrusted: raw HTML in them is shown as
// text (never parsed), and DOMPurify cleans what marked produced (no script, handler, javascript: URL or image
// that would call out of this private page).
const { marked, DOMPurify } = window;

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

marked.use({
  gfm: true,
  breaks: true,
  renderer: {
    html({ text }) { return escapeHtml(text); }, // block and inline HTML stay visible as typed
  },
});

const PURIFY = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ["img", "svg", "math", "style", "form", "input", "button", "textarea", "select", "video", "audio"],
  FORBID_ATTR: ["style", "class", "id"],
};

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

// The sanitized HTML of a Markdown text; tables get a wrapper that scrolls on narrow screens.
export function renderMarkdown(text) {
  const html = DOMPurify.sanitize(marked.parse(text), PURIFY).trim();
  return html.replace(/<table>/g, '<div class="table-wrap"><table>').replace(/<\/table>/g, "</table></div>");
}
