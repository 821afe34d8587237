"""The reference bracket grammar: `[f(a=1, b='x'), g()]` read by Python's `ast` and a literals-only walk.

Model output is data, never code: `ast.parse` builds the syntax tree and the walk below
accepts literals only (no evaluation, no name lookup, nothing imported or called);
`true`/`false`/`null` are read as JSON's literals. This is the plain path every bracket
message can take (`sandbox.lanes`); the fast lane (`fast_lanes`) must give what it gives.
"""

from __future__ import annotations

import ast
import re
import warnings
from types import MappingProxyType
from typing import Any

from ..errors import ParseError
from ..input_limits import DEFAULT_LIMITS, InputLimits, digits_at_least, valid_text
from .calls import Call, _bounded, _check_name, _too_deep

# Text the tokenizer warns about: escapes ("\\d") and numbers run into words ("1if").
# Only such text pays for silencing warnings.
_MAY_WARN = re.compile(r"\\|\d[A-Za-z_]")
_JSON_LITERALS = MappingProxyType({"true": True, "false": False, "null": None})
# Quoted strings, to count the separators outside them (approximately: enough for a bound).
_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'" + r'|"(?:[^"\\\n]|\\.)*"')


def _ast_brackets(body: str, limits: InputLimits) -> list[Call]:
    """The full path: any bracket text, read through `ast.parse` and a literals-only walk."""
    calls = []
    for element in _ast_elements(body, limits):
        if not isinstance(element, ast.Call):
            raise ParseError(f"every element must be a tool call, found {_kind(element)}")
        calls.append(_call(element, limits))
        _bounded(calls, limits)
    return calls


def _check_items(body: str, limits: InputLimits) -> None:
    # Building the syntax tree costs time per node: refuse a message with more values
    # than any call may hold before paying for it.
    if body.count(",") > limits.max_items and _QUOTED.sub("", body).count(",") > limits.max_items:
        raise ParseError(f"more than {limits.max_items} values in one message (limit max_items)", limit="max_items")


def _bracket_elements(body: str, limits: InputLimits) -> list[ast.expr]:
    """The elements of a bracket message's list (or its one call), read as syntax, not yet as calls."""
    _check_items(body, limits)
    return _ast_elements(body, limits)


def _ast_elements(body: str, limits: InputLimits) -> list[ast.expr]:
    """The full path: any bracket text, read through `ast.parse` (its elements are then read
    by a literals-only walk)."""
    node = _ast_expression(body, limits)
    if isinstance(node, (ast.List, ast.Tuple)):
        return list(node.elts)
    if isinstance(node, ast.Call):
        return [node]
    raise ParseError(f"expected a list of calls such as [tool_name(arg='value')], got {_kind(node)}")


def literal_value(text: str, limits: InputLimits = DEFAULT_LIMITS) -> Any:
    """A value written as a Python literal (a dict, list, string, number, `True`/`False`/`None`, or JSON's
    `true`/`false`/`null`), read by the literals-only walk that reads bracket calls' arguments, within
    `limits`; `ParseError` for anything else. Models write JSON calls with Python's quotes this way."""
    _check_items(text, limits)
    return _literal(_ast_expression(text.strip(), limits), 0, "a literal", limits)


def _ast_expression(body: str, limits: InputLimits) -> ast.expr:
    """`body` parsed as one Python expression (nothing evaluated); every failure a `ParseError`."""
    try:
        if _MAY_WARN.search(body):
            with warnings.catch_warnings():
                # invalid escapes in the model's strings are its problem, not a warning for ours
                warnings.simplefilter("ignore")
                tree = ast.parse(body, mode="eval")
        else:
            tree = ast.parse(body, mode="eval")
    except SyntaxError as exc:
        if "nested" in exc.msg or "too many" in exc.msg:
            raise ParseError(f"call syntax nested too deeply: {exc.msg} (limit max_depth is {limits.max_depth})",
                             limit="max_depth") from None
        if "integer string conversion" in exc.msg:
            raise ParseError(f"an integer with too many digits (limit max_int_digits is {limits.max_int_digits})",
                             limit="max_int_digits") from None
        raise ParseError(f"not valid call syntax: {exc.msg}", position=exc.offset) from None
    except (RecursionError, MemoryError):
        raise ParseError(f"call syntax nested too deeply (limit max_depth is {limits.max_depth})",
                         limit="max_depth") from None
    except ValueError:  # Python's parser takes only text it can encode: a lone surrogate is refused here
        problem = ("text that is not valid Unicode (a lone surrogate)" if not valid_text(body)
                   else "a null character" if "\x00" in body else "text Python's parser refuses")
        raise ParseError(f"call syntax malformed: {problem}") from None
    return tree.body


