"""The corpus of model replies (tests/data/replies/*.jsonl, described in its README): each line's text
yields exactly the calls, refusals or answer written beside it, through the one reader of replies, and
the world runs those calls from the text."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox.errors import ParseError
from sandbox.parsing import Call
from sandbox.replies import read_reply
from toolworlds import banking_world
from toolworlds.agents import Turn

CORPUS = Path(__file__).parent / "data" / "replies"


def corpus_lines() -> list[tuple[str, dict[str, Any]]]:
    """Every line of every corpus file, as (file:line, its object); a malformed line fails collection here,
    named, rather than being skipped."""
    lines = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path.name}:{number}"
            row = json.loads(line)
            if not isinstance(row, dict) or not isinstance(row.get("text"), str) or "calls" not in row:
                raise ValueError(f"{where}: expected an object with 'text' (text) and 'calls' (null or a list)")
            calls = row["calls"]
            if calls is not None and not (isinstance(calls, list) and all(_expected_item(item) for item in calls)):
                raise ValueError(f"{where}: 'calls' must be null or a list of {{name, arguments}} or "
                                 "{parse_error: true}")
            lines.append((where, row))
    return lines


def _expected_item(item: Any) -> bool:
    return isinstance(item, dict) and (item == {"parse_error": True} or (
        isinstance(item.get("name"), str) and isinstance(item.get("arguments"), dict)
        and set(item) == {"name", "arguments"}))


def yielded(text: str) -> list[dict[str, Any]] | None:
    """What the reader makes of `text`, written as the corpus writes it."""
    reply = read_reply(text)
    if reply.is_answer:
        return None
    if reply.error is not None:
        return [{"parse_error": True}]
    return [{"name": item.name, "arguments": item.arguments} if isinstance(item, Call) else {"parse_error": True}
            for item in reply.items]


LINES = corpus_lines()


def test_the_corpus_covers_every_format_docs_runs_md_lists() -> None:
    formats = {row.get("format") for _, row in LINES}
    assert {"brackets", "brackets_in_prose", "json", "json_lines", "json_multiline", "llama3_parameters",
            "llama3_python_tag", "hermes", "think", "mistral", "llama31_function", "fence", "end_token",
            "python_quotes", "invented_result", "answer", "unreadable"} <= formats
    assert len(LINES) >= 50


@pytest.mark.parametrize(("where", "row"), LINES, ids=[where for where, _ in LINES])
def test_each_reply_yields_its_calls(where: str, row: dict[str, Any]) -> None:
    assert yielded(row["text"]) == row["calls"], f"{where} ({row.get('format')}): {row['text'][:200]!r}"


@pytest.mark.parametrize(("where", "row"), LINES, ids=[where for where, _ in LINES])
def test_a_turn_and_the_world_read_each_reply_the_same_way(where: str, row: dict[str, Any]) -> None:
    """What a run does with the reply: an answer ends the turn; calls run, or the text goes to the world,
    whose records are the corpus's calls (refusals as parse_error in place)."""
    text, expected = row["text"], row["calls"]
    turn = Turn.from_text(text)
    if expected is None:
        assert not turn.calls and turn.call_text is None, where
        return
    if any(item == {"parse_error": True} for item in expected):
        assert turn.call_text == text, where
        records = banking_world().execute(text)
        assert [r.error.type if r.error is not None and r.error.type == "parse_error" else r.tool for r in records] \
            == ["parse_error" if item == {"parse_error": True} else item["name"] for item in expected], where
    else:
        assert [{"name": c.name, "arguments": c.arguments} for c in turn.calls] == expected, where
        assert turn.call_text is None


def test_a_malformed_corpus_line_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bad.jsonl").write_text(json.dumps({"text": "x", "calls": None}) + "\n" + json.dumps({"text": 1})
                                        + "\n")
    monkeypatch.setattr(f"{__name__}.CORPUS", tmp_path)
    with pytest.raises(ValueError, match=r"^bad\.jsonl:2: "):
        corpus_lines()


def test_reading_never_raises_and_refusals_say_why() -> None:
    for _, row in LINES:
        reply = read_reply(row["text"])
        for item in reply.items:
            assert isinstance(item, Call) or (isinstance(item, ParseError) and item.message)


HOSTILE = textwrap.dedent('''
    import resource
    resource.setrlimit(resource.RLIMIT_CPU, (30, 30))
    from sandbox.replies import read_reply

    N = 99_000  # each reply just under the default max_message_chars
    shapes = [
        "<tool_call>" * (N // 11), "<tool_call>{" + "x" * N, "<think>" * (N // 7), "</think>" * (N // 8),
        "[a(" * (N // 3), "[a(\\n" * (N // 4), '{"a":[\\n' * (N // 8), '{"name":' * (N // 8),
        '{"name": "f", "arguments": {\\n' * (N // 30), "```json\\n" * (N // 8), "```\\n{" * (N // 5),
        "<function=f>" * (N // 12), "<function=f><parameter=a>" + "<parameter=a>" * (N // 13),
        "[TOOL_CALLS]" * (N // 12), "[TOOL_CALLS]f[ARGS]{" * (N // 20), "see [a(b) " * (N // 10),
        "[f(a='" + "'," * (N // 2), "[\\n" * (N // 2), "{\\n" * (N // 2), "x<|im_end|>" * (N // 11),
        "[f(a=1)] {\\"name\\": \\"g\\"} <think>" * (N // 40), "[f(a='x's " * (N // 10),
        "Words. " * (N // 14) + "{" + '"name": "f", ' * (N // 30), "[note] (x) {y} " * (N // 15),
        "{'\\n" * (N // 3), "{'name': " * (N // 9), "[{'a': 1}" * (N // 9), "<tool_call>{'name': [" * (N // 21),
    ]
    for shape in shapes:
        reply = read_reply(shape)
        assert reply.error is not None or reply.found or reply.is_answer
    print("read")
''')


def test_hostile_replies_are_read_in_linear_time() -> None:
    """28 shapes that make a careless reader quadratic (unclosed blocks, tags and brackets by the thousand,
    JSON that fails late), each 99,000 characters: together well under a second of CPU, where one quadratic
    step would take minutes; the CPU limit makes a regression fail instead of hang."""
    pytest.importorskip("resource")
    done = subprocess.run([sys.executable, "-c", HOSTILE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "read", done.stderr[-2000:]


FRAGMENTS = ["<tool_call>", "</tool_call>", "<|tool_call|>", "{", "}", "[", "]", "(", ")", '"name"', '"arguments"',
             "'name'", ":", ",", ";", "'", '"', "\\", "<think>", "</think>", "```", "```json\n", "[TOOL_CALLS]",
             "<function=f>", "</function>", "<parameter=a>", "[ARGS]", "f", "get_balance", "a=", "1", "x", " ",
             "\n", "<|im_end|>", "</s>", "<|python_tag|>", "true", "null", "\ud800", "\x00"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join))
def test_any_text_is_read_without_raising_and_the_world_runs_what_a_turn_reads(text: str) -> None:
    reply = read_reply(text)
    assert reply.is_answer or reply.found
    turn = Turn.from_text(text)
    records = banking_world().execute(text)
    assert all(r.tool is not None or (r.error is not None and r.error.type == "parse_error")
                           for r in records)
    if turn.calls:  # what a turn runs is what the world reads from the same text
        assert [r.tool for r in records] == [c.name for c in turn.calls]
    elif turn.call_text is not None:
        assert any(r.error is not None and r.error.type == "parse_error" for r in records)
