"""Tools: methods of an app that an agent may call.

`@tool` reads everything a model needs from the method itself — the parameter types
and defaults from its signature, descriptions from `Annotated[..., Field(description=)]`
or the docstring's `Args:` section, the tool description from the rest of the
docstring — so a world author writes each fact once and the schema cannot drift from
the code.

What `@tool` can check by reading the method (type hints, docstring, nameable parameters) it
checks at once; the pydantic argument model and its JSON Schema are built on first use
(`ToolArguments`), so an argument type pydantic cannot describe shows up then, as an
`internal_error` record or an exception from `spec.parameters` (`sandbox.testing` reads every schema).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import docstring_parser
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo

from . import lanes
from .arguments import ArgumentPlan, plan_for
from .input_limits import printable_text, type_name
from .journal import Journal
from .state import ATOMIC_TYPES

Coercion = Literal["lax", "strict"]

_TOOL_ATTR = "__toolworlds_tool__"


class ToolArguments:
    """A tool's argument model and the JSON Schema shown for it, built on first use.

    Building them is most of what importing a world family costs (pydantic makes a model and a
    validator per tool), and a process that runs a replay, or one task, calls only a few of the
    tools it imports. Every copy of a spec bound to another app shares one of these, so each is
    built at most once per process.
    """

    def __init__(
        self,
        name: str,
        fields: Mapping[str, tuple[Any, FieldInfo]] | None = None,
        *,
        model: type[BaseModel] | None = None,
        schema: dict[str, Any] | None = None,
    ) -> None:
        if fields is None and model is None:
            raise TypeError("ToolArguments needs the fields to build a model from, or the model")
        self._name = name
        self._fields = fields
        if model is not None:
            self.__dict__["model"] = model
        if schema is not None:
            self.__dict__["schema"] = schema

    @classmethod
    def given(cls, model: type[BaseModel], schema: dict[str, Any]) -> ToolArguments:
        """Arguments whose model and schema are already built (tools described by data)."""
        return cls(model.__name__, model=model, schema=schema)

    @functools.cached_property
    def model(self) -> type[BaseModel]:
        assert self._fields is not None  # set whenever the model was not given
        model: type[BaseModel] = create_model(
            f"{self._name}_arguments",
            __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=False),
            **self._fields,  # type: ignore[call-overload]
        )
        return model

    @functools.cached_property
    def schema(self) -> dict[str, Any]:
        return parameters_schema(self.model)


class ToolResult:
    """A tool's declared result type and its JSON Schema, built on first use.

    The annotation documents the shape only: results are returned exactly as the tool made them
    (nothing validates or converts them), so declaring a type never changes a reply. Bare `dict`,
    `list`, `Any` (alone or in a union) declare no shape, and such a tool has no output schema.
    """

    def __init__(self, annotation: Any) -> None:
        self.annotation = annotation

    @property
    def declared(self) -> bool:
        return _declares_shape(self.annotation)

    @functools.cached_property
    def schema(self) -> dict[str, Any] | None:
        """The result type's JSON Schema (2020-12, references inlined), or None."""
        if not self.declared:
            return None
        raw = TypeAdapter(self.annotation).json_schema(mode="validation")
        defs = raw.pop("$defs", {})
        schema: dict[str, Any] = _clean(_inline(raw, defs, ()))
        return schema


_SHAPELESS: tuple[Any, ...] = (dict, list, tuple, object, Any, inspect.Signature.empty)


