"""The bracket-syntax fast path reads exactly what the full `ast` path reads, or declines.

Generated call texts (well-formed ones in many spellings, and near-misses made by editing
them one character at a time) go through both paths: whenever the fast path gives calls,
the full path gives the same calls with the same value types; whenever the full path
refuses, the fast path declines, so the error the agent sees is the full path's own.
"""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox import Call, ParseError, parse_message
from sandbox.input_limits import InputLimits
from sandbox.parsing import (
    _FLAT_ARGUMENTS,
    ParsedMessage,
    _ast_brackets,
    _fast_brackets,
    _flat_pattern,
    _json_form,
    _may_nest_past_pattern,
    _repair,
    _scan_brackets,
    _simple_pattern,
    _sure_repair,
)
from sandbox.parsing.fast_lanes import _SCAN_JSON
from sandbox.parsing.repairs import _inner_quotes, _inner_quotes_by_scan

pytestmark = pytest.mark.long_running  # collected first: see tests/conftest.py

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAMES = st.sampled_from(["f", "get_user", "a.b", "Tool_2", "if", "True", "null", "__debug__", "match", "x" * 130])
KEYS = st.sampled_from(["a", "name", "b2", "_x", "class", "None", "true", "__debug__", "type"])
GAPS = st.sampled_from(["", "", " ", "  ", "\n", "\t", "\r\n"])
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]) | st.sampled_from("'\"\\\n\t"), max_size=8)
SCALARS = (TEXT | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False) | st.booleans() | st.none()
           | st.sampled_from([0, -0.0, 10**70, 1e300]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(TEXT | st.integers(-9, 9), inner, max_size=3), max_leaves=8)
# Characters that turn a well-formed call into something else: each edit is a near-miss.
EDITS = st.sampled_from([*"'\"\\()[]{},:=.-+0123456789eE_ \n\t#x", "True", "\x00", "\x0c", "\ud800", "é"])


@st.composite
def literal(draw: st.DrawFn, value: Any) -> str:
    """One of the spellings Python accepts for `value` (and that models write)."""
    gap = draw(GAPS)
    if isinstance(value, bool) or value is None:
        words = {True: ["True", "true"], False: ["False", "false"], None: ["None", "null"]}[value]
        return draw(st.sampled_from(words))
    if isinstance(value, (int, float)):
        text = repr(value)
        if math.isinf(value):
            text = "1e999" if value > 0 else "-1e999"
        return draw(st.sampled_from([text, "+" + text])) if not text.startswith("-") else text
    if isinstance(value, str):
        quoted = repr(value)
        if "'" not in value and "\\" not in value and draw(st.booleans()):
            quoted = "'" + value.replace("\n", "\\n").replace("\t", "\\t") + "'"
        return quoted
    if isinstance(value, list):
        items = [draw(literal(item)) for item in value]
        trailing = "," if items and draw(st.booleans()) else ""
        return "[" + gap + ("," + draw(GAPS)).join(items) + trailing + "]"
    pairs = [f"{draw(literal(key))}{draw(GAPS)}:{draw(GAPS)}{draw(literal(item))}" for key, item in value.items()]
    return "{" + gap + ", ".join(pairs) + "}"


@st.composite
def call_texts(draw: st.DrawFn, values: st.SearchStrategy[str] | None = None) -> str:
    """Calls of up to three arguments, each a value of `values` (by default `literal`'s spelling of a `VALUES`)."""
    values = VALUES.flatmap(literal) if values is None else values
    calls = []
    for _ in range(draw(st.integers(0, 3))):
        arguments = [f"{draw(KEYS)}{draw(GAPS)}={draw(GAPS)}{draw(values)}"
                     for _ in range(draw(st.integers(0, 3)))]
        calls.append(f"{draw(NAMES)}{draw(GAPS)}({draw(GAPS)}{(',' + draw(GAPS)).join(arguments)}{draw(GAPS)})")
    if len(calls) == 1 and draw(st.booleans()):
        return calls[0]
    return "[" + draw(GAPS) + ", ".join(calls) + draw(st.sampled_from(["", ","])) + draw(GAPS) + "]"


