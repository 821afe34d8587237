"""parse_calls: the accepted syntaxes, the repairs, and hostile input."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sys

import pytest

from sandbox import Call, ParseError, parse_calls, parse_message
from sandbox.input_limits import DEFAULT_LIMITS, InputLimits


def test_bracket_syntax_with_every_literal_kind() -> None:
    calls = parse_calls(
        "[f(a=1, b='x', c=-2.5, d=True, e=None, g=[1, {'k': (2, 3)}], h={'n': -1}), g()]"
    )
    assert calls == [
        Call("f", {"a": 1, "b": "x", "c": -2.5, "d": True, "e": None,
                   "g": [1, {"k": [2, 3]}], "h": {"n": -1}}),
        Call("g", {}),
    ]


@pytest.mark.parametrize("text", ["f(a=1)", "(f(a=1),)", "f(a=1), g()", "  [f(a=1)]  \n"])
def test_bare_and_tuple_forms(text: str) -> None:
    assert parse_calls(text)[0] == Call("f", {"a": 1})


def test_unary_plus_keeps_the_sign_and_json_literals_are_read() -> None:
    assert parse_calls("[f(a=+2, b=true, c=false, d=null)]")[0].arguments == {
        "a": 2, "b": True, "c": False, "d": None}


def test_dotted_names() -> None:
    assert parse_calls("[Travel.book(x=1)]")[0].name == "Travel.book"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[delete_message(4)]", "positional argument"),
        ("[f(**kw)]", "unpacking"),
        ("[f(a=1, a=2)]", "repeats"),
        ("[f(a=2+3)]", "arithmetic"),
        ("[f(a=g(b=1))]", "nested call"),
        ("[f(a=x[0])]", "subscript"),
        ("[f(a=lambda: 1)]", "lambda"),
        ("[f(a=Eve)]", "bare word 'Eve'"),
        ("[f(a={1, 2})]", "Set"),
        ("[f(a=b'x')]", "bytes"),
        ("[f(a=-'x')]", "sign"),
        ("[1, f()]", "every element must be a tool call"),
        ("hello there", "not valid call syntax"),
        ("", "empty message"),
        ("[f(a=1)", "not valid call syntax"),
        ("42", "expected a list of calls"),
    ],
)
def test_errors_say_what_is_wrong(text: str, fragment: str) -> None:
    if text == "[f(a=1)":
        # the repair pass adds the bracket, so this one actually parses
        assert parse_message(text).repairs == ("added the missing closing ']'",)
        return
    with pytest.raises(ParseError, match=None) as info:
        parse_calls(text)
    assert fragment in info.value.message


def test_repair_escapes_apostrophes_from_acebench_gold_data() -> None:
    message = parse_message(
        "[add_food_delivery_order(username='Eve', merchant_name='Domino's', "
        "items=[{'product': 'Super Supreme', 'quantity': 1}])]"
    )
    assert message.calls[0].arguments["merchant_name"] == "Domino's"
    assert message.repairs == ("escaped 1 apostrophe(s) inside single-quoted strings",)
    two = parse_message("[add_reminder(title='Today's spending', description='Don't forget it')]")
    assert two.calls[0].arguments == {"title": "Today's spending", "description": "Don't forget it"}


def test_repair_handles_possessive_plural_and_missing_opening_bracket() -> None:
    message = parse_message("send(msg='the users' data is ready')]")
    assert message.calls[0].arguments == {"msg": "the users' data is ready"}
    assert "added the missing opening '['" in message.repairs


def test_well_formed_text_needs_no_repair() -> None:
    message = parse_message("[f(a=\"Domino's\")]")
    assert message.repairs == () and message.format == "brackets"


def test_json_forms() -> None:
    openai_message = {"role": "assistant", "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}},
        {"id": "2", "type": "function", "function": {"name": "g", "arguments": {"b": [1]}}},
    ]}
    assert parse_calls(json.dumps(openai_message)) == [Call("f", {"a": 1}), Call("g", {"b": [1]})]
    assert parse_calls('{"name": "f", "arguments": {"a": 1}}') == [Call("f", {"a": 1})]
    assert parse_calls('{"name": "f", "parameters": {"a": 1}}') == [Call("f", {"a": 1})]
    assert parse_calls('[{"name": "f", "arguments": "{}"}, {"name": "g"}]') == [Call("f"), Call("g")]
    assert parse_calls('{"type": "function", "function": {"name": "f", "arguments": ""}}') == [Call("f")]
    fenced = parse_message('Sure:\n```json\n[{"name": "f", "arguments": {"a": 1}}]\n```\nDone.')
    assert fenced.calls == [Call("f", {"a": 1})] and fenced.format == "json"
    assert fenced.repairs == ("read the calls from a markdown code block",)
    bracket_fence = parse_message("```python\n[f(a=1)]\n```")
    assert bracket_fence.calls == [Call("f", {"a": 1})]
    # An empty block is read as the grammar reads nothing; a single backquote is no block.
    for empty in ["```\n```", "```json\n  \n```"]:
        with pytest.raises(ParseError, match="not valid call syntax: invalid syntax"):
            parse_message(empty)
    assert parse_message("[f(a='`x`')]").calls == [Call("f", {"a": "`x`"})]


@pytest.mark.parametrize(
    "text",
    ['{"name": 3}', '{"name": "f", "arguments": "not json"}', '{"name": "f", "arguments": [1]}',
     '{"tool_calls": "x"}', '[{"name": "f"}, 3]', '"just a string"'],
)
def test_malformed_json_calls(text: str) -> None:
    with pytest.raises(ParseError):
        parse_calls(text)


HOSTILE = [
    "[" * 100_000,
    "[f(a=" + "[" * 5000 + "]" * 5000 + ")]",
    "[f(a=" + "(" * 300 + ")" * 300 + ")]",
    "[f(a='" + "x" * 2_000_000 + "')]",
    "__import__('os').system('echo pwned > /tmp/toolworlds_pwned')",
    "[__import__('os').system('echo pwned')]",
    "[f(a=__import__('os').system('echo pwned'))]",
    "[os.system(cmd='echo pwned')]" + "'" * 50_000,
    "[f(a=().__class__.__bases__[0].__subclasses__())]",
    "[(lambda: 1)()]",
    "[f(a=1+1)]",
    "[f(a=open('/etc/passwd').read())]",
    '{"name": "f", "arguments": ' + '{"a": ' * 10_000 + "1" + "}" * 10_000 + "}",
    "[" + "f()," * 10_000 + "]",
    "[f(" + ",".join(f"a{i}=1" for i in range(20_000)) + ")]",
    "'" * 90_000,
    "\x00\x01[f()]",
]


@pytest.mark.timeout(60)  # a hang guard only: how long parsing takes is for bench/, in CPU time
@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_is_a_short_parse_error_naming_the_bound_it_broke(text: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_calls(text)
    error = caught.value
    assert 0 < len(error.message) <= 200  # says why in a line; never echoes the (megabyte) input back
    assert error.limit is None or error.limit in {f.name for f in dataclasses.fields(InputLimits)}
    if len(text) > DEFAULT_LIMITS.max_message_chars:
        assert error.limit == "max_message_chars"


@pytest.mark.parametrize("text", ["[f(a=1if 1else 2)]", "[f(a='\\d')]", "[f(a=0b1and 1)]"])
def test_tokenizer_warnings_about_model_text_are_silenced(text: str) -> None:
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.suppress(ParseError):
            parse_calls(text)
    assert [str(w.message) for w in caught] == []


def test_a_call_named_os_system_is_only_data() -> None:
    # syntactically a valid call: it is returned as a name and never run
    assert parse_calls("[os.system(cmd='echo pwned')]") == [Call("os.system", {"cmd": "echo pwned"})]


def test_parsing_never_executes_anything() -> None:
    events: list[str] = []
    watched = {"exec", "os.system", "subprocess.Popen", "os.exec", "os.posix_spawn", "open"}

    def hook(event: str, args: tuple) -> None:
        if event in watched and recording:
            events.append(event)

    recording = False
    sys.addaudithook(hook)
    recording = True
    try:
        for text in HOSTILE[4:12]:
            with contextlib.suppress(ParseError):
                parse_calls(text)
    finally:
        recording = False
    assert events == []
