"""Where ToolBench rows come from: local JSON, JSON-lines and parquet files, or the Hugging Face hub.

Local files are the normal case (tests write their own small ones). A folder is read file
by file in name order; a `tool_response_cache/` folder inside it (StableToolBench's name
for it) supplies recorded tool answers. `hf:NAME` or `hf:NAME:SPLIT` reads a dataset with
the `datasets` package, only when asked: nothing here touches the network on import.
Rows are numbered across the whole source, so a task's default id does not depend on
which filters a run uses.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import Any

from ..family import TaskLoad
from ..jsonlines import (
    DataFileError,
    FirstSeen,
    JsonTextError,
    decoded_lines,
    json_value,
    read_bytes,
    utf8_text,
)
from .cache import ResponseCache
from .tasks import TaskShapeError, task_from_row

HF_PREFIX = "hf:"
DEFAULT_SPLIT = "train"  # the split mcpbr reads
CACHE_FOLDER = "tool_response_cache"
SUFFIXES = (".json", ".jsonl", ".parquet")


@dataclass(frozen=True)
class _Row:
    where: str
    value: Any = None
    problem: str = ""


def is_hub_name(source: str | Path) -> bool:
    return str(source).startswith(HF_PREFIX)


def read_tasks(source: str | Path, *, cache: str | Path | None = None, stop_after: int | None = None,
               hf_cache_dir: str | Path | None = None) -> TaskLoad:
    """Every task in `source` (a file, a folder, or `hf:NAME[:SPLIT]`); bad rows become problems.

    `stop_after` reads no more than that many rows (for a sample with no filters, as mcpbr
    truncates early); `cache` is a StableToolBench response cache (default: a
    `tool_response_cache/` folder inside a source folder).
    """
    found = TaskLoad()
    responses = _cache_for(source, cache)
    rows = _hub_rows(str(source), hf_cache_dir) if is_hub_name(source) else _file_rows(Path(source))
    seen = FirstSeen()
    for index, row in enumerate(islice(rows, _row_bound(stop_after))):
        if row.problem:
            found.problems.append(f"{row.where}: {row.problem}")
            continue
        try:
            task = task_from_row(row.value, index, source=row.where, cache=responses)
        except TaskShapeError as exc:
            found.problems.append(f"{row.where}: {exc}")
            continue
        if repeat := seen.repeated(task.id, row.where):
            found.problems.append(f"{row.where}: {repeat}")
            continue
        found.tasks.append(task)
    if not found.tasks and not found.problems:
        found.problems.append(f"no ToolBench tasks in {source}")
    return found


def _row_bound(stop_after: int | None) -> int | None:
    """`stop_after` as `islice` takes it: a sample larger than any source (`-n` with 23 digits) reads
    everything, and a negative one nothing, instead of `islice` refusing it."""
    return None if stop_after is None or stop_after > sys.maxsize else max(stop_after, 0)


def _cache_for(source: str | Path, cache: str | Path | None) -> ResponseCache | None:
    if cache is not None:
        return ResponseCache(cache)
    if not is_hub_name(source) and (Path(source) / CACHE_FOLDER).is_dir():
        return ResponseCache(Path(source) / CACHE_FOLDER)
    return None


def _file_rows(source: Path) -> Iterator[_Row]:
    if not source.exists():
        raise LookupError(f"{source} does not exist")
    if source.is_dir():
        files = sorted(p for p in source.iterdir() if p.is_file() and p.suffix in SUFFIXES)
        if not files:
            raise LookupError(f"no {', '.join(SUFFIXES)} task files in {source}")
    else:
        files = [source]
    for path in files:
        yield from _rows_of(path)


def _rows_of(path: Path) -> Iterator[_Row]:
    if path.suffix == ".parquet":
        yield from _parquet_rows(path)
        return
    try:
        data = read_bytes(path)
    except DataFileError as exc:
        yield _Row(exc.where, problem=exc.reason)
        return
    if path.suffix == ".jsonl":
        for number, value, reason in decoded_lines(data):  # a bad line is a problem; the next still reads
            yield _Row(f"{path.name}:{number}", value, reason)
        return
    try:
        whole = json_value(utf8_text(data, path.name))
    except DataFileError as exc:  # not UTF-8: where names the line
        yield _Row(exc.where, problem=exc.reason)
        return
    except JsonTextError as exc:
        yield _Row(path.name, problem=exc.reason)
        return
    for number, row in enumerate(whole if isinstance(whole, list) else [whole], start=1):
        yield _Row(f"{path.name}[{number}]", row)


def _parquet_rows(path: Path) -> Iterator[_Row]:
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise LookupError('parquet task files need pyarrow: '
                          'pip install -e ".[huggingface]" in the toolworlds checkout') from None
    try:
        batches = parquet.read_table(path).to_batches()
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid (a ValueError): no parquet file, or a corrupt one
        yield _Row(path.name, problem=f"not a readable parquet file ({' '.join(str(exc).split())[:200]})")
        return
    for number, row in enumerate(chain.from_iterable(b.to_pylist() for b in batches), start=1):
        yield _Row(f"{path.name}#{number}", row)


def _hub_rows(spec: str, cache_dir: str | Path | None) -> Iterator[_Row]:
    name, _, split = spec.removeprefix(HF_PREFIX).partition(":")
    if not name:
        raise LookupError("name the dataset: hf:OWNER/NAME or hf:OWNER/NAME:SPLIT")
    try:
        import datasets
    except ImportError:
        raise LookupError('reading a Hugging Face dataset needs the datasets package: '
                          'pip install -e ".[huggingface]" in the toolworlds checkout') from None
    try:
        dataset = datasets.load_dataset(name, split=split or DEFAULT_SPLIT,
                                        cache_dir=None if cache_dir is None else str(cache_dir))
    except Exception as exc:  # the hub, the network or the files: one line saying which
        raise LookupError(f"cannot load {name}: {type(exc).__name__}: {exc}") from None
    for number, row in enumerate(dataset, start=1):
        yield _Row(f"{name}#{number}", row)
