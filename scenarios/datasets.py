"""Where benchmark data lives: `TOOLWORLDS_DATA`, else `../shared/datasets` beside the checkout.

Data is read in place and never copied into the package.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "TOOLWORLDS_DATA"


def data_root() -> Path | None:
    """The datasets folder, or None when there is none on this machine."""
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
