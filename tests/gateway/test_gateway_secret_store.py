"""Where OAuth tokens rest (mcp_client/secret_store.py): encrypted files with a key, memory without one."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet

from mcp_chat_app.mcp_client.secret_store import EncryptedFileStore, MemoryStore, open_secret_store


def test_with_a_key_documents_are_encrypted_files_only_that_key_opens(tmp_path):
    key = Fernet.generate_key().decode()
    store = open_secret_store(tmp_path, key)
    store.write("srv/users/ann", {"tokens": {"access_token": "very-secret-access"}})
    [path] = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert path.name == "ann.fernet" and b"very-secret-access" not in path.read_bytes()
    assert EncryptedFileStore(tmp_path, key).read("srv/users/ann")["tokens"]["access_token"] == "very-secret-access"
    assert EncryptedFileStore(tmp_path, Fernet.generate_key().decode()).read("srv/users/ann") == {}  # other key
    assert store.delete("srv/users/ann") and not store.delete("srv/users/ann") and store.read("srv/users/ann") == {}


def test_without_a_key_nothing_reaches_the_disk(tmp_path, caplog):
    store = open_secret_store(tmp_path, None)
    assert isinstance(store, MemoryStore) and "MCP_CHAT_TOKEN_KEY is not set" in caplog.text
    store.write("srv", {"client": {"client_id": "x"}})
    assert store.read("srv") == {"client": {"client_id": "x"}} and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["../escape", "srv//ann", "srv/", "srv/../ann"])
def test_document_names_cannot_leave_the_directory(tmp_path, name):
    with pytest.raises(ValueError):
        open_secret_store(tmp_path, Fernet.generate_key().decode()).write(name, {})


def test_a_user_named_dot_dot_stays_inside(tmp_path):
    store = open_secret_store(tmp_path, Fernet.generate_key().decode())
    store.write("srv/users/..", {"tokens": {}})
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()] == ["srv/users/...fernet"]
    assert store.read("srv/users/..") == {"tokens": {}}


def test_a_plaintext_token_file_of_the_shared_flow_is_reported(tmp_path, caplog):
    (tmp_path / "secure.json").write_text('{"tokens": {}}')
    open_secret_store(tmp_path, Fernet.generate_key().decode())
    assert "secure.json holds OAuth tokens in plaintext and is no longer read" in caplog.text


def test_a_key_that_is_not_a_fernet_key_stops_the_start(tmp_path):
    with pytest.raises(ValueError, match="MCP_CHAT_TOKEN_KEY must be a Fernet key"):
        open_secret_store(tmp_path, "not-a-key")
