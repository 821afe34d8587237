"""`json_text` writes what `json.dumps(value, ensure_ascii=False, default=str)` writes, whichever way the
`json_text` speed lane is switched: tool results handed to agents and every stored JSON column go through it."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolworlds import json_text as module
from toolworlds.episode_record import stored_json
from toolworlds.json_text import json_text

_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                     max_leaves=20)
_VALUES = _JSON | st.lists(
    _JSON | st.dictionaries(st.integers() | st.floats() | st.booleans() | st.none(), _JSON, max_size=3), max_size=4)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_the_lane_writes_what_json_dumps_writes(value: Any) -> None:
    assert json_text(value) == dumps(value)


@settings(max_examples=100, deadline=None)
@given(_VALUES)
def test_the_plain_path_writes_the_same(value: Any) -> None:
    """With the lane's encoder taken away (lanes off, or no C encoder in json), the same text."""
    fast = json_text(value)
    saved = module._C_ENCODER
    module._C_ENCODER = None
    try:
        assert json_text(value) == fast
    finally:
        module._C_ENCODER = saved


def test_objects_cycles_and_depth_go_as_json_dumps_says() -> None:
    when = datetime.date(2026, 1, 2)
    assert json_text([{"on": when}]) == dumps([{"on": when}])
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference"):
        json_text([cycle])
    deep: list[Any] = []
    for _ in range(50_000):
        deep = [deep]
    with pytest.raises(RecursionError):
        json_text(deep)
    # A column stores what can be written: the cycle cut where the depth limit is.
    assert stored_json([cycle]) == "[" * 32 + '"<nested more than 32 levels deep>"' + "]" * 32


@pytest.mark.parametrize(("value", "made"), [("on", "True"), ("off", "False")])
def test_the_switch_decides(value: str, made: str) -> None:
    env = {**os.environ, "TOOLWORLDS_SPEED_LANES": value}
    out = subprocess.run([sys.executable, "-c", "import toolworlds.json_text as j; print(j._C_ENCODER is not None)"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == made
