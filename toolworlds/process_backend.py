"""Episodes on this machine: in a pool of worker processes (`--workers N`), or in the driver's own
process (`--workers 0`, where a debugger can follow them).

The pool is pebble's, not the standard library's: when one process of a
`concurrent.futures.ProcessPoolExecutor` dies (killed, out of memory, a segfault, an agent calling
`os._exit`), that executor is broken and every episode queued or running in it fails with it.
pebble's pool knows which episode the dead process was running (`ProcessExpired`), starts another
process in its place and goes on, so only that episode is charged: it runs again, up to `attempts`
times in all, and is then stored as failed with the reason. Should the pool itself break (pebble
gives up when a process dies between episodes with none running), the episodes it had not finished
run again on a new pool, uncharged, as long as each new pool finishes something.

No wait here is unbounded, whatever pebble misses. Each episode, as it starts in a pool process, leaves
that process's id in a beacon file, so the driver knows which process runs it without asking pebble.
pebble can lose an episode whose process dies: when the death is seen before the process's word that it
took the episode, pebble looks for the episode, finds none, drops the death, and later marks the episode
running in a process that no longer exists; its result never comes. The driver charges such an episode
the death itself once its process has been gone for `LOST_SECONDS`. And a pool whose processes stop
taking episodes (one died holding the lock on the pool's pipe) is seen as stalled after `STALL_SECONDS`
with episodes waiting and processes idle: it is given up like a broken pool, and its episodes run again.

Ctrl-C reaches the whole process group; pool processes ignore it and the driver ends them at once
(the episodes they were running are not stored, so `--resume` runs them again). A pool process whose
driver is gone (`kill -9`) ends itself within `DRIVER_CHECK_SECONDS`.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import itertools
import math
import multiprocessing
import os
import signal
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sandbox.input_limits import exception_line
from scenarios.family import Task

from .llm import SdkClients
from .worker import AgentSpec, Gate, Outcome, Pending, ToolOffers, failed_outcome, run_one

# A pool never has more processes than episodes to run, nor more than this many per CPU this process may
# use: episodes that wait on an endpoint leave their CPU free, so a pool may well outnumber the cores, but
# each worker is a process of its own (tens of MB once it has run an episode), and `--workers 100000`
# once forked 1,657 of them in 16 s for a run of two episodes.
WORKERS_PER_CPU = 16
DRIVER_CHECK_SECONDS = 0.25  # how often a pool process checks that its driver is still there
BROKEN_CHECK_SECONDS = 0.5  # how often the driver, waiting for outcomes, checks that its pool still runs
# How long an episode's process may be gone with no word from pebble (it reports a death within 0.1 s) before
# the driver charges the episode the death itself.
LOST_SECONDS = 2.0
# How long a pool may leave episodes waiting while some of its processes are idle (none started, none finished)
# before it is given up as stalled. A new process starts in well under a second; an episode's own length does
# not count, since a pool whose every process runs an episode is not idle.
STALL_SECONDS = 30.0
WINDOW_PER_WORKER = 4  # episodes handed to the pool ahead of their turn, per process: enough that none waits


def pool_size(workers: int, pending: int) -> int:
    """The processes a pool asked for `workers` starts for `pending` episodes (see `WORKERS_PER_CPU`)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(workers, pending, WORKERS_PER_CPU * cpus))


@dataclass(frozen=True)
class ProcessBackend:
    """Episodes in a pool of `workers` processes on this machine, or, with 0, in this process.

    An episode whose process dies under it runs again on another, up to `attempts` times in all.
    One still running `time_limit` seconds after its process took it (None: no limit) has that
    process ended and is stored as failed, so a hung agent cannot hold a worker forever.
    In this process nothing stands between an episode and the run: an agent that ends its process
    (or a segfault, or the OOM killer) ends the run there, every `--resume` stops at the same
    episode again, and there is no time limit."""

    workers: int = 1
    attempts: int = 3
    time_limit: float | None = None

    def __post_init__(self) -> None:
        if self.time_limit is not None and not (math.isfinite(self.time_limit) and self.time_limit > 0):
            raise ValueError(f"an episode's time limit is a positive number of seconds, not {self.time_limit}")

    def outcomes(self, pending: Sequence[Pending], spec: AgentSpec) -> Iterator[Outcome]:
        if not pending:
            return
        if self.workers <= 0:
            clients, offers = SdkClients(), ToolOffers()  # this run's, in this process
            try:
                for name, task, mode, trial in pending:
                    yield run_one(name, task, spec, mode, trial=trial, clients=clients, offers=offers)
            finally:
                clients.close()
            return
        size = pool_size(self.workers, len(pending))
        with endpoint_permits(spec, size) as gate:
            yield from _PoolRun(pending, spec, gate, size, max(1, self.attempts), self.time_limit).outcomes()


