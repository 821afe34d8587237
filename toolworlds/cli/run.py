"""`toolworlds run`: run an agent over task sets, store every episode, print the scores."""

import dataclasses
import importlib.util
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scenarios.family import TaskQuery, WorldFamily
from scenarios.registry import families

from ..endpoints import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from .app import app, console, errors, escape, fail, family_named, said, split_commas
from .resume import resume_command, stored_config
from .stores import hide_secret, open_store, shown_url

if TYPE_CHECKING:
    from ..runconfig import RunConfig
    from ..runner import Backend, TaskSet


def _languages(given: list[str] | None, extra: list[str]) -> list[str] | None:
    """--lang values: repeated, comma-separated, or space-separated (`--lang en zh`: the words after
    the first value reach the command as extra arguments)."""
    if extra and not given:
        raise fail(f"unexpected argument(s): {' '.join(extra)}")
    words = [part for value in [*(given or []), *extra] for part in value.replace(",", " ").split()]
    unknown = [w for w in extra if not (len(w) <= 5 and w.replace("-", "").isalpha())]
    if unknown:
        raise fail(f"unexpected argument(s): {' '.join(unknown)}")
    return list(dict.fromkeys(words)) or None


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": False})
def run(
    ctx: typer.Context,
    tasks: Annotated[list[str] | None, typer.Option(
        "--tasks", help="Task families: banking (bundled), acebench, apibank, toolbench; or generated:FILE (a "
                        "file from `toolworlds generate`).")] = None,
    lang: Annotated[list[str] | None, typer.Option("--lang", help="Languages, e.g. --lang en zh (default: every "
                                                   "one the family's data holds).")] = None,
    data: Annotated[Path | None, typer.Option(help="Task data folder or file (default: the family's own).")] = None,
    agent: Annotated[str, typer.Option(help="oracle, noisy, llm, or package.module:Factory (your own agent: called "
                                            "with the task, returns an object with act(conversation, tools)).")
                     ] = "oracle",
    noise: Annotated[float, typer.Option(min=0.0, max=1.0, help="Mistake rate of the noisy agent.")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed of the noisy agent.")] = 0,
    model: Annotated[str, typer.Option(help="Model name, for --agent llm.")] = "",
    base_url: Annotated[str, typer.Option(help="OpenAI-compatible endpoint, for --agent llm.")] = "",
    user: Annotated[str, typer.Option(help="Multi-turn user simulator: auto (the llm user for an llm agent's "
                                           "multi-turn tasks, else scripted), scripted or llm.")] = "auto",
    user_model: Annotated[str, typer.Option(help="Model of the llm user simulator (default: --model).")] = "",
    user_base_url: Annotated[str, typer.Option(help="Endpoint of the llm user simulator (default: --base-url).")
                             ] = "",
    temperature: Annotated[float | None, typer.Option(min=0.0, help="Sampling temperature sent to the models "
                                                      "(default: the endpoint's).")] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, help="Most tokens per model reply (default: the "
                                                   "endpoint's).")] = None,
    max_steps: Annotated[int, typer.Option(min=1, help="Agent messages per episode before it is cut off.")] = 30,
    protocol: Annotated[str, typer.Option(help="Tool protocol: native (tool_calls) or bracket (calls written as "
                                          "text); default: each task's own for --agent llm (native unless it says "
                                          "bracket), text for oracle and noisy (native: they send tool_calls).")
                        ] = "",
    trials: Annotated[int, typer.Option(min=1, help="Runs of each task (pass^k is reported over them).")] = 1,
    db: Annotated[str, typer.Option(help="SQLAlchemy URL of the run store.")] = "sqlite:///toolworlds.db",
    run_id: Annotated[str | None, typer.Option("--run-id", help="Name of the run (default: run-N).")] = None,
    resume: Annotated[bool, typer.Option(help="Continue --run-id, skipping stored episodes (failed ones too).")
                      ] = False,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="With --resume: run the episodes stored as "
                                               "failed again, replacing them.")] = False,
    force: Annotated[bool, typer.Option(help="With --resume: continue even if the configuration differs from the "
                                        "stored run's (the difference is recorded with the run).")] = False,
    timeout: Annotated[float, typer.Option(min=0.001, max=86_400, help="Seconds to wait for each endpoint request.")
                       ] = DEFAULT_TIMEOUT,
    retries: Annotated[int, typer.Option(min=0, help="Further tries of an endpoint request that failed "
                                         "transiently (429, 5xx, connection, timeout), with backoff.")
                       ] = DEFAULT_RETRIES,
    workers: Annotated[int | None, typer.Option(min=0, help="Episodes run in parallel: worker processes here "
                                                "(default 1; 0: in this process, where a debugger can follow "
                                                "them), or Ray actors (default: one per CPU of the cluster).")
                       ] = None,
    episode_timeout: Annotated[float | None, typer.Option(min=0.001, help="Seconds an episode may run in its worker "
                                                          "process: past it the process is ended and the episode "
                                                          "stored as failed (default: no limit; the process backend "
                                                          "with --workers 1 or more).")] = None,
    backend: Annotated[str, typer.Option(help="Where episodes run: process (this machine) or ray (a Ray cluster; "
                                         'the ray extra: pip install -e ".\\[ray]"). See docs/distributed.md.')
                       ] = "process",
    address: Annotated[str | None, typer.Option(help="--backend ray: auto (the cluster this machine joined with "
                                                "`ray start`) or ray://host:port; default: a local Ray for this "
                                                "run.")] = None,
    concurrency: Annotated[int, typer.Option(min=0, help="LLM agents: at most this many endpoint requests in "
                                             "flight at once, across all workers (0: one per worker).")] = 0,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most this many tasks per task set, "
                                              "taken evenly across categories (toolbench: the first N that pass "
                                              "the filters).")] = None,
    task_ids: Annotated[list[str] | None, typer.Option("--task-ids", help="Only these task ids (repeat, or "
                                                       "comma-separated).")] = None,
    categories: Annotated[list[str] | None, typer.Option("--categories", help="Only these categories (repeat, or "
                                                         "comma-separated); the same as --filter-category.")
                          ] = None,
    filter_difficulty: Annotated[list[str] | None, typer.Option(
        help="Only tasks of this difficulty (exact, any case); repeat for several. Families whose tasks "
             "carry one: toolbench.")] = None,
    filter_category: Annotated[list[str] | None, typer.Option(
        help="Only tasks of this category; repeat for several (toolbench: any value found in the category, "
             "any case; others: exact).")] = None,
    level: Annotated[list[int] | None, typer.Option(
        min=1, help="Only tasks of this level (category level-N); repeat for several. Families whose tasks "
                    "have levels: apibank (1, 2, 3).")] = None,
    filter_tags: Annotated[list[str] | None, typer.Option(
        help="toolbench: only tasks whose tools mention every one of these tags (any case).")] = None,
    config: Annotated[Path | None, typer.Option(
        help="YAML or JSON file with mcpbr's keys: benchmark, dataset or data, sample_size, filter_difficulty, "
             "filter_category, filter_tags, task_ids. Flags win over the file.")] = None,
    pause: Annotated[float, typer.Option(hidden=True, help="Seconds to wait per episode.")] = 0.0,
    results: Annotated[Path | None, typer.Option(
        help="Where benchmarks with their own result files (acebench, apibank) write them, one folder per task set "
             "(default: results/<run-id>).")] = None,
    errata: Annotated[bool, typer.Option(help="Apply each family's errata (corrected or left-out tasks, listed by "
                                         "`toolworlds doctor`); --no-errata reads the data as published.")] = True,
) -> None:
    """Run an agent over task sets, store every episode, and print the scores.

    An episode that fails (the endpoint stays down, the agent breaks) is stored with its
    reason and the run goes on; the summary counts them. `--resume` skips them;
    `--resume --retry-failed` runs them again. A resume with another configuration (agent,
    model, endpoint, user simulator, seeds, task filter, trials) is refused unless `--force`.
    """
    from sandbox.bounds import exception_line

    from ..report import score_table
    from ..runner import AgentSpec, BackendError, ConfigMismatch, execute_run, load_factory, pending_tasks

    langs = _languages(lang, list(ctx.args))
    if agent not in ("oracle", "noisy", "llm") and ":" not in agent:
        raise fail(f"unknown agent {agent!r}; use oracle, noisy, llm or package.module:Factory")
    if ":" in agent:
        try:
            load_factory(agent)
        except ValueError as exc:
            raise fail(str(exc)) from None
    if agent == "llm" and not (model and base_url):
        raise fail("--agent llm needs --model and --base-url")
    if user == "llm" and not ((user_model or model) and (user_base_url or base_url)):
        raise fail("--user llm needs --user-model and --user-base-url (or --model and --base-url)")
    if user not in ("auto", "scripted", "llm"):
        raise fail(f"unknown user simulator {user!r}; use auto, scripted or llm")
    if "llm" in (agent, user) and importlib.util.find_spec("openai") is None:
        # Found here, before a run is made: each episode would otherwise fail on it and store a useless run.
        raise fail('--agent llm and --user llm need the openai package: pip install -e ".[llm]" in the '
                   "toolworlds checkout")
    if protocol not in ("", "native", "bracket"):
        raise fail(f"unknown protocol {protocol!r}; use native or bracket")
    if resume and not run_id:
        raise fail("--resume needs the --run-id of the run to continue")
    if retry_failed and not resume:
        raise fail("--retry-failed continues a run: give it with --resume --run-id")
    if force and not resume:
        raise fail("--force overrides a resume's configuration check: give it with --resume --run-id")
    for option, value in (("--noise", noise), ("--temperature", temperature), ("--timeout", timeout),
                          ("--episode-timeout", episode_timeout)):
        if value is not None and not math.isfinite(value):  # click's ranges let NaN through, and inf means nothing
            raise fail(f"{option} must be a finite number, not {value}")
    runs_on = _backend(backend, address, workers, episode_timeout)
    chosen = _run_config(config)
    if data is None and tasks and len(tasks) == 1 and tasks[0].startswith("generated:"):
        data = Path(tasks[0].partition(":")[2])  # stored with the run, so its resume reads the same file
    query = TaskQuery(
        data=data if data is not None else (Path(chosen.data) if chosen.data else None),
        limit=limit if limit is not None else chosen.sample_size,
        difficulties=tuple(filter_difficulty or chosen.filter_difficulty),
        categories=tuple(split_commas([*(categories or []), *(filter_category or [])]) or chosen.filter_category)
        + tuple(f"level-{n}" for n in level or ()),
        tags=tuple(filter_tags or chosen.filter_tags), task_ids=tuple(split_commas(task_ids or []) or chosen.task_ids))
    query = dataclasses.replace(query, errata=errata)
    sets = _task_sets(tasks or list(chosen.benchmark) or ["banking"], langs, query)
    if query.limit is not None and len(sets) > 1:
        errors.print(f"note: --limit {query.limit} applies to each of the {len(sets)} task sets "
                     f"({', '.join(s.name for s in sets)})", highlight=False, soft_wrap=True)
    store = open_store(db)
    if trials > 1 and store.one_trial_per_task:
        raise fail("this run store was made before repeated trials (one trial per task): use a new --db for "
                   "--trials above 1")
    name = run_id or store.new_run_id()
    if run_id and not resume and store.run(run_id) is not None:
        raise fail(f"run {run_id!r} already exists in {shown_url(db)}; add --resume to continue it")
    if resume and store.run(name) is None:  # a mistyped id would silently run (and pay for) everything again
        known = [row.run_id for row in store.runs()]
        store.close()
        raise fail(f"no run {name!r} in {shown_url(db)} to resume (runs there: {', '.join(known[-10:]) or 'none'}); "
                   "leave out --resume to start it")
    spec = AgentSpec(kind=agent, noise=noise, seed=seed, model=model, base_url=base_url, pause=pause, user=user,
                     timeout=timeout, retries=retries, temperature=temperature, max_tokens=max_tokens,
                     user_model=user_model, user_base_url=user_base_url, max_steps=max_steps, protocol=protocol,
                     concurrency=concurrency)
    filters = {key: (str(value) if isinstance(value, Path) else value)
               for key, value in dataclasses.asdict(query).items() if key != "lang"}
    todo = len(pending_tasks(store, name, sets, retry_failed=retry_failed, trials=trials))
    try:
        with _Progress(name, todo) as progress:
            episodes = execute_run(store, name, sets, spec, backend=runs_on, retry_failed=retry_failed,
                                   on_done=progress.done, trials=trials, query=filters, force=force)
    except ConfigMismatch as exc:
        store.close()
        raise fail(f"{exc}. Resume with the same options, or add --force to continue anyway (recorded in the "
                   f"run).") from None
    except BackendError as exc:
        store.close()
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        errors.print(f"interrupted: every finished episode is stored. Continue with: "
                     f"{escape(resume_command(name, db, config=stored_config(store, name)))}", highlight=False,
                     soft_wrap=True)
        store.close()
        raise typer.Exit(code=130) from None
    except Exception as exc:  # the store itself failed mid-run: say which run to continue
        store.close()
        raise fail(f"run {name} stopped: {hide_secret(db, exception_line(exc))}. Every finished episode is "
                   f"stored; continue with: {resume_command(name, db, config=stored_config(store, name))}"
                   ) from None
    console.print(score_table(name, store.scores(name), title=f"{escape(name)}: {escape(spec.describe())} "
                                                              f"({escape(shown_url(db))})"))
    _print_benchmark_tables(sets, episodes, results or Path("results") / name, query.data)
    stored = store.run(name)
    _print_summary(name, db, episodes, json.loads(stored.config) if stored is not None else {})
    store.close()
    if episodes and all(episode.error is not None for episode in episodes):
        # A run that produced no score at all (a wrong endpoint, a missing key) must not look like a result.
        errors.print("[bold red]error:[/] every episode failed (reasons above)", highlight=False)
        raise typer.Exit(code=1)


