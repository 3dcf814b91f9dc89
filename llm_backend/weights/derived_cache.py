"""Files derived from a GGUF (converted tokenizer, dequantized weights), kept so restarts are fast.

They live in ``<model>.derived/`` next to the GGUF when that directory is writable, otherwise
under the store's cache directory. A fingerprint of the GGUF (size and mtime) is kept with them,
so replacing the GGUF invalidates everything derived from it.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from llm_backend.weights.model_store import models_dir

_FINGERPRINT = "source.fingerprint"


def derived_dir(gguf_path: Path) -> Path:
    """The directory holding what we derived from `gguf_path` (created, and emptied if stale)."""
    gguf_path = gguf_path.resolve()
    if os.access(gguf_path.parent, os.W_OK):
        directory = gguf_path.with_name(gguf_path.stem + ".derived")
    else:
        key = hashlib.sha256(str(gguf_path).encode()).hexdigest()[:16]
        directory = models_dir() / "derived" / f"{gguf_path.stem}-{key}"
    fingerprint = _fingerprint(gguf_path)
    marker = directory / _FINGERPRINT
    if marker.is_file() and marker.read_text() == fingerprint:
        return directory
    if marker.is_file():  # derived from an older version of the file
        shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True, exist_ok=True)
    write_atomically(marker, lambda tmp: tmp.write_text(fingerprint))
    return directory


def write_atomically(target: Path, write: Callable[[Path], object]) -> None:
    """Call ``write(tmp_path)`` then rename into `target`, so readers never see a partial file."""
    handle, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(handle)
    os.chmod(tmp_name, 0o644)  # mkstemp makes it owner-only; the cache is shared like any download
    tmp = Path(tmp_name)
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _fingerprint(path: Path) -> str:
    info = path.stat()
    return f"{info.st_size} {info.st_mtime_ns}\n"