class _PoolRun:
    """One run's episodes on pebble pools: what is still to run, and how many times each has been
    running in a process that died."""

    def __init__(self, pending: Sequence[Pending], spec: AgentSpec, gate: Gate | None, size: int,
                 attempts: int, time_limit: float | None) -> None:
        self.pending = pending
        self.time_limit = time_limit
        self.spec = spec
        self.gate = gate
        self.size = size
        self.attempts = attempts
        self.deaths = [0] * len(pending)
        self.beacons = ""  # the folder of this run's beacons (see the module's docstring)
        self.serials = itertools.count()
        self.sent: dict[Future[Outcome], str] = {}  # each unanswered future handed to a pool: its beacon
        self.by_beacon: dict[str, Future[Outcome]] = {}

    def outcomes(self) -> Iterator[Outcome]:
        with tempfile.TemporaryDirectory(prefix="toolworlds-beacons-") as beacons:
            self.beacons = beacons
            yield from self._pools()

    def _pools(self) -> Iterator[Outcome]:
        from pebble import ProcessPool

        pending = self.pending
        todo = list(range(len(pending)))
        breaks = 0  # pools in a row that broke before finishing any episode
        while todo:
            processes = min(self.size, len(todo))
            pool = ProcessPool(max_workers=processes, initializer=_end_with_driver, initargs=(os.getpid(),))
            try:
                broken, finished = "", False
                # Handed to the pool a window at a time: `wait` reads every future it is given, so handing it
                # all of a 10,000-episode run made each wait cost in proportion to the episodes left.
                queue, todo = deque(todo), []
                futures: dict[Future[Outcome], int] = {}
                try:
                    self._top_up(pool, futures, queue)
                except _PoolBroke as exc:  # none of this pool's episodes will be answered for: all run again
                    todo, broken = [*futures.values(), *queue], str(exc)
                    futures = {}
                    queue.clear()
                watch = _Watch(processes)
                while futures:
                    done, _ = wait(futures, timeout=BROKEN_CHECK_SECONDS, return_when=FIRST_COMPLETED)
                    lost: set[Future[Outcome]] = set()
                    if done:
                        watch.finished()
                    else:
                        if not pool.active:  # broken with episodes it will never answer for
                            todo += [*futures.values(), *queue]
                            queue.clear()
                            broken = broken or "the process pool stopped working"
                            break
                        lost, stalled = watch.check(self._started(futures), len(futures))
                        if stalled:
                            todo += [*futures.values(), *queue]
                            queue.clear()
                            broken = (f"the process pool stalled: no episode started or finished in "
                                      f"{STALL_SECONDS:g} s while episodes waited and processes were idle")
                            break
                    for future in sorted(done | lost, key=futures.__getitem__):  # in the order sent
                        index = futures.pop(future)
                        try:
                            outcome = self._settle(pool, futures, future, index, future in lost)
                        except _PoolBroke as exc:  # it runs again on a new pool, uncharged
                            todo.append(index)
                            broken = str(exc)
                            continue
                        if outcome is None:  # its process died under it: it runs again on this pool
                            continue
                        finished = True
                        yield outcome
                    try:
                        self._top_up(pool, futures, queue)
                    except _PoolBroke as exc:  # the rest runs again on a new pool
                        todo += queue
                        queue.clear()
                        broken = str(exc)
            finally:  # done, interrupted (Ctrl-C) or abandoned: no process of this pool outlives it
                pool.stop()
                pool.join()
            breaks = 0 if finished else breaks + 1
            if todo and breaks >= self.attempts:
                reason = f"worker: {breaks} process pools in a row broke before finishing an episode; last: {broken}"
                for index in todo:
                    name, task, _, trial = pending[index]
                    yield failed_outcome(name, task, reason, trial)
                return

    def _settle(self, pool: Any, futures: dict[Future[Outcome], int], future: Future[Outcome], index: int,
                lost: bool) -> Outcome | None:
        """The outcome of the episode `index` whose `future` is answered (or `lost`: pebble lost it with its
        process, and the driver charges it the death). One whose process died under it is handed to `pool`
        again (None) until it has died `attempts` times, and is then failed. `_PoolBroke` when the pool broke
        before it started, or refused it again: it runs again on a new pool, uncharged."""
        from pebble import ProcessExpired

        worker = self._worker(future)
        self._forget(future)
        name, task, _, trial = self.pending[index]
        if lost:
            ending = "exit code unknown (the pool lost track of it)"
        else:
            try:
                return future.result()
            except BrokenProcessPool as exc:
                if worker is None or _alive(worker):  # not started, or not where a process died
                    raise _PoolBroke(exception_line(exc)) from None
                ending = "exit code unknown (its process died as the pool broke)"
            except ProcessExpired as exc:
                ending = _ending(exc.exitcode)
            except TimeoutError as exc:  # pebble ended its process, and starts another in its place
                reason = (exception_line(exc) if self.time_limit is None else f"the episode was still running "
                          f"after its time limit of {self.time_limit:g} s; its process was ended")
                return failed_outcome(name, task, f"worker: {reason}", trial)
            except Exception as exc:  # the episode or its outcome could not cross processes
                return failed_outcome(name, task, f"worker: {exception_line(exc)}", trial)
        self.deaths[index] += 1
        if self.deaths[index] < self.attempts:
            futures[self._schedule(pool, index)] = index
            return None
        times = "time" if self.deaths[index] == 1 else "times"
        return failed_outcome(name, task, f"worker: the worker process running it died {self.deaths[index]} "
                                          f"{times}; last: {ending}", trial)

    def _top_up(self, pool: Any, futures: dict[Future[Outcome], int], queue: deque[int]) -> None:
        """Hand `pool` episodes from `queue` until `WINDOW_PER_WORKER` per process are in flight; `_PoolBroke`
        when it refuses one (which goes back to the front of the queue)."""
        while queue and len(futures) < WINDOW_PER_WORKER * self.size:
            index = queue.popleft()
            try:
                futures[self._schedule(pool, index)] = index
            except _PoolBroke:
                queue.appendleft(index)
                raise

    def _worker(self, future: Future[Outcome]) -> int | None:
        """The process the episode of `future` started in, from its beacon; None before it started."""
        return _beacon_pid(self.sent[future])

    def _started(self, futures: Mapping[Future[Outcome], int]) -> dict[Future[Outcome], int]:
        """The episodes of `futures` that have started, with their process. The beacon folder holds only the
        beacons of unfinished episodes (`_forget` removes the others), so a wait reads a few files, not one
        per episode queued."""
        started = {}
        for entry in os.scandir(self.beacons):
            future = self.by_beacon.get(entry.path)
            worker = None if future is None or future not in futures else _beacon_pid(entry.path)
            if future is not None and worker is not None:
                started[future] = worker
        return started

    def _forget(self, future: Future[Outcome]) -> None:
        """`future` is answered for: its beacon goes."""
        beacon = self.sent.pop(future)
        self.by_beacon.pop(beacon, None)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(beacon)

    def _schedule(self, pool: Any, index: int) -> Future[Outcome]:
        """The episode handed to `pool`; `_PoolBroke` when the pool broke first (a process of it died while
        no episode was running), which pebble tells by refusing with a `RuntimeError`."""
        name, task, mode, trial = self.pending[index]
        beacon = os.path.join(self.beacons, str(next(self.serials)))
        try:
            future: Future[Outcome] = pool.schedule(_run_in_pool, args=(name, task, self.spec, mode, self.gate,
                                                                        trial, beacon), timeout=self.time_limit)
        except RuntimeError as exc:
            raise _PoolBroke(f"the process pool broke while episodes were handed to it ({exc})") from None
        self.sent[future] = beacon
        self.by_beacon[beacon] = future
        return future


