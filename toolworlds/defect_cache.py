"""The gold replays' verdicts kept between runs, by the content hash of what decides them.

Which of a data set's tasks are defective (`toolworlds.defects`) depends on the data set's files,
the language and the code that builds and compares worlds, and on nothing else: a run over the
same data with the same code would replay every task again only to find the same ids (a sixth of
a 72-episode banking run). So the ids are kept in a file named by a hash of those inputs:
- the data: every file under the data folder (or the data file), by path and content;
- the code: every source file of `sandbox` and `scenarios`, by path, size and modification time
  (a changed world or comparison, an erratum file, a reinstalled package: a new key);
- the family and the language.
A changed input is a new key, so nothing is ever invalidated in place, and a stale entry is
never read. The cache is a folder of the user's (`TOOLWORLDS_CACHE`, else `$XDG_CACHE_HOME/toolworlds`,
else `~/.cache/toolworlds`), not the run store: the verdicts belong to the data and the code, which
many stores share. It is only ever a shortcut: an entry that cannot be read is replayed again, one
that cannot be written is not kept, and the run never notices either.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

import sandbox
import scenarios

VERSION = 1  # of the entries' format and meaning: bump when either changes


def cache_folder() -> Path:
    """Where cached verdicts live (`TOOLWORLDS_CACHE`, else the XDG cache folder)."""
    given = os.environ.get("TOOLWORLDS_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "toolworlds"


def data_hash(source: Path) -> str:
    """A hash of every file under `source` (or of the file itself), by relative path and content."""
    digest = hashlib.sha256()
    files = sorted(path for path in source.rglob("*") if path.is_file()) if source.is_dir() else [source]
    for path in files:
        name = path.relative_to(source).as_posix() if source.is_dir() else path.name
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
        with path.open("rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()


def code_hash() -> str:
    """A hash of the engine's and the families' source files, by path, size and modification time."""
    digest = hashlib.sha256()
    for package in (sandbox, scenarios):
        root = Path(str(package.__file__)).resolve().parent
        for parts, stat in _source_files(str(root)):
            digest.update(f"{package.__name__}/{'/'.join(parts)}:{stat.st_size}:"
                          f"{stat.st_mtime_ns}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _source_files(root: str) -> list[tuple[tuple[str, ...], os.stat_result]]:
    """The .py, .json and .jsonl files under `root` (not in `__pycache__`, not through a linked folder), as
    their path's parts below it and their stat, in the order of those parts (`sorted(Path.rglob)`'s order).
    `os.scandir` rather than `Path.rglob`: a run looks these up once, and pathlib took half of it."""
    found: list[tuple[tuple[str, ...], os.stat_result]] = []
    folders: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    while folders:
        folder, parts = folders.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                inner = (*parts, entry.name)
                if entry.is_dir() and not entry.is_symlink():
                    if entry.name != "__pycache__":
                        folders.append((entry.path, inner))
                    continue
                if os.path.splitext(entry.name)[1] in (".py", ".json", ".jsonl") and "__pycache__" not in inner:
                    found.append((inner, entry.stat()))
    found.sort(key=lambda item: item[0])
    return found


def entry_key(family: str, lang: str, source: Path, code: str | None = None, data: str | None = None) -> str:
    """The entry's name; `code` is `code_hash()` and `data` is `data_hash(source)` when the caller has them
    already (one per run, not per task set: a family's languages mostly share one data folder)."""
    text = json.dumps([VERSION, family, lang, data if data is not None else data_hash(source),
                       code if code is not None else code_hash()])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def read_entry(key: str) -> list[str] | None:
    """The defective task ids kept under `key`, or None when there is no readable entry."""
    try:
        value = json.loads((cache_folder() / "defects" / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ids = value.get("defects") if isinstance(value, dict) else None
    if isinstance(ids, list) and all(isinstance(item, str) for item in ids):
        return ids
    return None


def write_entry(key: str, family: str, lang: str, ids: list[str]) -> None:
    """Keep `ids` under `key` (written whole, then renamed into place: a reader sees all of it or nothing)."""
    folder = cache_folder() / "defects"
    written: str | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, suffix=".tmp", delete=False) as handle:
            written = handle.name
            json.dump({"family": family, "lang": lang, "defects": ids}, handle)
        os.replace(written, folder / f"{key}.json")
    except OSError:  # a read-only or full disk: the replay just runs again next time
        if written is not None:
            with contextlib.suppress(OSError):
                os.unlink(written)
