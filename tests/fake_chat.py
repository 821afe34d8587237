"""Local chat-API endpoints for tests, bound to 127.0.0.1: a function writes each reply.

`serve` is the raw server: the function returns a `Response` (any status, any bytes, an
optional pause), so tests can make the endpoint fail in every way a real one does.
`json_endpoint` and `chat_endpoint` are the well-behaved shapes built on it. Each request
runs in its own thread, so a reply that sleeps does not hold up the others.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Model = Callable[[dict[str, Any]], dict[str, Any]]  # the request body -> the assistant message
Reply = Callable[[dict[str, Any]], dict[str, Any]]  # the request body -> the whole response body


@dataclass(frozen=True)
class Response:
    """What the server sends: a status, a body (bytes, sent as given) and a content type, after a pause;
    `retry_after_ms`, when set, is sent as the `retry-after-ms` header, which the OpenAI SDK waits for
    instead of its own back-off (half a second and up) before it retries a failed request."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    delay: float = 0.0
    retry_after_ms: int | None = None


Answer = Callable[[dict[str, Any]], Response]


def completion(message: dict[str, Any], model: str = "fake-model") -> dict[str, Any]:
    """A well-formed chat-completion body holding `message`."""
    return {"id": "x", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def say(content: str) -> Response:
    return Response(json.dumps(completion({"role": "assistant", "content": content})).encode())


def tool_call(name: str, arguments: str) -> Response:
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}]}
    return Response(json.dumps(completion(message)).encode())


@contextmanager
def serve(answer: Answer, connections: list[tuple[str, int]] | None = None) -> Iterator[str]:
    """Serve POSTs answered by `answer`, whatever the path, until the block ends; yields the base URL.

    With `connections`, the server keeps connections open between requests (HTTP/1.1), as real
    endpoints do, and appends each new connection's client address to the list."""

    class Handler(BaseHTTPRequestHandler):
        if connections is not None:
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                # As real servers do: else a reply's headers and body, written apart, wait out the client's
                # delayed acknowledgement (about 40 ms) on a connection kept open.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                connections.append(self.client_address)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            response = answer(body)
            if response.delay:
                time.sleep(response.delay)
            try:
                self.send_response(response.status)
                self.send_header("Content-Type", response.content_type)
                self.send_header("Content-Length", str(len(response.body)))
                if response.retry_after_ms is not None:
                    self.send_header("retry-after-ms", str(response.retry_after_ms))
                self.end_headers()
                self.wfile.write(response.body)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                pass

        def log_message(self, *args: Any) -> None:
            pass

    with serving(ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as url:
        yield url


@contextmanager
def serving(server: ThreadingHTTPServer) -> Iterator[str]:
    """Run `server` (bound to a local port) in a thread, each request in its own; yields its base URL and
    stops it on the way out."""
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def json_endpoint(reply: Reply) -> Iterator[str]:
    """Serve POSTs answered with the JSON body `reply` returns; yields the base URL."""
    with serve(lambda body: Response(json.dumps(reply(body)).encode())) as url:
        yield url


@contextmanager
def chat_endpoint(model: Model) -> Iterator[str]:
    """Serve OpenAI chat completions answered by `model`; yields the base URL (ending in /v1)."""
    with json_endpoint(lambda body: completion(model(body), body["model"])) as url:
        yield url + "/v1"