@st.composite
def near_misses(draw: st.DrawFn) -> str:
    text = draw(call_texts())
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 1))
        text = text[:at] + draw(EDITS) + text[at + cut:]
    return text


LIMITS = st.sampled_from([InputLimits(), InputLimits(max_depth=1), InputLimits(max_depth=2), InputLimits(max_calls=1),
                          InputLimits(max_int_digits=3), InputLimits(max_name_chars=3)])


def typed(value: Any) -> Any:
    """`value` with every type spelled out, so True is not 1, 1.0 is not 1 and -0.0 is not 0.0."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(item) for item in value])
    return (type(value).__name__, repr(value))


def full_outcome(text: str, limits: InputLimits) -> Any:
    try:
        return [(call.name, typed(call.arguments)) for call in _ast_brackets(text, limits)]
    except ParseError as error:
        return ("error", str(error))
    except Exception as error:  # parse_message turns these into a ParseError too
        return ("error", type(error).__name__)


def check_same(text: str, limits: InputLimits) -> bool:
    """True when the fast path read `text`; it then read it as the full path does."""
    fast = _fast_brackets(text, limits)
    if fast is None:
        return False
    assert [(call.name, typed(call.arguments)) for call in fast] == full_outcome(text, limits), text
    return True


@SETTINGS
@given(call_texts(), LIMITS)
def test_fast_path_reads_well_formed_calls_as_the_full_path_does(text: str, limits: InputLimits) -> None:
    check_same(text, limits)


@SETTINGS
@given(near_misses(), LIMITS)
def test_fast_path_declines_what_the_full_path_refuses(text: str, limits: InputLimits) -> None:
    check_same(text, limits)


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(list("f(a=1,'x\"\\)[]{}: .-+e\n")) , max_size=30))
def test_fast_path_on_arbitrary_syntax_characters(text: str) -> None:
    check_same(text.strip(), InputLimits())


def scan_skipped_where_it_declines(text: str, limits: InputLimits) -> None:
    """`_fast_brackets` skips the token scan when the text's pattern fails and it has too few brackets to nest
    deeper than the pattern reads: the scan must then decline as well. Both see text as `parse_message` hands
    it over, stripped (the scan reads a gap after a bare call, the pattern does not)."""
    text = text.strip()
    listed = text.startswith("[")
    if _simple_pattern(listed).fullmatch(text) is None and not _may_nest_past_pattern(text, listed):
        assert _scan_brackets(text, limits) is None, text


@st.composite
def chain_texts(draw: st.DrawFn) -> str:
    """One value nested in a chain of lists and objects: few brackets, any depth, where the skip's bound is tight."""
    value = draw(SCALARS)
    for _ in range(draw(st.integers(0, 5))):
        value = [value] if draw(st.booleans()) else {draw(st.integers(0, 3)): value}
    text = f"[f(a={draw(literal(value))})]"
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(EDITS) + text[at + draw(st.integers(0, 1)):]
    return text


@SETTINGS
@given(st.one_of(call_texts(), near_misses(), chain_texts()), LIMITS)
def test_the_token_scan_is_skipped_only_where_it_would_decline(text: str, limits: InputLimits) -> None:
    scan_skipped_where_it_declines(text, limits)


@SETTINGS
@given(st.one_of(call_texts(), near_misses(), chain_texts(), st.sampled_from(
    ["[f(,)]", "[f(), ]", "[f(),, g()]", "[f() g()]", "f(), g()", "f(a=1),", "[f(a=1) , g(b=2 ,) ,]", "[f(), 1]",
     "[ ]", "[f(a=1,, b=2)]", "[f(a=1 b=2)]", "[f(a=)]", "f(a=1)]", "[f(a=1)"])), LIMITS)
def test_the_argument_scan_reads_calls_as_the_full_path_or_declines(text: str, limits: InputLimits) -> None:
    """`_scan_brackets` (one match after each value takes the next argument, or the call's end and the next call's
    opening), with and without JSON's scanner, reads what the grammar reads, or nothing."""
    text = text.strip()
    for spelled in (text, text.replace("'", '"')):
        read = _scan_brackets(spelled, limits)
        if read is not None:
            assert [(call.name, typed(call.arguments)) for call in read] == full_outcome(spelled, limits), spelled
    form = _json_form(text, text.startswith("["), limits)
    if form is not None and not text.count("'") & 1:
        json_read = _scan_brackets(form, limits, _SCAN_JSON)
        if json_read is not None:
            assert [(call.name, typed(call.arguments)) for call in json_read] == full_outcome(text, limits), text


