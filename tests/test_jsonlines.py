"""The shared reader of data files: one exception for every way JSON text is refused, and one way of
naming a wrong value in a problem, whatever the value is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluators.toolbench.results import read_answers
from scenarios.jsonlines import DataFileError, JsonTextError, decoded_lines, file_text, json_value, shown_value


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


BOM = b"\xef\xbb\xbf"


def test_a_byte_order_mark_opening_a_file_is_not_part_of_its_text(tmp_path: Path) -> None:
    """Editors on Windows save UTF-8 with a byte-order mark; `json.loads` refuses text that starts with
    one, so every first line and every whole JSON file saved that way was a problem."""
    assert list(decoded_lines(BOM + b'{"id": 1}\n{"id": 2}\n')) == [(1, {"id": 1}, ""), (2, {"id": 2}, "")]
    assert list(decoded_lines(b'{"id": 1}\n' + BOM + b'{"id": 2}\n'))[1][2].startswith("not valid JSON")  # mid-file
    whole = tmp_path / "whole.json"
    whole.write_bytes(BOM + b'{"a": [1]}')
    assert file_text(whole) == '{"a": [1]}'
    whole.write_bytes(BOM + b'{"a": "caf\xe9"}')  # the column counts from the text, as a line's does
    with pytest.raises(DataFileError, match=r"^whole\.json:1: not valid UTF-8 \(byte 0xe9 at column 11\)$"):
        file_text(whole)
    assert list(decoded_lines(BOM + b'{"a": "caf\xe9"}')) == [(1, None, "not valid UTF-8 (byte 0xe9 at column 11)")]
    answers = tmp_path / "answers.jsonl"
    answers.write_bytes(BOM + b'{"instance_id": "toolbench_0", "solution": "[]"}\n')
    assert read_answers(answers) == {"toolbench_0": "[]"}