def _bracket_call(node: ast.expr, limits: InputLimits) -> Call:
    if not isinstance(node, ast.Call):
        raise ParseError(f"every element must be a tool call, found {_kind(node)}")
    return _call(node, limits)


def _call(node: ast.Call, limits: InputLimits) -> Call:
    name = _dotted_name(node.func, limits)
    if node.args:
        raise ParseError(
            f"{name}() got a positional argument; name every argument, e.g. {name}(arg=value)"
        )
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise ParseError(f"{name}() uses ** unpacking; name every argument")
        if keyword.arg in arguments:
            raise ParseError(f"{name}() repeats argument {keyword.arg!r}")
        arguments[keyword.arg] = _literal(keyword.value, 1, name, limits)
    return Call(name, arguments)


def _dotted_name(node: ast.expr, limits: InputLimits) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise ParseError(f"a tool name must be a plain or dotted name, found {_kind(node)}")
    parts.append(node.id)
    return _check_name(".".join(reversed(parts)), limits)


def _literal(node: ast.expr, depth: int, name: str, limits: InputLimits) -> Any:
    """`depth` counts the lists and objects enclosing `node`, the arguments object included."""
    if isinstance(node, ast.Constant):
        value = node.value
        if type(value) is int and not -limits.int_bound < value < limits.int_bound:
            raise ParseError(f"{name}(): an integer of {digits_at_least(value)} or more digits (limit "
                             f"max_int_digits is {limits.max_int_digits})", limit="max_int_digits")
        if value is None or isinstance(value, (str, bool, int, float)):
            return value
        raise ParseError(f"{name}(): {type(value).__name__} values are not supported")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = node.operand
        if isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
            number: int | float = operand.value  # type: ignore[assignment]  # narrowed by the type check
            return -number if isinstance(node.op, ast.USub) else number
        raise ParseError(f"{name}(): a sign may only precede a number")
    if isinstance(node, (ast.List, ast.Tuple, ast.Dict)) and depth >= limits.max_depth:
        raise _too_deep(name, limits)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(item, depth + 1, name, limits) for item in node.elts]
    if isinstance(node, ast.Dict):
        result: dict[Any, Any] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=False):
            if key_node is None:
                raise ParseError(f"{name}(): ** unpacking is not allowed in a dict")
            key = _literal(key_node, depth + 1, name, limits)
            if not isinstance(key, (str, int, float, bool)) or key is None:
                raise ParseError(f"{name}(): dict keys must be strings or numbers")
            result[key] = _literal(value_node, depth + 1, name, limits)
        return result
    if isinstance(node, ast.Name) and node.id in _JSON_LITERALS:
        return _JSON_LITERALS[node.id]
    if isinstance(node, ast.Name):
        raise ParseError(f"{name}(): bare word {node.id!r} is not a value; quote strings")
    raise ParseError(f"{name}(): {_kind(node)} is not allowed in arguments; use literal values")


def _kind(node: ast.AST) -> str:
    return {
        ast.BinOp: "an arithmetic expression",
        ast.Lambda: "a lambda",
        ast.Call: "a nested call",
        ast.Attribute: "an attribute access",
        ast.Subscript: "a subscript",
        ast.Name: "a bare name",
        ast.Constant: "a constant",
    }.get(type(node), type(node).__name__)