def test_the_token_scan_still_reads_values_nested_past_the_pattern() -> None:
    for text in ["[f(a='Domino's')]", "[f(a=[{'k': 'It's'}])]", "[f(a=[1, 2,, 3])]", "f(a={'k': [1]}, b=c)"]:
        scan_skipped_where_it_declines(text, InputLimits())
        assert _fast_brackets(text, InputLimits()) is None, text
    # Three levels, three brackets: the fewest the scan is needed for, and it still runs.
    for text in ["[f(a=[[[1]]])]", "[f(a=[{'k': [1]}])]", "f(a=[[[1]]])", "[f(a={1: {2: {3: 'x'}}})]"]:
        assert check_same(text, InputLimits()), text


@st.composite
def flat_call_texts(draw: st.DrawFn) -> str:
    """One bracketed call with scalar arguments only, the shape `_flat_pattern()` reads in one match (up to
    `_FLAT_ARGUMENTS` of them: one more goes the token scan's way)."""
    arguments = [f"{draw(KEYS)}{draw(GAPS)}={draw(GAPS)}{draw(literal(draw(SCALARS)))}"
                 for _ in range(draw(st.integers(0, _FLAT_ARGUMENTS + 1)))]
    trailing = "," if arguments and draw(st.booleans()) else ""
    return (f"[{draw(GAPS)}{draw(NAMES)}{draw(st.sampled_from(['', ' ']))}({draw(GAPS)}"
            f"{(',' + draw(GAPS)).join(arguments)}{trailing}{draw(GAPS)}){draw(GAPS)}]")


@SETTINGS
@given(flat_call_texts(), LIMITS)
def test_one_call_of_scalars_reads_in_one_match_as_the_full_path_reads_it(text: str, limits: InputLimits) -> None:
    check_same(text, limits)


def test_the_one_match_reads_the_commonest_shape_and_leaves_the_rest() -> None:
    flat = ["[turn_on_wifi()]", "[login_food_platform(username='Eve', password='password123')]",
            "[ f ( a = -7 , b=\"x\", c=1.5e3, d=null, ) ]", "[f(a='x\\ny', b=+0, c=True, d=-0.0)]"]
    for text in flat:
        assert _flat_pattern().fullmatch(text) is not None, text
        assert check_same(text, InputLimits()), text
    assert _fast_brackets("[f(a=1, a=2)]", InputLimits()) is None  # a repeated argument: the full path says so
    assert _fast_brackets("[if(a=1)]", InputLimits()) is None
    assert _fast_brackets("[f(a=10)]", InputLimits(max_int_digits=1)) is None
    # Past its reach, read the other ways, the same as the full path reads them.
    many = "[f(" + ", ".join(f"a{i}={i}" for i in range(_FLAT_ARGUMENTS + 1)) + ")]"
    for text in [many, "[f(a={'k': 1})]", "[f(a=[1])]", "f(a=1)", "[f(a=1), g()]", "[f(a=\"x's\")]"]:
        assert check_same(text, InputLimits()), text


def test_fast_built_calls_and_messages_are_the_dataclasses_they_claim_to_be() -> None:
    parsed = parse_message("[f(a=1)]")
    assert parsed == ParsedMessage([Call("f", {"a": 1})], "brackets", ()) and parsed.calls == [Call("f", {"a": 1})]
    assert repr(parsed) == "ParsedMessage(calls=[Call(name='f', arguments={'a': 1})], format='brackets', repairs=())"
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.calls[0].name = "g"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.format = "json"  # type: ignore[misc]
    assert dataclasses.asdict(parsed)["calls"] == [{"name": "f", "arguments": {"a": 1}}]


