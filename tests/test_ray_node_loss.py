"""Ray: a run whose cluster loses its only node (of CPUs) stores every episode, the unfinished ones as failed
naming why, and `--retry-failed` runs exactly those once the cluster has a node again. Before, the workers
that replaced the lost ones waited for a CPU forever, and the run with them.

A cluster of its own (a head with no CPU, and one node of two CPUs that the test removes mid-run), in a
module of its own: Ray is one per process, and tests/test_ray_backend.py keeps a plain local one."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scenarios.banking.family import load_tasks
from toolworlds.runner import AgentSpec, Outcome, TaskSet, execute_run
from toolworlds.store import RunStore

pytestmark = [pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs Ray (in the dev extra)"),
              pytest.mark.long_running]  # collected first: see tests/conftest.py


@pytest.fixture
def cluster() -> Iterator[Any]:
    from toolworlds.ray_backend import import_ray

    ray = import_ray(local=True)
    if ray.is_initialized():
        ray.shutdown()
    from ray.cluster_utils import Cluster

    made = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False,
                                                         "_system_config": {"worker_niceness": 0}})
    try:
        ray.init(address=made.address, logging_level="WARNING", log_to_driver=False)
        yield made
    finally:
        ray.shutdown()
        made.shutdown()


def test_losing_the_only_node_stores_the_unfinished_episodes_as_failed_and_retry_failed_runs_them(
        cluster: Any, tmp_path: Path) -> None:
    from toolworlds.ray_backend import RERUN, RayBackend

    node = cluster.add_node(num_cpus=2)
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    sets = [TaskSet("banking", "en", load_tasks("en")[:8])]
    seen: list[Outcome] = []

    def lose_the_node(outcome: Outcome) -> None:
        seen.append(outcome)
        if len(seen) == 2:
            threading.Thread(target=cluster.remove_node, args=(node,), daemon=True).start()

    result: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: result.setdefault("episodes", execute_run(
        store, "r", sets, AgentSpec(pause=1.0), backend=RayBackend(lost_after=3), on_done=lose_the_node)),
        daemon=True)
    runner.start()
    runner.join(120)
    assert not runner.is_alive(), "the run still waits for a node"
    episodes = result["episodes"]
    assert len(episodes) == 8
    failed = [e for e in episodes if e.error is not None]
    assert failed and all(e.success for e in episodes if e.error is None)
    assert {e.error for e in failed} == {"worker: the Ray cluster has had no CPU to run a worker on for 3 s (its "
                                         f"nodes were lost); {RERUN}"}
    cluster.add_node(num_cpus=2)
    retried = execute_run(store, "r", sets, AgentSpec(), backend=RayBackend(), retry_failed=True)
    assert len(retried) == 8 and all(e.success and e.error is None for e in retried)
