"""Runs on a Ray cluster (`toolworlds run --backend ray`): the runner's backend for runs that outgrow one machine.

What runs where. The driver (the `toolworlds run` process) reads the tasks, puts them in
Ray's object store once, and starts `workers` actors. Each actor deserialises the tasks
once, builds a task's world the first time it runs that task, and forks that prebuilt
world for every episode of it, so nothing but a (task set, task id) pair travels per
episode. Each actor runs one episode at a time with the next one already queued; each
outcome streams back to the driver as it finishes, and the driver alone writes the run
store, one transaction per episode, exactly as with local workers, so `--resume` and
`--retry-failed` work the same.

Faults. An actor that dies (its process killed, its node lost) takes with it only the
episodes it had in flight: each is sent again to a fresh actor, up to `attempts` times
in all, and then stored as failed with the reason. Nothing stored is touched, and the run
finishes. When actors keep dying before finishing any episode (they cannot even start
on this cluster), the remaining episodes are stored as failed rather than retried forever.
A death is charged to an episode only when the driver knows that episode was running:
an episode's result can die with its actor even after it finished (the actor exits before
the reply leaves it), so when two episodes it had in flight both come back lost, either
may have been the one running. Neither is charged then, and each runs afterwards alone
on an actor with nothing else in flight, where a death is unambiguous.

Losing the cluster. When every node that could host a worker is lost (the only node, say),
the workers that replace the dead ones can never start, and Ray waits for room without end;
when the cluster itself stops answering, Ray's calls raise. Either way no episode is lost:
once the cluster has had no CPU for `RayBackend.lost_after` seconds (a node that comes back
in time is used), or at the first call that fails, every episode not yet finished is stored
as failed, naming why, and `--resume --retry-failed` runs exactly those again.

LLM agents. With `AgentSpec.concurrency` below the number of workers, one `RequestGate`
actor holds the run's permits for the endpoint; every request of every worker waits for
one, so a cluster of many workers does not flood an endpoint that takes a few requests
at a time. Permits a dead worker held are given back when its death is noticed.

Ray is an optional dependency (`pip install -e ".[ray]"` in the toolworlds checkout), imported only
here and only when a ray run starts. A Ray this module starts itself (no `address`) serves this run
alone, so it is started listening on the loopback interface only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import ModuleType, TracebackType
from typing import Any

from sandbox.input_limits import exception_line
from sandbox.world import World
from scenarios.family import Task

from .llm import SdkClients
from .worker import AgentSpec, BackendError, Outcome, Pending, ToolOffers, failed_outcome, run_one

# Ray reads this when it is imported: "0" makes a Ray node on Linux take 127.0.0.1 as its
# address, so every server of a local Ray binds the loopback interface only.
_LOOPBACK_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
IN_FLIGHT_PER_WORKER = 2  # one running, one queued behind it, so a worker never waits for the driver
BUFFERED_OUTCOMES = 1024  # outcomes received and not yet stored, at most
RERUN = "--resume --retry-failed runs it again"
WORLDS_PER_WORKER = 1024  # prebuilt worlds an actor keeps; the oldest is dropped past this


def import_ray(*, local: bool = False) -> ModuleType:
    """The `ray` module; `local`: the caller is about to start a Ray of its own, to listen on loopback only."""
    if local and "ray" not in sys.modules:
        os.environ.setdefault(_LOOPBACK_SWITCH, "0")
    try:
        import ray
    except ImportError:
        raise BackendError('the ray backend needs Ray: pip install -e ".[ray]" in the toolworlds checkout') from None
    return ray


class EpisodeWorker:
    """A Ray actor (made one with `ray.remote` when a run starts) that runs episodes of the tasks it holds."""

    def __init__(self, name: str, tasks: dict[str, tuple[str, dict[str, Any]]], spec: AgentSpec,
                 gate: Any = None) -> None:
        self._tasks = tasks  # task set name -> (end-state mode, task id -> task)
        self._spec = spec
        self._worlds: dict[tuple[str, str], World] = {}
        self._gate = None if gate is None else GateLease(gate, name)
        self._clients = SdkClients()  # shared by the episodes this actor runs, one after another
        self._offers = ToolOffers()  # likewise

    def run(self, task_set: str, task_id: str, trial: int = 0) -> Outcome:
        mode, tasks = self._tasks[task_set]
        task = tasks[task_id]
        return run_one(task_set, task, self._spec, mode, start=lambda: self._prebuilt(task_set, task).fork(),
                       gate=self._gate, trial=trial, clients=self._clients, offers=self._offers)

    def pid(self) -> int:
        return os.getpid()

    def _prebuilt(self, task_set: str, task: Task) -> World:
        key = (task_set, task.id)
        world = self._worlds.get(key)
        if world is None:
            if len(self._worlds) >= WORLDS_PER_WORKER:
                del self._worlds[next(iter(self._worlds))]
            world = self._worlds[key] = task.world()
        return world


class RequestGate:
    """A Ray actor holding a run's permits for one endpoint: a semaphore that knows who holds what,
    so the permits of a worker that died can be given back."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._held: dict[str, int] = {}
        self._in_use = 0
        self._peak = 0
        self._changed = asyncio.Condition()

    async def acquire(self, holder: str) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: self._in_use < self._limit)
            self._in_use += 1
            self._peak = max(self._peak, self._in_use)
            self._held[holder] = self._held.get(holder, 0) + 1

    async def release(self, holder: str, count: int = 1) -> int:
        """Give back up to `count` of `holder`'s permits; returns how many it gave back."""
        async with self._changed:
            given = min(count, self._held.get(holder, 0))
            if given:
                self._held[holder] -= given
                self._in_use -= given
                self._changed.notify_all()
            return given

    async def forget(self, holder: str) -> int:
        """Give back every permit a dead worker held."""
        return await self.release(holder, self._held.get(holder, 0))

    async def peak(self) -> int:
        """The most permits ever held at once."""
        return self._peak


