"""Reading a model's reply: the tool calls it makes, in whichever common format it wrote them, or its answer.

Models served without a tool parser write their calls as text, each family its own way: Hermes/Qwen
`<tool_call>{json}</tool_call>` blocks, Mistral's `[TOOL_CALLS]`, Llama 3.1's `<function=name>{...}`,
JSON objects (bare, listed, one per line, pretty-printed, in a code fence), the bracket syntax of
ACEBench/BFCL prompts with words around it; often after a `<think>` block, and followed by an
end-of-turn token or a result the model invented. `read_reply` is the one reader of such text, used
wherever a reply reaches a world (runs, `ToolEnv`, `World.execute`), so a reply is read the same way
at every door.

Three outcomes, never an exception:
- calls (possibly none: `[]`): the calls, each a `Call` or, in its place, the `ParseError` saying why
  that one cannot be read, so the calls beside it still run;
- unreadable: call-shaped text that cannot be read at all, or a reply past a bound (`error`); the world
  answers it with a `parse_error` the model sees, never taking it for a final answer;
- the answer: text with no call-shaped part once thinking is set aside.

Reading order: the whole reply in the engine's own syntaxes first (`parse_items`: bracket calls and
JSON calls, exactly as before, so every reply those read gives the same calls); only a reply they refuse
is read further. Thinking (`<think>`, `<thinking>`, `<reasoning>`, closed or not, or only closed as
Qwen3's template leaves it) is set aside and never run; text from the first end-of-turn token on
(`<|im_end|>`, `<|eot_id|>`, `</s>`, ..., or an invented `<tool_response>`) is not the model's turn.
Every step is a scan whose work is proportional to the text: regular expressions here have no nested
repeats, each JSON value is decoded once from where it starts, and a failed decode moves the scan past
the point where it failed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import ParseError
from .input_limits import DEFAULT_LIMITS, InputLimits
from .parsing import Call, decode_json, decode_json_at, json_call, literal_value, parse_items

# Where a model's turn ends: what comes after was not said by it (the next turn's header, an invented result).
# The last is DeepSeek's, written with full-width bars.
_TURN_END = re.compile(r"<\|(?:im_end|eot_id|eom_id|end|endoftext|end_of_text|im_start|start_header_id)\|>"
                       r"|</s>|<end_of_turn>|<tool_response>|<\uff5cend\u2581of\u2581sentence\uff5c>")
_LEADING_HEADER = re.compile(r"[ \t\r\n]*+<\|im_start\|>assistant[ \t]*+\r?\n?")
_THINK_TAG = re.compile(r"<(/?)(think|thinking|reasoning)>", re.IGNORECASE)
_PYTHON_TAG = "<|python_tag|>"
_HERMES_OPEN, _HERMES_CLOSE = "<tool_call>", "</tool_call>"
_MISTRAL = "[TOOL_CALLS]"
_MISTRAL_NAMED = re.compile(r"[ \t\r\n]*+([A-Za-z_][\w.\-]{0,255})(?:\[CALL_ID\][\w\-]{0,64})?\[ARGS\]")
_FUNCTION_TAG = re.compile(r"<function=([^<>\n]{1,256})>")
_FUNCTION_CLOSE = "</function>"
_PARAMETER = re.compile(r"<parameter=([^<>\n]{1,256})>")
_PARAMETER_CLOSE = "</parameter>"
# Where a call may start in free text: a code fence, a bracket or brace opening a line, a JSON call anywhere,
# a bracket call anywhere.
_START = re.compile(r"```|^[ \t]*+[\[{]|\{[ \t\r\n]*+[\"'](?:name|function|tool_calls)[\"'][ \t\r\n]*+:"
                    r"|\[[ \t]*+[A-Za-z_][\w.]*+[ \t]*+\(", re.MULTILINE)
_BRACKET_CALL = re.compile(r"\[[ \t]*+[A-Za-z_][\w.]*+[ \t]*+\(")
_JSON_LIST = re.compile(r"\[[ \t\r\n]*+\{")
_BARE_CALL = re.compile(r"[A-Za-z_][\w.]*+[ \t]*+\(")
_FENCE_TAG = re.compile(r"[ \t]*+([A-Za-z0-9_+\-]*+)[ \t]*+\r?\n")
_CALL_KEY = re.compile(r"[\"'](?:name|function|tool_calls)[\"'][ \t\r\n]*+:")
# JSON written with Python's quotes (`{'name': 'f', 'arguments': {...}}`), as small models write it.
_PYTHON_QUOTES = re.compile(r"[\[{][ \t\r\n]*+(?:\{[ \t\r\n]*+)?'")
_BRACKET_TOKEN = re.compile(r"[\[\](){}'\"\\]")
_SKIP = re.compile(r"[ \t\r\n,;]*+")
# The keys a JSON call object has: an object with others is data (an answer listing people has "name" too).
_CALL_KEYS = frozenset({"name", "arguments", "parameters", "args", "input", "id", "type"})
# How far into JSON that is never closed a call's key is looked for.
_UNCLOSED_REACH = 2_000
# JSON objects open with a key (in JSON's quotes or, as small models write them, Python's) or close at once.
_JSON_OPENING = re.compile(r"\{[ \t\r\n]*+[\"'}]")


@dataclass(frozen=True)
class Reply:
    """What a reply says. `items` are its calls in order, each a `Call` or the `ParseError` in its place;
    `found` is whether it holds calls at all (an empty list of them included); `error` is why it cannot be
    read as a whole (a bound, or nothing readable in call-shaped text). `syntax` names the format the calls
    were read in, `thinking` the reasoning set aside, `refusal` why the text is not a message in the
    engine's own syntaxes (what the world says of an answer it is given as calls)."""

    items: tuple[Call | ParseError, ...] = ()
    found: bool = False
    error: ParseError | None = None
    syntax: str = ""
    thinking: tuple[str, ...] = ()
    refusal: ParseError | None = None

    @property
    def calls(self) -> list[Call]:
        """The calls that could be read."""
        return [item for item in self.items if isinstance(item, Call)]

    @property
    def readable(self) -> bool:
        """Whether every call of the reply reads (True for an answer)."""
        return self.error is None and all(isinstance(item, Call) for item in self.items)

    @property
    def is_answer(self) -> bool:
        """Whether the reply is words for the user: no call-shaped text outside its thinking."""
        return not self.found and self.error is None


