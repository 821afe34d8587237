"""A real HTTP server on 127.0.0.1 speaking (or failing to speak) the OpenAI chat-completions API.

Tests give it a function from the request body to a `Reply`; the server runs it in a
thread per request, so a reply that sleeps does not hold up the others.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """What the server sends: a status, a body (bytes, sent as given) and a content type, after a pause."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    delay: float = 0.0


def completion(message: dict[str, Any], model: str = "fake-model") -> Reply:
    """A well-formed chat completion holding `message`."""
    reply = {"id": "x", "object": "chat.completion", "created": 0, "model": model,
             "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    return Reply(json.dumps(reply).encode())


def say(content: str) -> Reply:
    return completion({"role": "assistant", "content": content})


def tool_call(name: str, arguments: str) -> Reply:
    return completion({"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}]})


Answer = Callable[[dict[str, Any]], Reply]


@contextmanager
def serve(answer: Answer) -> Iterator[str]:
    """Run the server until the block ends; yields its base URL (".../v1")."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            reply = answer(body)
            if reply.delay:
                time.sleep(reply.delay)
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                pass

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