class _Watch:
    """What the driver sees of one pool's processes while it waits: episodes whose process is gone with no
    word from pebble (lost), and whether the pool has stalled (see the module's docstring)."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self.gone: dict[int, float] = {}  # process id -> when the driver first saw it gone
        self.started: frozenset[Future[Outcome]] = frozenset()
        self.moved = time.monotonic()  # when an episode last started or finished, or no process was idle

    def finished(self) -> None:
        self.moved = time.monotonic()

    def check(self, started: Mapping[Future[Outcome], int], unfinished: int) -> tuple[set[Future[Outcome]], bool]:
        """`started`: the unfinished episodes that have started, with their process, of `unfinished` in all.
        Returns the lost episodes, and whether the pool has stalled."""
        now = time.monotonic()
        lost: set[Future[Outcome]] = set()
        running = 0
        for future, worker in started.items():
            if _alive(worker):
                running += 1
            elif now - self.gone.setdefault(worker, now) >= LOST_SECONDS:
                lost.add(future)
        begun = frozenset(started)
        if begun - self.started or unfinished == len(begun) or running >= self.processes:
            self.moved = now
        self.started = begun
        return lost, now - self.moved >= STALL_SECONDS


def _beacon_pid(path: str) -> int | None:
    """The process id a beacon holds; None while there is none."""
    try:
        with open(path) as beacon:
            return int(beacon.read())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie does not: it has ended, unreaped)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _PoolBroke(Exception):
    """The pool refused an episode: it broke while episodes were being handed to it."""


def _ending(code: Any) -> str:
    """How a process ended, from its exit code (negative: the signal that killed it)."""
    if isinstance(code, int) and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _end_with_driver(driver: int) -> None:
    """Run in each pool process as it starts: it ends itself once `driver` is no longer its parent
    (killed with `kill -9`, so it could not end its pool), instead of waiting on its pipe forever."""

    def watch() -> None:
        while os.getppid() == driver:
            time.sleep(DRIVER_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="toolworlds-driver-watch", daemon=True).start()


def _run_in_pool(task_set: str, task: Task, spec: AgentSpec, mode: str, gate: Gate | None, trial: int,
                 beacon: str) -> Outcome:
    """`run_one` in a pool process, with that process's SDK clients, once its `beacon` names this process.
    A `SystemExit` or `KeyboardInterrupt` that agent code raises (`run_one` stops only `Exception`s) is this
    episode's failure too: pebble would hand it to the driver, where `future.result()` raising it would end
    the run."""
    with open(f"{beacon}.tmp", "w") as written:
        written.write(str(os.getpid()))
    os.replace(f"{beacon}.tmp", beacon)  # whole or absent: the driver never reads half a number
    try:
        clients, offers = _process_kit(os.getpid())
        return run_one(task_set, task, spec, mode, gate=gate, trial=trial, clients=clients, offers=offers)
    except BaseException as exc:
        return failed_outcome(task_set, task, f"run: {exception_line(exc)}", trial)


@functools.cache
def _process_kit(pid: int) -> tuple[SdkClients, ToolOffers]:
    """The SDK clients and converted tool lists of the pool process `pid`, made on its first episode and kept
    until it exits (keyed by process, so a process forked from one that had made its own never reuses its
    connections). A pool process's own: a pool calls a top-level function, which has no other place to keep it."""
    return SdkClients(), ToolOffers()