def read_reply(text: str, limits: InputLimits = DEFAULT_LIMITS) -> Reply:
    """Read one model reply (see the module's docstring); never raises."""
    return _guarded(_read, text, None, limits)


def reply_items(text: str, limits: InputLimits = DEFAULT_LIMITS) -> list[Call | ParseError]:
    """The calls of a reply the world was given to run, as `World.execute` takes them; `ParseError` when it
    holds none to run (an answer is refused as the engine's syntaxes refuse it)."""
    if type(text) is str:
        try:  # the common case, a message in the engine's syntaxes, without building a `Reply`
            return parse_items(text, limits=limits)
        except ParseError as whole:
            if whole.limit is not None:
                raise
            reply = _guarded(_read, text, whole, limits)
    else:
        reply = read_reply(text, limits)
    if reply.error is not None:
        raise reply.error
    if not reply.found:
        raise reply.refusal or ParseError("no tool calls in the message")
    return list(reply.items)


def _guarded(read: Callable[[str, ParseError | None, InputLimits], Reply], text: str, refusal: ParseError | None,
             limits: InputLimits) -> Reply:
    """`read`'s reply, or the reply refused whole for the error it raised."""
    try:
        return read(text, refusal, limits)
    except ParseError as exc:
        return Reply(found=True, error=exc)
    except (RecursionError, MemoryError) as exc:
        return Reply(found=True, error=ParseError(f"reply nested too deeply to read ({type(exc).__name__}; limit "
                                                  f"max_depth is {limits.max_depth})", limit="max_depth"))
    except Exception as exc:
        return Reply(found=True, error=ParseError(f"could not read tool calls: {type(exc).__name__}"))


