"""Code a user names by import path, `package.module:attribute` (a plug-in agent, a world factory).

One reader of such names, so every place that takes one refuses a bad name the same way, in one line:
no separator, a module that does not import, an attribute it lacks, or something that cannot be called.
"""

from __future__ import annotations

import importlib
from typing import Any


def named_callable(path: str, *, kind: str, form: str, asked_as: str | None = None) -> Any:
    """The callable `path` names (`package.module:name`, the name may be dotted); `LookupError` saying why
    not. `kind` and `form` say what it should be and how it is written ("an agent factory",
    "package.module:Factory"); `asked_as` is how the user gave it ("--agent x:y"), named in the errors."""
    module_name, _, attribute = path.partition(":")
    if not module_name or not attribute:
        raise LookupError(f"{kind} is named {form}, not {path!r}")
    where = f" for {asked_as}" if asked_as else ""
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise LookupError(f"cannot import {module_name!r}{where}: {exc}") from None
    found: Any = module
    for part in attribute.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise LookupError(f"{module_name} has no {attribute!r}{where}")
    if not callable(found):
        raise LookupError(f"{asked_as or path}: {attribute} is not callable")
    return found
