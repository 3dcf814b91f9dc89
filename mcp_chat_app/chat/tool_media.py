"""A result's audio, files and resource links as the caller gets them (`media`, beside `images`): audio and files
stored in the media store and given a URL, links kept with their server so they can be read from it later
(`GET /resources/read`)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from mcp_chat_app.media_store import MediaStore
from mcp_chat_app.mcp_client.results import ToolFile, ToolOutcome

MediaItem = dict[str, Any]


def stored_media(outcome: ToolOutcome, media: MediaStore) -> tuple[MediaItem, ...]:
    """`{"kind": "audio"|"file", "url", "name", "mime", "server"}` for each stored file, then
    `{"kind": "link", "uri", "name", "mime", "description", "server"}` for each link."""
    files = tuple(_stored(item, outcome.server, media) for item in outcome.files)
    links = tuple({"kind": "link", "uri": link.uri, "name": link.name, "mime": link.mime,
                   "description": link.description, "server": outcome.server} for link in outcome.links)
    return files + links


def _stored(item: ToolFile, server: str, media: MediaStore) -> MediaItem:
    media_id = media.save(item.data, item.mime)
    extension = media_id[media_id.index("."):]
    # The download name: the resource's own, with the type's extension when it has none ("1" -> "1.txt").
    name = item.name if "." in item.name else f"{item.name or item.kind}{extension}"
    url = f"/media/{media_id}" if item.kind == "audio" else f"/media/{media_id}/{quote(name)}"
    return {"kind": item.kind, "url": url, "name": name, "mime": item.mime, "server": server}
