"""A local HTTP server that records each request and answers with a queued, recorded reply.

Used to send what agentmsg builds through the official SDK clients (openai, google-genai) and
check that the body reached the wire unchanged. Binds 127.0.0.1 on a free port; always shut
down by the context manager.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Recorder:
    url: str
    requests: list[Recorded] = field(default_factory=list)
    replies: list[tuple[int, str, bytes]] = field(default_factory=list)

    def reply_json(self, body: Any, status: int = 200) -> None:
        self.replies.append((status, "application/json", json.dumps(body).encode()))

    def reply_sse(self, events: list[Any], with_event_names: bool = False) -> None:
        chunks = []
        for event in events:
            head = f"event: {event['type']}\n" if with_event_names else ""
            chunks.append(f"{head}data: {json.dumps(event)}\n\n")
        self.replies.append((200, "text/event-stream", "".join(chunks).encode()))


@contextmanager
def recording_server() -> Iterator[Recorder]:
    recorder = Recorder("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            recorder.requests.append(Recorded("POST", self.path, dict(self.headers.items()), body))
            status, content_type, payload = recorder.replies.pop(0) if recorder.replies else (500, "text/plain", b"no reply queued")
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    recorder.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield recorder
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
