"""The Ray backend: runs on a local Ray (started once for this module, on 127.0.0.1), workers
killed mid-run, the same stored results as local workers, and an endpoint limit the whole
cluster keeps."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scenarios.banking.family import load_tasks
from tests.fake_chat import Response, completion, serve
from tests.test_runs import postgres_url  # noqa: F401 (a PostgreSQL server for the test that asks for one)
from toolworlds.cli import app
from toolworlds.process_backend import ProcessBackend
from toolworlds.ray_backend import RayBackend, RequestGate, import_ray
from toolworlds.runner import AgentSpec, Backend, Outcome, TaskSet, execute_run
from toolworlds.store import RunStore

# Not importorskip: Ray must first be imported by the fixture, after it asks for a loopback-only Ray.
pytestmark = [pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs Ray (in the dev extra)"),
              pytest.mark.long_running]  # collected first: see tests/conftest.py


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A local Ray of two CPUs whose servers listen on 127.0.0.1 only.

    Its workers run at the tests' own priority: Ray starts them at niceness 15, so beside the other
    pytest-xdist worker (or anything else busy on the machine) they got a few percent of a core, and
    an actor took 18 to 27 s to start in the suite instead of about one.

    Started with `address="local"`: a new Ray even while another runs on this machine. With no address, Ray
    joins a cluster it finds running, such as tests/test_ray_node_loss.py's when the other xdist worker runs
    that module at the same time, and then refuses `num_cpus`."""
    ray = import_ray(local=True)
    if ray.is_initialized():
        ray.shutdown()
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING", log_to_driver=False,
             _system_config={"worker_niceness": 0})
    try:
        assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:"), "Ray must listen on loopback only"
        yield ray
    finally:
        ray.shutdown()


def task_sets(limit: int | None = None) -> list[TaskSet]:
    return [TaskSet("banking", lang, load_tasks(lang)[:limit]) for lang in ("en", "zh")]


def stored(store: RunStore, run_id: str) -> dict[str, Any]:
    """Everything a run stored, minus what differs by nature between runs (ids, run names, clock times)."""
    episodes = {}
    for episode in store.episodes(run_id):
        row = episode.model_dump(exclude={"id", "run_id", "finished_at"})
        calls = [call.model_dump(exclude={"id", "episode_id"}) for call in store.calls(episode.id)]  # type: ignore[arg-type]
        episodes[(episode.task_set, episode.task_id)] = (row, calls)
    scores = sorted((s.task_set, s.category, s.metric, s.value) for s in store.scores(run_id))
    return {"episodes": episodes, "scores": scores}


def test_three_backends_store_identical_episodes_and_scores(ray_cluster: Any, tmp_path: Path,
                                                           request: pytest.FixtureRequest) -> None:
    try:  # the ray run stores into PostgreSQL wherever a server can be started here
        ray_url = request.getfixturevalue("postgres_url")
    except pytest.skip.Exception:
        ray_url = f"sqlite:///{tmp_path / 'ray.db'}"
    local = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    spec = AgentSpec("noisy", noise=0.3, seed=7)
    runs: dict[str, tuple[RunStore, Backend]] = {"process-0": (local, ProcessBackend(0)),  # in this process
                                                 "process-2": (local, ProcessBackend(2)),
                                                 "ray-2": (RunStore(ray_url), RayBackend(workers=2))}
    results = {}
    for name, (store, backend) in runs.items():
        execute_run(store, name, task_sets(), spec, backend=backend)
        results[name] = stored(store, name)
    assert len(results["process-0"]["episodes"]) == 72
    assert any(row["errors"] for row, _ in results["process-0"]["episodes"].values())  # the noise shows
    assert results["process-2"] == results["process-0"]
    assert results["ray-2"] == results["process-0"]
    runs["ray-2"][0].close()


