"""The kit's drawn calls are good enough to test with: mostly valid, and mostly carried out.

A short version of `bench/strategies.py` (which prints the figures on a larger sample):
on every bundled world in its default and its configured state (tests/worlds.py), and on the library
world a reader writes from docs/testing.md, at least 95% of drawn calls pass validation
and at least half succeed. Draws are derandomized, so the figures do not vary between runs.
"""

from __future__ import annotations

import unittest
from collections.abc import Callable

import pytest
from hypothesis import settings

from sandbox import World
from sandbox.testing import survey
from tests.worlds import bundled, docs_example

DOCS = docs_example()
WORLDS: list[tuple[str, Callable[[], World]]] = [(f"{entry.name} {state}", factory) for entry in bundled()
                                                  for state, factory in (("configured", entry.configured),
                                                                         ("default", entry.default))]
WORLDS.append(("docs: library", DOCS.library_world))


@pytest.mark.parametrize(("name", "factory"), WORLDS, ids=[name for name, _ in WORLDS])
def test_drawn_calls_are_valid_and_mostly_succeed(name: str, factory: Callable[[], World]) -> None:
    found = survey(factory, sequences=6, steps=30)
    assert found.calls >= 180
    assert found.valid >= 0.95, (name, found.outcomes)
    assert found.succeeded >= 0.5, (name, found.outcomes)
    assert found.outcomes["crashed"] == 0, (name, found.outcomes)


def test_the_docs_example_test_passes() -> None:
    case = DOCS.TestLibrary
    case.settings = settings(case.settings, max_examples=10, database=None)
    result = unittest.TestResult()
    case("runTest").run(result)
    assert result.wasSuccessful(), result.failures + result.errors
