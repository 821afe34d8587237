"""Generated task sets where RL trainers start episodes: `ToolEnv` and `trl_environment` read them through the
family's data path, and the gold path earns the reward."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.generation import generate
from scenarios.registry import family

gymnasium = pytest.importorskip("gymnasium")

from toolworlds.env import ToolEnv, trl_environment  # noqa: E402


@pytest.mark.parametrize(("name", "lang", "level"), [("banking", "zh", 5), ("acebench", "en", 5), ("todo", "zh", 3),
                                                     ("apibank", "en", 2), ("apibank", "zh", 5)])
def test_gold_paths_of_a_generated_set_earn_the_reward(name: str, lang: str, level: int, tmp_path: Path) -> None:
    make = family(name).generator
    assert make is not None
    path = tmp_path / "tasks.jsonl"
    generate(make(), 12, seed=3, difficulty=level, lang=lang).write(path)
    env = ToolEnv(name, lang=lang, data=path)
    assert len(env.task_ids) == 12
    for task_id in env.task_ids:
        env.reset(options={"task": task_id})
        assert env.task is not None
        reward, done = 0.0, False
        for message in [*env.task.paths[0], "All done."]:
            _, reward_now, terminated, truncated, _ = env.step(message)
            reward, done = float(reward_now), terminated or truncated
            if done:
                break
        assert done and reward == 1.0, task_id
    assert trl_environment(name, lang=lang, data=path) is not None