def _backend(name: str, address: str | None, workers: int | None, episode_timeout: float | None
             ) -> "Backend":
    """The runner backend the options name (`toolworlds.runner.Backend`)."""
    if episode_timeout is not None and (name != "process" or workers == 0):
        raise fail("--episode-timeout is kept by the process backend's pool, which ends the process of an episode "
                   "past it: give it with --backend process and --workers 1 or more")
    if name == "process":
        if address is not None:
            raise fail("--address names a Ray cluster: give it with --backend ray")
        from ..process_backend import ProcessBackend

        return ProcessBackend(1 if workers is None else workers, time_limit=episode_timeout)
    if name == "ray":
        if workers == 0:
            raise fail("--workers 0 runs episodes in this process: give it with --backend process")
        from ..ray_backend import RayBackend

        return RayBackend(address=address, workers=workers)
    raise fail(f"unknown backend {name!r}; use process or ray")


def _print_benchmark_tables(sets: list["TaskSet"], episodes: list[Any], folder: Path, data: Path | None) -> None:
    """Task sets whose family writes its own result files (`evaluators.<family>.score_run`):
    write them from the episodes' result records, and print the benchmark's own tables."""
    from evaluators.conventions import family_function
    from evaluators.results import RunRecords

    from ..report import results_table

    if data is not None and data.is_file():
        from scenarios.generation import is_generated

        if is_generated(data):
            return  # generated tasks are not the benchmark's: its tables would score them against its answers
    for task_set in sets:
        scorer = family_function(task_set.family, "score_run")
        records = tuple((e.category, json.loads(e.result_record)) for e in episodes
                        if e.task_set == task_set.name and e.result_record)
        if scorer is None or not records:
            continue
        target = folder / f"{task_set.family}_{task_set.lang}"
        try:
            tables = scorer(RunRecords(task_set.lang, target, records, data))
        except (LookupError, ValueError, OSError) as exc:
            errors.print(f"[yellow]note:[/] {escape(task_set.name)}: no benchmark tables: {escape(str(exc))}",
                         highlight=False)
            continue
        for table in tables:
            console.print(results_table(table))
        console.print(f"{escape(task_set.name)}: result files in {escape(str(target))}", highlight=False)





