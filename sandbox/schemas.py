"""Tool schemas in the dialects that agents and benchmarks expect.

Every format is derived from the one JSON Schema (2020-12) on `ToolSpec.parameters`;
the dialects differ only in their envelope and, for ACEBench/BFCL, in type names.
A tool whose return annotation declares a shape also has an output schema (`output_schema`),
which the JSON Schema export carries as `outputSchema` (the name MCP gives it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .tools import ToolSpec

SchemaFormat = Literal["jsonschema", "openai", "anthropic", "acebench", "bfcl"]
FORMATS: tuple[str, ...] = ("jsonschema", "openai", "anthropic", "acebench", "bfcl")

_DIALECT_TYPES = MappingProxyType({
    # ACEBench's own files call objects "dict" and keep "number"; BFCL also says "float".
    "acebench": MappingProxyType({"object": "dict"}),
    "bfcl": MappingProxyType({"object": "dict", "number": "float"}),
})


_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def output_schema(spec: ToolSpec) -> dict[str, Any] | None:
    """The JSON Schema (2020-12) of what the tool returns, or None when its annotation declares
    no shape (bare `dict`, `list`, `Any` or none). Results are not checked against it."""
    return None if spec.result is None else spec.result.schema


def export(spec: ToolSpec, fmt: str = "openai") -> dict[str, Any]:
    if fmt == "jsonschema":
        exported = {"name": spec.name, "description": spec.description,
                    "parameters": {"$schema": _DRAFT, **spec.parameters}}
        returns = output_schema(spec)
        if returns is not None:
            exported["outputSchema"] = {"$schema": _DRAFT, **returns}
        return exported
    if fmt == "openai":
        return {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
            },
        }
    if fmt == "anthropic":
        return {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}
    if fmt in _DIALECT_TYPES:
        params = _dialect(spec.parameters, _DIALECT_TYPES[fmt])
        ordered = {"type": params.pop("type"), "properties": params.pop("properties", {}),
                   "required": params.pop("required", []), **params}
        return {"name": spec.name, "description": spec.description, "parameters": ordered}
    raise ValueError(f"unknown schema format {fmt!r}; choose one of {', '.join(FORMATS)}")


def export_all(specs: Iterable[ToolSpec], fmt: str = "openai") -> list[dict[str, Any]]:
    return [export(spec, fmt) for spec in specs]


# The dialects' type names that JSON Schema spells differently.
_JSON_SCHEMA_TYPES = MappingProxyType({"dict": "object", "list": "array"})


def openai_tools(functions: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Function descriptions in the ACEBench/BFCL dialect (as task files hold them) as OpenAI tools."""
    tools = []
    for function in functions:
        described = dict(function)
        if "parameters" in described:
            described["parameters"] = _dialect(described["parameters"], _JSON_SCHEMA_TYPES)
        tools.append({"type": "function", "function": described})
    return tools


def _dialect(schema: Any, names: Mapping[str, str]) -> Any:
    """Rename types and flatten what the dialect has no words for.

    `Optional[X]` (anyOf X|null) becomes plain X, since the dialect marks optionality
    only by absence from `required`; `additionalProperties: false` is dropped.
    """
    if isinstance(schema, list):
        return [_dialect(s, names) for s in schema]
    if not isinstance(schema, dict):
        return schema
    options = schema.get("anyOf")
    if isinstance(options, list):
        rest = [o for o in options if o != {"type": "null"}]
        if len(rest) == 1 and len(rest) < len(options):
            merged = {**rest[0], **{k: v for k, v in schema.items() if k != "anyOf"}}
            return _dialect(merged, names)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "additionalProperties" and value is False:
            continue
        if key == "type" and isinstance(value, str):
            out[key] = names.get(value, value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: _dialect(sub, names) for name, sub in value.items()}
        elif key in ("items", "anyOf", "oneOf", "allOf", "prefixItems"):
            out[key] = _dialect(value, names)
        else:
            out[key] = value
    return out