@contextmanager
def endpoint_permits(spec: AgentSpec, workers: int, *, file_locks: bool | None = None) -> Iterator[Gate | None]:
    """The permits a pool's processes share when the run limits its endpoint below one request per worker:
    `FilePermits` where the system has `flock` (`file_locks`, by default whether `fcntl` exists), else a
    semaphore in a manager process, which a worker that dies holding a permit never gives back."""
    if not spec.uses_endpoint or not 0 < spec.concurrency < workers:
        yield None
        return
    if not (importlib.util.find_spec("fcntl") is not None if file_locks is None else file_locks):
        with multiprocessing.Manager() as manager:
            yield manager.BoundedSemaphore(spec.concurrency)
        return
    with tempfile.TemporaryDirectory(prefix="toolworlds-permits-") as directory:
        yield FilePermits(directory, spec.concurrency)


class FilePermits:
    """`count` permits shared by the processes of one machine; `with permits:` holds one.

    Each permit is an exclusive lock (`flock`) on a file of its own. The kernel drops the locks of a
    process that ends, so a worker that dies holding a permit gives it back; a semaphore's count
    would stay taken for the rest of the run, and with one permit every later request would wait
    forever. Waiting is polling, from 1 ms up to 50 ms between tries: endpoint requests take far longer.
    """

    def __init__(self, directory: str, count: int) -> None:
        self.paths = [os.path.join(directory, f"permit-{n}") for n in range(count)]
        for path in self.paths:
            with open(path, "a"):
                pass
        self._held = threading.local()

    def __getstate__(self) -> list[str]:
        return self.paths

    def __setstate__(self, paths: list[str]) -> None:
        self.paths, self._held = paths, threading.local()

    def __enter__(self) -> FilePermits:
        import fcntl

        delay = 0.001
        while True:
            for path in self.paths:
                descriptor = os.open(path, os.O_RDWR)
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(descriptor)
                    continue
                self._stack().append(descriptor)
                return self
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def __exit__(self, *_: object) -> None:
        os.close(self._stack().pop())  # closing the only descriptor of the lock releases it

    def _stack(self) -> list[int]:
        """The descriptors of the permits this thread holds, the latest last."""
        if not hasattr(self._held, "stack"):
            self._held.stack = []
        stack: list[int] = self._held.stack
        return stack