class _Progress:
    """Progress on stderr: the live line (`toolworlds.progress.RunProgress`) on a terminal, one plain
    line per episode anywhere else (a log file, CI), so a long run never looks stalled."""

    def __init__(self, run_id: str, total: int) -> None:
        from ..progress import RunProgress

        self.run_id, self.total, self.count = run_id, total, 0
        self._live = RunProgress(errors, escape(run_id), total) if errors.is_terminal else None

    def __enter__(self) -> "_Progress":
        if self._live is not None:
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)

    def done(self, outcome: Any) -> None:
        self.count += 1
        if self._live is not None:
            self._live.done(outcome)
            return
        episode = outcome.episode
        verdict = "failed" if episode.get("error") else ("solved" if episode.get("success") else "missed")
        errors.print(f"{escape(self.run_id)} [{self.count}/{self.total}] {escape(str(episode.get('task_set')))} "
                     f"{escape(str(episode.get('task_id')))}: {verdict}", highlight=False, soft_wrap=True)


def _print_summary(run_id: str, db: str, episodes: list[Any], config: dict[str, Any]) -> None:
    """How many episodes the run holds, which failed and why, and how to continue it."""
    failed = [e for e in episodes if e.error is not None]
    console.print(f"run {escape(run_id)}: {len(episodes)} episodes stored, {len(failed)} failed", highlight=False)
    reasons: dict[str, list[str]] = {}
    for episode in failed:
        reasons.setdefault(episode.error[:160], []).append(f"{episode.task_set}:{episode.task_id}")
    for reason, tasks in sorted(reasons.items(), key=lambda kv: -len(kv[1]))[:10]:
        shown = ", ".join(tasks[:3]) + (f" and {len(tasks) - 3} more" if len(tasks) > 3 else "")
        console.print(f"  {len(tasks)} x {escape(reason)}  ({escape(shown)})", highlight=False, soft_wrap=True)
    if failed:
        again = resume_command(run_id, db, "--retry-failed", config=config)
        console.print(f"run the failed episodes again: {escape(again)}", highlight=False, soft_wrap=True)


