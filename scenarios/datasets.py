"""Where benchmark data lives: `TOOLWORLDS_DATA`, else `../shared/datasets` beside the checkout.

Data is read in place and never copied into the package.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

ENV_VAR = "TOOLWORLDS_DATA"

# What each benchmark folder under the datasets folder holds (a file that must be there), for
# errors that tell a user the layout expected of the folder they set.
LAYOUT = MappingProxyType({
    "acebench": "acebench/data_en/data_agent_multi_step.json",
    "api-bank": "api-bank/lv1-lv2-samples/level-1-given-desc/",
})


def _default_roots() -> list[Path]:
    return [base.parent / "shared" / "datasets" for base in (Path(__file__).resolve().parents[1], Path.cwd())]


def data_root() -> Path | None:
    """The datasets folder, or None when there is none on this machine (a `TOOLWORLDS_DATA` that
    names no folder included: tests then skip, and `unusable_setting` says why to whoever asked)."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        path = Path(configured).expanduser()
        return path if path.is_dir() else None
    for candidate in _default_roots():
        if candidate.is_dir():
            return candidate
    return None


def dataset_dir(name: str) -> Path | None:
    """The folder of one benchmark (`acebench`, `api-bank`), or None when absent."""
    root = data_root()
    if root is None:
        return None
    path = root / name
    return path if path.is_dir() else None


def unusable_setting() -> str:
    """Why `TOOLWORLDS_DATA` gives no data ("" when it is unset or a folder): said where data is
    asked for, so a typo or an unmounted volume is named instead of "no data found"."""
    configured = os.environ.get(ENV_VAR)
    if configured and not Path(configured).expanduser().is_dir():
        return f"{ENV_VAR} names {configured}, which is not a folder"
    return ""


def missing_dataset(name: str) -> str:
    """Why no `name` folder was found: where it looked, the layout it expects, and, for a
    `TOOLWORLDS_DATA` set one level too deep (the benchmark's own folder), the setting that works."""
    expected = "; ".join(LAYOUT.values())
    configured = os.environ.get(ENV_VAR)
    if not configured:
        looked = " and ".join(str(root / name) for root in dict.fromkeys(_default_roots()))
        return (f"looked for {looked}; pass --data DIR or set {ENV_VAR} to the folder that holds "
                f"{name}/ (expected layout: {expected})")
    root = Path(configured).expanduser()
    if not root.is_dir():
        return f"{ENV_VAR} names {configured}, which is not a folder"
    said = f"{ENV_VAR}={configured}, so looked for {root / name}, which does not exist"
    inner = LAYOUT.get(name, f"{name}/").split("/", 1)[1]
    if root.name == name or (inner and (root / inner.split("/", 1)[0]).exists()):
        return f"{said}; {root} itself looks like the {name} folder: set {ENV_VAR}={root.parent}"
    return f"{said}; {ENV_VAR} names the folder that holds {name}/ (expected layout: {expected})"


@dataclass(frozen=True)
class DatasetFolder:
    """A family's `find_data`: its benchmark's folder under the datasets folder, and, when there
    is none, what was looked for (`missing`), said by the error that asks for data."""

    name: str

    def __call__(self) -> Path | None:
        return dataset_dir(self.name)

    def missing(self) -> str:
        return missing_dataset(self.name)