def test_common_shapes_take_the_fast_path() -> None:
    """The shapes agents send most (ACEBench gold calls among them) never reach `ast.parse`."""
    for text in ["[login_food_platform(username='Eve', password='password123')]", "[turn_on_wifi()]",
                 "[add_food_delivery_order(username='Jack', merchant_name='Jiutian BBQ', "
                 "items=[{'product': 'Grilled Pork Belly', 'quantity': 1}])]",
                 "get_weather(city=\"Paris\", days=-3, metric=true, ratio=0.5, note=None)",
                 "[send(to='Bob', text='It\\'s 5\\n'), a.b(x=[1, 2.5, [False]], y={1: 'one'},)]"]:
        assert check_same(text, InputLimits()), text
    assert parse_message("[f(a='x', b=[1, {'k': None}])]").calls == [Call("f", {"a": "x", "b": [1, {"k": None}]})]


def test_each_form_compiles_its_pattern_only_when_a_message_of_that_form_is_read() -> None:
    """A process reading only bracketed lists (ACEBench, banking) never compiles the bare-call pattern, nor
    the other way round (API-Bank): each is a noticeable share of a cold process; and text JSON's scanner
    reads (`_json_form`) compiles neither. Run in a fresh interpreter, where nothing has compiled either yet."""
    code = ("from sandbox import parse_message\n"
            "from sandbox.parsing import _flat_pattern, _simple_pattern\n"
            "assert _simple_pattern.cache_info().currsize == 0 and _flat_pattern.cache_info().currsize == 0\n"
            "read = parse_message(\"[f(a='1'), g(b=[{'k': 'v'}])]\").calls + parse_message(\"f(a='1')\").calls\n"
            "print(read[1].arguments == {'b': [{'k': 'v'}]}, _simple_pattern.cache_info().currsize)\n"
            "listed = parse_message('[f(a=\"1\"), g(b=[{\"k\": \"v\"}])]').calls\n"
            "print(listed == read[:2], _simple_pattern.cache_info().currsize)\n"
            "print(parse_message('f(a=\"1\")').calls == listed[:1], _simple_pattern.cache_info().currsize)\n"
            "print(_flat_pattern.cache_info().currsize, parse_message('[f(a=\"1\")]').calls == listed[:1],\n"
            "      _flat_pattern.cache_info().currsize)\n")
    lanes_on = {**os.environ, "TOOLWORLDS_SPEED_LANES": "on"}  # the patterns are the lane's
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=lanes_on)
    # The one-call pattern too: compiled by the first message it may read (the lists above hold an object).
    assert out.stdout.split() == ["True", "0", "True", "1", "True", "2", "0", "True", "1"]


def test_fast_path_leaves_bounds_and_odd_spellings_to_the_full_path() -> None:
    limits = InputLimits(max_calls=1, max_int_digits=2, max_name_chars=4, max_depth=2)
    for text in ["[f(), g()]", "[f(a=100)]", "[tool_name()]", "[f(a=[[1]])]", "[f(a=1, a=2)]", "[f(class=1)]",
                 "[f(a=01)]", "[f(a=1_0)]", "[f(a='\\d')]", "[f(a=u'x')]", "[f(a='x' 'y')]", "[f(1)]", "[f(a=(1,))]",
                 "[f(a=-True)]", "[f(**a)]", "f(), g()", "[f()][0]", "[f(a=1e5)]", "[f(a='\x00')]", "[f(a={[1]: 2})]"]:
        assert _fast_brackets(text, limits) is None, text


# -- apostrophes: the repair without the failing `ast.parse` ---------------------------------

# What follows an apostrophe a model left unescaped inside a string: words (some of them keywords or
# string prefixes, after which Python may read on), spaces, quotes and the syntax characters.
APOSTROPHE_TAILS = st.sampled_from(["s", "t forget", " s", "\ns", "if", " or ", "r", "u", "rb", "f", "_x", "9",
                                    "'", " '", ", ", ")", "\\", "s', b='t", "é", "match", "None", " + ", "s.x"])


WORDS = st.text(st.sampled_from("abs t'\"é,()[]:"), min_size=1, max_size=12)


