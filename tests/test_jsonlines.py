"""The shared reader of data files: one exception for every way JSON text is refused, and one way of
naming a wrong value in a problem, whatever the value is."""

from __future__ import annotations

from typing import Any

import pytest

from scenarios.jsonlines import JsonTextError, json_value, shown_value


@pytest.mark.parametrize(("text", "reason"), [
    ('{"a": ', "not valid JSON (Expecting value)"),
    ("9" * 5000, "not valid JSON (an integer too long to read)"),
    ("[" * 100_000, "not valid JSON (nested too deeply to read)"),
])
def test_every_refusal_of_the_decoder_is_one_exception(text: str, reason: str) -> None:
    with pytest.raises(JsonTextError) as caught:
        json_value(text)
    assert caught.value.reason == reason


@pytest.mark.parametrize(("value", "shown"), [
    ("oops", "'oops'"),
    ("x" * 1000, repr("x" * 60)),
    (None, "null"),
    (True, "a boolean"),
    (7, "a number"),
    (2.5, "a number"),
    pytest.param(10 ** 5000, "a number", id="5001-digits"),  # its repr raises past 4,300 digits
    ([1, 2], "a list"),
    ([], "an empty list"),
    ({"a": 1}, "an object"),
    ({}, "an empty object"),
    ((1, 2), "a value of type tuple"),
])
def test_a_wrong_value_is_named_briefly_whatever_it_is(value: Any, shown: str) -> None:
    assert shown_value(value) == shown
