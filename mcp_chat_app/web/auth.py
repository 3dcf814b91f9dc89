"""Who may call what: per-user API tokens and the admin token.

User tokens live in a JSON file (`configs/user_tokens.json` by default, git-ignored) as SHA-256
hashes, `{"users": {"alice": "sha256:<hex>"}}`, so the file never holds a usable secret.
`mcp-chat token USER` issues one. The file is re-read when it changes, so issuing or revoking a
token needs no restart.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import logging
import threading
from pathlib import Path

from mcp_chat_app.web.errors import GatewayError

logger = logging.getLogger(__name__)

AUTH_MODES = ("auto", "on", "off")
_HASH_PREFIX = "sha256:"


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the gateway on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def auth_required(mode: str, host: str) -> bool:
    """`auto` (the default) turns user tokens on exactly when the gateway binds beyond loopback."""
    if mode not in AUTH_MODES:
        raise ValueError(f"MCP_CHAT_AUTH must be one of {AUTH_MODES}, not {mode!r}")
    return mode == "on" or (mode == "auto" and not is_loopback(host))


def token_hash(token: str) -> str:
    """What the tokens file stores for `token`."""
    return _HASH_PREFIX + hashlib.sha256(token.encode("utf-8")).hexdigest()


def _read_tokens(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    users = json.loads(path.read_text(encoding="utf-8")).get("users", {})
    if not isinstance(users, dict) or not all(
            isinstance(value, str) and value.startswith(_HASH_PREFIX) for value in users.values()):
        raise ValueError(f"{path}: 'users' must map each user to a 'sha256:<hex>' token hash")
    return users


def _write_tokens(path: Path, users: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_suffix(".tmp")
    staging.write_text(json.dumps({"users": users}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    staging.chmod(0o600)
    staging.replace(path)  # atomic: a running gateway never reads half a file


def issue_token(path: Path, user: str) -> str:
    """Create (or replace) `user`'s token; returns the token, which is stored only as a hash."""
    token = secrets.token_urlsafe(32)
    users = _read_tokens(path)
    users[user] = token_hash(token)
    _write_tokens(path, users)
    return token


def revoke_token(path: Path, user: str) -> bool:
    """Remove `user`'s token; False if there was none."""
    users = _read_tokens(path)
    if users.pop(user, None) is None:
        return False
    _write_tokens(path, users)
    return True


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, if any."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


class AccessPolicy:
    """Checks a request's bearer token against the route it asks for."""

    def __init__(self, required: bool, admin_token: str | None, tokens_file: Path) -> None:
        self.required = required
        self._admin_hash = token_hash(admin_token) if admin_token else None
        self._tokens_file = tokens_file
        self._users: dict[str, str] = {}
        self._loaded_mtime: float | None = None
        self._lock = threading.Lock()
        self._user_hashes()  # a malformed tokens file stops the start-up, with its path in the message

    def check_user(self, user: str, authorization: str | None) -> None:
        """A user route: the token must be the path user's own (or the admin's)."""
        if not self.required:
            return
        offered = self._offered_hash(authorization)
        if self._is_admin(offered):
            return
        expected = self._user_hashes().get(user)
        if expected is None or not hmac.compare_digest(offered, expected):
            raise GatewayError(403, "forbidden", f"this token does not belong to user {user!r}")

    def check_any(self, authorization: str | None) -> None:
        """A route that shows the deployment (servers, tools): any valid token."""
        if not self.required:
            return
        offered = self._offered_hash(authorization)
        if not self._is_admin(offered) and not any(
                hmac.compare_digest(offered, known) for known in self._user_hashes().values()):
            raise GatewayError(401, "unauthorized", "unknown token")

    def check_admin(self, authorization: str | None) -> None:
        """Server registration runs programs on this machine: the admin token, always, even on loopback."""
        if self._admin_hash is None:
            raise GatewayError(403, "admin_disabled", "runtime registration is disabled: set MCP_CHAT_ADMIN_TOKEN")
        if not self._is_admin(self._offered_hash(authorization)):
            raise GatewayError(401, "unauthorized", "a valid 'Authorization: Bearer <admin token>' is required")

    def _offered_hash(self, authorization: str | None) -> str:
        token = bearer_token(authorization)
        if token is None:
            raise GatewayError(401, "unauthorized", "an 'Authorization: Bearer <token>' header is required")
        return token_hash(token)

    def _is_admin(self, offered: str) -> bool:
        return self._admin_hash is not None and hmac.compare_digest(offered, self._admin_hash)

    def _user_hashes(self) -> dict[str, str]:
        try:
            mtime = self._tokens_file.stat().st_mtime
        except FileNotFoundError:
            return {}
        with self._lock:
            if mtime != self._loaded_mtime:
                self._users = self._reload()
                self._loaded_mtime = mtime
            return self._users

    def _reload(self) -> dict[str, str]:
        if self._loaded_mtime is None:
            return _read_tokens(self._tokens_file)
        try:
            return _read_tokens(self._tokens_file)
        except ValueError as error:  # a bad edit while serving: fail closed, keep serving
            logger.error("ignoring every user token: %s", error)
            return {}
