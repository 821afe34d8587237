"""Models behind any OpenAI-compatible endpoint, as agents or as simulated users.

Optional: needs the `openai` package (`pip install -e ".[llm]"` in the toolworlds checkout). Tests
point it at a local fake server; nothing here is used unless asked for.

An endpoint is the least reliable part of a run, and what it sends is read as warily as
model output. Each request attempt is bounded as a whole, connect to last byte, by `timeout`
(the SDK's own timeout bounds each read, so a reply sent a byte a second never ended), and
its body by `max_reply_bytes`, counted decompressed while it is read. Transient failures
(429, 5xx, refused or dropped connections, timeouts) are tried again `retries` times, after
the wait the endpoint asks for (`Retry-After`) or a backoff, never longer than `timeout` or
`MAX_RETRY_WAIT`. What still fails, and every reply that is not a chat completion (an HTML
page, empty `choices`, a message of the wrong shape, JSON nested too deep), raises
`EndpointError` with a one-line reason, which the episode stores as its failure. A request
that cannot be encoded is a `ValueError` here: nothing was sent, so it is not the endpoint's
fault. What the model *says* is never an error here: its tool calls go to the world, which
refuses what it cannot read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import email.utils
import json
import math
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from sandbox.input_limits import printable_text
from sandbox.replies import spoken
from scenarios.family import Task, task_hook

from .agents import ChatMessage, ToolCall, Turn
from .endpoints import DEFAULT_RETRIES, DEFAULT_TIMEOUT, MAX_REPLY_BYTES, MAX_RETRY_WAIT, MAX_TIMEOUT
from .users import END

AGENT_PROMPT = ("You are an assistant that completes the user's request by calling the tools provided. "
                "When the request is complete, reply with a short answer and no tool call.")
USER_PROMPT = ("You play a user talking to an assistant. Your goal, which you reveal as the conversation needs "
               "it: {instruction}\nReply as the user in one or two sentences. When your goal is met, reply "
               f"exactly '{END}'.")


class EndpointError(RuntimeError):
    """The endpoint gave no usable reply, after the retries it was allowed; the message says why."""


# Of a failed request's body, no more is read than this: its error message is all that is kept of it.
_ERROR_BODY_BYTES = 65_536
# The largest token count kept (PostgreSQL's INTEGER); a count past it, as one that is not an integer, is unknown.
_MAX_COUNT = 2**31 - 1


@dataclass(frozen=True)
class ReplyMessage:
    """What is read of a reply's message: its text (None: none; a list of parts is read as its text parts
    joined) and its tool calls as the endpoint sent them, JSON values the agent reads leniently, since what
    the model wrote in them is the model's own (the world refuses what it cannot read)."""

    content: str | None
    tool_calls: tuple[Any, ...] = ()
    finish_reason: str | None = None  # why the model stopped, as the endpoint says ("length": cut off)


class _Failure(Exception):
    """Why one attempt got no usable reply (`what` and `detail` make the one-line reason). A `transient` one is
    tried again, after `wait` seconds when the endpoint asked for that."""

    def __init__(self, what: str, detail: str, *, transient: bool, wait: float | None = None) -> None:
        super().__init__(f"{what}: {detail}")
        self.what, self.detail, self.transient, self.wait = what, detail, transient, wait


class SdkClients:
    """The OpenAI SDK clients of one worker: one per endpoint and request settings, made on first use and
    kept for every later episode the worker runs.

    Making an SDK client loads the system's certificate bundle into a fresh TLS context, even for an
    `http://` endpoint: about 25-40 ms of CPU, more than a whole episode against a fast local model.
    A client per episode paid that every time, and opened new connections besides; a worker's episodes
    run one after another, so they can share one client (and its connection pool) per endpoint. The
    clients are the worker's own and hold no episode's data: nothing of one episode reaches another.

    The SDK client tries each request once (`ChatClient` retries, bounding each wait) and does not follow
    redirects; its HTTP client refuses a reply whose status is not 2xx as soon as its headers are in
    (`_refuse_failed`), since the SDK would read such a body whole, however large, before raising.
    """

    def __init__(self) -> None:
        self._clients: dict[tuple[str, str, float, int], Any] = {}
        self._lock = threading.Lock()  # a worker may run its episodes in threads

    def client(self, base_url: str, api_key: str, timeout: float, retries: int) -> Any:
        """The `openai.OpenAI` client for these settings."""
        import openai

        key = (base_url, api_key, timeout, retries)
        with self._lock:
            made = self._clients.get(key)
            if made is None:
                http = openai.DefaultHttpxClient(event_hooks={"response": [_refuse_failed]}, follow_redirects=False)
                made = self._clients[key] = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout,
                                                          max_retries=0, http_client=http)
            return made

    def close(self) -> None:
        """Close every client's connections (a worker that is done)."""
        with self._lock:
            made, self._clients = list(self._clients.values()), {}
        for each in made:
            each.close()