def test_a_worker_killed_mid_run_loses_nothing_stored_and_the_run_completes(ray_cluster: Any,
                                                                           tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    backend = RayBackend(workers=2)
    seen: list[tuple[str, str]] = []
    killed: list[Any] = []
    before_kill: dict[tuple[str, str], Any] = {}

    def kill_a_worker(outcome: Outcome) -> None:
        seen.append((outcome.episode["task_set"], outcome.episode["task_id"]))
        if len(seen) == 3 and not killed:
            before_kill.update({(e.task_set, e.task_id): e for e in store.episodes("r")})
            killed.append(backend.actors[0])
            ray_cluster.kill(backend.actors[0])  # the actor's process dies with an episode running

    # A pause per episode keeps one running on each worker whenever the hook fires.
    episodes = execute_run(store, "r", task_sets(6), AgentSpec(pause=0.1), backend=backend, on_done=kill_a_worker)
    assert killed, "the run ended before a worker could be killed"
    assert len(before_kill) == 3
    assert len(episodes) == 12 and len({(e.task_set, e.task_id) for e in episodes}) == 12
    assert all(e.error is None and e.success for e in episodes), [e.error for e in episodes if e.error]
    after = {(e.task_set, e.task_id): e for e in episodes}
    for key, episode in before_kill.items():  # what was stored before the kill is kept, untouched
        assert after[key].model_dump() == episode.model_dump()
    assert len(seen) == 12  # every episode arrived once: none lost, none stored twice
    assert killed[0] not in backend.actors


def test_an_episode_that_kills_its_worker_is_retried_then_stored_as_failed(ray_cluster: Any, tmp_path: Path) -> None:
    tasks = load_tasks("en")[:3]

    class WorkerKiller:
        """A task whose world cannot be built without its worker process exiting."""

        def __init__(self, task: Any) -> None:
            self.id, self.category, self.question = "killer", task.category, task.question
            self.functions, self.paths, self.ground_truth = task.functions, task.paths, task.ground_truth

        def world(self, seed: int = 0) -> Any:
            os._exit(1)

    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    backend = RayBackend(workers=2, attempts=2)
    sets = [TaskSet("banking", "en", [tasks[0], WorkerKiller(tasks[0]), *tasks[1:]])]
    episodes = execute_run(store, "r", sets, AgentSpec(), backend=backend)
    by_id = {e.task_id: e for e in episodes}
    assert len(episodes) == 4
    error = by_id["killer"].error
    # Its own bound stops it, even when its two deaths are the run's first two (the run's bound,
    # workers in a row dying before finishing anything, is for deaths no one episode explains).
    assert error is not None and "died 2 times" in error, error
    assert all(by_id[t.id].error is None and by_id[t.id].success for t in tasks)  # none failed beside it
    resumed = execute_run(store, "r", sets, AgentSpec(), backend=RayBackend(workers=2))  # nothing left to run
    assert [e.model_dump() for e in resumed] == [e.model_dump() for e in episodes]


def test_a_worker_lost_with_two_episodes_unreturned_charges_neither_and_reruns_each_alone(ray_cluster: Any,
                                                                                         tmp_path: Path) -> None:
    """The driver cannot tell a worker's first episode running from one that finished and whose
    result died with the worker (its process exited before the reply left it, as happens on a
    loaded machine): with two episodes lost, neither is charged the death."""
    tasks = load_tasks("en")[:3]
    started = tmp_path / "started"

    class HeldOnce:
        """A task whose first world build marks that it runs and then waits to be killed; later builds are normal."""

        def __init__(self, task: Any, marker: Path) -> None:
            self._task, self._marker, self.id = task, marker, "held"

        def __getattr__(self, name: str) -> Any:  # everything else is the wrapped task's
            if name.startswith("_"):  # not yet set while it is being unpickled
                raise AttributeError(name)
            return getattr(self._task, name)

        def world(self, seed: int = 0) -> Any:
            if not self._marker.exists():
                self._marker.touch()
                time.sleep(120)  # the test kills this worker now
            return self._task.world(seed)

    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    backend = RayBackend(workers=1, attempts=1)  # one worker: "held" running, the next episode queued behind it
    killed: list[Any] = []

    def kill_when_held() -> None:
        deadline = time.monotonic() + 120
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        killed.append(backend.actors[0])
        ray_cluster.kill(backend.actors[0])

    killer = threading.Thread(target=kill_when_held, daemon=True)
    killer.start()
    sets = [TaskSet("banking", "en", [HeldOnce(tasks[0], started), *tasks[1:]])]
    episodes = execute_run(store, "r", sets, AgentSpec(), backend=backend)
    killer.join()
    assert killed and killed[0] not in backend.actors
    # With one attempt, charging "held" (or the one behind it) would have stored it as failed.
    assert len(episodes) == 3 and all(e.error is None and e.success for e in episodes), [e.error for e in episodes]


def test_cli_runs_and_resumes_on_ray(ray_cluster: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    runner = CliRunner()
    first = runner.invoke(app, ["run", "--db", url, "--run-id", "r", "--limit", "2"])
    assert first.exit_code == 0, first.output
    kept = {(e.task_set, e.task_id): e.model_dump() for e in RunStore(url).episodes("r")}
    resumed = runner.invoke(app, ["run", "--db", url, "--run-id", "r", "--resume", "--limit", "5",
                                  "--backend", "ray", "--workers", "2"])
    assert resumed.exit_code == 0, resumed.output
    episodes = RunStore(url).episodes("r")
    assert len(episodes) == 10 and all(e.success for e in episodes)
    for episode in episodes:
        key = (episode.task_set, episode.task_id)
        if key in kept:
            assert episode.model_dump() == kept[key]
    assert "10 episodes stored, 0 failed" in resumed.output
    refused = runner.invoke(app, ["run", "--db", url, "--backend", "slurm"])
    assert refused.exit_code == 2 and "slurm" in refused.output
    refused = runner.invoke(app, ["run", "--db", url, "--address", "auto"])
    assert refused.exit_code == 2 and "--backend ray" in refused.output


class ConcurrencyMeter:
    """A fake model that answers after a pause and records the most requests it held at once."""

    def __init__(self, pause: float = 0.4) -> None:
        self.pause = pause
        self.now = 0
        self.peak = 0
        self.requests = 0
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Response:
        with self._lock:
            self.now += 1
            self.requests += 1
            self.peak = max(self.peak, self.now)
        time.sleep(self.pause)
        with self._lock:
            self.now -= 1
        message = {"role": "assistant", "content": "Done."}
        return Response(json.dumps(completion(message, body["model"])).encode())


@pytest.mark.parametrize(("backend_name", "limit"), [("ray", 1), ("ray", 0), ("process", 1)])
def test_the_endpoint_limit_holds_across_all_workers(ray_cluster: Any, tmp_path: Path, backend_name: str,
                                                     limit: int) -> None:
    meter = ConcurrencyMeter()
    connections: list[tuple[str, int]] = []
    backend: Backend = RayBackend(workers=2) if backend_name == "ray" else ProcessBackend(2)
    with serve(meter, connections) as url:
        spec = AgentSpec("llm", model="m", base_url=url + "/v1", concurrency=limit, timeout=10, retries=0)
        store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
        sets = [TaskSet("banking", "en", [t for t in load_tasks("en") if t.category == "multi_step"][:8])]
        episodes = execute_run(store, "r", sets, spec, backend=backend)
    assert len(episodes) == 8 and all(e.error is None for e in episodes), [e.error for e in episodes]
    assert meter.requests == 8
    # Without a limit, both workers ask at once (eight requests, so a slow start on a busy
    # machine still leaves them overlapping).
    assert meter.peak == (1 if limit == 1 else 2)
    # Each worker's episodes share its SDK client, and so one open connection (`SdkClients`).
    assert 1 <= len(connections) <= 2


def test_the_request_gate_waits_at_its_limit_and_takes_back_a_dead_holders_permits() -> None:
    async def scenario() -> list[str]:
        gate = RequestGate(limit=2)
        events: list[str] = []
        await gate.acquire("worker-1")
        await gate.acquire("worker-1")

        async def third() -> None:
            await gate.acquire("worker-2")
            events.append("worker-2 got a permit")

        waiting = asyncio.create_task(third())
        await asyncio.sleep(0.05)
        events.append("still waiting" if not waiting.done() else "did not wait")
        assert await gate.release("worker-2") == 0  # it holds none yet: nothing to give back
        assert await gate.forget("worker-1") == 2  # worker-1 died holding two
        await asyncio.wait_for(waiting, timeout=1)
        assert await gate.release("worker-1") == 0  # a late release from the dead one changes nothing
        assert await gate.peak() == 2
        return events

    assert asyncio.run(scenario()) == ["still waiting", "worker-2 got a permit"]


def test_ray_is_imported_only_when_a_ray_run_starts() -> None:
    code = "import sys, toolworlds, toolworlds.cli, toolworlds.ray_backend; print('ray' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False"