def _run_config(path: Path | None) -> "RunConfig":
    from ..runconfig import RunConfig, read_run_config  # only `run` reads a config file

    if path is None:
        return RunConfig()
    try:
        chosen = read_run_config(path)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if chosen.ignored:
        unused = escape(", ".join(chosen.ignored))
        errors.print(f"[yellow]note:[/] {escape(path.name)}: not used by toolworlds: {unused}", highlight=False)
    return chosen



def _task_sets(names: list[str], langs: list[str] | None, query: TaskQuery) -> list["TaskSet"]:
    """The task sets to run. Without --lang, each family's languages are the ones its data holds
    (a folder of English tasks is never also run as Chinese); a language asked for by name must
    have tasks."""
    from ..runner import TaskSet  # the runner brings the run store (sqlmodel, sqlalchemy): only for runs

    if query.data is not None and len(names) > 1:
        raise fail("--data names one family's tasks: give exactly one --tasks with it")
    loads = []
    generated: dict[str, TaskSet] = {}
    for name in names:
        if name.startswith("generated:") or (name.startswith("world:") and query.data is not None):
            # a user's world (`world:package.module:factory`) runs only from a generated file
            generated[name] = _generated_set(name if name.startswith("generated:") else f"generated:{query.data}",
                                             langs, query)
            continue
        entry = family_named(name)
        if entry.load_tasks is None:
            runnable = [f.name for f in families() if f.load_tasks is not None]
            raise fail(f"{name} has no runnable tasks; available: {', '.join(runnable)}")
        for lang in langs or entry.languages:
            if lang not in entry.languages:
                raise fail(f"{name} has no {lang!r} tasks; languages: {', '.join(entry.languages)}")
            try:
                loads.append((entry, lang, entry.tasks(dataclasses.replace(query, lang=lang))))
            except (LookupError, ValueError, OSError) as exc:  # a loader's own refusal of the data it was given
                raise fail(f"{name}/{lang}: {said(exc)}") from None
    if query.task_ids:
        _check_task_ids(query, loads, {str(task.id) for made in generated.values() for task in made.tasks})
    sets = []
    for name in names:
        if name in generated:
            sets.append(generated[name])
            continue
        absent: list[str] = []
        for entry, lang, loaded in (load for load in loads if load[0].name == name):
            if not loaded.tasks and not langs:
                absent.append(f"{lang} ({'; '.join(loaded.problems[:2]) or 'no tasks'})")
                continue
            if loaded.problems:
                raise fail(f"{name}/{lang}: " + "; ".join(loaded.problems[:5]))
            if not loaded.tasks:
                raise fail(f"{name}/{lang}: no tasks match")
            sets.append(TaskSet(name, lang, loaded.tasks, entry.end_state_mode))
        if absent and not any(s.family == name for s in sets):
            raise fail(f"{name}: no tasks in any language: " + "; ".join(absent))
        if absent:
            errors.print(f"[yellow]note:[/] {escape(name)}: no data for " + escape(", ".join(absent)),
                         highlight=False, soft_wrap=True)
    return sets


