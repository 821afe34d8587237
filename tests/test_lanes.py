"""The speed-lane switch reads the environment once, in a fresh process."""

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize(("value", "on"), [(None, True), ("on", True), ("off", False), ("0", False), (" OFF ", False)])
def test_switch_reads_the_environment(value: str | None, on: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TOOLWORLDS_SPEED_LANES"}
    if value is not None:
        env["TOOLWORLDS_SPEED_LANES"] = value
    out = subprocess.run([sys.executable, "-c", "from sandbox.lanes import LANES_ON; print(LANES_ON)"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(on)


@pytest.mark.parametrize(("value", "expected"), [("on", "64 32"), ("off", f"{1 << 62} 0")])
def test_the_journal_lanes_follow_the_switch(value: str, expected: str) -> None:
    """Off, no container reaches `ORIGIN_FROM` (every whole change copies) and no key's place is looked for."""
    env = {**os.environ, "TOOLWORLDS_SPEED_LANES": value}
    out = subprocess.run([sys.executable, "-c", "import sandbox.journal as j; print(j.ORIGIN_FROM, j.PLACE_WITHIN)"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == expected