def _read(text: str, refusal: ParseError | None, limits: InputLimits) -> Reply:
    """`refusal`, when given, is why `parse_items` refused the whole text (it is not asked again)."""
    if type(text) is not str:
        raise ParseError("expected the message as text")
    if refusal is None:
        try:
            items = parse_items(text, limits=limits)
        except ParseError as whole:
            if whole.limit is not None:
                raise
            refusal = whole
        else:
            return _whole_reply(items, text)
    body, thinking = _set_aside(text)
    if body != text.strip():
        try:
            return Reply(tuple(parse_items(body, limits=limits)), True, syntax=_whole_syntax(body),
                         thinking=thinking, refusal=refusal)
        except ParseError as exc:
            if exc.limit is not None:
                raise
            if body:
                refusal = exc
    items, syntax = _segments(body, limits)
    if len(items) > limits.max_calls:
        raise ParseError(f"more than {limits.max_calls} calls in one message (limit max_calls)", limit="max_calls")
    if syntax:
        return Reply(tuple(items), True, syntax=syntax, thinking=thinking, refusal=refusal)
    if _BARE_CALL.match(body) and body.endswith(")"):  # one call in no syntax that reads: the model meant it
        return Reply((refusal,), True, syntax="brackets", thinking=thinking, refusal=refusal)
    return Reply(thinking=thinking, refusal=refusal)


def _whole_reply(items: list[Call | ParseError], text: str) -> Reply:
    """The reply of a text in the engine's syntaxes, built without the frozen dataclass's `__init__` (which sets
    each field through `object.__setattr__`: more than the rest of reading a short reply, with its syntax)."""
    reply = _new_instance(Reply)
    reply.__dict__.update(items=tuple(items), found=True, error=None, syntax=_whole_syntax(text), thinking=(),
                          refusal=None)
    return reply


_new_instance = object.__new__


def _whole_syntax(text: str) -> str:
    first = text.lstrip()[:1]
    if first == "[" or first == "`":
        body = text.strip()
        if first == "`":
            body = body[3:].partition("\n")[2].lstrip()
        return "json" if body[:1] == "{" or _JSON_LIST.match(body) else "brackets"
    return "json" if first == "{" else "brackets"


# -- what is not the model's call -----------------------------------------------------------------


def spoken(text: str) -> str:
    """What a reply says aloud: without its thinking, and without what follows the end of its turn (a user
    simulator that thinks "I will say finish conversation once..." has not said it)."""
    if type(text) is not str:
        return ""
    return _set_aside(text)[0] if "<" in text else text


def _set_aside(text: str) -> tuple[str, tuple[str, ...]]:
    """The reply without its thinking, the tokens around its turn and what follows the turn's end; and the
    thinking."""
    header = _LEADING_HEADER.match(text)
    if header is not None:
        text = text[header.end():]
    end = _TURN_END.search(text)
    if end is not None:
        text = text[:end.start()]
    if _PYTHON_TAG in text:
        text = text.replace(_PYTHON_TAG, "")
    if "<|tool_call|>" in text:  # Phi-4's and Granite's spelling of the Hermes tags
        text = text.replace("<|tool_call|>", _HERMES_OPEN).replace("<|/tool_call|>", _HERMES_CLOSE)
    kept: list[str] = []
    thinking: list[str] = []
    at = 0
    opened: int | None = None
    for tag in _THINK_TAG.finditer(text):
        if not tag.group(1):  # an opening tag
            if opened is None:
                kept.append(text[at:tag.start()])
                opened = tag.end()
        elif opened is not None:
            thinking.append(text[opened:tag.start()].strip())
            opened, at = None, tag.end()
        elif not thinking and not kept:  # closed but never opened: the template opened it (Qwen3)
            thinking.append(text[:tag.start()].strip())
            at = tag.end()
    if opened is not None:  # never closed: the rest is thinking (a reply cut off while thinking)
        thinking.append(text[opened:].strip())
    else:
        kept.append(text[at:])
    return "".join(kept).strip(), tuple(thinking)


# -- the formats ---------------------------------------------------------------------------------


def _segments(body: str, limits: InputLimits) -> tuple[list[Call | ParseError], str]:
    """The calls of a reply that is not one message in the engine's syntaxes, and the format they were
    written in ("" when there are none)."""
    if _HERMES_OPEN in body:
        return _hermes(body, limits), "tool_call"
    if _MISTRAL in body:
        return _mistral(body, limits), "mistral"
    if "<function=" in body and _FUNCTION_TAG.search(body):
        return _function_tags(body, limits), "function_tag"
    return _free_text(body, limits)


