"""Reading a model's output as calls: the reference's decode (compat) and ours (strict).

The reference `eval`s binary operators in arguments; here that is emulated on numeric
literals only, so model output is never evaluated.
"""

from __future__ import annotations

import ast
from types import MappingProxyType
from typing import Any

from sandbox import ParseError, parse_message

from .verdicts import CheckFailure

_MAX_DEPTH = 32
_UNDECODABLE = "Invalid syntax. Failed to decode AST."  # the reference's words for any undecodable output


def decode_compat(output: str) -> list[tuple[str, dict[str, Any]]]:
    """The reference's decode: whitespace removed, a list/tuple/set of keyword calls.

    Conversions follow the reference (bare names become strings, any unary operator
    negates, nested calls become {name: kwargs}, subscripts their source text); its
    `eval` of binary operators is emulated on numeric literals only.
    """
    text = "".join(str(output).split())
    if len(text) > 100_000:
        raise CheckFailure("wrong_output_format", "output too long")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise CheckFailure("wrong_output_format", _UNDECODABLE) from None
    node = tree.body
    source = text.encode()  # one line: whitespace was removed (and it parsed, so it encodes)
    if not isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        raise CheckFailure("wrong_output_format", _UNDECODABLE)
    calls = []
    for element in node.elts:
        if not isinstance(element, ast.Call):
            raise CheckFailure("wrong_output_format", _UNDECODABLE)
        name = _dotted(element.func)
        arguments = {kw.arg: _compat_value(kw.value, source, 0) for kw in element.keywords if kw.arg is not None}
        calls.append((name, arguments))
    return calls


def _dotted(node: ast.expr) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise CheckFailure("wrong_output_format", _UNDECODABLE)
    parts.append(node.id)
    return ".".join(reversed(parts))


def _compat_value(node: ast.expr, source: bytes, depth: int) -> Any:
    """The reference's reading of one argument value; `source` is the output's one line, UTF-8 encoded
    (the positions `ast` gives are byte offsets)."""
    if depth > _MAX_DEPTH:
        raise CheckFailure("wrong_output_format", "nested too deeply")
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float)):
            return -node.operand.value
        raise CheckFailure("wrong_output_format", _UNDECODABLE)
    if isinstance(node, ast.List):
        return [_compat_value(e, source, depth + 1) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_compat_value(e, source, depth + 1) for e in node.elts)
    if isinstance(node, ast.Dict):
        return {_compat_value(k, source, depth + 1) if k is not None else None: _compat_value(v, source, depth + 1)
                for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        kwargs = {kw.arg: _compat_value(kw.value, source, depth + 1) for kw in node.keywords if kw.arg}
        return {_dotted(node.func): kwargs}
    if isinstance(node, ast.BinOp):
        return _arithmetic(node, depth)
    if isinstance(node, ast.Subscript):
        # `ast.get_source_segment` would split and encode the whole text again for every subscript
        # (20,000 subscripts in 100,000 characters: minutes); the text is one line, encoded once.
        return source[node.col_offset:node.end_col_offset].decode()
    raise CheckFailure("wrong_output_format", _UNDECODABLE)


_OPERATORS = MappingProxyType({
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
})


def _arithmetic(node: ast.expr, depth: int) -> int | float:
    """What the reference's `eval` of a binary operator gives, for numeric literals only."""
    if depth > _MAX_DEPTH:
        raise CheckFailure("wrong_output_format", "nested too deeply")
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        number: int | float = node.value  # type: ignore[assignment]  # narrowed by the type check
        return number
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _arithmetic(node.operand, depth + 1)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _arithmetic(node.left, depth + 1), _arithmetic(node.right, depth + 1)
        try:
            result = _OPERATORS[type(node.op)](left, right)
        except (ZeroDivisionError, OverflowError):
            raise CheckFailure("wrong_output_format", _UNDECODABLE) from None
        if isinstance(result, int) and abs(result) > 10**18:
            raise CheckFailure("wrong_output_format", "number too large")
        return result
    raise CheckFailure("wrong_output_format", _UNDECODABLE)


def decode_strict(output: str) -> list[tuple[str, dict[str, Any]]]:
    try:
        return [(call.name, call.arguments) for call in parse_message(str(output)).calls]
    except ParseError as exc:
        raise CheckFailure("wrong_output_format", exc.message) from None

