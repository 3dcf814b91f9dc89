// What a tool returned beside its text, other than images: audio (played in place), files (offered as downloads
// with their name and type) and resource links (to the address itself, or read through GET /resources/read).
import { element } from "./reply.js";

const WEB_ADDRESS = /^https?:\/\//i;

function typeLabel(mime) {
  return mime ? element("span", "media-type", mime) : "";
}

function audioNode(item) {
  const node = element("figure", "media-item audio");
  const player = element("audio");
  Object.assign(player, { controls: true, preload: "metadata", src: item.url });
  const caption = element("figcaption");
  caption.append(typeLabel(item.mime));
  node.append(player, caption);
  return node;
}

function fileNode(item) {
  const link = element("a", "media-item file");
  link.href = item.url;
  link.download = item.name;
  link.append(element("span", "media-name", `⬇ ${item.name}`), typeLabel(item.mime));
  return link;
}

function linkNode(item) {
  const node = element("a", "media-item link");
  // A web address opens itself; any other URI is read from its server through the gateway.
  node.href = WEB_ADDRESS.test(item.uri) ? item.uri
    : `/resources/read?server=${encodeURIComponent(item.server)}&uri=${encodeURIComponent(item.uri)}`;
  Object.assign(node, { target: "_blank", rel: "noopener noreferrer", title: item.description || item.uri });
  Object.assign(node.dataset, { server: item.server, uri: item.uri });
  node.append(element("span", "media-name", `↗ ${item.name}`), element("code", "media-uri", item.uri),
    typeLabel(item.mime));
  return node;
}

const NODES = { audio: audioNode, file: fileNode, link: linkNode };

// The node for one `media[]` item of a reply, or null for a kind this page does not know.
export function mediaNode(item) {
  const make = NODES[item.kind];
  return make ? make(item) : null;
}
