"""The LLM client's bounds against a local endpoint, through the real openai SDK: each request attempt ends by its
timeout whatever the endpoint sends and however slowly, retry waits are capped, reply bodies are bounded
decompressed, token counts are ones a database can store, local errors are not the endpoint's, and replies of
the wrong shape are `EndpointError`s."""

from __future__ import annotations

import json
import math
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from scenarios.banking.family import load_tasks
from tests.fake_chat import completion, serving
from toolworlds.llm import ChatClient, EndpointError, LLMAgent, _json_text
from toolworlds.runner import AgentSpec, TaskSet, execute_run
from toolworlds.store import RunStore

pytest.importorskip("openai")

TIMEOUT = 0.5  # seconds per attempt where the test is that it ends in time
PATIENT = 5.0  # seconds per attempt elsewhere: no reply in these tests takes it, however busy the machine
MIB = 2**20
HI = [{"role": "user", "content": "hi"}]
TASK = next(task for task in load_tasks("en") if task.id == "banking_multi_step_0")

Write = Callable[[BaseHTTPRequestHandler, dict[str, Any], threading.Event], None]


class Endpoint:
    """A local endpoint whose `write` sends each reply byte by byte if it likes; `requests` holds the bodies it
    was sent. `stop` is set when the block ends: a reply still being sent slowly ends then."""

    def __init__(self, write: Write) -> None:
        self.write, self.stop = write, threading.Event()
        self.requests: list[dict[str, Any]] = []


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up on a reply resets its connection, as these tests have it do


@contextmanager
def endpoint(write: Write) -> Iterator[tuple[str, Endpoint]]:
    """Serve POSTs written by `write` (HTTP/1.1, connections kept open); yields the base URL (ending in /v1)."""
    state = Endpoint(write)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(body)
            try:
                state.write(self, body, state.stop)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up
                self.close_connection = True

        def log_message(self, *args: Any) -> None:
            pass

    with serving(QuietServer(("127.0.0.1", 0), Handler)) as url:
        try:
            yield f"{url}/v1", state
        finally:
            state.stop.set()  # before the server stops: a writer still dripping a reply ends first


def send(handler: BaseHTTPRequestHandler, body: bytes, status: int = 200, headers: dict[str, str] | None = None,
         content_type: str = "application/json") -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def reply(message: dict[str, Any], **extra: Any) -> Write:
    """Every request answered at once with a completion holding `message` (and `extra` top-level fields)."""
    body = json.dumps({**completion(message), **extra}).encode()
    return lambda handler, request, stop: send(handler, body)


def raw(body: bytes) -> Write:
    return lambda handler, request, stop: send(handler, body)


def drip(data: bytes, stop: threading.Event, handler: BaseHTTPRequestHandler, pause: float = 0.05) -> None:
    """Send `data` a byte at a time, `pause` seconds apart, as a hostile endpoint keeps a request going."""
    for index in range(len(data)):
        if stop.is_set():
            handler.close_connection = True
            return
        handler.wfile.write(data[index:index + 1])
        handler.wfile.flush()
        time.sleep(pause)


def client(url: str, **settings: Any) -> ChatClient:
    return ChatClient(url, "m", api_key="test", **{"timeout": PATIENT, "retries": 0, **settings})


def refused(url: str, match: str, **settings: Any) -> str:
    """The `EndpointError` one request ends in."""
    with pytest.raises(EndpointError, match=match) as caught:
        client(url, **settings).complete(HI)
    return str(caught.value)


def request_threads_end(within: float) -> bool:
    """Whether every request attempt's thread has ended within `within` seconds."""
    until = time.monotonic() + within
    while any(t.name == "toolworlds-request" and t.is_alive() for t in threading.enumerate()):
        if time.monotonic() > until:
            return False
        time.sleep(0.02)
    return True


def run_one_episode(url: str, tmp_path: Path, **settings: Any) -> tuple[Any, RunStore]:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    spec = AgentSpec("llm", model="m", base_url=url, user="scripted", **{"timeout": PATIENT, "retries": 0, **settings})
    (episode,) = execute_run(store, "r", [TaskSet("banking", "en", [TASK])], spec)
    return episode, store


# 1. Token counts a database can store.

@pytest.mark.parametrize("count", [10**20, 2**31, -1, 3.0, "12", True, None, [1]])
def test_a_token_count_the_store_cannot_keep_is_unknown(count: Any) -> None:
    usage = {"prompt_tokens": count, "completion_tokens": 2**31 - 1, "total_tokens": 0}
    with endpoint(reply({"role": "assistant", "content": "Done."}, usage=usage)) as (url, _):
        message, cost = client(url).exchange(HI)
    assert message.content == "Done."
    assert cost["prompt_tokens"] is None and cost["completion_tokens"] == 2**31 - 1


