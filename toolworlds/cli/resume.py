"""How a stored run is continued: the `toolworlds run --resume` command line that repeats its configuration."""

import json
import shlex
from typing import Any

from .stores import shown_url


def stored_config(store: Any, run_id: str) -> dict[str, Any]:
    try:
        stored = store.run(run_id)
        return json.loads(stored.config) if stored is not None else {}
    except Exception:  # the store is what failed: the command still names the run
        return {}


def resume_command(run_id: str, db: str, *extra: str, config: dict[str, Any] | None = None) -> str:
    """The command that continues a run with its stored configuration (the password left out of the URL)."""
    options = _config_options(config or {})
    return shlex.join(["toolworlds", "run", "--db", shown_url(db), "--run-id", run_id, "--resume", *options, *extra])


# Run options written back from a stored configuration: (config key, `RunOptions` field); the flag is the
# field's, and an option left at `RunOptions`' own default is left out.
_OPTIONS = (("kind", "agent"), ("noise", "noise"), ("seed", "seed"), ("model", "model"), ("base_url", "base_url"),
            ("user", "user"), ("user_model", "user_model"), ("user_base_url", "user_base_url"),
            ("temperature", "temperature"), ("max_tokens", "max_tokens"), ("max_steps", "max_steps"),
            ("protocol", "protocol"), ("trials", "trials"))
_QUERY_OPTIONS = (("data", "--data"), ("limit", "--limit"), ("categories", "--categories"),
                  ("task_ids", "--task-ids"), ("difficulties", "--filter-difficulty"), ("tags", "--filter-tags"))


def _config_options(config: dict[str, Any]) -> list[str]:
    if not config:
        return []
    from ..options import RunOptions

    options: list[str] = []
    families = list(dict.fromkeys(name.split("/", 1)[0] for name in config.get("task_sets", [])))
    langs = list(dict.fromkeys(name.split("/", 1)[1] for name in config.get("task_sets", []) if "/" in name))
    for name in families:
        options += ["--tasks", name]
    for code in langs:
        options += ["--lang", code]
    for key, name in _OPTIONS:
        default = RunOptions.model_fields[name].default
        value = config.get(key, default)
        if value != default and value is not None:
            options += ["--" + name.replace("_", "-"), str(value)]
    if (config.get("query") or {}).get("errata") is False:
        options.append("--no-errata")
    for key, flag in _QUERY_OPTIONS:
        value = (config.get("query") or {}).get(key)
        if value in (None, [], ()):
            continue
        options += [flag, ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)]
    return options


