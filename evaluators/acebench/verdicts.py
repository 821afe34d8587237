"""A checker's verdict on one item, and the exception checkers raise to give one early."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Mode = Literal["compat", "strict"]


@dataclass(frozen=True)
class Verdict:
    valid: bool
    error_type: str = ""
    detail: str = ""

    def to_dict(self, item_id: str) -> dict[str, Any]:
        return {"id": item_id, "valid": self.valid, "error_type": self.error_type, "detail": self.detail}


PASS = Verdict(True)


class CheckFailure(Exception):
    """Raised deep inside a checker to end it with a failing verdict."""

    def __init__(self, error_type: str, detail: str = "") -> None:
        super().__init__(detail)
        self.verdict = Verdict(False, error_type, detail)
