"""Valid argument dicts for a tool, and calls drawn against a world's current state."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from pydantic.fields import FieldInfo

from ..parsing import Call
from ..refs import Ref, refs_of
from ..tools import ToolSpec
from .values import Values, input_key

if TYPE_CHECKING:
    from ..world import World


@dataclass(frozen=True)
class Parameter:
    """One parameter of a tool as a caller sees it: the key to pass, its type, whether it must be given."""

    name: str
    key: str
    info: FieldInfo
    required: bool
    refs: tuple[Ref, ...]

    @property
    def reads(self) -> frozenset[str]:
        """The other parameters whose values this one's references depend on."""
        return frozenset(name for ref in self.refs for name in ref.parameters())


def parameters(spec: ToolSpec) -> list[Parameter]:
    """The tool's parameters in signature order."""
    found = []
    for name, info in spec.args_model.model_fields.items():
        refs = tuple(meta for meta in info.metadata if isinstance(meta, Ref)) + tuple(refs_of(info.annotation))
        found.append(Parameter(name, input_key(name, info), info, info.is_required(), refs))
    return found


def drawing_order(params: list[Parameter]) -> list[Parameter]:
    """Parameters ordered so that each comes after those its references read (signature order otherwise)."""
    by_key = {p.key: p for p in params}
    ordered: list[Parameter] = []
    placed: set[str] = set()

    def place(param: Parameter, visiting: frozenset[str]) -> None:
        if param.key in placed:
            return
        if param.key in visiting:
            raise TypeError(f"parameter {param.key!r}: its references read each other in a cycle")
        for name in sorted(param.reads):
            if name in by_key:
                place(by_key[name], visiting | {param.key})
        placed.add(param.key)
        ordered.append(param)

    for param in params:
        place(param, frozenset())
    return ordered


def arguments(spec: ToolSpec, world: World | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Argument dicts that pass `spec`'s validation by construction.

    With a `world`, parameters marked with a `Ref` draw from the world's state at the
    moment of drawing, and values are spelled for the world's coercion mode (JSON-ready
    text for dates and decimals in lax worlds, Python objects in strict ones). Optional
    parameters are left out about half of the time.
    """
    values = Values(world, python=world is not None and world.coercion == "strict")
    return _arguments(spec, values)


def _arguments(spec: ToolSpec, values: Values) -> st.SearchStrategy[dict[str, Any]]:
    params = parameters(spec)
    # A parameter without references and without a world to read is the same strategy every draw.
    fixed = {p.key: values.of(p.info.annotation, tuple(p.info.metadata)) for p in params
             if not p.refs or values.world is None}
    return _draw_arguments(drawing_order(params), tuple(p.key for p in params), fixed, values)


@st.composite
def _draw_arguments(draw: st.DrawFn, order: list[Parameter], keys: tuple[str, ...],
                    fixed: Mapping[str, st.SearchStrategy[Any]], values: Values) -> dict[str, Any]:
    bound: dict[str, Any] = {}
    for param in order:
        if not param.required and not draw(st.booleans()):
            continue
        strategy = fixed.get(param.key)
        if strategy is None:
            bound[param.key] = values.draw(draw, param.info.annotation, tuple(param.info.metadata), bound)
        else:
            bound[param.key] = draw(strategy)
    return {key: bound[key] for key in keys if key in bound}


def calls(world: World, tools: Iterable[str] | None = None, *, references: bool = True) -> st.SearchStrategy[Call]:
    """Calls of the world's tools (or of `tools`), each drawn against the world's state at that moment.

    Draw one, run it, draw the next: each sees what the previous ones did. References
    mostly name things that exist (a message in the inbox, an account of the customer
    the call names), sometimes things that certainly do not, sometimes anything.
    `references=False` ignores them and draws from the parameters' types alone.
    """
    names = tuple(world.tools) if tools is None else tuple(tools)
    unknown = [name for name in names if name not in world.tools]
    if unknown:
        raise KeyError(f"the world has no tools named {', '.join(unknown)}")
    if not names:
        raise ValueError("a world without tools has no calls to draw")
    return _calls(world, names, Values(world if references else None, python=world.coercion == "strict"))


def _calls(world: World, names: tuple[str, ...], values: Values) -> st.SearchStrategy[Call]:
    """Calls of `names`, with references read from whatever world `values.world` is when drawing."""
    per_tool: Mapping[str, st.SearchStrategy[Call]] = {
        name: _arguments(world.tools[name], values).map(functools.partial(Call, name)) for name in names
    }
    return _tool_name(names, values).flatmap(per_tool.__getitem__)


# What the world says about the arguments, not about its state: such failures tell
# nothing about whether the tool can work right now.
_NOT_STATE = frozenset({"invalid_arguments", "parse_error", "unknown_tool"})
_LOOK_BACK = 40  # records read back through the log for the tools the current state refuses


@st.composite
def _tool_name(draw: st.DrawFn, names: tuple[str, ...], values: Values) -> str:
    """A tool to call next. Three draws in four avoid tools the world refused since its state
    last changed (Wi-Fi off: every bank tool), so a sequence soon reaches the calls that change
    the state (turning Wi-Fi on) instead of knocking on the same closed doors; the fourth is
    any tool, so refusals stay tested."""
    world = values.world
    refused = _refused_now(world, names) if world is not None else frozenset()
    if refused and len(refused) < len(names) and draw(st.integers(0, 3)) > 0:
        return draw(st.sampled_from(tuple(name for name in names if name not in refused)))
    return draw(st.sampled_from(names))


def _refused_now(world: World, names: tuple[str, ...]) -> frozenset[str]:
    """Tools among `names` the world refused since its last change (within the last records)."""
    log, refused = world.log, set()
    for back in range(1, min(len(log), _LOOK_BACK) + 1):
        record = log[-back]
        if record.changed:
            break
        if record.error is not None and record.error.type not in _NOT_STATE:
            refused.add(record.tool)
    return frozenset(name for name in names if name in refused)
