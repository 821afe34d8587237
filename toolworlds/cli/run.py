"""`toolworlds run`: flags -> `RunOptions` -> a planned run -> its episodes, scores and tables.

Every check of what the flags say, and the `--config` merge, is `RunOptions`'s (`toolworlds.options`);
the task sets and the store's checks are `toolworlds.launch`'s. This module parses, prints and exits.
"""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..endpoints import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from .resume import resume_command, stored_config
from .shared import app, console, errors, escape, fail, split_commas
from .stores import hide_secret, open_store, shown_url

if TYPE_CHECKING:
    from ..launch import PlannedRun
    from ..options import RunOptions
    from ..runner import TaskSet


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
    from ..options import OptionError, RunOptions

    try:
        options = RunOptions.checked(
            tasks=tasks, lang=_languages(lang, list(ctx.args)), data=data, agent=agent, noise=noise, seed=seed,
            model=model, base_url=base_url, user=user, user_model=user_model, user_base_url=user_base_url,
            temperature=temperature, max_tokens=max_tokens, max_steps=max_steps, protocol=protocol, trials=trials,
            db=db, run_id=run_id, resume=resume, retry_failed=retry_failed, force=force, timeout=timeout,
            retries=retries, workers=workers, episode_timeout=episode_timeout, backend=backend, address=address,
            concurrency=concurrency, limit=limit, task_ids=task_ids,
            categories=split_commas([*(categories or []), *(filter_category or [])]),
            difficulties=filter_difficulty, levels=tuple(level or ()), tags=filter_tags, config=config, pause=pause,
            results=results, errata=errata)
    except OptionError as exc:
        raise fail(str(exc)) from None
    _run(options)


def _run(options: "RunOptions") -> None:
    """Plan the run (task sets, store checks), run it with a progress line, print its tables and summary."""
    from ..report import score_table

    planned = _planned(options)
    episodes = _execute(planned)
    name, db, store = planned.run_id, options.db, planned.store
    title = f"{escape(name)}: {escape(options.agent_spec().describe())} ({escape(shown_url(db))})"
    console.print(score_table(name, store.scores(name), title=title))
    _print_benchmark_tables(planned.task_sets, episodes, options.results or Path("results") / name, options.data)
    _print_summary(name, db, episodes, stored_config(store, name))
    store.close()
    if episodes and all(episode.error is not None for episode in episodes):
        # A run that produced no score at all (a wrong endpoint, a missing key) must not look like a result.
        errors.print("[bold red]error:[/] every episode failed (reasons above)", highlight=False)
        raise typer.Exit(code=1)


def _planned(options: "RunOptions") -> "PlannedRun":
    """The task sets chosen and checked against the store, every note printed; one line and exit 2 if not."""
    from ..launch import plan_run
    from ..options import OptionError
    from ..task_selection import select_task_sets

    if options.config is not None and options.config_ignored:
        unused = escape(", ".join(options.config_ignored))
        errors.print(f"[yellow]note:[/] {escape(options.config.name)}: not used by toolworlds: {unused}",
                     highlight=False)
    try:
        selection = select_task_sets(options)
    except OptionError as exc:
        raise fail(str(exc)) from None
    store = open_store(options.db)
    try:
        planned = plan_run(options, store, selection)
    except OptionError as exc:
        store.close()
        raise fail(str(exc)) from None
    for note in planned.notes:
        errors.print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
    return planned


def _execute(planned: "PlannedRun") -> list[Any]:
    """Every pending episode run and stored; a refusal or a failure of the store is one line naming the run."""
    from sandbox.input_limits import exception_line

    from ..runner import BackendError, ConfigMismatch

    name, db, store = planned.run_id, planned.options.db, planned.store
    try:
        with _Progress(name) as progress:
            return planned.execute(on_start=progress.start, on_done=progress.done)
    except ConfigMismatch as exc:
        store.close()
        raise fail(f"{exc}. Resume with the same options, or add --force to continue anyway (recorded in the "
                   f"run).") from None
    except (BackendError, ValueError) as exc:  # a backend that cannot start; a store that cannot hold the run
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

    def __init__(self, run_id: str) -> None:
        self.run_id, self.total, self.count = run_id, 0, 0
        self._live: Any = None

    def __enter__(self) -> "_Progress":
        return self

    def start(self, total: int) -> None:
        """The run knows how many episodes it will run: the live line starts (on a terminal)."""
        self.total = total
        if errors.is_terminal:
            from ..progress import RunProgress

            self._live = RunProgress(errors, escape(self.run_id), total)
            self._live.__enter__()

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
