"""API-Bank's Calculator: + - * / and parentheses on non-negative integers.

Validation and messages follow the reference. Evaluation is an operator-precedence
parser with explicit stacks rather than recursion, so a formula nested thousands of
levels deep costs time in proportion to its length and never exhausts Python's stack.
An operation is applied as soon as its right operand is complete, the order a
recursive-descent parser would apply it in, so a division by zero is reported before
a syntax error that comes later in the formula.
"""

from __future__ import annotations

import re

from .api_common import ApiError

_TOKEN = re.compile(r"\d+|[-+*/()]")
_ALLOWED = frozenset("0123456789+-*/()")
_NEGATE, _KEEP = "neg", "pos"  # unary minus and plus, as kept on the operator stack


def calculate(formula: str) -> float:
    """The value of `formula`, or the reference's ApiError ("invalid formula", "float division by zero")."""
    text = formula.replace(" ", "")
    operators = sum(text.count(op) for op in "+-*/")
    if (not text or not _ALLOWED.issuperset(text) or text.count("(") != text.count(")")
            or operators == 0 or operators + 1 == len(text)):
        raise ApiError("invalid formula")
    values: list[float] = []
    pending: list[str] = []  # operators and open parentheses still waiting for their right side
    expect_operand = True
    for token in _TOKEN.findall(text):
        if expect_operand:
            if token == "(":
                pending.append(token)
            elif token in "+-":
                pending.append(_NEGATE if token == "-" else _KEEP)
            elif token.isdigit():
                values.append(float(token))
                _operand_complete(values, pending)
                expect_operand = False
            else:
                raise ApiError("invalid formula")
        elif token in "*/":
            pending.append(token)
            expect_operand = True
        elif token in "+-":
            _apply_additions(values, pending)
            pending.append(token)
            expect_operand = True
        elif token == ")":
            _apply_additions(values, pending)
            if not pending or pending.pop() != "(":
                raise ApiError("invalid formula")
            _operand_complete(values, pending)
        else:
            raise ApiError("invalid formula")
    if expect_operand:
        raise ApiError("invalid formula")
    _apply_additions(values, pending)
    if pending:
        raise ApiError("invalid formula")
    return values[-1]


def _operand_complete(values: list[float], pending: list[str]) -> None:
    """A factor has just been read: apply its signs, then a waiting * or /."""
    while pending and pending[-1] in (_NEGATE, _KEEP):
        if pending.pop() == _NEGATE:
            values[-1] = -values[-1]
    if pending and pending[-1] in ("*", "/"):
        operator, right = pending.pop(), values.pop()
        if operator == "*":
            values[-1] *= right
        elif right == 0:
            raise ApiError("float division by zero")
        else:
            values[-1] /= right


def _apply_additions(values: list[float], pending: list[str]) -> None:
    """A term has ended: apply the + or - waiting at this level of parentheses."""
    while pending and pending[-1] in ("+", "-"):
        operator, right = pending.pop(), values.pop()
        values[-1] = values[-1] + right if operator == "+" else values[-1] - right
