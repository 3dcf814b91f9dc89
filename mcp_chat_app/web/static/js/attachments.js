// What a tool returned beside its text, other than images: audio (played in place), files (offered as downloads
// with their name and type) and resource links (a link when the URI is a web address; else its name and URI,
// with the server that can read it in data-server / data-uri).
import { element } from "./reply.js";

const WEB_ADDRESS = /^https?:\/\//i;

function typeLabel(mime) {
  return mime ? element("span", "attachment-type", mime) : "";
}

function audioNode(item) {
  const node = element("figure", "attachment audio");
  const player = element("audio");
  Object.assign(player, { controls: true, preload: "metadata", src: item.url });
  const caption = element("figcaption");
  caption.append(typeLabel(item.mime));
  node.append(player, caption);
  return node;
}

function fileNode(item) {
  const link = element("a", "attachment file");
  link.href = item.url;
  link.download = item.name;
  link.append(element("span", "attachment-name", `⬇ ${item.name}`), typeLabel(item.mime));
  return link;
}

function linkNode(item) {
  const web = WEB_ADDRESS.test(item.uri);
  const node = element(web ? "a" : "span", "attachment link");
  if (web) {
    node.href = item.uri;
    node.target = "_blank";
    node.rel = "noopener noreferrer";
  }
  Object.assign(node.dataset, { server: item.server, uri: item.uri });
  node.title = item.description || item.uri;
  node.append(element("span", "attachment-name", `↗ ${item.name}`), element("code", "attachment-uri", item.uri),
    typeLabel(item.mime));
  return node;
}

const NODES = { audio: audioNode, file: fileNode, link: linkNode };

// The node for one `attachments[]` item of a reply, or null for a kind this page does not know.
export function attachmentNode(item) {
  const make = NODES[item.kind];
  return make ? make(item) : null;
}
