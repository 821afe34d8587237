"""Local chat-API endpoints for tests, bound to 127.0.0.1: a function writes each reply."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Model = Callable[[dict[str, Any]], dict[str, Any]]  # the request body -> the assistant message
Reply = Callable[[dict[str, Any]], dict[str, Any]]  # the request body -> the whole response body


@contextmanager
def json_endpoint(reply: Reply) -> Iterator[str]:
    """Serve POSTs answered by `reply`, whatever the path; yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            payload = json.dumps(reply(body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chat_endpoint(model: Model) -> Iterator[str]:
    """Serve OpenAI chat completions answered by `model`; yields the base URL (ending in /v1)."""

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        return {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "message": model(body), "finish_reason": "stop"}]}

    with json_endpoint(reply) as url:
        yield url + "/v1"
