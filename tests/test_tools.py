"""@tool: argument models, descriptions and the errors a world author gets early."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from sandbox import App, StateModel, World, tool
from sandbox.tools import build_spec


class Empty(StateModel):
    pass


class Address(BaseModel):
    city: str
    zip_code: str | None = None


class Shop(App[Empty]):
    @tool(mutates=False)
    def search(
        self,
        query: Annotated[str, Field(description="Words to look for.")],
        limit: int = 10,
        kind: Literal["food", "book"] = "food",
        ship_to: Address | None = None,
    ) -> dict:
        """Search the catalogue.

        Longer explanation that models also see.

        Args:
            query: Overridden by the Annotated description.
            limit: How many results at most.
            kind: What to search.
            ship_to: Only items that ship there.
        """
        return {"query": query, "limit": limit, "kind": kind,
                "city": ship_to.city if ship_to else None}


def test_spec_reads_signature_and_docstring() -> None:
    spec = Shop.tool_specs["search"]
    assert spec.name == "search" and spec.mutates is False
    assert spec.description == "Search the catalogue.\n\nLonger explanation that models also see."
    props = spec.parameters["properties"]
    assert props["query"]["description"] == "Words to look for."
    assert props["limit"] == {"default": 10, "description": "How many results at most.", "type": "integer"}
    assert props["kind"]["enum"] == ["food", "book"]
    assert spec.parameters["required"] == ["query"]
    assert spec.parameters["additionalProperties"] is False
    # nested models are inlined, never left as $ref
    assert "$ref" not in str(spec.parameters) and "$defs" not in spec.parameters
    nested = props["ship_to"]["anyOf"][0]
    assert nested["properties"]["city"] == {"type": "string"} and "title" not in nested


def test_nested_model_arguments_are_validated_and_passed_as_models() -> None:
    world = World([Shop()])
    record = world.call("search", {"query": "pizza", "ship_to": {"city": "Rome"}})
    assert record.result == {"query": "pizza", "limit": 10, "kind": "food", "city": "Rome"}
    assert record.validated["ship_to"] == {"city": "Rome", "zip_code": None}  # type: ignore[index]
    bad = world.call("search", {"query": "pizza", "ship_to": {"town": "Rome"}})
    assert bad.error is not None
    assert {d["parameter"] for d in bad.error.details} == {"ship_to.city", "ship_to.town"}
    enum = world.call("search", {"query": "x", "kind": "toy"})
    assert enum.error is not None and enum.error.details[0]["parameter"] == "kind"


def test_property_named_title_survives_title_cleanup() -> None:
    def note(self, title: str) -> None:
        """Make a note.

        Args:
            title: The note's title.
        """

    spec = build_spec(note)
    assert spec.parameters["properties"] == {"title": {"description": "The note's title.", "type": "string"}}


def test_tool_without_type_hint_is_rejected() -> None:
    def bad(self, x):  # type: ignore[no-untyped-def]
        """Doc."""

    with pytest.raises(TypeError, match="type hint"):
        build_spec(bad)


def test_tool_without_docstring_is_rejected() -> None:
    def bad(self, x: int) -> None:
        pass

    with pytest.raises(TypeError, match="docstring"):
        build_spec(bad)


def test_var_args_are_rejected() -> None:
    def bad(self, *items: int) -> None:
        """Doc."""

    with pytest.raises(TypeError, match=r"\*args"):
        build_spec(bad)


def test_tool_name_and_description_can_be_overridden() -> None:
    def fn(self) -> str:
        """Original."""
        return "x"

    spec = build_spec(fn, name="renamed", description="Better words.")
    assert (spec.name, spec.description) == ("renamed", "Better words.")


def test_only_decorated_methods_are_tools() -> None:
    class Mixed(App[Empty]):
        def helper(self) -> int:
            return 1

        @tool
        def visible(self) -> int:
            """A tool."""
            return self.helper()

    assert list(Mixed.tool_specs) == ["visible"]
    world = World([Mixed()])
    assert world.call("helper").error.type == "unknown_tool"  # type: ignore[union-attr]


def test_app_name_defaults_to_class_and_can_be_set() -> None:
    class FoodPlatform(App[Empty]):
        pass

    assert FoodPlatform().name == "FoodPlatform"
    assert FoodPlatform(name="Food").name == "Food"
    assert list(World([FoodPlatform(name="Food")]).state()) == ["Food"]


def test_app_without_state_model_is_a_clear_error() -> None:
    class NoState(App):  # type: ignore[type-arg]
        pass

    with pytest.raises(TypeError, match="App\\[SomeStateModel\\]"):
        NoState()