@st.composite
def worded_calls(draw: st.DrawFn) -> str:
    """Calls whose arguments are mostly single-quoted words (where models leave apostrophes unescaped)."""
    calls = []
    for _ in range(draw(st.integers(1, 2))):
        arguments = []
        for key in draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=3, unique=True)):
            quoted = "'" + draw(st.text(st.sampled_from("abs t"), min_size=1, max_size=8)) + "'"
            value = draw(st.sampled_from([quoted, f"[{quoted}]", f"{{{quoted}: {quoted}}}", f"[{{'k': {quoted}}}]"])
                         | literal(draw(VALUES)))
            arguments.append(f"{key}={value}")
        calls.append(f"{draw(NAMES)}({', '.join(arguments)})")
    return "[" + ", ".join(calls) + "]" if len(calls) > 1 or draw(st.booleans()) else calls[0]


@st.composite
def apostrophe_texts(draw: st.DrawFn) -> str:
    """A call text with apostrophes put into (or near) its single-quoted strings, as models write them."""
    text = draw(call_texts() | worded_calls())
    for _ in range(draw(st.integers(1, 3))):
        quotes = [i for i, ch in enumerate(text) if ch == "'"]
        if not quotes:
            break
        at = draw(st.sampled_from(quotes)) + draw(st.integers(0, 3))
        text = text[:at] + "'" + draw(APOSTROPHE_TAILS | WORDS) + text[at:]
    return text


def reference_outcome(text: str, limits: InputLimits) -> Any:
    """What a message reads as when the full path is tried first, and the repair only after it fails."""
    body = text.strip()
    try:
        return [(call.name, typed(call.arguments)) for call in _ast_brackets(body, limits)], ()
    except ParseError as first:
        if first.limit is not None:
            return ("error", str(first))
        repaired, repairs = _repair(body)
        try:
            calls = _ast_brackets(repaired, limits) if repairs else []
        except ParseError:
            calls = []
        if not calls:
            return ("error", str(first))
        return [(call.name, typed(call.arguments)) for call in calls], tuple(repairs)


def message_outcome(text: str, limits: InputLimits) -> Any:
    try:
        parsed = parse_message(text, limits=limits)
    except ParseError as error:
        return ("error", str(error))
    return [(call.name, typed(call.arguments)) for call in parsed.calls], parsed.repairs


@SETTINGS
@given(apostrophe_texts(), LIMITS)
def test_apostrophes_read_as_the_full_path_and_its_repair_read_them(text: str, limits: InputLimits) -> None:
    assert message_outcome(text, limits) == reference_outcome(text, limits), text


def test_the_repair_skips_the_full_path_only_when_it_surely_refuses() -> None:
    """`'Domino's'`: a string, then a name. Whatever follows, within the size the shortcut takes, Python
    refuses that with a plain syntax error (no nesting or recursion bound), so the repair decides."""
    limits = InputLimits()
    heads = ["[f(a='Domino's", "[f(a='It's", "f(a=1, b='x'y"]
    tails = ["')]", " + " + "-" * 400 + "')]", " lambda:" * 60 + "')]", " " + "(" * 97 + "')]",
             " " + "[" * 60 + "{" * 37 + "')]", " not" * 110 + "')]", " await" * 80 + "')]"]
    taken = 0
    for head in heads:
        for tail in tails:
            text = head + tail if head.startswith("[") else head + tail[:-1]
            if _sure_repair(text, limits) is not None:
                taken += 1
                with pytest.raises(ParseError) as refused:
                    _ast_brackets(text, limits)
                assert refused.value.limit is None, text
            assert message_outcome(text, limits) == reference_outcome(text, limits), text
    assert taken == len(heads) * len(tails)  # all within the shortcut's bounds


def test_acebench_apostrophes_skip_the_full_path() -> None:
    text = "[add_reminder(title='Today's spending', description='Today's spending 88.0 yuan', time='2024-07-15')]"
    mended = _sure_repair(text, InputLimits())
    assert mended is not None
    assert mended == (parse_message(text).calls, parse_message(text).repairs)
    assert mended[0][0].arguments["title"] == "Today's spending"
    # A string followed by a string prefix, a keyword or an operator might still read: the full path decides.
    for text in ["[f(a='x'r'y')]", "[f(a='x' if 1 else 'y')]", "[f(a='x'+'y')]", "[f(a='x' 'y')]"]:
        assert _sure_repair(text, InputLimits()) is None, text