def _hermes(body: str, limits: InputLimits) -> list[Call | ParseError]:
    """`<tool_call>...</tool_call>` blocks; a block without its closing tag runs to the next one or the end."""
    items: list[Call | ParseError] = []
    start = body.find(_HERMES_OPEN)
    close = -1
    while start >= 0 and len(items) <= limits.max_calls:
        inner = start + len(_HERMES_OPEN)
        following = body.find(_HERMES_OPEN, inner)
        if close < inner:
            close = body.find(_HERMES_CLOSE, inner)
        end = close if close >= 0 and (following < 0 or close < following) else (
            following if following >= 0 else len(body))
        items.extend(_segment(body[inner:end], limits, "the <tool_call> block"))
        start = following
    return items


def _mistral(body: str, limits: InputLimits) -> list[Call | ParseError]:
    """Mistral's `[TOOL_CALLS]` followed by a JSON list of calls, or (newer tokenizers) by `name[ARGS]{...}`,
    once per call."""
    items: list[Call | ParseError] = []
    for part in body.split(_MISTRAL)[1:]:
        named = _MISTRAL_NAMED.match(part)
        if named is None:
            items.extend(_segment(part, limits, "the [TOOL_CALLS] list"))
        else:
            items.append(_arguments_at(named.group(1), part, named.end(), limits))
        if len(items) > limits.max_calls:
            break
    return items


def _function_tags(body: str, limits: InputLimits) -> list[Call | ParseError]:
    """Llama 3.1's `<function=name>{"a": 1}</function>`; also the `<parameter=a>1</parameter>` body Qwen3-Coder
    writes inside it. The closing tag is optional."""
    items: list[Call | ParseError] = []
    tags = list(_FUNCTION_TAG.finditer(body))[: limits.max_calls + 1]
    for index, tag in enumerate(tags):
        name = tag.group(1).strip()
        limit = tags[index + 1].start() if index + 1 < len(tags) else len(body)
        end = body.find(_FUNCTION_CLOSE, tag.end(), limit)
        content = body[tag.end():end if end >= 0 else limit]
        if _PARAMETER.search(content):
            items.append(_parameters(name, content, limits))
        elif content.strip():
            items.append(_arguments_at(name, content, 0, limits))
        else:
            items.append(_checked(name, {}, limits))
    return items


def _parameters(name: str, content: str, limits: InputLimits) -> Call | ParseError:
    """`<parameter=a>value</parameter>` pairs: each value JSON when it reads as JSON, else its text."""
    arguments: dict[str, Any] = {}
    tags = list(_PARAMETER.finditer(content))
    for index, parameter in enumerate(tags):
        limit = tags[index + 1].start() if index + 1 < len(tags) else len(content)
        end = content.find(_PARAMETER_CLOSE, parameter.end(), limit)
        raw = content[parameter.end():end if end >= 0 else limit].strip()
        try:
            value: Any = json.loads(raw) if raw else ""
        except (ValueError, RecursionError):
            value = raw
        arguments[parameter.group(1).strip()] = value
    return _checked(name, arguments, limits)


def _arguments_at(name: str, text: str, position: int, limits: InputLimits) -> Call | ParseError:
    """The call to `name` whose arguments are the JSON object at `position` of `text` (what follows it is
    not read)."""
    at = _SKIP.match(text, position).end()  # type: ignore[union-attr]  # matches the empty string
    if at == len(text):
        return _checked(name, {}, limits)
    try:
        arguments, _ = decode_json_at(text, at, limits)
    except (json.JSONDecodeError, RecursionError):
        return ParseError(f"arguments of {name} are not valid JSON")
    if not isinstance(arguments, dict):
        return ParseError(f"arguments of {name} must be a JSON object of named values")
    return _checked(name, arguments, limits)


def _checked(name: str, arguments: dict[str, Any], limits: InputLimits) -> Call | ParseError:
    try:
        return json_call({"name": name, "arguments": arguments}, limits)
    except ParseError as exc:
        if exc.limit is not None:
            raise
        return exc


