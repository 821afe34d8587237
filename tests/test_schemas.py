"""Schema exports: every format is valid JSON Schema (after the dialect's type names)."""

from __future__ import annotations

import copy
import datetime as dt
import json
import types
import typing
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field, create_model

from sandbox import FORMATS, Ref, export
from sandbox.refs import refs_of
from sandbox.tools import build_spec
from scenarios.todo import todo_world

_BACK = {"dict": "object", "float": "number"}


def parameters_of(fmt: str, exported: dict[str, Any]) -> dict[str, Any]:
    if fmt == "openai":
        return exported["function"]["parameters"]
    if fmt == "anthropic":
        return exported["input_schema"]
    params = exported["parameters"]
    return undialect(params) if fmt in ("acebench", "bfcl") else params


def undialect(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: (_BACK.get(v, v) if k == "type" and isinstance(v, str) else undialect(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [undialect(v) for v in node]
    return node


class Point(BaseModel):
    x: float
    y: float
    label: str | None = None


TYPES: list[Any] = [
    int, str, float, bool, list[int], list[str], dict[str, int], Literal["a", "b"],
    int | None, list[Point], Point, dt.date, Annotated[int, Field(ge=0, le=9, description="digit")],
    tuple[int, str], set[str], dict[str, list[Point]],
]


def make_function(params: list[tuple[str, Any, bool]]) -> Any:
    def fn(self, **kwargs: Any) -> None: ...

    import inspect

    fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=hint,
                              default=inspect.Parameter.empty if required else None)
            for name, hint, required in params
        ]
    )
    fn.__annotations__ = {name: hint for name, hint, _ in params}
    fn.__doc__ = "Generated tool.\n\nArgs:\n" + "".join(f"    {n}: The {n}.\n" for n, _, _ in params)
    return fn


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(range(len(TYPES))), st.booleans()), max_size=6))
def test_generated_tools_export_valid_json_schema_in_every_format(choices: list[tuple[int, bool]]) -> None:
    params = [(f"p{i}", TYPES[t], req) for i, (t, req) in enumerate(choices)]
    spec = build_spec(make_function(params), name="generated")
    for fmt in FORMATS:
        exported = export(spec, fmt)
        json.dumps(exported)
        schema = parameters_of(fmt, exported)
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object"
        assert set(schema.get("required", [])) == {n for n, _, req in params if req}


def test_openai_and_anthropic_envelopes() -> None:
    world = todo_world()
    openai = world.schemas("openai")
    anthropic = world.schemas("anthropic")
    assert {t["function"]["name"] for t in openai} == set(world.tools)
    assert all(t["type"] == "function" for t in openai)
    assert {t["name"] for t in anthropic} == set(world.tools)
    assert all("input_schema" in t for t in anthropic)


def test_acebench_dialect_matches_the_benchmark_shape() -> None:
    world = todo_world()
    (add,) = [t for t in world.schemas("acebench") if t["name"] == "add_task"]
    params = add["parameters"]
    assert list(params)[:3] == ["type", "properties", "required"]
    assert params["type"] == "dict" and params["required"] == ["title"]
    assert params["properties"]["tags"]["type"] == "array"  # Optional[...] flattened
    assert "anyOf" not in json.dumps(params) and "additionalProperties" not in params


def test_bfcl_dialect_says_float() -> None:
    spec = build_spec(make_function([("amount", float, True)]))
    assert export(spec, "bfcl")["parameters"]["properties"]["amount"]["type"] == "float"
    assert export(spec, "acebench")["parameters"]["properties"]["amount"]["type"] == "number"


def test_exported_arguments_validate_against_the_schema() -> None:
    world = todo_world()
    schema = next(t for t in world.schemas("jsonschema") if t["name"] == "add_task")["parameters"]
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"title": "x", "tags": ["a"]})
    assert not validator.is_valid({"tags": ["a"]})
    assert not validator.is_valid({"title": "x", "nope": 1})


def test_unknown_format_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown schema format"):
        todo_world().schemas("yaml")


def test_dialect_functions_become_openai_tools_with_json_schema_type_names() -> None:
    from sandbox.schemas import openai_tools

    function = {"name": "order", "description": "Place an order.", "parameters": {
        "type": "dict", "required": ["items"], "properties": {
            "items": {"type": "list", "items": {"type": "dict", "properties": {"type": {"type": "string"}}}},
            "note": {"type": "string"}}}}
    (tool,) = openai_tools([function])
    assert tool == {"type": "function", "function": {"name": "order", "description": "Place an order.", "parameters": {
        "type": "object", "required": ["items"], "properties": {
            "items": {"type": "array", "items": {"type": "object", "properties": {"type": {"type": "string"}}}},
            "note": {"type": "string"}}}}}
    assert function["parameters"]["type"] == "dict"  # the task's own description is left as it was


def _without_refs(annotation: Any) -> Any:
    """The same annotation with every `Ref` taken out, models included."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Annotated:
        base, *metadata = args
        kept = [meta for meta in metadata if not isinstance(meta, Ref)]
        stripped = _without_refs(base)
        return Annotated[(stripped, *kept)] if kept else stripped
    if isinstance(annotation, type) and issubclass(annotation, BaseModel) and refs_of(annotation):
        fields = {}
        for name, info in annotation.model_fields.items():
            copied = copy.copy(info)
            copied.metadata = [meta for meta in info.metadata if not isinstance(meta, Ref)]
            fields[name] = (_without_refs(info.annotation), copied)
        return create_model(annotation.__name__, __config__=annotation.model_config, __doc__=annotation.__doc__,
                            **fields)
    if origin is None or origin is Literal or not args:
        return annotation
    stripped_args = tuple(_without_refs(arg) for arg in args)
    if origin in (typing.Union, types.UnionType):
        return typing.Union[stripped_args]  # noqa: UP007 - rebuilding a union from its members
    return origin[stripped_args]


def _spec_without_refs(spec: Any) -> Any:
    fn = spec.function
    bare = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    bare.__kwdefaults__ = fn.__kwdefaults__
    bare.__doc__ = fn.__doc__
    hints = typing.get_type_hints(fn, include_extras=True)
    bare.__annotations__ = {name: _without_refs(hint) for name, hint in hints.items()}
    return build_spec(bare, name=spec.name, description=spec.description, mutates=spec.mutates)


def test_references_leave_every_exported_schema_as_it_was() -> None:
    """`Ref`s are for property tests and fuzzers; agents see the same tools with or without them."""
    from tests.worlds import bundled

    referenced = 0
    for entry in bundled():
        for spec in entry.default().tools.values():
            params = spec.args_model.model_fields.values()
            if not any(refs_of(info.annotation) or any(isinstance(m, Ref) for m in info.metadata) for info in params):
                continue  # nothing to take out (ToolBench's tools are built from data, not from signatures)
            referenced += 1
            bare = _spec_without_refs(spec)
            assert not any(refs_of(info.annotation) or any(isinstance(m, Ref) for m in info.metadata)
                           for info in bare.args_model.model_fields.values())
            for fmt in FORMATS:
                assert export(bare, fmt) == export(spec, fmt), (entry.name, spec.name, fmt)
    assert referenced >= 100  # the bundled worlds do declare references