def _declares_shape(annotation: Any) -> bool:
    if annotation is None or annotation in _SHAPELESS:
        return False
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _declares_shape(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        return all(_declares_shape(a) for a in typing.get_args(annotation) if a is not type(None))
    if origin in (list, dict, tuple):
        return all(a is not Any and _declares_shape(a) for a in typing.get_args(annotation) if a is not ...)
    return True


@dataclass(frozen=True)
class ToolSpec:
    """Everything known about one tool: what the agent sees and what the world runs.

    `mutates=False` promises the tool only reads; the world then skips all undo
    bookkeeping for it and refuses any write it attempts. Of a tool that writes, `destructive`
    says whether a call may destroy or overwrite what was there (delete, cancel, replace a value,
    move money out) rather than only add (a new record, a deposit, a login), and `idempotent`
    whether repeating a call with the same arguments changes nothing more: what MCP hosts read
    (`destructiveHint`, `idempotentHint`) to decide which calls to confirm or may retry.
    """

    name: str
    description: str
    arguments: ToolArguments = field(repr=False)
    function: Callable[..., Any] = field(repr=False)
    mutates: bool = True
    app: str | None = None
    atomic_args: bool = True
    destructive: bool = True
    idempotent: bool = False
    result: ToolResult | None = field(default=None, repr=False, compare=False)

    @property
    def args_model(self) -> type[BaseModel]:
        """The pydantic model of the arguments (`extra="forbid"`)."""
        return self.arguments.model

    @property
    def parameters(self) -> dict[str, Any]:
        """The arguments' JSON Schema (2020-12), references inlined: what every export starts from."""
        return self.arguments.schema

    @property
    def validator(self) -> Any:
        """pydantic-core's validator for the arguments (skips a Python frame per call)."""
        return self.arguments.model.__pydantic_validator__

    @functools.cached_property
    def argument_plan(self) -> ArgumentPlan | None:
        """The `arguments` speed lane's plan for this tool (`sandbox.arguments`), read from the argument
        model on first use, whether the lanes are on or not; None when a subclass validates its own way."""
        if type(self).validator is not ToolSpec.validator:
            return None
        return plan_for(self.args_model.__pydantic_core_schema__)

    @functools.cached_property
    def fast_arguments(self) -> ArgumentPlan | None:
        """The plan calls take (`argument_plan`); always None with the speed lanes off (`sandbox.lanes`),
        so pydantic validates and coerces every call."""
        return self.argument_plan if lanes.LANES_ON else None

    @functools.cached_property
    def read_journal(self) -> Journal:
        """The journal of every call of a read-only tool: it refuses the first write, so it never
        holds an entry and one can serve all calls, in every world and thread."""
        return Journal(self.name, True)

    def bound_to(self, app: str) -> ToolSpec:
        return dataclasses.replace(self, app=app)


def tool(
    function: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    mutates: bool = True,
    destructive: bool | None = None,
    idempotent: bool = False,
) -> Any:
    """Mark an app method as a tool. Usable bare (`@tool`) or with options.

    Args:
        function: The method (when used bare).
        name: The tool's public name; defaults to the method name.
        description: Overrides the docstring's description.
        mutates: False for tools that only read; they skip undo bookkeeping.
        destructive: Of a tool that writes, False when its calls only add (see `ToolSpec`);
            by default a writing tool is taken to be destructive, the safe side for a host.
        idempotent: True when repeating a call with the same arguments changes nothing more.
    """

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        spec = build_spec(fn, name=name, description=description, mutates=mutates,
                          destructive=mutates if destructive is None else destructive and mutates,
                          idempotent=idempotent)
        setattr(fn, _TOOL_ATTR, spec)
        return fn

    return mark(function) if function is not None else mark


def tool_spec_of(obj: Any) -> ToolSpec | None:
    return getattr(obj, _TOOL_ATTR, None)


def build_spec(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    mutates: bool = True,
    destructive: bool = True,
    idempotent: bool = False,
) -> ToolSpec:
    tool_name = name or fn.__name__
    doc = docstring_parser.parse(inspect.getdoc(fn) or "")
    param_docs = {p.arg_name: (p.description or "").strip() for p in doc.params}
    hints = typing.get_type_hints(fn, include_extras=True)
    fields: dict[str, Any] = {}
    atomic = True
    parameters = list(inspect.signature(fn).parameters.values())
    for index, param in enumerate(parameters):
        if index == 0 and param.name in ("self", "cls"):
            continue
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise TypeError(f"tool {tool_name!r}: *args/**kwargs cannot be described to a model")
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise TypeError(f"tool {tool_name!r}: parameter {param.name!r} must be nameable")
        if param.name not in hints:
            raise TypeError(f"tool {tool_name!r}: parameter {param.name!r} needs a type hint")
        annotation = hints[param.name]
        atomic = atomic and _is_atomic(annotation)
        default = ... if param.default is inspect.Parameter.empty else param.default
        info = _field_info(annotation, default, param_docs.get(param.name))
        fields[param.name] = (annotation, info)
    returns = hints.get("return", inspect.Signature.empty)
    text = description if description is not None else _description(doc)
    if not text:
        raise TypeError(f"tool {tool_name!r} needs a docstring: the model reads it")
    return ToolSpec(
        name=tool_name,
        description=text,
        arguments=ToolArguments(tool_name, fields),
        function=fn,
        mutates=mutates,
        atomic_args=atomic,
        destructive=destructive and mutates,
        idempotent=idempotent,
        result=ToolResult(returns),
    )


def _field_info(annotation: Any, default: Any, doc: str | None) -> FieldInfo:
    described = any(
        isinstance(meta, FieldInfo) and meta.description
        for meta in getattr(annotation, "__metadata__", ())
    )
    # `Field` is typed to return Any (so that it can stand as any field's default); it builds a FieldInfo.
    info: FieldInfo = Field(default, description=doc) if doc and not described else Field(default)
    return info


def _description(doc: docstring_parser.Docstring) -> str:
    parts = [doc.short_description or "", doc.long_description or ""]
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def _is_atomic(annotation: Any) -> bool:
    """True when validated values of this type can never be mutable containers."""
    if annotation in ATOMIC_TYPES:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _is_atomic(typing.get_args(annotation)[0])
    if origin is Literal:
        return True
    if origin is typing.Union or origin is types.UnionType:
        return all(_is_atomic(a) for a in typing.get_args(annotation))
    return False


def parameters_schema(args_model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema (2020-12) of a tool's arguments, with references inlined.

    Models handle a flat schema better than one with `$ref`s, and every export format
    starts from this one.
    """
    raw = args_model.model_json_schema()
    defs = raw.pop("$defs", {})
    schema: dict[str, Any] = _clean(_inline(raw, defs, ()))
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    schema["additionalProperties"] = False
    return schema


def _inline(node: Any, defs: Mapping[str, Any], seen: tuple[str, ...]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            key = ref.removeprefix("#/$defs/")
            if key in seen:
                raise TypeError(f"recursive argument type {key!r} cannot be inlined")
            target = dict(defs[key])
            target.update({k: v for k, v in node.items() if k != "$ref"})
            return _inline(target, defs, (*seen, key))
        return {k: _inline(v, defs, seen) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs, seen) for v in node]
    return node


_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = ("items", "not", "additionalProperties", "contains")


def _clean(schema: Any) -> Any:
    """Drop pydantic's generated `title`s, keeping property names that happen to be 'title'."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _clean(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_clean(sub) for sub in value]
        elif key in _SCHEMA_ONE:
            out[key] = _clean(value)
        else:
            out[key] = value
    return out


# Problems one refusal lists. A call within the limits can hold 2,000 bad values: listing each would answer a
# 5 KB call with some 300 KB that the agent reads back (and the log stores), so the rest are only counted.
_LISTED_PROBLEMS = 10


def describe_validation_error(tool_name: str, error: ValidationError) -> tuple[str, list[dict[str, Any]]]:
    """A message an agent can act on, plus one structured entry per bad parameter (the first
    `_LISTED_PROBLEMS` of them, then one entry counting the rest)."""
    details: list[dict[str, Any]] = []
    problems = error.errors(include_url=False, include_context=False)
    for item in problems[:_LISTED_PROBLEMS]:
        loc = ".".join(str(part) for part in item.get("loc", ())) or "(arguments)"
        kind = item.get("type", "invalid")
        if kind == "missing":
            problem = "missing required argument"
        elif kind == "extra_forbidden":
            problem = "unexpected argument (not a parameter of this tool)"
        else:
            problem = item.get("msg", "invalid value")
        entry: dict[str, Any] = {"parameter": loc, "problem": problem, "type": kind}
        if kind not in ("missing", "extra_forbidden"):
            entry["received"] = _short_repr(item.get("input"))
        details.append(entry)
    parts = [f"'{d['parameter']}': {d['problem']}" for d in details]
    unlisted = len(problems) - len(details)
    if unlisted:
        parts.append(f"and {unlisted} more problems like these, not listed")
        details.append({"parameter": "(arguments)", "problem": f"{unlisted} more problems, not listed",
                        "type": "not_listed", "count": unlisted})
    return f"invalid arguments for {tool_name}: " + "; ".join(parts), details


def _short_repr(value: Any, limit: int = 80) -> str:
    """A bounded `repr` for an error message; the value's own `repr` may fail (or be huge)."""
    try:
        text = repr(value)
    except Exception:
        return f"<unprintable {type_name(value)}>"
    return printable_text(text if len(text) <= limit else text[: limit - 3] + "...")
