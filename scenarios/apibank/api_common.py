"""What every API-Bank app shares: the catalogue, API exceptions, typed inputs, date rules.

An API-Bank API answers with an envelope `{api_name, input, output, exception}`; here a
tool returns the output and raises `ApiError` for the exception, so the engine keeps
every call atomic, and `envelope()` (in `replay.py`) rebuilds the reference's envelope
from the call record.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any

from pydantic import BeforeValidator

from sandbox import ParseError, StateModel, ToolError, tool
from sandbox.parsing import parse_message

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
DATE_FORMAT = "%Y-%m-%d"


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    level: int  # 1 for apis/, 3 for lv3_apis/
    description: str
    input_parameters: Mapping[str, Mapping[str, str]]
    output_parameters: Mapping[str, Mapping[str, str]]
    database: str | None


def _load_catalog() -> Mapping[tuple[str, int], CatalogEntry]:
    rows = json.loads(Path(__file__).with_name("catalog.json").read_text(encoding="utf-8"))
    return MappingProxyType({
        (row["name"], row["level"]): CatalogEntry(
            row["name"], row["level"], row["description"],
            MappingProxyType({k: MappingProxyType(v) for k, v in row["input_parameters"].items()}),
            MappingProxyType({k: MappingProxyType(v) for k, v in (row["output_parameters"] or {}).items()}),
            row["database"],
        )
        for row in rows
    })


CATALOG = _load_catalog()


class ApiError(ToolError):
    """An API's own exception: reported in the envelope's `exception`, with nothing changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="api_exception")


def api(name: str, *, level: int = 1, mutates: bool = True, echo: str = "declared", omit_name: bool = False,
        destructive: bool | None = None, idempotent: bool = False
        ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make a method the tool `name`, described exactly as API-Bank's catalogue describes it
    (`mutates`, `destructive`, `idempotent`: as `sandbox.tool` takes them).

    `echo` says what the envelope's `input` holds: "declared" (every parameter),
    "given" (only those passed) or "none" (`input` is null). `omit_name` drops
    `api_name` from the envelope, as four reference APIs do.
    """
    entry = CATALOG[(name, level)]

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        lines = [entry.description or name, "", "Args:"]
        lines += [f"    {param}: {info.get('description', param)}" for param, info in entry.input_parameters.items()]
        fn.__doc__ = "\n".join(lines) if entry.input_parameters else entry.description or name
        fn.__apibank__ = {"echo": echo, "omit_name": omit_name}  # type: ignore[attr-defined]
        return tool(name=name, description=entry.description or name, mutates=mutates, destructive=destructive,
                    idempotent=idempotent)(fn)

    return mark


def _literal(value: Any) -> Any:
    """Lists arrive as Python-literal strings in recorded dialogues ("['a', 'b']")."""
    if isinstance(value, str) and value.strip()[:1] in "[{(":
        try:
            (call,) = parse_message(f"f(x={value})").calls
            return call.arguments["x"]
        except (ParseError, ValueError):
            return value
    return value


FROM_LITERAL = BeforeValidator(_literal)  # a list may also arrive as its Python-literal text
LiteralList = Annotated[list[Any], FROM_LITERAL]
LiteralStrList = Annotated[list[str], FROM_LITERAL]


def strict_time(value: str, fmt: str = TIME_FORMAT) -> str:
    """Check a time against a format (the reference's ValueError text on failure); keep it verbatim."""
    try:
        dt.datetime.strptime(value, fmt)
    except (ValueError, TypeError) as exc:
        raise ApiError(str(exc)) from None
    return value


def pad_year(value: str) -> str:
    """API-Bank's date clean-up: strip, and zero-pad the year of a three-part date ("23-4-1")."""
    text = value.strip()
    parts = text.split("-")
    if len(parts) == 3:
        parts[0] = parts[0].zfill(4)
        text = "-".join(parts)
    return text


def normalize_date(value: str, fmt: str = DATE_FORMAT) -> str:
    """Pad a short year, parse, and re-format canonically ("23-4-1" becomes "0023-04-01")."""
    text = pad_year(value)
    try:
        return dt.datetime.strptime(text, fmt).strftime(fmt)
    except ValueError as exc:
        raise ApiError(str(exc)) from None


class Records(StateModel):
    """A database of records by key, as API-Bank's init_database files hold them."""

    records: dict[str, Any] = {}


MAX_KEYWORDS = 1000  # the longest search input; recorded ones are under 100 characters


def bounded(text: str, parameter: str, limit: int = MAX_KEYWORDS) -> str:
    """Search input, refused past `limit` characters: the work of a search grows with its input."""
    if len(text) > limit:
        raise ApiError(f"'{parameter}' is too long: {len(text)} characters; a search reads at most {limit}.")
    return text


def jaccard(a: str, b: str) -> float:
    left, right = set(a.split()), set(b.split())
    union = left | right
    return len(left & right) / len(union) if union else 1.0