# Values as JSON's scanner and Python's grammar may disagree on them: numbers JSON writes and Python does not
# (or reads otherwise), JSON's constants and Python's, big integers, keys of every kind, control characters.
JSON_SCALARS = (st.sampled_from(["1", "-0", "0", "+1", "01", "1.5", "-0.0", "1e5", "1E+5", "2.5e-3", "1.5e999", ".5",
                                 "5.", "1" * 18, "1" * 19, "-" + "9" * 19, "9" * 70, "NaN", "Infinity", "-Infinity",
                                 "true", "false", "null", "True", "None", "'x'", "''", "'a b'", "'\t'", "'\x0c'",
                                 "'\u2028'", "x", "-", "1_0", "0x1", "'x' 'y'", "1 2"])
                | st.integers(-(10**20), 10**20).map(str)
                | st.text(st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="'\"\\\n\r"),
                          max_size=5).map(lambda text: f"'{text}'"))


@st.composite
def json_values(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(st.integers(0, 2)) if depth < 4 else 0
    if kind == 0:
        return draw(JSON_SCALARS)
    gap = draw(GAPS)
    items = [draw(json_values(depth + 1)) for _ in range(draw(st.integers(0, 3)))]
    if kind == 2:
        items = [f"{draw(JSON_SCALARS)}{draw(GAPS)}:{draw(GAPS)}{item}" for item in items]
    trailing = "," if items and draw(st.integers(0, 4)) == 0 else ""
    opener, closer = "[]" if kind == 1 else "{}"
    return opener + gap + ("," + draw(GAPS)).join(items) + trailing + gap + closer


@SETTINGS
# Texts with a JSON value and an unescaped apostrophe (`'it's'`) too: the repair reads those with the scanner.
@given(call_texts(json_values()) | call_texts(json_values()).map(lambda text: text.replace("'x'", "'it's'")), LIMITS)
def test_values_read_by_the_json_scanner_read_as_the_full_path_reads_them(text: str, limits: InputLimits) -> None:
    check_same(text, limits)
    assert message_outcome(text, limits) == reference_outcome(text, limits), text


def test_the_json_scanner_reads_what_json_and_python_agree_on_and_leaves_the_rest() -> None:
    limits = InputLimits()
    read = ["[f(a=[{'product': 'Pizza', 'quantity': 1}], b='x')]", "[f(a={'k': [1e5, -0.0, null, true]})]",
            "f(a=[], b={})", "[f(a=[1]), g(b={'c': {'d': 'e'}}), h()]", "[f(a=[True, +1, {1: 'x'}, [1,]])]"]
    for text in read:
        assert _json_form(text, text.startswith("["), limits) is not None, text
        assert check_same(text, limits), text
    assert parse_message("[f(a=[{'k': 1e5}], b='x')]").calls == [Call("f", {"a": [{"k": 100000.0}], "b": "x"})]
    # What JSON reads and Python does not, or reads otherwise: declined, the full path decides.
    for text in ["[f(a=[NaN])]", "[f(a=[Infinity])]", "[f(a=[-Infinity])]", "[f(a=['x' 'y'])]", "[f(a=['\t'])]",
                 "[f(a=[" + "9" * 70 + "])]", "[f(a=[1 2])]", "[f(a=[.5])]"]:
        assert _fast_brackets(text, limits) is None, text
        check_same(text, limits)
    # Text JSON's quotes would misread, or nested past the bound, is not handed to the scanner.
    for text, bound in [("[f(a=['x\\'y'])]", limits), ('[f(a=["x"])]', limits),
                        ("[f(a=[[1]])]", InputLimits(max_depth=2)), ("[f(a=[1])]", InputLimits(max_int_digits=17)),
                        ("[f(a=" + "[" * 16 + "]" * 16 + ")]", InputLimits(max_depth=200))]:
        assert _json_form(text, True, bound) is None, text
        check_same(text, bound)


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from("'a ,)]}:\n\t(["), max_size=24))
def test_the_quotes_to_escape_found_by_match_are_those_the_scan_finds(text: str) -> None:
    assert _inner_quotes(text) == _inner_quotes_by_scan(text), text
