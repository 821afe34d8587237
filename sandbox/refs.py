r"""References: where in a world's state a tool parameter's valid values live.

A message id is only worth something if such a message exists; a password only if it is
the password of the user named in the same call. World authors say so once, in the
tool's signature::

    @tool
    def delete_message(self, message_id: Annotated[int, Ref("MessageApi", "inbox")]) -> dict: ...

`Ref` is plain metadata: pydantic ignores it, so the tool validates and its JSON Schema
reads exactly as without it, and agents never see it. Property tests (`sandbox.testing`)
and fuzzers read it to draw values that exist in the world's *current* state.

A path walks the app's state from its root, one dotted segment at a time: a field of a
model, a key of a dict, an index of a list; `*` stands for every entry; `{name}` stands
for the value this call passes as parameter `name` (so `users.{username}.password` is
the password of the user the call names). Where the walk ends:

- with `field`, each node is a collection (a dict's values, a list's items) and the
  values are its entries' `field`s; a model node gives its own `field`;
- without `field`, a dict gives its keys, a list or set its items, anything else itself.

`where` keeps only the entries whose fields equal the given values; a value written
`{name}` is the call's parameter `name` (`where={"customer_id": "{customer_id}"}` keeps
the accounts of the customer the call names), and a value that is itself a `Ref` is met
by any value that reference stands for (`where={"username": Ref("Accounts", "accounts",
where={"token": "{token}"})}` keeps the records of the user whose token the call passes).
`field` and the keys of `where` may be dotted paths into an entry (`at.0`). `extract`, a regular expression, keeps the
part of each value it matches first (`extract=r"^\d{4}-\d{2}"` turns transaction times
into the months they fall in); values it does not match are left out.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from .world import World

_TEMPLATE = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_INTEGER = re.compile(r"-?[0-9]{1,18}")
_MISSING = object()


@dataclasses.dataclass(frozen=True)
class Ref:
    """The place in `app`'s state that holds a parameter's valid values (see the module docstring)."""

    app: str
    path: str = ""
    field: str | None = None
    where: Mapping[str, Any] = dataclasses.field(default_factory=lambda: MappingProxyType({}))
    extract: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "where", MappingProxyType(dict(self.where)))
        if self.extract is not None:
            re.compile(self.extract)  # a bad pattern is the author's error, reported where it is written

    def __hash__(self) -> int:
        return hash((self.app, self.path, self.field, tuple(sorted(self.where.items(), key=repr)), self.extract))

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(part for part in self.path.split(".") if part)

    def parameters(self) -> frozenset[str]:
        """The other parameters of the call this reference reads (`{name}` in its path or `where`, at any depth)."""
        names = [_template(part) for part in self.segments]
        names += [_template(value) for value in self.where.values() if isinstance(value, str)]
        found = {name for name in names if name is not None}
        for value in self.where.values():
            if isinstance(value, Ref):
                found |= value.parameters()
        return frozenset(found)

    def values(self, world: World, arguments: Mapping[str, Any] | None = None) -> list[Any]:
        """The values this reference stands for in `world` now, given the call's other `arguments`.

        Empty when the app is missing, the path leads nowhere, or a parameter it reads was not given.
        The order is the state's own (sets are sorted), so draws from it are reproducible.
        """
        app = world.apps.get(self.app)
        if app is None:
            return []
        given = arguments or {}
        wanted: dict[str, Any] = {}
        for name, value in self.where.items():
            if isinstance(value, Ref):
                wanted[name] = _OneOf(value.values(world, given))
            else:
                wanted[name] = _wanted(value, given)
                if wanted[name] is _MISSING:
                    return []
        nodes: list[Any] = [app.read_only_state]  # the app's state as it is, without taking a private copy
        for part in self.segments:
            parameter = _template(part)
            if parameter is not None and parameter not in given:
                return []
            key = given[parameter] if parameter is not None else part
            nodes = [child for node in nodes for child in _children(node, key, wildcard=parameter is None)]
        found: list[Any] = []
        for node in nodes:
            found.extend(self._ends(node, wanted))
        if self.extract is not None:
            pattern = re.compile(self.extract)
            matches = (pattern.search(str(value)) for value in found)
            found = [match.group(0) for match in matches if match is not None]
        return _unique(found)

    def _ends(self, node: Any, wanted: Mapping[str, Any]) -> Iterator[Any]:
        if self.field is None and not self.where:
            yield from _members(node)
            return
        keyed = isinstance(node, Mapping)
        if isinstance(node, BaseModel):
            entries: Iterable[tuple[Any, Any]] = [(None, node)]  # a model is the one entry it describes
        elif keyed:
            entries = node.items()
        elif isinstance(node, (list, tuple, set, frozenset)):
            entries = ((None, item) for item in _ordered(node))
        else:
            return
        for key, entry in entries:
            if not all(_matches(_get_path(entry, name), value) for name, value in wanted.items()):
                continue
            if self.field is None:
                yield key if keyed else entry
            else:
                value = _get_path(entry, self.field)
                if value is not _MISSING:
                    yield value


class _OneOf:
    """A `where` condition met by any of several values (those another reference stands for)."""

    __slots__ = ("options",)

    def __init__(self, options: list[Any]) -> None:
        self.options = options


def _matches(actual: Any, wanted: Any) -> bool:
    if actual is _MISSING:
        return False
    if isinstance(wanted, _OneOf):
        return any(actual == option for option in wanted.options)
    return bool(actual == wanted)


def _get_path(node: Any, dotted: str) -> Any:
    """Follow a dotted path of fields, keys and indexes (`at.0`) from `node`."""
    for part in dotted.split("."):
        node = _get(node, part)
        if node is _MISSING:
            break
    return node


def refs_of(annotation: Any) -> list[Ref]:
    """Every `Ref` in a type annotation, at any depth: inside containers (`list[Annotated[int, Ref(...)]]`)
    and in the fields of models it names."""
    return _refs_in(annotation, frozenset())


def _refs_in(annotation: Any, seen: frozenset[type]) -> list[Ref]:
    found: list[Ref] = []
    if typing.get_origin(annotation) is typing.Annotated:
        base, *metadata = typing.get_args(annotation)
        found.extend(meta for meta in metadata if isinstance(meta, Ref))
        return found + _refs_in(base, seen)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel) and annotation not in seen:
        for info in annotation.model_fields.values():
            found.extend(meta for meta in info.metadata if isinstance(meta, Ref))
            found.extend(_refs_in(info.annotation, seen | {annotation}))
        return found
    for arg in typing.get_args(annotation):
        found.extend(_refs_in(arg, seen))
    return found


def _template(text: Any) -> str | None:
    if not isinstance(text, str):
        return None
    match = _TEMPLATE.match(text)
    return match.group(1) if match else None


def _wanted(value: Any, given: Mapping[str, Any]) -> Any:
    name = _template(value)
    return given.get(name, _MISSING) if name is not None else value


def _children(node: Any, key: Any, *, wildcard: bool) -> list[Any]:
    if wildcard and key == "*":
        if isinstance(node, Mapping):
            return list(node.values())
        if isinstance(node, (list, tuple, set, frozenset)):
            return _ordered(node)
        return []
    value = _get(node, key)
    return [] if value is _MISSING else [value]


def _get(node: Any, key: Any) -> Any:
    """A model's field, a dict's entry (the key as given, as text, or as a number) or a list's item."""
    if isinstance(node, BaseModel):
        return getattr(node, key, _MISSING) if isinstance(key, str) and key in type(node).model_fields else _MISSING
    if isinstance(node, Mapping):
        for candidate in _spellings(key):
            try:
                if candidate in node:
                    return node[candidate]
            except TypeError:  # an unhashable key cannot be in any dict
                return _MISSING
        return _MISSING
    index = _number(key)
    if isinstance(node, (list, tuple)) and index is not None:
        return node[index] if -len(node) <= index < len(node) else _MISSING
    return _MISSING


def _spellings(key: Any) -> list[Any]:
    spellings = [key]
    if not isinstance(key, str):
        spellings.append(str(key))
    elif (number := _number(key)) is not None:
        spellings.append(number)
    return spellings


def _number(key: Any) -> int | None:
    """An integer key or index, also when written as text ("3", "-1"); None for anything else."""
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str) and _INTEGER.fullmatch(key):
        return int(key)
    return None


def _members(node: Any) -> list[Any]:
    if isinstance(node, Mapping):
        return list(node.keys())
    if isinstance(node, (list, tuple, set, frozenset)):
        return _ordered(node)
    if isinstance(node, BaseModel) or node is None:
        return []
    return [node]


def _ordered(items: Any) -> list[Any]:
    if isinstance(items, (set, frozenset)):
        try:
            return sorted(items)
        except TypeError:
            return sorted(items, key=repr)
    return list(items)


def _unique(values: list[Any]) -> list[Any]:
    """Values in first-seen order, each once (unhashable ones compared by equality)."""
    seen: set[Any] = set()
    unique: list[Any] = []
    for value in values:
        try:
            if value in seen:
                continue
            seen.add(value)
        except TypeError:
            if value in unique:
                continue
        unique.append(value)
    return unique
