"""ToolBench tool descriptions, made checkable: one JSON Schema per tool and a model built from it.

ToolBench's RapidAPI descriptions spell types loosely ("STRING", "NUMBER", "ENUM",
"DATE (YYYY-MM-DD)", BFCL's "dict") and carry keys of their own ("optional",
"example_value"). `normalize_tool` rewrites a tool once, when its task is read, into plain
JSON Schema; agents are shown that schema, and `arguments_model` turns the same schema
into the pydantic model a world checks every call against. One reading of the data feeds
both, so what the agent is told and what the world enforces cannot drift apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from types import GenericAlias, MappingProxyType, SimpleNamespace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from sandbox.tools import ToolSpec

# The type words found in ToolBench-style schemas, by their first word, lower-cased.
_TYPE_WORDS = MappingProxyType({
    **dict.fromkeys(("string", "str", "text", "enum", "date", "time", "datetime", "url", "email"), "string"),
    **dict.fromkeys(("integer", "int", "long"), "integer"),
    **dict.fromkeys(("number", "float", "double", "decimal"), "number"),
    **dict.fromkeys(("boolean", "bool"), "boolean"),
    **dict.fromkeys(("array", "list", "tuple"), "array"),
    **dict.fromkeys(("object", "dict", "map", "json"), "object"),
})
_FIRST_WORD = re.compile(r"[a-z]+")
_PYTHON_TYPES = MappingProxyType({"string": str, "integer": int, "number": float, "boolean": bool,
                                  "object": dict[str, Any]})


class ToolShapeError(ValueError):
    """A tool description that cannot be read as a tool (no name, parameters not an object)."""


def usable_name(name: str, what: str) -> str:
    """`name` when a tool or parameter may bear it; `ToolShapeError` when it holds a NUL character or a lone
    surrogate, which no UTF-8 text, JSON encoder or database column carries as it is (a world could not
    even be built from such a tool: its pydantic model refuses the name)."""
    if "\x00" in name:
        raise ToolShapeError(f"{what} {name.replace(chr(0), '?')!r} holds a NUL character")
    if any("\ud800" <= char <= "\udfff" for char in name):
        shown = "".join("?" if "\ud800" <= char <= "\udfff" else char for char in name)
        raise ToolShapeError(f"{what} {shown!r} holds a lone surrogate (not a Unicode character)")
    return name


def normalize_tool(tool: Any) -> dict[str, Any]:
    """One tool as `{"name", "description", "parameters"}` in plain JSON Schema.

    A bare string names a tool with no description. `parameters` is None when the data
    says nothing about them; such a tool accepts any arguments.
    """
    if isinstance(tool, str):
        if not tool.strip():
            raise ToolShapeError("a tool with an empty name")
        return {"name": usable_name(tool, "tool"), "description": "", "parameters": None}
    if not isinstance(tool, Mapping):
        raise ToolShapeError(f"a tool must be an object or a name, not {type(tool).__name__}")
    if isinstance(tool.get("function"), Mapping):  # an OpenAI tool: {"type": "function", "function": {...}}
        tool = tool["function"]
    name = tool.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ToolShapeError("a tool without a string 'name'")
    usable_name(name, "tool")
    description = tool.get("description")
    raw = tool.get("parameters")
    return {"name": name, "description": description if isinstance(description, str) else "",
            "parameters": None if raw is None else _object_schema(name, raw)}


def shown_parameters(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The parameter schema agents are shown: the tool's own, closed to other parameters, or,
    when the data describes none, an object open to any."""
    parameters = tool["parameters"]
    if parameters is None:
        return {"type": "object", "properties": {}, "required": [], "additionalProperties": True}
    return {**parameters, "additionalProperties": False}