def _segment(text: str, limits: InputLimits, where: str | None) -> list[Call | ParseError]:
    """The calls of one part of a reply that holds nothing but calls: one message in the engine's syntaxes,
    or JSON calls one after another; the `ParseError` saying why it does not read, in their place, naming
    `where` the part is (None: the part is the whole reply, refused in the engine's own words)."""
    content = text.strip()
    if content.startswith("```"):
        content = content[3:].partition("\n")[2]
        content = content[: content.rfind("```")] if "```" in content else content
        content = content.strip()
    if not content:
        return [ParseError(f"{where} holds no call")]
    if content.startswith("<function=") and _FUNCTION_TAG.match(content):
        return _function_tags(content, limits)
    try:
        return parse_items(content, limits=limits)
    except ParseError as exc:
        if exc.limit is not None:
            raise
        listed = _json_run(content, limits)
        if listed is None and _PYTHON_QUOTES.match(content):
            listed = _python_calls(content, limits)
        if listed is not None:
            return listed
        problem = _json_problem(content, limits) if content[:1] == "{" or _JSON_LIST.match(content) else None
        if where is None and problem is None:
            return [exc]
        return [ParseError(f"{where or 'the reply'} cannot be read: {problem or exc.message}")]


def _json_problem(text: str, limits: InputLimits) -> str | None:
    """Why JSON text does not decode, in the decoder's words; None when it does."""
    try:
        decode_json_at(text, 0, limits)
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg}, line {exc.lineno} column {exc.colno})"
    except RecursionError:
        return f"JSON nested too deeply (limit max_depth is {limits.max_depth})"
    return None


def _json_run(text: str, limits: InputLimits) -> list[Call | ParseError] | None:
    """JSON calls one after another (on separate lines, or separated by commas or semicolons); None unless
    the text is nothing else."""
    items: list[Call | ParseError] = []
    at = 0
    while at < len(text) and len(items) <= limits.max_calls:
        try:
            value, at = decode_json_at(text, at, limits)
        except (json.JSONDecodeError, RecursionError):
            return None
        calls = _json_calls(value, limits)
        if calls is None:
            return None
        items.extend(calls)
        at = _SKIP.match(text, at).end()  # type: ignore[union-attr]
    return items


def _json_calls(value: Any, limits: InputLimits) -> list[Call | ParseError] | None:
    """The calls a decoded JSON value is: an object or list of call objects, or `{"tool_calls": [...]}`; None
    for data (an object with other keys, a list of anything else)."""
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        value = value["tool_calls"]
    if isinstance(value, dict):
        return [_one_json_call(value, limits)] if _call_shaped(value) else None
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value) \
            and any(_call_shaped(item) for item in value):
        return [_one_json_call(item, limits) for item in value[: limits.max_calls + 1]]
    return None


def _python_calls(text: str, limits: InputLimits) -> list[Call | ParseError] | None:
    """The calls of JSON written with Python's quotes, read as literals (`literal_value`); None when it is not
    that, or not calls."""
    try:
        value = literal_value(text, limits)
    except ParseError as exc:
        if exc.limit is not None:
            raise
        return None
    return _json_calls(value, limits)


def _call_shaped(value: dict[str, Any]) -> bool:
    if isinstance(value.get("function"), dict):
        return True
    return isinstance(value.get("name"), str) and value.keys() <= _CALL_KEYS


def _one_json_call(value: dict[str, Any], limits: InputLimits) -> Call | ParseError:
    try:
        return json_call(value, limits)
    except ParseError as exc:
        if exc.limit is not None:
            raise
        return exc


def _free_text(body: str, limits: InputLimits) -> tuple[list[Call | ParseError], str]:
    """Calls among words: code fences, JSON calls (at a line's start, or anywhere as `{"name": ...`) and
    bracket calls, read in order; words around them are not calls."""
    items: list[Call | ParseError] = []
    syntaxes: list[str] = []
    # Characters JSON among words may be matched and decoded over, in all; none without a call's key anywhere.
    budget = [4 * len(body) if _CALL_KEY.search(body) else 0]
    at = 0
    while len(items) <= limits.max_calls and (start := _START.search(body, at)) is not None:
        if start.group().startswith("```"):
            at = _fence(body, start.end(), limits, items, syntaxes)
            continue
        found = start.group()
        opening = start.start() + len(found) - len(found.lstrip())
        if body.startswith("{", opening) or _JSON_LIST.match(body, opening):
            at = _json_at(body, opening, limits, items, syntaxes, budget)
        elif _BRACKET_CALL.match(body, opening):
            at = _brackets_at(body, opening, limits, items, syntaxes)
        else:
            at = opening + 1
    return items, (syntaxes[0] if len(set(syntaxes)) == 1 else "mixed") if syntaxes else ""


