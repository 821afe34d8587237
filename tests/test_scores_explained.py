"""Scores that explain themselves: ACEBench's paper table of a run shows "-" for what the run did not
touch and says which groups Overall is over, and `toolworlds show` prints the checker's reason beside a
miss, a compat miss whose reply is the possible answer included."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluators.acebench import NORMAL_CATEGORIES, SPECIAL_CATEGORIES, WEIGHTS, paper_table, summarize
from evaluators.acebench.categories import AGENT_CATEGORIES
from evaluators.acebench.items import CategoryScore
from scenarios.datasets import dataset_dir
from toolworlds.cli import app
from toolworlds.store import RunStore

DATA = dataset_dir("acebench")
needs_data = pytest.mark.skipif(DATA is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")


def _scores(accuracies: dict[str, float]) -> dict[str, CategoryScore]:
    return {name: CategoryScore(name, value, 10) for name, value in accuracies.items()}


def test_groups_not_run_are_a_dash_and_overall_names_its_groups() -> None:
    special = {"special_incomplete": 0.5, "special_irrelevant": 1.0}
    table = paper_table({"compat": _scores(special), "strict": _scores(dict.fromkeys(special, 1.0))}, "en")
    compat, strict = table.payload["compat"], table.payload["strict"]
    for row in (compat, strict):
        assert [row[column] for column in ("Atom", "Single-Turn", "Multi-Turn", "Similar", "Preference", "Summary",
                                           "Agent")] == ["-"] * 7
        assert row["Overall over"] == "special"
    assert (compat["Special"], compat["Overall"]) == ("0.750", "0.750")  # not 0.2676 * 0.5, nor over 3 categories
    assert (strict["Special"], strict["Overall"]) == ("1.000", "1.000")
    some = {"normal_atom_bool": 1.0, "special_irrelevant": 0.5}
    row = paper_table({"compat": _scores(some)}, "en").payload["compat"]
    weights = dict(WEIGHTS)
    overall = round((1.0 * weights["normal"] + 0.5 * weights["special"]) / (weights["normal"] + weights["special"]), 3)
    assert (row["Atom"], row["Summary"], row["Overall"], row["Overall over"]) == \
           ("1.000", "1.000", f"{overall:.3f}", "normal + special")


def test_over_every_category_the_compat_row_is_the_reference_summary() -> None:
    every = {name: 0.5 + index / 40 for index, name in enumerate(NORMAL_CATEGORIES + SPECIAL_CATEGORIES
                                                                    + AGENT_CATEGORIES)}
    row = paper_table({"compat": _scores(every)}, "en").payload["compat"]
    reference = summarize(every)  # the reference's: every category scored, constant weights
    assert row["Overall"] == f"{reference['overall']:.3f}" and row["Overall over"] == "all groups"
    assert (row["Summary"], row["Special"], row["Agent"]) == tuple(f"{reference[g]:.3f}"
                                                                   for g in ("normal", "special", "agent"))


@needs_data
def test_a_run_prints_dashes_and_show_gives_the_checker_reason_of_a_compat_miss(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    ran = CliRunner().invoke(app, ["run", "--tasks", "acebench", "--data", str(DATA), "--lang", "en", "--db", db,
                                   "--run-id", "r", "--categories", "special_incomplete", "-n", "3",
                                   "--results", str(tmp_path / "results")], env={"COLUMNS": "250"})
    assert ran.exit_code == 0, ran.output
    paper = next(line for line in ran.output.splitlines() if line.startswith("│ compat"))
    cells = [cell.strip() for cell in paper.strip("│").split("│")]
    assert cells[1:4] == ["-", "-", "-"] and cells[8] == "-" and cells[-1] == "special", paper
    assert "over special" in ran.output and "not run" in ran.output
    missed = [e for e in RunStore(db).episodes("r") if not e.success]
    assert missed, "the oracle's special_incomplete answers include compat misses (the reference's substring rule)"
    for episode in missed:
        shown = CliRunner().invoke(app, ["show", "r", episode.task_id, "--db", db], env={"COLUMNS": "250"})
        assert shown.exit_code == 0, shown.output
        assert "checker: compat: error_correction" in shown.output and "strict: passes" in shown.output
        assert "no field differs" in shown.output  # the reply is the possible answer: only the reason says why


@pytest.mark.skipif(dataset_dir("api-bank") is None, reason="API-Bank data not found (../shared/datasets or "
                                                           "TOOLWORLDS_DATA)")
def test_api_bank_misses_carry_the_checks_reason() -> None:
    from evaluators.apibank import score_episode
    from scenarios.apibank.family import FAMILY
    from scenarios.family import TaskQuery

    data = dataset_dir("api-bank")
    tasks = FAMILY.tasks(TaskQuery(data=data, categories=("level-1-api", "level-1-response"), limit=2)).tasks
    call, reply = sorted(tasks, key=lambda t: t.kind)
    assert call.kind == "api" and reply.kind == "response"
    wrong = score_episode(call, call.world(), ["[NoSuchApi(x='1')]"], "exact")
    assert not wrong.success and wrong.reason == f"API name mismatch: NoSuchApi vs {call.gold_call.api_name}"
    far = score_episode(reply, reply.world(), ["nothing like it"], "exact")
    assert far.reason.startswith("ROUGE-L F1 0.") and "recorded reply" in far.reason
    assert score_episode(call, call.world(), call.paths[0], "exact").reason == ""