def _object_schema(tool: str, raw: Any) -> dict[str, Any]:
    if isinstance(raw, str):  # some files keep each schema as JSON text
        try:
            raw = json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            raise ToolShapeError(f"parameters of {tool} are text but not valid JSON") from None
    if not isinstance(raw, Mapping):
        raise ToolShapeError(f"parameters of {tool} must be an object")
    properties = raw.get("properties") or {}
    if not isinstance(properties, Mapping):
        raise ToolShapeError(f"properties of {tool} must be an object")
    required = raw.get("required") or []
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise ToolShapeError(f"'required' of {tool} must be a list of names")
    # A property that is null says nothing: parquet files hold one struct for all rows' properties,
    # null where a row's tool lacks one.
    normalized = {usable_name(str(key), f"{tool}'s parameter"): _property(tool, value)
                  for key, value in properties.items() if value is not None}
    for name in required:  # required but never described: still a parameter the tool takes
        normalized.setdefault(usable_name(name, f"{tool}'s parameter"), {})
    return {"type": "object", "properties": normalized, "required": list(dict.fromkeys(required))}


def _property(tool: str, raw: Any) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        return {}
    out: dict[str, Any] = {}
    kind = json_type(raw.get("type"))
    if kind is not None:
        out["type"] = kind
    if isinstance(raw.get("description"), str) and raw["description"]:
        out["description"] = raw["description"]
    enum = raw.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, (str, int, float, bool)) for v in enum):
        out["enum"] = list(enum)
    if kind == "array" and isinstance(raw.get("items"), Mapping):
        out["items"] = _property(tool, raw["items"])
    if kind == "object" and isinstance(raw.get("properties"), Mapping):
        out["properties"] = {usable_name(str(k), f"{tool}'s parameter"): _property(tool, v)
                             for k, v in raw["properties"].items()}
    return out


def json_type(word: Any) -> str | None:
    """The JSON Schema type a ToolBench type word means, or None when it says nothing usable."""
    if not isinstance(word, str):
        return None
    found = _FIRST_WORD.search(word.lower())
    return _TYPE_WORDS.get(found.group()) if found else None


def arguments_model(tool: Mapping[str, Any]) -> type[BaseModel]:
    """The model that checks a call's arguments against a normalized tool's parameters.

    Parameter names in the data may be anything ("from", "api-key", "_id"), so each field
    has a neutral Python name and the real name as its alias; `SchemaToolSpec` hands the
    world the arguments under their real names again.
    """
    schema = tool.get("parameters")
    if schema is None:
        return create_model(f"{tool['name']}_arguments", __config__=ConfigDict(extra="allow"))
    required = set(schema["required"])
    fields: dict[str, Any] = {}
    for index, (name, prop) in enumerate(schema["properties"].items()):
        annotation = _annotation(prop)
        if name in required:
            fields[f"p{index}"] = (annotation, Field(..., alias=name))
        else:
            fields[f"p{index}"] = (annotation | None, Field(None, alias=name))
    config = ConfigDict(extra="forbid", validate_by_alias=True, validate_by_name=False)
    return create_model(f"{tool['name']}_arguments", __config__=config, **fields)


def _annotation(prop: Mapping[str, Any]) -> Any:
    if "enum" in prop:
        return Literal[tuple(prop["enum"])]
    kind = prop.get("type")
    if kind == "array":
        items = prop.get("items")
        return GenericAlias(list, (_annotation(items),)) if isinstance(items, Mapping) and items else list[Any]
    return _PYTHON_TYPES.get(kind, Any) if isinstance(kind, str) else Any


class _ByRealName:
    """Validates with the aliased model and gives the world the arguments under their real names."""

    __slots__ = ("_model",)

    def __init__(self, model: type[BaseModel]) -> None:
        self._model = model

    def validate_python(self, arguments: Any, *, strict: bool | None = None, extra: str | None = None) -> Any:
        parsed = self._model.model_validate(arguments, strict=strict)
        return SimpleNamespace(**parsed.model_dump(by_alias=True, exclude_unset=True))


class SchemaToolSpec(ToolSpec):
    """A tool described by data rather than by a method signature."""

    @property
    def validator(self) -> Any:
        return _ByRealName(self.args_model)