def _check_task_ids(query: TaskQuery, loads: list[tuple[WorldFamily, str, Any]], generated: set[str]) -> None:
    """Refuse a `--task-ids` naming a task that will not run, rather than run the others without it: an id
    no task set has (with the closest ones it does have), or one the other filters or `--limit` leave out.
    Every task set asked for counts: an id found in one language is not missing from the other."""
    chosen = generated | {str(task.id) for _, _, loaded in loads for task in loaded.tasks}
    missing = [task_id for task_id in dict.fromkeys(query.task_ids) if task_id not in chosen]
    # An id may name a task by another of its ids (ToolBench: the dataset's id, or mcpbr's `toolbench_N`
    # counted after the filters): it is there when the same query asking for it alone finds a task.
    for entry, lang, _ in loads:
        missing = [task_id for task_id in missing
                   if not _found_alone(entry, dataclasses.replace(query, lang=lang, task_ids=(task_id,)))]
    if not missing:
        return
    everything = dataclasses.replace(query, task_ids=(), limit=None, categories=(), difficulties=(), tags=())
    known: set[str] = set()
    for entry, lang, _ in loads:
        try:
            known.update(str(task.id) for task in entry.tasks(dataclasses.replace(everything, lang=lang)).tasks)
        except (LookupError, ValueError, OSError):  # the filtered load read this data: the full one will too
            continue
    unknown = [task_id for task_id in missing if task_id not in known]
    if unknown:
        import difflib

        hints = {task_id: difflib.get_close_matches(task_id, known, n=3, cutoff=0.6) for task_id in unknown}
        named = "; ".join(f"{task_id!r}" + (f" (closest: {', '.join(hints[task_id])})" if hints[task_id] else "")
                          for task_id in unknown[:10])
        more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
        raise fail(f"--task-ids: no task has the id(s) {named}{more}")
    shown = ", ".join(repr(task_id) for task_id in missing[:10]) + (" ..." if len(missing) > 10 else "")
    raise fail(f"--task-ids: {shown} left out by the other filters or --limit; drop those or these ids")


def _found_alone(entry: WorldFamily, query: TaskQuery) -> bool:
    try:
        return bool(entry.tasks(query).tasks)
    except (LookupError, ValueError, OSError):  # the filtered load read this data: this one reads it too
        return False


def _generated_set(name: str, langs: list[str] | None, query: TaskQuery) -> "TaskSet":
    """The task set of a `generated:FILE`: its family and language come from the file's header."""
    from ..generation import generated_path, generated_source
    from ..runner import TaskSet

    path = generated_path(name)
    try:
        entry, lang = generated_source(path) if path is not None else (None, "")
        if entry is None:
            raise LookupError(f"{name}: name a file after generated:")
        if langs and lang not in langs:
            raise LookupError(f"{path} holds {lang} tasks, not {', '.join(langs)}")
        loaded = entry.tasks(dataclasses.replace(query, lang=lang, data=path))
    except (LookupError, ValueError, OSError) as exc:
        raise fail(said(exc)) from None
    if loaded.problems:
        raise fail(f"{path}: " + "; ".join(loaded.problems[:5]))
    if not loaded.tasks:
        raise fail(f"{path}: no tasks match")
    return TaskSet(entry.name, lang, loaded.tasks, entry.end_state_mode)