@dataclass
class ChatClient:
    """A chat-completions client for one model at one OpenAI-compatible base URL.

    `timeout` bounds each request attempt as a whole, connect to last byte (seconds, at most a
    day); `retries` is how many more times a request that failed transiently is tried, after the
    wait the endpoint asks for or a growing backoff, never more than `timeout` or `MAX_RETRY_WAIT`.
    `max_reply_bytes` bounds a reply's body, decompressed. `temperature` and
    `max_tokens` are sent with every request when set (None: the endpoint's default). `gate`,
    when given, is held around each request: the run's limit on requests in flight to the
    endpoint, shared by all its workers (file locks on one machine, or a Ray actor on a cluster). `clients`, when
    given, is the worker's `SdkClients`, whose client for this endpoint this one uses; else it makes
    its own.
    """

    base_url: str
    model: str
    api_key: str = field(default_factory=lambda: os.environ.get("OPENAI_API_KEY", "not-needed"))
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    temperature: float | None = None
    max_tokens: int | None = None
    max_reply_bytes: int = MAX_REPLY_BYTES
    gate: AbstractContextManager[Any] | None = field(default=None, repr=False, compare=False)
    clients: SdkClients | None = field(default=None, repr=False, compare=False)
    _client: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Settings no request could honour are refused here, before anything is sent: an infinite timeout
        overflowed the clocks that wait it out, and an infinite temperature made every request unencodable."""
        if not _finite(self.timeout) or not 0 < self.timeout <= MAX_TIMEOUT:
            raise ValueError(f"timeout must be a number of seconds more than 0 and at most {MAX_TIMEOUT:g}, "
                             f"not {self.timeout!r}")
        if type(self.retries) is not int or self.retries < 0:
            raise ValueError(f"retries must be a whole number 0 or more, not {self.retries!r}")
        if self.temperature is not None and not _finite(self.temperature):
            raise ValueError(f"temperature must be a finite number, not {self.temperature!r}")
        if type(self.max_reply_bytes) is not int or self.max_reply_bytes < 1:
            raise ValueError(f"max_reply_bytes must be a whole number 1 or more, not {self.max_reply_bytes!r}")

    def complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()) -> ReplyMessage:
        """The reply message of one chat completion; `EndpointError` when there is none."""
        return self.exchange(messages, tools)[0]

    def exchange(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()
                 ) -> tuple[ReplyMessage, dict[str, Any]]:
        """The reply message of one chat completion and what it cost: `prompt_tokens` and
        `completion_tokens` (None when the endpoint does not say) and `latency_ms` (retries and the waits
        before them included, waits for the gate not)."""
        try:
            import openai  # noqa: F401  (each attempt's thread uses it)
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise RuntimeError('LLM agents need the openai package: '
                               'pip install -e ".[llm]" in the toolworlds checkout') from exc
        if self._client is None:  # found or made once: an SDK client holds its own connection pool
            clients = self.clients if self.clients is not None else SdkClients()  # without a worker's: its own
            self._client = clients.client(self.base_url, self.api_key, self.timeout, self.retries)
        body = self._body(messages, tools)
        spent = 0.0
        for tried in range(self.retries + 1):
            with self.gate if self.gate is not None else nullcontext():
                started = time.perf_counter()  # the request's own time, not the wait for the gate
                attempt = _Attempt(self._client, body, self.timeout, self.max_reply_bytes)
                attempt.start()
                attempt.join(max(0.0, attempt.deadline - time.monotonic()))
                spent += time.perf_counter() - started
            failure = _timed_out(self.timeout) if attempt.is_alive() else attempt.failure
            if failure is None:
                break
            if not isinstance(failure, _Failure):  # not the endpoint's doing: a bug, raised as it is
                raise failure
            if not failure.transient or tried == self.retries:
                raise EndpointError(_reason(failure, tried + 1 if failure.transient else None)) from None
            pause = self._pause(tried, failure.wait)
            time.sleep(pause)
            spent += pause
        message, usage = _read_reply(attempt.reply, attempt.content_type)
        return message, {**usage, "latency_ms": round(spent * 1000, 1)}

    def _body(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> bytes:
        """The request as JSON, encoded here as the SDK would (UTF-8; no NaN or infinity, which JSON has not),
        so that a request that cannot be encoded is a `ValueError` of ours and not reported as the endpoint's
        fault: nothing was sent. Sent as it is (the SDK's `post`): `create` would first walk every message and
        tool schema against its typed parameters, which leaves JSON-ready dicts such as these unchanged but
        costs more CPU than the rest of the request (the history grows each turn)."""
        options: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            options["tools"] = list(tools)
        if self.temperature is not None:
            options["temperature"] = self.temperature
        if self.max_tokens is not None:
            options["max_tokens"] = self.max_tokens
        try:
            return json.dumps(options, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        except (TypeError, ValueError, RecursionError) as exc:
            raise ValueError(f"the request cannot be encoded as JSON, so nothing was sent: {_detail(exc)}") from None

    def _pause(self, tried: int, asked: float | None) -> float:
        """Seconds to wait before the next try: what the endpoint asked, else the SDK's backoff (half a second,
        doubling up to 8, less up to a quarter at random so that workers spread out); never more than the
        timeout or `MAX_RETRY_WAIT`, since the SDK obeyed a Retry-After of up to two minutes per retry."""
        if asked is None:
            asked = min(0.5 * 2.0 ** min(tried, 8), 8.0) * (1 - 0.25 * random.random())
        return min(asked, self.timeout, MAX_RETRY_WAIT)


class _Attempt(threading.Thread):
    """One request attempt, sent and read in a thread of its own so that its caller stops waiting at the
    deadline whatever the endpoint does.

    The SDK's timeout bounds each connect, write and read, not the request: an endpoint sending a byte a
    second, of its headers or of its body, held a request for hours. The caller waits for this thread until
    `deadline` and not a moment longer. The thread stops reading a body past the deadline or past `limit`
    bytes (counted decompressed, as they come: a megabyte of gzip inflated to a gigabyte in memory), and any
    one read ends by the SDK's timeout; so an attempt given up on does not outlive its deadline by more than
    one read, unless the endpoint keeps dripping its headers (which only it can end).
    """

    def __init__(self, sdk: Any, body: bytes, timeout: float, limit: int) -> None:
        super().__init__(name="toolworlds-request", daemon=True)
        self.sdk, self.body, self.timeout, self.limit = sdk, body, timeout, limit
        self.deadline = time.monotonic() + timeout
        self.reply = bytearray()
        self.content_type = ""
        self.failure: BaseException | None = None

    def run(self) -> None:
        import openai

        try:
            # The raw reply, its body not yet read (`stream=True`: the SDK only wraps it as an event stream,
            # never read here), so that reading it is bounded; the SDK still builds the request (URL, headers,
            # authentication) and sends it on its connection pool.
            stream = self.sdk.post("/chat/completions", cast_to=object, content=self.body, stream=True,
                                   stream_cls=openai.Stream[object],
                                   options={"timeout": self.timeout, "max_retries": 0})
            response = stream.response
            try:
                self.content_type = str(response.headers.get("content-type", ""))
                self._read(response)
            finally:
                response.close()
        except BaseException as exc:  # handed to the caller, which raises it or the reason it stands for
            self.failure = _failure(exc, self.timeout)

    def _read(self, response: Any) -> None:
        try:
            declared = int(response.headers.get("content-length", "0"))
        except ValueError:
            declared = 0
        if declared > self.limit and not response.headers.get("content-encoding"):
            raise _too_large(self.limit)  # said up front: not a byte of it need be read
        for chunk in response.iter_bytes():
            if len(self.reply) + len(chunk) > self.limit:
                raise _too_large(self.limit)
            self.reply += chunk
            if time.monotonic() > self.deadline:
                raise _timed_out(self.timeout)


def _refuse_failed(response: Any) -> None:
    """Response hook of the SDK clients made here: a reply whose status is not 2xx is refused as soon as its
    headers are in, with its error message read from no more than `_ERROR_BODY_BYTES` of its body (and not
    past the attempt's deadline). The SDK would read such a body whole, however large or compressed, before
    raising; and would follow a redirect after reading its body (not followed: the message says where to)."""
    status = response.status_code
    if 200 <= status < 300:
        return
    attempt = threading.current_thread()
    deadline = attempt.deadline if isinstance(attempt, _Attempt) else math.inf
    kept = bytearray()
    try:
        # A body cut short (dropped, undecodable) only shortens the detail: the status is the reason.
        with contextlib.suppress(Exception):
            for chunk in response.iter_bytes():
                kept += chunk[:_ERROR_BODY_BYTES - len(kept)]
                if len(kept) >= _ERROR_BODY_BYTES or time.monotonic() > deadline:
                    break
    finally:
        response.close()
    headers = response.headers
    if 300 <= status < 400:
        detail = f"a redirect to {_glimpse(headers.get('location', 'nowhere'))}, not followed (give it as base URL)"
    else:
        detail = _error_message(bytes(kept))
    raise _Failure(f"HTTP {status}", detail, transient=_retryable(status, headers), wait=_asked_wait(headers))


def _error_message(body: bytes) -> str:
    """The message of a failed request's body: `error.message` as OpenAI and most servers send it, else the
    body's first words."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict):
        error = data.get("error", data)
        message = error.get("message") if isinstance(error, dict) else error
        if isinstance(message, str) and message.strip():
            return _glimpse(message, 200)
    return _glimpse(body[:1000].decode("utf-8", "replace"), 200) or "no reason given"


def _retryable(status: int, headers: Any) -> bool:
    """Whether a failed status is worth another try, as the openai SDK decides: the endpoint's
    `x-should-retry` when it says, else 408, 409, 429 and every 5xx."""
    said = headers.get("x-should-retry")
    if said in ("true", "false"):
        return bool(said == "true")
    return status in (408, 409, 429) or status >= 500


def _asked_wait(headers: Any) -> float | None:
    """The seconds the endpoint asks to wait before a retry (`retry-after-ms`, or `retry-after` in seconds or
    as a date), None when it does not say or says nonsense (then the backoff is used)."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            if name == "retry-after-ms":
                continue
            try:
                seconds = email.utils.mktime_tz(email.utils.parsedate_tz(value)) - time.time()
            except (TypeError, ValueError, OverflowError, OSError):
                return None
        return max(seconds, 0.0) if math.isfinite(seconds) else None
    return None


def _failure(exc: BaseException, timeout: float) -> BaseException:
    """The `_Failure` an exception of the SDK or its HTTP library stands for; any other (a bug) as it is."""
    import openai

    if isinstance(exc, _Failure):
        return exc
    if isinstance(exc, openai.APIConnectionError) and isinstance(exc.__cause__, _Failure):
        return exc.__cause__  # an SDK that wraps what the response hook raised
    if isinstance(exc, openai.APITimeoutError):
        return _timed_out(timeout)
    if isinstance(exc, openai.APIConnectionError):
        return _Failure("connection failed", _detail(exc.__cause__ or exc), transient=True)
    if isinstance(exc, openai.APIStatusError):  # not met while the hook refuses first
        headers = exc.response.headers
        return _Failure(f"HTTP {exc.status_code}", _detail(exc), transient=_retryable(exc.status_code, headers),
                        wait=_asked_wait(headers))
    if isinstance(exc, openai.APIError):
        return _Failure("unreadable reply", _detail(exc), transient=False)
    # While the body is read: the errors of the SDK's HTTP library (httpx or httpx2), known by name.
    names = {kind.__name__ for kind in type(exc).__mro__ if kind.__module__.partition(".")[0] in ("httpx", "httpx2")}
    if "TimeoutException" in names:
        return _timed_out(timeout)
    if "DecodingError" in names:  # a body its Content-Encoding cannot undo
        return _Failure("unreadable reply", _detail(exc), transient=False)
    if "TransportError" in names:  # the connection dropped or the HTTP framing broke mid-body
        return _Failure("connection failed", _detail(exc), transient=True)
    return exc


def _timed_out(timeout: float) -> _Failure:
    return _Failure("timed out", f"no complete reply within {timeout:g} s", transient=True)


def _too_large(limit: int) -> _Failure:
    return _Failure("reply refused", f"its body is larger than max_reply_bytes ({limit:,} bytes, decompressed)",
                    transient=False)


def _read_reply(body: bytes | bytearray, content_type: str) -> tuple[ReplyMessage, dict[str, int | None]]:
    """The first choice's message and the token counts of a reply body; `EndpointError` when the body is not
    a chat completion of the shape the protocol gives it (what a well-formed message *says* is the model's)."""
    try:
        data = json.loads(body)
    except RecursionError:
        raise EndpointError("endpoint unreadable reply: its JSON is nested too deep") from None
    except ValueError as exc:  # not JSON, not UTF-8, an integer of thousands of digits
        if "json" in content_type.lower():
            raise EndpointError(_reason(_Failure("unreadable reply", _detail(exc), transient=False), None)) from None
        text = _glimpse(bytes(body[:1000]).decode("utf-8", "replace")) or "an empty body"
        raise EndpointError(f"the reply is not a chat completion: {text}") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list):  # quoted, as its text reads (a JSON string's own text, not its escapes)
        shown = data if isinstance(data, str) else bytes(body[:1000]).decode("utf-8", "replace")
        raise EndpointError(f"the reply is not a chat completion: {_glimpse(shown) or 'an empty body'}")
    if not choices:
        raise EndpointError("the reply has no choices")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    if message is None:
        raise EndpointError("the reply's first choice has no message")
    if not isinstance(message, dict):
        raise EndpointError(f"endpoint unreadable reply: the first choice's message is {_json_kind(message)}, "
                            "not an object")
    tool_calls = message.get("tool_calls")
    if tool_calls is not None and not isinstance(tool_calls, list):
        raise EndpointError(f"endpoint unreadable reply: the message's tool_calls is {_json_kind(tool_calls)}, "
                            "not a list")
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    finish = choices[0].get("finish_reason")
    return (ReplyMessage(_content(message.get("content")), tuple(tool_calls or ()),
                         finish if isinstance(finish, str) else None),
            {"prompt_tokens": _count(usage.get("prompt_tokens")),
             "completion_tokens": _count(usage.get("completion_tokens"))})


def _content(value: Any) -> str | None:
    """A message's text: a string as sent, or a list of parts read as its text parts joined (some
    OpenAI-compatible servers send `[{"type": "text", "text": ...}]`; images and refusals are not text)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part["text"] for part in value
                       if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str))
    raise EndpointError(f"endpoint unreadable reply: the message's content is {_json_kind(value)}, not text")


def _json_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    return "null" if value is None else "a number"


def _count(value: Any) -> int | None:
    """A token count as the store can keep it; anything else (a float, text, a negative or a count past
    `_MAX_COUNT`, which stopped the whole run when SQLite could not store it) is unknown."""
    return value if type(value) is int and 0 <= value <= _MAX_COUNT else None


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _detail(exc: BaseException) -> str:
    try:
        detail = str(exc)
    except Exception:  # a message that does not format is not the reason
        detail = ""
    return _glimpse(detail or type(exc).__name__, 200)


def _glimpse(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else type(value).__name__
    return printable_text(" ".join(text.split())[:limit])


def _reason(failure: _Failure, tries: int | None) -> str:
    """The one line an `EndpointError` says; `tries` is given when the failure was worth retrying."""
    tried = "" if tries is None else f" ({tries} {'try' if tries == 1 else 'tries'})"
    return f"endpoint {failure.what}{tried}: {failure.detail}"


@dataclass
class LLMAgent:
    """A model as the agent, speaking one of two protocols.

    "native" (the default): the tools go to the API as OpenAI tool schemas, the model's calls
    come back as `tool_calls` with ids, and each result (an error too) is a `role: "tool"`
    message carrying the `tool_call_id` it answers; the model sees its own calls again as it
    sent them. "bracket": no tools are sent; the model writes calls as text in the bracket
    syntax of ACEBench-style prompts and reads results back as user messages, as those
    benchmarks do. `system_prompt` replaces the generic prompt (a benchmark's own).
    """

    client: ChatClient
    system_prompt: str = AGENT_PROMPT
    protocol: str = "native"
    calls_in: Callable[[str], str | None] | None = None  # where a reply's request is, if the task says
    tool_format = "openai"

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"unknown protocol {self.protocol!r}; use one of {', '.join(PROTOCOLS)}")

    @classmethod
    def for_task(cls, client: ChatClient, task: Task, protocol: str | None = None) -> LLMAgent:
        """The agent for one task: the task's own system prompt and protocol when it has them
        (`protocol` given here wins); the bracket protocol without a prompt of the task's own
        gets a generic one listing the tools. A task's `calls_in(reply)` says which part of a
        text reply is its request (None: words to the user)."""
        chosen = protocol or task_protocol(task)
        return cls(client, agent_prompt(task, chosen), chosen, task_hook(task, "calls_in"))

    def act(self, conversation: Sequence[ChatMessage], tools: Sequence[dict[str, Any]]) -> Turn:
        if self.protocol == "bracket":
            reply, usage = self.client.exchange(self._bracket_messages(conversation))
            content = _text(reply.content)
            calls = self.calls_in(content) if self.calls_in is not None else None
            turn = _text_turn(content, calls)
        else:
            reply, usage = self.client.exchange(self._native_messages(conversation), tools)
            content = _text(reply.content)
            tool_calls = getattr(reply, "tool_calls", None) or []
            turn = (Turn(text=content, tool_calls=_tool_calls(tool_calls)) if tool_calls
                    else Turn.from_text(content))
        # A reply cut off at max_tokens is marked as such: its calls may be cut short too.
        return dataclasses.replace(turn, usage=usage, truncated=getattr(reply, "finish_reason", None) == "length")

    def _native_messages(self, conversation: Sequence[ChatMessage]) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.system_prompt}, *(api_message(m, "native") for m in conversation)]

    def _bracket_messages(self, conversation: Sequence[ChatMessage]) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.system_prompt}, *(api_message(m, "bracket") for m in conversation)]


def api_message(message: ChatMessage, protocol: str) -> dict[str, Any]:
    """One message of a conversation as the chat API is sent it in `protocol`: native calls with their
    ids and each answer naming the call it answers; results of calls written as text (all of them, in
    the bracket protocol) come back as a user message, since no call id exists to answer."""
    if protocol == "native" and message.role == "assistant" and message.tool_calls:
        return {"role": "assistant", "content": message.content or None, "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls]}
    if message.role == "tool":
        if protocol == "native" and message.tool_call_id is not None:
            return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
        return {"role": "user", "content": f"execution result: {message.content}"}
    return {"role": message.role, "content": message.content}


PROTOCOLS = ("native", "bracket")
BRACKET_PROMPT = ("You are an assistant that completes the user's request by calling tools. To call tools, reply "
                  "with nothing but the calls, written as [tool_name(argument=value, ...), ...] with every "
                  "argument named and every value a literal. Each reply with calls is answered with their results. "
                  "When the request is complete, reply with a short answer and no call.\nThe tools:\n{tools}")


def task_protocol(task: Task) -> str:
    """The protocol a task asks for (its optional `protocol` attribute), "native" when it names none."""
    protocol = task_hook(task, "protocol")
    return protocol if protocol in PROTOCOLS else "native"


def agent_prompt(task: Task, protocol: str) -> str:
    """The system prompt a model gets for `task` in `protocol`: the task's own when it has one, else the
    generic one (in the bracket protocol, listing the task's tools, since none go to the API)."""
    prompt = task_hook(task, "system_prompt")
    if isinstance(prompt, str) and prompt:
        return prompt
    return AGENT_PROMPT if protocol == "native" else bracket_prompt(getattr(task, "functions", []))


def bracket_prompt(functions: Sequence[dict[str, Any]]) -> str:
    return BRACKET_PROMPT.format(tools=json.dumps(list(functions), ensure_ascii=False, indent=1))


@dataclass
class LLMUser:
    """A model playing the user of a multi-turn task.

    `system_prompt` replaces the generic user prompt (a benchmark's own user rules, with the
    instruction in it); `opener` is what the user is asked before the agent spoke;
    `last_usage` is what its latest reply cost. What it says is its reply without its thinking
    (`sandbox.replies.spoken`): "finish conversation" only thought of ends nothing.
    """

    client: ChatClient
    instruction: str
    system_prompt: str | None = None
    opener: str | None = None
    last_usage: dict[str, Any] | None = field(default=None, init=False)

    @property
    def prompt(self) -> str:
        """The system message it is given."""
        return self.system_prompt or USER_PROMPT.format(instruction=self.instruction)

    def respond(self, conversation: Sequence[ChatMessage]) -> str:
        # Roles flip: the simulated user sees the assistant's words as the other party's.
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.prompt}]
        for index, message in enumerate(conversation):
            sent_to_tools = index + 1 < len(conversation) and conversation[index + 1].role == "tool"
            if message.role == "assistant" and not message.calls and not message.tool_calls and not sent_to_tools:
                messages.append({"role": "user", "content": message.content})
            elif message.role == "user":
                messages.append({"role": "assistant", "content": message.content})
        if len(messages) == 1:
            messages.append({"role": "user", "content": self.opener or "Is there anything you need help with today?"})
        reply, self.last_usage = self.client.exchange(messages)
        return spoken(_text(reply.content)) or END


def _text_turn(text: str, calls: str | None) -> Turn:
    """A text reply: read whole, or, when the task found a request inside it (`calls`), that
    request, handed to the world if it cannot be read here, so the model sees why."""
    if calls is None:
        return Turn.from_text(text)
    read = Turn.from_text(calls)
    return Turn(calls=read.calls, raw=text) if read.calls else Turn(raw=text, call_text=calls)


def _text(content: Any) -> str:
    """A reply's text, "" for none. A lone surrogate (JSON's `"\\ud800"` decodes to one) is kept as its
    escape (`printable_text`): the conversation goes back to the endpoint as UTF-8, which cannot hold it."""
    return printable_text(content) if isinstance(content, str) else ""


def _tool_calls(tool_calls: Sequence[Any]) -> tuple[ToolCall, ...]:
    """The model's tool calls as sent: ids, names and argument text kept verbatim (the world reads
    the arguments, and refuses, in place, each call it cannot read), but for lone surrogates, kept as
    their escapes as in `_text`. A call without an id gets one from its position; a name or arguments
    that are not text are kept as their JSON. Each call is a JSON value as the endpoint sent it (`ReplyMessage`):
    a call or function that is not an object has no name and no arguments."""
    calls = []
    for index, tool_call in enumerate(tool_calls):
        call = tool_call if isinstance(tool_call, dict) else {}
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        name, arguments, call_id = function.get("name"), function.get("arguments"), call.get("id")
        calls.append(ToolCall(_text(call_id) if isinstance(call_id, str) and call_id else f"call_{index}",
                              _text(name) if isinstance(name, str) else _json_text(name),
                              _text(arguments) if isinstance(arguments, str) else _json_text(arguments)))
    return tuple(calls)


def _json_text(value: Any) -> str:
    """A value the model sent where text belongs, as its JSON for the world to read (and refuse); nesting too
    deep to write again (JSON parsed just below the interpreter's limit) is passed on as text it will refuse."""
    try:
        return json.dumps(value)
    except (ValueError, RecursionError):
        return "<JSON nested too deep to pass on>"
