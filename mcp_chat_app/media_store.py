"""What tools returned for the page (images, audio, files), kept on disk in the data directory and served at
/media/<id>."""

from __future__ import annotations

import mimetypes
import re
import uuid
from pathlib import Path

# Types whose extension mimetypes does not know (audio/wav) or reads as an encoding (.gz); these come first.
_EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/svg+xml": ".svg", "image/webp": ".webp",
               "audio/wav": ".wav", "audio/mpeg": ".mp3", "audio/ogg": ".ogg", "text/plain": ".txt",
               "application/gzip": ".gz"}
_TYPES = {extension: mime for mime, extension in _EXTENSIONS.items()}
_EXTENSION = r"\.[a-z0-9]{1,5}"
_MEDIA_ID = re.compile(rf"^[0-9a-f]{{32}}{_EXTENSION}$")
_KEEP_FILES = 500
# What a browser may show in place (an <img>, an <audio>); anything else is sent only as a download, so a
# tool's HTML cannot run as a page of the gateway's origin.
_SHOWN_IN_PLACE = ("image/", "audio/")


class MediaStore:
    """Write-once files, named by a fresh id and an extension that keeps their type; the oldest are pruned beyond
    `_KEEP_FILES`."""

    def __init__(self, directory: Path) -> None:
        # Absolute, because Flask's send_file resolves a relative path against the app's
        # package folder, not the working directory the default `data/` is meant for.
        self.directory = directory.resolve()
        self.directory.mkdir(parents=True, exist_ok=True)

    def save(self, data: bytes, mime: str) -> str:
        """Store the file; returns its media id (file name)."""
        extension = _EXTENSIONS.get(mime) or mimetypes.guess_extension(mime) or ".bin"
        media_id = uuid.uuid4().hex + (extension if re.fullmatch(_EXTENSION, extension) else ".bin")
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


def media_type(media_id: str) -> str:
    """The MIME type a media id's extension stands for."""
    extension = media_id[media_id.rfind("."):]
    return _TYPES.get(extension) or mimetypes.guess_type(media_id)[0] or "application/octet-stream"


def shown_in_place(mime: str) -> bool:
    """Whether a browser may show this type inline rather than only download it."""
    return mime.startswith(_SHOWN_IN_PLACE)
