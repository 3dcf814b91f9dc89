"""What a result shows the user beside the answer (images, audio, files, links), in the words the models read:
they cannot see it, but should know it is there."""

from __future__ import annotations

from mcp_chat_app.mcp_client.results import ToolFile, ToolLink, ToolOutcome


def shown_beside(outcome: ToolOutcome) -> str:
    """E.g. "1 image(s), an audio clip (audio/wav) and a link to Report shown to the user beside the answer";
    "" when the result has none of them."""
    items = [f"{len(outcome.images)} image(s)"] if outcome.images else []
    items += [_file(item) for item in outcome.files] + [_link(link) for link in outcome.links]
    if not items:
        return ""
    listed = items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
    return f"{listed} shown to the user beside the answer"


def _file(item: ToolFile) -> str:
    if item.kind == "audio":
        return f"an audio clip ({item.mime})"
    return f"a file {item.name} ({item.mime})" if item.name else f"a file ({item.mime})"


def _link(link: ToolLink) -> str:
    return f"a link to {link.name} ({link.mime})" if link.mime else f"a link to {link.name}"