class GateLease:
    """`with lease:` holds one of the gate's permits (a blocking wait, inside a worker actor)."""

    def __init__(self, gate: Any, holder: str) -> None:
        self._gate = gate
        self._holder = holder

    def __enter__(self) -> GateLease:
        import ray

        ray.get(self._gate.acquire.remote(self._holder))
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._gate.release.remote(self._holder)


@dataclass
class RayBackend:
    """Episodes on Ray actors. `address`: None starts a local Ray for this run; "auto" joins the
    cluster this machine belongs to (`ray start`); "ray://host:port" reaches one through Ray
    Client. An already connected Ray (`ray.init` called by the caller) is used as it is.
    `workers`: actors to start (default: one per CPU of the cluster). `attempts`: tries of an
    episode whose worker died under it. `lost_after`: see the module's docstring."""

    address: str | None = None
    workers: int | None = None
    attempts: int = 3
    lost_after: float = 120.0  # seconds the cluster may have no CPU (its nodes lost) before the run gives up
    _live: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    @property
    def actors(self) -> list[Any]:
        """The worker actors running now (for operators and tests, e.g. to kill one)."""
        return list(self._live.values())

    def outcomes(self, pending: Sequence[Pending], spec: AgentSpec) -> Iterator[Outcome]:
        if not pending:
            return
        ray = import_ray(local=self.address is None)
        started = not ray.is_initialized()
        if started:
            try:
                ray.init(address=self.address, include_dashboard=False, logging_level="WARNING")
            except Exception as exc:  # an address with no cluster behind it, a version mismatch
                where = "a local Ray" if self.address is None else f"Ray at {self.address}"
                raise BackendError(f"cannot start {where}: {exception_line(exc)}") from None
        dispatch = _Dispatch(ray, self, pending, spec)
        try:
            yield from _in_background(dispatch)
        finally:
            dispatch.close()
            if started:
                ray.shutdown()


_END = object()  # the background dispatcher has nothing more to hand over


def _in_background(dispatch: _Dispatch) -> Iterator[Outcome]:
    """The dispatcher's outcomes, with the dispatcher on a thread of its own.

    The driver's work per episode is then the larger of its store commit and its Ray traffic
    rather than their sum, and the driver's pace bounds the whole cluster's. At most
    `BUFFERED_OUTCOMES` wait to be stored; past that the dispatcher waits (and so do the workers).
    """
    handed: queue.Queue[Any] = queue.Queue(maxsize=BUFFERED_OUTCOMES)

    def hand(item: Any) -> bool:
        while not dispatch.stop.is_set():
            try:
                handed.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for outcome in dispatch.outcomes():
                if not hand(outcome):
                    return
        except BaseException as exc:  # a bug or a broken connection to Ray: the driver raises it
            hand(exc)
        finally:
            hand(_END)

    thread = threading.Thread(target=work, name="toolworlds-ray-dispatch", daemon=True)
    thread.start()
    try:
        while (item := handed.get()) is not _END:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        dispatch.stop.set()
        thread.join()


@dataclass
class _Slot:
    actor: Any
    name: str  # "worker-N", N counting every worker the run started
    in_flight: list[Any] = field(default_factory=list)  # in the order sent, which is the order it runs them
    finished: int = 0  # episodes this actor returned
    alone: bool = False  # it runs an episode that was on a worker when it died, with nothing queued behind


