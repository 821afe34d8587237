"""`EpisodeRecord.of`: the `record` speed lane makes the very record validation makes, and the switch decides."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from scenarios.banking.family import load_tasks
from toolworlds.episode_record import EpisodeRecord, _plain_values
from toolworlds.worker import AgentSpec, ToolOffers, run_one

ROOT = Path(__file__).resolve().parents[1]


def same_record(made: EpisodeRecord, validated: EpisodeRecord) -> None:
    """Equal in every part pydantic keeps: the fields (in order, of the same types), which were given, no extras."""
    assert list(made.__dict__.items()) == list(validated.__dict__.items())
    assert [type(v) for v in made.__dict__.values()] == [type(v) for v in validated.__dict__.values()]
    assert made.model_fields_set == validated.model_fields_set
    assert made.__pydantic_extra__ == validated.__pydantic_extra__
    assert made.__pydantic_private__ == validated.__pydantic_private__
    assert made.model_dump() == validated.model_dump() and made == validated
    assert pickle.loads(pickle.dumps(made)) == validated


def test_the_records_workers_make_are_the_validated_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every record a worker makes of oracle and noisy banking episodes (plain values, so the lane's own path)."""
    given: list[dict[str, Any]] = []
    original = EpisodeRecord.of.__func__  # type: ignore[attr-defined]

    def kept(cls: type[EpisodeRecord], **values: Any) -> EpisodeRecord:
        given.append(values)
        made: EpisodeRecord = original(cls, **values)
        return made

    monkeypatch.setattr(EpisodeRecord, "of", classmethod(kept))
    offers = ToolOffers()
    for spec in (AgentSpec(), AgentSpec(kind="noisy", noise=0.5, seed=3)):
        for task in load_tasks("en")[:12]:
            run_one("banking/en", task, spec, offers=offers)
    monkeypatch.undo()
    assert len(given) == 24 and all(_plain_values(values) for values in given)
    assert any(not values["success"] for values in given)  # failed episodes too
    for values in given:
        same_record(EpisodeRecord.of(**values), EpisodeRecord(**values))


BASE: dict[str, Any] = dict(task_set="banking/en", task_id="t1", category="c", success=True, state_fraction=0.5,
                            process=1.0, steps=3, calls=2, errors=0, finished=True, tools=None, trial=1)


@pytest.mark.parametrize("change", [
    {"state_fraction": 1}, {"steps": True}, {"trial": None}, {"task_id": type("Text", (str,), {})("t1")},
    {"reason": "why"}, {"error_types": '{"x": 1}', "diff": "[1]"},
])
def test_values_of_other_types_are_validated_as_ever(change: dict[str, Any]) -> None:
    values = {**BASE, **change}
    same_record(EpisodeRecord.of(**values), EpisodeRecord(**values))
    assert type(EpisodeRecord.of(**values).state_fraction) is float


@pytest.mark.parametrize("values", [{**BASE, "unknown": 1}, {k: v for k, v in BASE.items() if k != "steps"},
                                    {**BASE, "steps": "many"}])
def test_an_unknown_or_missing_name_or_a_wrong_value_is_refused(values: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        EpisodeRecord.of(**values)


@pytest.mark.parametrize(("value", "validated"), [("on", "0"), ("off", "1")])
def test_the_switch_decides(value: str, validated: str) -> None:
    probe = ("from toolworlds.episode_record import EpisodeRecord as R; seen = []; init = R.__init__; "
             "R.__init__ = lambda self, **v: (seen.append(1), init(self, **v))[1]; "
             f"R.of(**{BASE!r}); print(len(seen))")
    env = {**os.environ, "TOOLWORLDS_SPEED_LANES": value, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=60, check=True).stdout.strip()
    assert out == validated


def test_the_record_lane_holds_only_for_a_model_without_checks() -> None:
    """The lane skips validation only while validation could change nothing: no field of EpisodeRecord has a
    constraint, a validator or a factory default (adding one turns the lane off, `_UNCONSTRAINED`)."""
    from pydantic import Field

    from toolworlds import episode_record

    assert episode_record._UNCONSTRAINED
    constrained = Field(ge=0)
    assert constrained.metadata  # what `_UNCONSTRAINED` reads of a field that has a constraint
