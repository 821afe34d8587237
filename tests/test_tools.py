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


def test_argument_models_are_built_on_first_use_once_per_process() -> None:
    class Counter(App[Empty]):
        @tool(mutates=False)
        def peek(self, step: int = 1) -> int:
            """Show a number.

            Args:
                step: How far to look.
            """
            return step

    spec = Counter.tool_specs["peek"]
    assert "model" not in vars(spec.arguments)  # importing a family builds no pydantic models
    first, second = World([Counter()]), World([Counter(name="Other")])
    assert first.tools["peek"].arguments is spec.arguments is second.tools["peek"].arguments
    assert first.call("peek", {"step": 2}).result == 2
    assert first.call("peek", {"step": "x"}).error.type == "invalid_arguments"
    built = vars(spec.arguments)["model"]
    assert second.tools["peek"].args_model is built  # bound copies share what the first use built
    assert second.tools["peek"].parameters["properties"]["step"] == {"type": "integer", "default": 1,
                                                                     "description": "How far to look."}


class Opaque:
    """A type pydantic has no schema for."""


def test_an_argument_type_pydantic_cannot_read_fails_the_call_not_the_world() -> None:
    class Odd(App[Empty]):
        @tool
        def take(self, thing: Opaque) -> str:
            """Take a thing.

            Args:
                thing: Something pydantic has no schema for.
            """
            return "taken"

    world = World([Odd()])
    record = world.call("take", {"thing": 1})
    assert record.error is not None and record.error.type == "internal_error"
    assert "Opaque" in record.error.message and world.call("take", {}).error is not None