class _Dispatch:
    """One run's traffic: which episode is where, what to send next, what to do when a worker dies."""

    def __init__(self, ray: ModuleType, backend: RayBackend, pending: Sequence[Pending], spec: AgentSpec) -> None:
        self.ray = ray
        self.backend = backend
        self.pending = list(pending)
        self.todo: deque[int] = deque(range(len(pending)))
        self.alone: deque[int] = deque()  # episodes lost with a worker, to run each on a worker with nothing else
        self.tries = [0] * len(pending)  # sends, less those not charged for the worker's death
        self.where: dict[Any, tuple[_Slot, int]] = {}  # object ref -> (its worker, its episode)
        # Workers in a row that died before returning any episode: for each, the episodes that
        # may have been running when it died (one when the driver knows, more when it cannot tell).
        self.stillborn: list[frozenset[int]] = []
        self.stop = threading.Event()  # the driver stopped listening (interrupted, or done)
        self.reported: set[int] = set()  # the episodes whose outcome was handed over
        self.started = 0
        cpus = float(ray.cluster_resources().get("CPU", 1.0))
        self.count = max(1, backend.workers if backend.workers is not None else int(cpus))
        # One CPU per worker, or an equal share of the cluster's when more workers than CPUs are asked for.
        self.worker_class = ray.remote(num_cpus=min(1.0, cpus / self.count), max_restarts=0)(EpisodeWorker)
        tasks: dict[str, tuple[str, dict[str, Any]]] = {}
        for name, task, mode, _ in self.pending:
            tasks.setdefault(name, (mode, {}))[1][task.id] = task
        self.tasks = ray.put(tasks)
        self.spec = spec
        self.gate = None
        if spec.uses_endpoint and 0 < spec.concurrency < self.count:
            self.gate = ray.remote(num_cpus=0, max_concurrency=1000)(RequestGate).remote(spec.concurrency)

    def outcomes(self) -> Iterator[Outcome]:
        """Every episode's outcome; when a call to Ray fails (the cluster, or the connection to it, is gone),
        the episodes not yet finished are stored as failed, naming why."""
        gone = (self.ray.exceptions.RayError, ConnectionError, OSError)
        try:
            yield from self._dispatched()
        except gone as exc:
            yield from self._give_up(f"worker: the Ray cluster stopped answering ({exception_line(exc)}); {RERUN}")

    def _dispatched(self) -> Iterator[Outcome]:
        slots = [self._new_slot() for _ in range(min(self.count, len(self.pending)))]
        for slot in slots:
            self._fill(slot)
        no_cpu_since: float | None = None
        while self.where and not self.stop.is_set():
            ready, _ = self.ray.wait(list(self.where), num_returns=1, timeout=0.2)
            if not ready:
                no_cpu_since = None if self._has_cpu() else no_cpu_since or time.monotonic()
            if no_cpu_since is not None and time.monotonic() - no_cpu_since >= self.backend.lost_after:
                yield from self._give_up(f"worker: the Ray cluster has had no CPU to run a worker on for "
                                         f"{self.backend.lost_after:g} s (its nodes were lost); {RERUN}")
                return
            if not ready:
                continue
            slot, index = self.where[ready[0]]
            try:
                outcome = self.ray.get(ready[0])
            except self.ray.exceptions.RayActorError as exc:
                yield from self._worker_died(slot, exc)
                if len(self.stillborn) >= max(self.backend.attempts, self.count) and not self._explained():
                    yield from self._give_up(f"worker: {len(self.stillborn)} Ray workers in a row died before "
                                             f"finishing an episode; last: {exception_line(exc)}")
                    return
                slots[slots.index(slot)] = self._replace(slot)
                for live in slots:  # an idle worker takes its share of what the dead one left
                    self._fill(live)
                continue
            except Exception as exc:  # the outcome could not come back (lost object, serialisation)
                self._forget(ready[0], slot)
                name, task, _, trial = self.pending[index]
                yield self._reported(index, failed_outcome(name, task, f"worker: {exception_line(exc)}", trial))
            else:
                self._forget(ready[0], slot)
                slot.finished += 1
                self.stillborn.clear()
                yield self._reported(index, outcome)
            self._fill(slot)

    def close(self) -> None:
        """End the run's actors now, so the CPUs they hold are free for the next run at once."""
        for actor in [*self.backend._live.values(), *([self.gate] if self.gate is not None else [])]:
            self._kill(actor)
        self.backend._live.clear()

    def _kill(self, actor: Any) -> None:
        with contextlib.suppress(Exception):  # a cluster that is gone has nothing left to end
            self.ray.kill(actor)

    def _has_cpu(self) -> bool:
        """Whether some live node of the cluster offers a CPU (Ray counts only live nodes)."""
        return float(self.ray.cluster_resources().get("CPU", 0.0)) > 0

    def _new_slot(self) -> _Slot:
        self.started += 1
        name = f"worker-{self.started}"
        actor = self.worker_class.remote(name, self.tasks, self.spec, self.gate)
        self.backend._live[name] = actor
        return _Slot(actor, name)

    def _fill(self, slot: _Slot) -> None:
        """Send `slot` its next episodes: one that must run alone when it has nothing in flight, else
        queued ones up to `IN_FLIGHT_PER_WORKER` (an episode waiting to run alone waits for an idle
        worker: a fresh one that replaced the dead, or any once the queue runs dry)."""
        if not slot.in_flight and self.alone:
            slot.alone = True
            self._send(slot, self.alone.popleft())
            return
        while not slot.alone and self.todo and len(slot.in_flight) < IN_FLIGHT_PER_WORKER:
            self._send(slot, self.todo.popleft())

    def _send(self, slot: _Slot, index: int) -> None:
        name, task, _, trial = self.pending[index]
        self.tries[index] += 1
        ref = slot.actor.run.remote(name, task.id, trial)
        slot.in_flight.append(ref)
        self.where[ref] = (slot, index)

    def _forget(self, ref: Any, slot: _Slot) -> None:
        del self.where[ref]
        slot.in_flight.remove(ref)
        if not slot.in_flight:
            slot.alone = False

    def _explained(self) -> bool:
        """Whether one episode may have been running at every death of the row: then they are that
        episode's, which its own bound stops, not the sign of a cluster whose workers cannot start."""
        return bool(frozenset.intersection(*self.stillborn)) if self.stillborn else True

    def _worker_died(self, slot: _Slot, exc: Exception) -> Iterator[Outcome]:
        """Keep what the dead worker finished; send the rest again, or store it as failed past `attempts`.

        Of the episodes whose results were lost with the worker, one was running when it died and
        the rest were queued behind it and never started. Which one is known only when a single
        episode was lost: a worker runs its episodes in the order sent, but the first may have
        finished and its result died with the worker before reaching the driver, the second
        being the one running. So only a lone lost episode is charged the attempt; of two or
        more, none is. Each lost episode then runs alone (nothing else on its worker, before or
        behind it), so any later death under it is charged to it, and no episode can escape
        its bound by dying in company.
        """
        self.backend._live.pop(slot.name, None)
        if self.gate is not None:
            self.gate.forget.remote(slot.name)
        reason = exception_line(exc)
        lost: list[int] = []
        for ref in list(slot.in_flight):
            index = self.where[ref][1]
            self._forget(ref, slot)
            done, _ = self.ray.wait([ref], timeout=0)
            if done:
                try:
                    yield self._reported(index, self.ray.get(ref))  # it finished before its worker died
                    continue
                except Exception:
                    pass
            lost.append(index)
        if len(lost) > 1:
            for index in lost:
                self.tries[index] -= 1  # not known to have been running: not charged
        if slot.finished == 0:
            self.stillborn.append(frozenset(lost))
        for index in lost:
            if self.tries[index] < self.backend.attempts:
                self.alone.append(index)
                continue
            if self.stillborn and all(index in suspects for suspects in self.stillborn):
                # Every death in the row is explained: this episode kills its workers, and it
                # leaves the run now. They must not count as a cluster that cannot run anything.
                self.stillborn.clear()
            name, task, _, trial = self.pending[index]
            died = f"worker: the Ray worker running it died {self.tries[index]} times; last: {reason}"
            yield self._reported(index, failed_outcome(name, task, died, trial))

    def _replace(self, dead: _Slot) -> _Slot:
        self._kill(dead.actor)  # a worker that is only unreachable must not come back to run episodes twice
        return self._new_slot()

    def _reported(self, index: int, outcome: Outcome) -> Outcome:
        self.reported.add(index)
        return outcome

    def _give_up(self, reason: str) -> Iterator[Outcome]:
        """Every episode not yet reported, stored as failed for `reason`; the run's workers ended."""
        indices = [index for index in range(len(self.pending)) if index not in self.reported]
        for slot, _ in list(self.where.values()):
            self._kill(slot.actor)
        self.where.clear()
        self.alone.clear()
        self.todo.clear()
        for index in sorted(set(indices)):
            name, task, _, trial = self.pending[index]
            yield self._reported(index, failed_outcome(name, task, reason, trial))
