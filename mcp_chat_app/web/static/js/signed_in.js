// The OAuth callback's page (web/oauth_page.py), in the sign-in tab: tells the chat pages of this origin that a
// sign-in ended, so their Connections list is read again at once (the tab has no opener: connections.js cuts it).
const { server, user, ok } = document.body.dataset;
if (server && user && "BroadcastChannel" in window) {
  const channel = new BroadcastChannel("mcp-chat.connections");
  channel.postMessage({ server, user, ok: ok === "true" });
  channel.close();
}
