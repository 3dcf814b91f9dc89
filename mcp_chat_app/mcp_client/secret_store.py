"""Where the OAuth secrets of the MCP servers rest: JSON documents, encrypted on disk or kept in memory only.

With `MCP_CHAT_TOKEN_KEY` (a Fernet key: AES-128-CBC with an HMAC-SHA256, from the `cryptography` package) each
document is one file, `<dir>/<name>.fernet`, mode 0600, written atomically; nothing in it is readable without the
key. Without a key the documents live in memory: nothing secret touches the disk, and a restart asks every user
to authorize again.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, Protocol

from cryptography.fernet import Fernet, InvalidToken

logger = logging.getLogger(__name__)
SUFFIX = ".fernet"


class SecretStore(Protocol):
    """Named JSON documents (names are `/`-separated paths of safe parts: server and user names)."""

    def read(self, name: str) -> dict[str, Any]: ...

    def write(self, name: str, document: dict[str, Any]) -> None: ...

    def delete(self, name: str) -> bool: ...


class MemoryStore:
    """The store without a key: documents in this process only."""

    def __init__(self) -> None:
        self._documents: dict[str, dict[str, Any]] = {}

    def read(self, name: str) -> dict[str, Any]:
        return dict(self._documents.get(name, {}))

    def write(self, name: str, document: dict[str, Any]) -> None:
        self._documents[name] = dict(document)

    def delete(self, name: str) -> bool:
        return self._documents.pop(name, None) is not None


class EncryptedFileStore:
    """One Fernet-encrypted file per document under `directory`."""

    def __init__(self, directory: Path, key: str) -> None:
        try:
            self._fernet = Fernet(key.encode("ascii"))
        except (ValueError, UnicodeEncodeError) as error:
            raise ValueError("MCP_CHAT_TOKEN_KEY must be a Fernet key (32 url-safe base64-encoded bytes), e.g. from "
                             "python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'"
                             ) from error
        self._directory = directory

    def read(self, name: str) -> dict[str, Any]:
        path = self._path(name)
        try:
            sealed = path.read_bytes()
        except FileNotFoundError:
            return {}
        try:
            return json.loads(self._fernet.decrypt(sealed))
        except InvalidToken:  # another key (rotated, or a copied file): the user authorizes again
            logger.error("cannot decrypt %s with MCP_CHAT_TOKEN_KEY: ignoring it", path)
            return {}

    def write(self, name: str, document: dict[str, Any]) -> None:
        path = self._path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_name(path.name + ".tmp")
        descriptor = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # secrets: owner only
        with os.fdopen(descriptor, "wb") as file:
            file.write(self._fernet.encrypt(json.dumps(document).encode("utf-8")))
        staging.replace(path)  # atomic: a crash leaves the old document or the new one

    def delete(self, name: str) -> bool:
        try:
            self._path(name).unlink()
        except FileNotFoundError:
            return False
        return True

    def _path(self, name: str) -> Path:
        parts = name.split("/")
        # Folders must be plain names; the file's own name is safe once suffixed (a user may be called "..").
        if any(part in ("", ".", "..") for part in parts[:-1]) or not parts[-1]:
            raise ValueError(f"not a document name: {name!r}")
        return self._directory.joinpath(*parts[:-1], parts[-1] + SUFFIX)


def open_secret_store(directory: Path, key: str | None) -> SecretStore:
    """The encrypted store when a key is configured, else the in-memory one (with a warning)."""
    for stale in sorted(directory.glob("*.json")):  # the shared flow's files, from before tokens were per user
        logger.warning("%s holds OAuth tokens in plaintext and is no longer read: delete it", stale)
    if key:
        return EncryptedFileStore(directory, key)
    logger.warning("MCP_CHAT_TOKEN_KEY is not set: OAuth tokens of MCP servers are kept in memory only, and every "
                   "user authorizes again after a restart")
    return MemoryStore()