def test_a_huge_usage_count_no_longer_fails_the_episode_it_is_stored_as_unknown(tmp_path: Path) -> None:
    def write(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        answered = any(m["role"] == "tool" for m in request["messages"])
        message: dict[str, Any] = {"role": "assistant", "content": "Done."} if answered else {
            "role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "get_balance", "arguments": json.dumps({"customer_id": "C001", "account_id": "A001"})}}]}
        usage = {"prompt_tokens": 10**20, "completion_tokens": 5, "total_tokens": 10**20 + 5}
        send(handler, json.dumps({**completion(message), "usage": usage}).encode())

    with endpoint(write) as (url, _):
        episode, store = run_one_episode(url, tmp_path)
    assert episode.error is None, episode.error
    replies = [m for m in store.messages(episode.id) if m.role == "assistant"]
    assert len(replies) == 2 and all(m.prompt_tokens is None and m.completion_tokens == 5 for m in replies)


# 2. The timeout bounds each attempt as a whole; retry waits are capped.

def test_a_body_sent_a_byte_at_a_time_times_out_by_the_deadline() -> None:
    body = b" " * 2000 + json.dumps(completion({"role": "assistant", "content": "Done."})).encode()

    def write(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        drip(body, stop, handler)  # 2,000 reads each well within the timeout: the SDK's own never fired

    with endpoint(write) as (url, state):
        # The drip takes 100 s; the deadline's own words say the attempt was cut at 0.5 s, not read to its end.
        reason = refused(url, "timed out", timeout=TIMEOUT)
        assert "no complete reply within 0.5 s" in reason and len(state.requests) == 1
        assert request_threads_end(within=1.0)  # the attempt's thread stopped reading too


def test_headers_sent_a_byte_at_a_time_time_out_by_the_deadline() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Padding: " + b"a" * 2000 + b"\r\n"

    def write(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        drip(head, stop, handler)

    with endpoint(write) as (url, _):
        reason = refused(url, "timed out", timeout=TIMEOUT)
        assert "no complete reply within 0.5 s" in reason  # cut by the deadline, not after the 100 s drip
    assert request_threads_end(within=2.0)  # once the endpoint stops, nothing of the attempt is left


def pauses_between_tries(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The seconds the client waits before each retry, as it decides them (and then waits)."""
    decided: list[float] = []
    real = ChatClient._pause

    def pause(self: ChatClient, tried: int, asked: float | None) -> float:
        decided.append(real(self, tried, asked))
        return decided[-1]

    monkeypatch.setattr(ChatClient, "_pause", pause)
    return decided


def test_a_timed_out_attempt_is_tried_again_as_retries_allow(monkeypatch: pytest.MonkeyPatch) -> None:
    def write(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        stop.wait(30)  # says nothing at all
        handler.close_connection = True

    pauses = pauses_between_tries(monkeypatch)
    with endpoint(write) as (url, state):
        reason = refused(url, r"timed out \(2 tries\)", timeout=TIMEOUT, retries=1)
        assert len(state.requests) == 2 and "no complete reply within 0.5 s" in reason
        assert len(pauses) == 1 and 0 < pauses[0] <= TIMEOUT  # the backoff, capped at the timeout


def test_retry_after_is_obeyed_up_to_the_timeout_not_for_a_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    def write(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        send(handler, b'{"error": {"message": "slow down"}}', status=429, headers={"Retry-After": "60"})

    pauses = pauses_between_tries(monkeypatch)
    with endpoint(write) as (url, state):
        refused(url, r"HTTP 429 \(2 tries\): slow down", timeout=TIMEOUT, retries=1)
        assert len(state.requests) == 2 and pauses == [TIMEOUT]  # the SDK waited the whole minute


def test_a_short_retry_after_is_obeyed() -> None:
    asked: list[float] = []

    def write(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        asked.append(time.monotonic())
        if len(asked) == 1:
            send(handler, b'{"error": {"message": "busy"}}', status=503, headers={"retry-after-ms": "300"})
        else:
            send(handler, json.dumps(completion({"role": "assistant", "content": "Done."})).encode())

    with endpoint(write) as (url, _):
        assert client(url, retries=1).complete(HI).content == "Done."
    assert asked[1] - asked[0] >= 0.28


def test_a_client_error_is_not_retried_and_says_the_endpoint_s_message() -> None:
    def write(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        send(handler, b'{"error": {"message": "model m does not exist"}}', status=404)

    with endpoint(write) as (url, state):
        reason = refused(url, "HTTP 404", retries=2)
        assert reason == "endpoint HTTP 404: model m does not exist" and len(state.requests) == 1


def test_a_redirect_is_not_followed_and_says_where_it_points() -> None:
    def write(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        send(handler, b"", status=307, headers={"Location": "http://elsewhere.test/v1/chat/completions"})

    with endpoint(write) as (url, _):
        reason = refused(url, "HTTP 307")
        assert "redirect to http://elsewhere.test/v1/chat/completions, not followed" in reason


# 3. Reply bodies are bounded, counted decompressed as they are read.

def gzip_of_spaces(megabytes: int, tail: bytes) -> bytes:
    """`megabytes` MiB of spaces and then `tail`, gzip-compressed without ever holding the spaces whole."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [packer.compress(b" " * MIB) for _ in range(megabytes)]
    return b"".join([*parts, packer.compress(tail), packer.flush()])


def peak_bytes(during: Callable[[], Any]) -> int:
    """The most memory Python held at once (every thread's) while `during` ran."""
    tracemalloc.start()
    try:
        with pytest.raises(EndpointError):
            during()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_compressed_reply_that_inflates_past_the_bound_is_refused_without_inflating_it() -> None:
    bomb = gzip_of_spaces(32, json.dumps(completion({"role": "assistant", "content": "hi"})).encode())
    assert len(bomb) < MIB  # 32 MiB inflated

    def write(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        send(handler, bomb, headers={"Content-Encoding": "gzip"})

    with endpoint(write) as (url, state):
        chat = client(url, retries=2, max_reply_bytes=MIB)
        peak = peak_bytes(lambda: chat.complete(HI))
        with pytest.raises(EndpointError, match=r"larger than max_reply_bytes \(1,048,576 bytes, decompressed\)"):
            chat.complete(HI)
        assert len(state.requests) == 2  # not retried: the same request would get the same reply
    assert peak < 12 * MIB, peak  # reading it whole held 32 MiB and more


def test_a_compressed_reply_within_the_bound_is_read() -> None:
    body = gzip_of_spaces(2, json.dumps(completion({"role": "assistant", "content": "hi"})).encode())

    def write(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        send(handler, body, headers={"Content-Encoding": "gzip"})

    with endpoint(write) as (url, _):
        assert client(url).complete(HI).content == "hi"


def test_a_reply_longer_than_the_bound_is_refused_by_its_length_or_while_read() -> None:
    big = b" " * (2 * MIB) + json.dumps(completion({"role": "assistant", "content": "hi"})).encode()

    def chunked(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for start in range(0, len(big), 65_536):
            piece = big[start:start + 65_536]
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        handler.wfile.write(b"0\r\n\r\n")

    for write in (raw(big), chunked):
        with endpoint(write) as (url, _):
            refused(url, "max_reply_bytes", max_reply_bytes=MIB)
            assert client(url, max_reply_bytes=3 * MIB).complete(HI).content == "hi"


def test_a_failed_status_with_a_huge_body_is_refused_with_a_glimpse_of_it() -> None:
    bomb = gzip_of_spaces(32, b'{"error": {"message": "boom"}}')

    def write(handler: BaseHTTPRequestHandler, request: dict[str, Any], stop: threading.Event) -> None:
        send(handler, bomb, status=500, headers={"Content-Encoding": "gzip"})

    with endpoint(write) as (url, _):
        chat = client(url)
        peak = peak_bytes(lambda: chat.complete(HI))
        reason = refused(url, "HTTP 500")
        assert reason == "endpoint HTTP 500 (1 try): no reason given"  # the message is past the glimpse
    assert peak < 12 * MIB, peak  # the SDK read a failed request's body whole


# 4. What goes wrong here is not the endpoint's fault.

@pytest.mark.parametrize("settings", [
    {"timeout": math.inf}, {"timeout": math.nan}, {"timeout": 0}, {"timeout": -1.0}, {"timeout": 1e9},
    {"timeout": True}, {"temperature": math.inf}, {"temperature": -math.inf}, {"temperature": math.nan},
    {"retries": -1}, {"retries": 1.5}, {"max_reply_bytes": 0}])
def test_settings_no_request_could_honour_are_refused_when_the_client_is_made(settings: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(settings))):
        ChatClient("http://127.0.0.1:9/v1", "m", **settings)


@pytest.mark.parametrize("messages, tools", [
    ([{"role": "user", "content": "a lone surrogate \ud800"}], ()),
    (HI, ({"type": "function", "function": {"name": "f", "parameters": {"default": math.nan}}},)),
    (HI, ({"type": "function", "function": {"name": "f", "parameters": {"default": object()}}},))])
def test_a_request_that_cannot_be_encoded_is_a_local_error_and_nothing_is_sent(
        messages: list[dict[str, Any]], tools: tuple[Any, ...]) -> None:
    with endpoint(reply({"role": "assistant", "content": "Done."})) as (url, state):
        with pytest.raises(ValueError, match="cannot be encoded as JSON, so nothing was sent") as caught:
            client(url).complete(messages, tools)
        assert not isinstance(caught.value, EndpointError) and state.requests == []


def test_an_infinite_temperature_fails_each_episode_with_its_reason_not_the_endpoint_s(tmp_path: Path) -> None:
    with endpoint(reply({"role": "assistant", "content": "Done."})) as (url, state):
        episode, _ = run_one_episode(url, tmp_path, temperature=math.inf)
        assert state.requests == []
    assert episode.error is not None and "temperature must be a finite number" in episode.error
    assert "endpoint" not in episode.error


# 5. Replies of the wrong shape.

def test_content_as_a_list_of_parts_is_read_as_its_text() -> None:
    parts = [{"type": "text", "text": "The balance "}, {"type": "image_url", "image_url": {"url": "x"}},
             {"type": "text", "text": "is 100."}, {"type": "text", "text": 7}, "junk"]
    with endpoint(reply({"role": "assistant", "content": parts})) as (url, _):
        assert client(url).complete(HI).content == "The balance is 100."
        turn = LLMAgent(client(url)).act([], [])
    assert turn.text == "The balance is 100." and not turn.tool_calls


@pytest.mark.parametrize("write, match", [
    (raw(json.dumps({"id": "x", "choices": [{"message": "hello"}]}).encode()),
     "unreadable reply: the first choice's message is a string, not an object"),
    (reply({"role": "assistant", "content": None, "tool_calls": 5}),
     "unreadable reply: the message's tool_calls is a number, not a list"),
    (reply({"role": "assistant", "content": 42}), "unreadable reply: the message's content is a number, not text"),
    (reply({"role": "assistant", "content": {"text": "hi"}}), "content is an object, not text"),
    (raw(b'{"id": "x", "extra": ' + b"[" * 200_000 + b"]" * 200_000 + b', "choices": []}'),
     "unreadable reply: its JSON is nested too deep"),
    (raw(b'{"id": "x", "created": ' + b"9" * 5000 + b', "choices": []}'), "unreadable reply: "),
    (raw(b'{"id": "x", "choices": null}'), 'not a chat completion: {"id": "x", "choices": null}'),
    (raw(b'["choices"]'), r'not a chat completion: \["choices"\]'),
    (raw(b'{"id": "x", "choices": [5]}'), "first choice has no message"),
], ids=["message text", "tool_calls number", "content number", "content object", "200,000 deep", "5,000 digits",
        "choices null", "a list", "choice number"])
def test_a_reply_of_the_wrong_shape_is_an_endpoint_error(write: Write, match: str) -> None:
    with endpoint(write) as (url, state):
        refused(url, match, retries=2)
        assert len(state.requests) == 1  # the same request would get the same reply


def test_malformed_tool_calls_in_a_list_go_to_the_world_as_the_model_sent_them() -> None:
    calls = [5, {"id": "c1", "function": "get_balance"}, {"function": {"name": 3, "arguments": {"x": 1}}}]
    body = json.dumps(completion({"role": "assistant", "content": None, "tool_calls": calls}))
    with endpoint(raw(body.encode())) as (url, _):
        turn = LLMAgent(client(url)).act([], [])
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [
        ("call_0", "null", "null"), ("c1", "null", "null"), ("call_2", "3", '{"x": 1}')]
    deep: dict[str, Any] = {"a": None}
    for _ in range(5000):  # JSON parsed just within the interpreter's limit can be too deep to write again deeper
        deep = {"a": deep}
    assert _json_text(deep) == "<JSON nested too deep to pass on>"


def test_a_message_as_text_fails_its_episode_with_the_reason_and_the_run_goes_on(tmp_path: Path) -> None:
    with endpoint(raw(json.dumps({"id": "x", "choices": [{"message": "hello"}]}).encode())) as (url, _):
        episode, _ = run_one_episode(url, tmp_path)
    assert episode.error is not None
    assert episode.error.startswith("agent: EndpointError: endpoint unreadable reply: the first choice's message")
    assert episode.stop_reason == "agent failed"
