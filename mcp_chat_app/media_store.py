"""Images from tool results, kept on disk in the data directory and served at /media/<id>."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

_EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/svg+xml": ".svg", "image/webp": ".webp"}
_MEDIA_ID = re.compile(r"^[0-9a-f]{32}\.(png|jpg|svg|webp)$")
_KEEP_FILES = 500


class MediaStore:
    """Write-once image files; the oldest are pruned beyond `_KEEP_FILES`."""

    def __init__(self, directory: Path) -> None:
        # Absolute, because Flask's send_file resolves a relative path against the app's
        # package folder, not the working directory the default `data/` is meant for.
        self.directory = directory.resolve()
        self.directory.mkdir(parents=True, exist_ok=True)

    def save(self, data: bytes, mime: str) -> str:
        """Store the image; returns its media id (file name)."""
        media_id = uuid.uuid4().hex + _EXTENSIONS.get(mime, ".png")
        (self.directory / media_id).write_bytes(data)
        self._prune()
        return media_id

    def path(self, media_id: str) -> Path | None:
        """The file for a media id, or None if the id is malformed or unknown."""
        if not _MEDIA_ID.match(media_id):
            return None
        path = self.directory / media_id
        return path if path.is_file() else None

    def _prune(self) -> None:
        files = sorted(self.directory.iterdir(), key=lambda p: p.stat().st_mtime)
        for stale in files[:-_KEEP_FILES]:
            stale.unlink(missing_ok=True)
