"""Python signatures and Google-style docstrings for a world's tools, written from their JSON Schema.

Trainers that take tools as Python callables (TRL's `environment_factory`) read each tool's
schema back from the callable's signature and docstring (`transformers.utils.get_json_schema`).
So the signature is written from the tool's own JSON Schema, not from the Python method behind
it (whose pydantic and `Annotated` types such readers do not understand): a reader gets back
the names, types, enums, nullability, required parameters and descriptions the world publishes.
What a signature cannot carry (defaults, string lengths, numeric bounds, patterns, formats,
the fields of nested objects) stays enforced by `World.call`, which answers a call that breaks
it with an `invalid_arguments` error.
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, Protocol, Union


class Described(Protocol):
    """What a signature is written from: a tool's name, description and JSON Schema parameters
    (a world's `sandbox.tools.ToolSpec`, or an `OfferedTool` read from an OpenAI schema)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class OfferedTool:
    """A tool as a run offers it to a model (an OpenAI function schema), which may exist only as
    a description (ACEBench's items)."""

    name: str
    description: str
    parameters: Mapping[str, Any]

    @classmethod
    def from_openai(cls, tool: Mapping[str, Any]) -> OfferedTool:
        function = tool.get("function", {})
        parameters = function.get("parameters")
        return cls(str(function.get("name", "")), str(function.get("description") or ""),
                   parameters if isinstance(parameters, Mapping) else {"type": "object", "properties": {}})

RETURNS = ("The call's result as text (JSON unless the tool returns text), or, when the world refuses "
           'the call, a JSON object with "error", "message" and "details".')

_SCALARS: Mapping[str, Any] = MappingProxyType(
    {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)})


def python_type(schema: Mapping[str, Any]) -> Any:
    """The type hint whose JSON Schema (as `get_json_schema` writes it) is `schema`'s shape."""
    if "enum" in schema:
        return Literal.__getitem__(tuple(schema["enum"]))
    if "anyOf" in schema:
        return _union([python_type(option) for option in schema["anyOf"]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([python_type({**schema, "type": one}) for one in kind])
    if isinstance(kind, str) and kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        items = schema.get("items")
        return list if items is None else list[python_type(items)]  # type: ignore[misc]
    if kind == "object":
        values = schema.get("additionalProperties")
        return dict[str, python_type(values)] if isinstance(values, Mapping) else dict  # type: ignore[misc]
    return Any


def _union(options: list[Any]) -> Any:
    return options[0] if len(options) == 1 else Union.__getitem__(tuple(options))


def python_name_problems(spec: Described) -> list[str]:
    """Why `spec` cannot be a Python method: a parameter name that is a keyword or no identifier
    (ToolBench's `from`, `api-key`), or a tool name a method cannot take (empty, or private: TRL
    skips members starting with `_`). A dotted tool name (ACEBench's `ai.modelSelector`) is fine:
    it is the method's `__name__` and class attribute, which TRL reads and dispatches by."""
    problems = [f"tool {spec.name!r}"] if not spec.name or spec.name.startswith("_") else []
    return problems + [f"parameter {name!r} of {spec.name!r}" for name in spec.parameters.get("properties", {})
                       if not str(name).isidentifier() or keyword.iskeyword(name)]


def tool_signature(spec: Described) -> inspect.Signature:
    """`(self, *, <parameters>) -> str`: keyword-only, since a model names every argument."""
    properties: Mapping[str, Any] = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", ()))
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for name, schema in properties.items():
        default = inspect.Parameter.empty if name in required else schema.get("default")
        parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                            annotation=python_type(schema)))
    return inspect.Signature(parameters, return_annotation=str)


def tool_docstring(spec: Described) -> str:
    properties: Mapping[str, Any] = spec.parameters.get("properties", {})
    lines = [spec.description.strip()]
    if properties:
        lines += ["", "Args:"]
        lines += [f"    {name}: {' '.join(str(schema.get('description', '')).split())}"
                  for name, schema in properties.items()]
    lines += ["", "Returns:", f"    {RETURNS}"]
    return "\n".join(lines)


def tool_method(spec: Described, run: Callable[[Any, str, dict[str, Any]], str]) -> Callable[..., str]:
    """A method named after the tool, with its signature and docstring, that hands its keyword
    arguments to `run(self, tool_name, arguments)` unchecked: the world validates them."""
    signature = tool_signature(spec)
    name = spec.name

    def method(self: Any, **arguments: Any) -> str:
        return run(self, name, arguments)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = tool_docstring(spec)
    method.__signature__ = signature  # type: ignore[attr-defined]
    method.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()
                              if p.annotation is not inspect.Parameter.empty} | {"return": str}
    return method
