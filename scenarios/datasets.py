"""Where benchmark data lives: `TOOLWORLDS_DATA`, else `../shared/datasets` beside the checkout.

Data is read in place and never copied into the package.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "TOOLWORLDS_DATA"


def data_root() -> Path | None:
    """The datasets folder, or None when there is none on this machine (a `TOOLWORLDS_DATA` that
    names no folder included: tests then skip, and `unusable_setting` says why to whoever asked)."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        path = Path(configured).expanduser()
        return path if path.is_dir() else None
    for base in (Path(__file__).resolve().parents[1], Path.cwd()):
        candidate = base.parent / "shared" / "datasets"
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
