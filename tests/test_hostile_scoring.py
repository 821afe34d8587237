"""Scoring model output costs time in proportion to it: the shapes that made a scorer's patterns or
decoding quadratic (found by an audit of every scorer on growing hostile output) are refused or read in
one pass, and each bounded pattern reads what its plain form read.

The complexity check runs the hostile outputs in a child process under a CPU limit of 30 s; they now take
well under a second in all, and before, each took from 12 s to a minute and a half at these sizes.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.acebench import decoding
from evaluators.acebench.decoding import decode_compat
from evaluators.toolbench import normalize
from evaluators.toolbench.arguments import _NUMBER
from evaluators.toolbench.sequence import _blocks
from sandbox.parsing import _FENCE

# The patterns as first written: the definitions the bounded ones must match.
PLAIN_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\r?\n(.*?)```", re.DOTALL)
PLAIN_BLOCK = re.compile(r"```(?:json)?\s*\n(.*?)\n```", re.DOTALL)
PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?")

FENCE_TEXT = st.lists(st.sampled_from(["`", "```", "\n", " ", "\t", "\r", "\r\n", "json", "a", "1", "{", "}", "-"]),
                      max_size=14).map("".join)
NUMBER_TEXT = st.lists(st.sampled_from(["1", "2", "0", ".", "e", "+", "-", "x"]), max_size=10).map("".join)


def _found(match: re.Match[str] | None) -> object:
    return match and (match.span(), match.groups())


@settings(max_examples=200, deadline=None)
@given(FENCE_TEXT)
def test_the_bounded_fence_patterns_read_what_the_plain_ones_read(text: str) -> None:
    assert _found(_FENCE.search(text)) == _found(PLAIN_FENCE.search(text))
    assert _blocks(text) == PLAIN_BLOCK.findall(text)


@settings(max_examples=200, deadline=None)
@given(NUMBER_TEXT)
def test_the_number_pattern_reads_what_the_plain_one_reads(text: str) -> None:
    assert _found(_NUMBER.fullmatch(text)) == _found(PLAIN_NUMBER.fullmatch(text))


@pytest.mark.parametrize("subscript", ["a[0]", "b['é']", 'c["日本"][1]', "d.e[f]", "x[1:2]", "y[-1]", "z['😀'][0]"])
def test_compat_subscripts_read_as_their_source_text(subscript: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = f"[f(k=[{subscript}, 'ü', {subscript}], t={subscript})]"
    shown = ast.get_source_segment(text, ast.parse(text, mode="eval").body.elts[0].keywords[1].value)  # type: ignore[attr-defined]
    assert shown == subscript
    # Read from the one encoded line, not by `get_source_segment`, which splits the whole text again each time.
    monkeypatch.setattr(decoding.ast, "get_source_segment", None)
    assert decode_compat(text) == [("f", {"k": [subscript, "ü", subscript], "t": subscript})]
    assert decode_compat(text.replace(",", " ,\n ")) == decode_compat(text)  # whitespace is removed first


HOSTILE = textwrap.dedent('''
    import resource
    resource.setrlimit(resource.RLIMIT_CPU, (30, 30))
    from evaluators.acebench.decoding import decode_compat
    from evaluators.toolbench import check_arguments, extract_calls, normalize
    from sandbox import ParseError, parse_message

    decode_compat("[f(x=[" + ",".join(["a[0]"] * 8_000) + "])]")  # was 54 s
    try:
        parse_message("``` " + " " * 99_000 + "x")  # was 88 s
    except ParseError:
        pass
    assert extract_calls("```\\na" * 16_000) == []  # was 12 s
    assert normalize("1" * 32_000 + "x") == "1" * 32_000 + "x"  # was 32 s
    call = {"name": "f", "arguments": {"q": "1" * 32_000 + "x"}}
    check_arguments([call], [call])
    print("read")
''')


def test_hostile_outputs_are_read_in_linear_time() -> None:
    pytest.importorskip("resource")
    done = subprocess.run([sys.executable, "-c", HOSTILE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "read", done.stderr[-2000:]


def test_a_number_is_still_a_number() -> None:
    assert [normalize(text) for text in ("12", "12.", "12.5", ".5", "-3e2", "1.2.3", "12x")] == [
        12, 12.0, 12.5, 0.5, -300.0, "1.2.3", "12x"]