def _fence(body: str, after: int, limits: InputLimits, items: list[Call | ParseError], syntaxes: list[str]) -> int:
    """A code fence opened just before `after`: its calls when it holds call-shaped text; where to go on."""
    tag = _FENCE_TAG.match(body, after)
    if tag is None:
        return after
    inner = tag.end()
    close = body.find("```", inner)
    end = close if close >= 0 else len(body)
    content = body[inner:end].strip()
    if content[:1] in "[{" or (_BARE_CALL.match(content) and content.endswith(")")):
        items.extend(_segment(content, limits, f"the {tag.group(1) or 'code'} block"))
        syntaxes.append("fence")
    return end + 3 if close >= 0 else end


def _json_at(body: str, at: int, limits: InputLimits, items: list[Call | ParseError], syntaxes: list[str],
             budget: list[int]) -> int:
    """A JSON value starting at `at`: its calls when it is calls (JSON written with Python's quotes too), a
    `ParseError` when it is a call that does not read; where to go on.

    The value is first delimited by matching its brackets (`_closing`), then decoded alone: a decoder's error
    counts the lines of all the text before it, so decoding in place made a reply of many broken lines
    quadratic. The characters matched and decoded are charged to `budget` (a few times the reply's length);
    once it is spent, no more JSON is looked for among the words.
    """
    if budget[0] <= 0 or not (_JSON_OPENING.match(body, at) or _JSON_LIST.match(body, at)):
        return at + 1
    end = _closing(body, at)
    if end is None:  # never closed: a call cut short, or words
        budget[0] -= len(body) - at
        if _CALL_KEY.search(body, at, min(at + _UNCLOSED_REACH, len(body))):
            items.append(ParseError("a JSON tool call that is never closed (cut short?)"))
            syntaxes.append("json")
            return len(body)
        return at + 1
    budget[0] -= end - at
    text = body[at:end]
    try:
        value = decode_json(text, limits)
    except json.JSONDecodeError as exc:
        calls = _python_calls(text, limits) if _PYTHON_QUOTES.match(text) else None
        if calls is not None:
            items.extend(calls)
            syntaxes.append("json")
            return end
        if _CALL_KEY.search(text):
            items.append(ParseError(f"a JSON tool call that is not valid JSON ({exc.msg}, line {exc.lineno} "
                                    f"column {exc.colno} of the call)"))
            syntaxes.append("json")
            return end
        return at + 1
    except RecursionError:
        raise ParseError(f"JSON nested too deeply (limit max_depth is {limits.max_depth})", limit="max_depth") from None
    calls = _json_calls(value, limits)
    if calls is not None:
        items.extend(calls)
        syntaxes.append("json")
    return end


def _brackets_at(body: str, at: int, limits: InputLimits, items: list[Call | ParseError],
                 syntaxes: list[str]) -> int:
    """Bracket calls opening at `at` among words: up to the bracket that closes the list, else (quotes the
    matching cannot follow, as `'Domino's'`, which the engine's repairs read) up to the last `)]`, taking
    the rest of the reply; where to go on."""
    syntaxes.append("brackets")
    end = _closing(body, at)
    if end is None:
        last = body.rfind(")]", at)  # once a reply: the rest of it is taken
        if last < 0:
            items.append(ParseError("bracketed calls that are never closed with ']'"))
            return len(body)
        end = last + 2
    items.extend(_segment(body[at:end], limits, None if at == 0 and end == len(body) else "the bracketed calls"))
    return end


def _closing(body: str, at: int) -> int | None:
    """Just past the bracket closing the one at `at`, skipping quoted strings; None when it is never closed."""
    depth = 0
    quote = ""
    position = at
    while (token := _BRACKET_TOKEN.search(body, position)) is not None:
        char = token.group()
        position = token.end()
        if quote:
            if char == "\\":
                position += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return position
    return None
