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
from types import MappingProxyType
from typing import Any, Literal, Union

from sandbox.tools import ToolSpec

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


def python_name_problems(spec: ToolSpec) -> list[str]:
    """Why `spec` cannot be a Python method (a name that is a keyword or no identifier); none for
    tools written in Python, only for tools defined by data (ToolBench's `from`, `api-key`)."""
    names = [("tool", spec.name), *(("parameter", p) for p in spec.parameters.get("properties", {}))]
    return [f"{kind} {name!r} of {spec.name!r}" for kind, name in names
            if not name.isidentifier() or keyword.iskeyword(name)]


def tool_signature(spec: ToolSpec) -> inspect.Signature:
    """`(self, *, <parameters>) -> str`: keyword-only, since a model names every argument."""
    properties: Mapping[str, Any] = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", ()))
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for name, schema in properties.items():
        default = inspect.Parameter.empty if name in required else schema.get("default")
        parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                            annotation=python_type(schema)))
    return inspect.Signature(parameters, return_annotation=str)


def tool_docstring(spec: ToolSpec) -> str:
    properties: Mapping[str, Any] = spec.parameters.get("properties", {})
    lines = [spec.description.strip()]
    if properties:
        lines += ["", "Args:"]
        lines += [f"    {name}: {' '.join(str(schema.get('description', '')).split())}"
                  for name, schema in properties.items()]
    lines += ["", "Returns:", f"    {RETURNS}"]
    return "\n".join(lines)


def tool_method(spec: ToolSpec, run: Callable[[Any, str, dict[str, Any]], str]) -> Callable[..., str]:
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
