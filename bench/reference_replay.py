"""The reference's own gold replay of ACEBench's agent tasks, as one cold process.

Run: python bench/reference_replay.py ACEBENCH_REPO DATA_FOLDER [--lang en]

`ACEBENCH_REPO` is an extracted copy of the ACEBench repository and `DATA_FOLDER` the folder
holding `data_agent_multi_turn.json`, `data_agent_multi_step.json` and `possible_answer/` (for
example `$TOOLWORLDS_DATA/acebench/data_en`). This is the baseline `bench/startup.py` times
beside `toolworlds replay acebench`: the same work done the reference's way, with nothing of
ours imported (only the standard library and the reference's modules). Per task it feeds every
message of the first gold milestone path to the reference's execution role, keeps the
instances the calls ran on, saves the attributes the reference's inference saves, checks them
against the ground truth with the reference's own end-state checker, and prints one line per
task and a count, as our replay prints a table and a count.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

CATEGORIES = ("multi_turn", "multi_step")
# The attributes the reference's inference saves per class as the end state. It keeps this table in
# its model-calling module, which imports an API client; importing that here would charge the
# baseline for a library a replay never uses.
SAVED_ATTRIBUTES = {
    "BaseApi": ("wifi", "logged_in"), "MessageApi": ("inbox",), "ReminderApi": ("reminder_list",),
    "FoodPlatform": ("users", "logged_in_users", "orders"), "Travel": ("users", "reservations"),
}


def read_lines(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def first_path(milestones: Any) -> list[str]:
    if not milestones:
        return []
    if isinstance(milestones, list) and all(isinstance(m, list) for m in milestones):
        return [str(m) for m in milestones[0]]
    return [str(m) for m in milestones] if isinstance(milestones, list) else [str(milestones)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("acebench", type=Path)
    parser.add_argument("data", type=Path)
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()
    sys.path.insert(0, str(args.acebench))
    from model_eval.checker import agent_checker
    from model_inference.multi_step.execution_role_step import EXECUTION_STEP
    from model_inference.multi_turn.execution_role import EXECUTION

    roles = {"multi_turn": EXECUTION, "multi_step": EXECUTION_STEP}
    reproduced = total = 0
    for category in CATEGORIES:
        prompts = read_lines(args.data / f"data_agent_{category}.json")
        answers = {a["id"]: a for a in read_lines(args.data / "possible_answer" / f"data_agent_{category}.json")}
        for task in prompts:
            answer = answers[task["id"]]
            # The model name keys the reference's instances in its module globals: one per category,
            # since both categories number their tasks from 0.
            role = roles[category](f"replay_{category}", task["initial_config"], task["involved_classes"],
                                   task["id"].split("_")[-1], args.lang)
            instances: list[dict[str, Any]] = []
            error = ""
            for message in first_path(answer.get("mile_stone")):
                try:
                    _, ran_on = role.respond([{"sender": "agent", "recipient": "execution", "message": message}])
                except Exception as exc:  # the reference cannot read some gold messages
                    error = f"{type(exc).__name__}: {exc}"
                    continue
                if isinstance(ran_on, dict) and ran_on not in instances:
                    instances.append(ran_on)
            saved = [{name: {k: v for k, v in vars(instance).items() if k in SAVED_ATTRIBUTES[name]}}
                     for ran in instances for name, instance in ran.items()]
            # The reference writes results to a file and its evaluator reads them back: keys become text.
            saved = json.loads(json.dumps(saved, ensure_ascii=False))
            truth = answer["ground_truth"] if isinstance(answer["ground_truth"], list) else [answer["ground_truth"]]
            ok = len(saved) == len(truth)
            for expected in truth if ok else ():
                match = next((s for s in saved if set(s) == set(expected)), None)
                ok = ok and match is not None and agent_checker(match, expected)["valid"]
            reproduced += ok
            total += 1
            print(f"{task['id']:<24} {'yes' if ok else 'no':<4} {error[:60]}")
    print(f"reproduced {reproduced}/{total} tasks")


if __name__ == "__main__":
    main()
