"""What the scripted model-API fakes (fake_anthropic.py, fake_openai.py) share: a threaded HTTP
server on 127.0.0.1, the scripted rules, the request log (in memory and as JSON lines) and the
HTTP plumbing (JSON replies, chunked SSE streams).

A fake subclasses :class:`FakeServer` and names its :class:`FakeHandler` subclass in
``handler_class``; each server gets a handler class of its own bound to it (``handler.fake``).
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

JsonDict = dict[str, Any]


class ScriptedRule(Protocol):
    """What a fake needs of its rules: a name, a use limit (0 = unlimited) and a matcher."""

    name: str
    times: int
    used: int

    def matches(self, body: JsonDict) -> bool: ...


RuleT = TypeVar("RuleT", bound=ScriptedRule)


def argv_port() -> int:
    """The port a fake run by hand (``python fake_<api>.py [port]``) listens on; 0: any."""
    return int(sys.argv[1]) if len(sys.argv) > 1 else 0


def chunks(value: str, size: int = 16) -> list[str]:
    """``value`` cut into the small pieces a streaming API delivers."""
    if not value:
        return []
    return [value[i : i + size] for i in range(0, len(value), size)]


class FakeHandler(BaseHTTPRequestHandler):
    """HTTP plumbing for one request. Subclasses answer ``GET`` with :meth:`get_reply` and
    ``POST`` with :meth:`handle_post`; anything else they leave gets an empty JSON 200 (POST) or
    the ``get_reply`` answer (GET), so the CLI never stalls on a path the fake does not know."""

    protocol_version = "HTTP/1.1"
    server_version = "lazy-fake/1"
    fake: ClassVar[Any]  # the FakeServer this handler class belongs to

    def log_message(self, format: str, *args: Any) -> None:
        return

    @property
    def route(self) -> str:
        return self.path.split("?", 1)[0]

    def json_headers(self) -> dict[str, str]:
        """Headers added to every JSON reply."""
        return {}

    def get_reply(self, route: str) -> tuple[int, JsonDict]:
        return 404, {"error": {"type": "not_found", "message": "fake"}}

    def handle_post(self, route: str, body: JsonDict) -> bool:
        """Answer a POST; False leaves it to the empty-200 fallback."""
        return False

    def _record_other(self, method: str) -> None:
        self.fake.record(
            {"kind": "other", "method": method, "path": self.path, "time": time.time()}
        )

    def do_GET(self) -> None:
        self._record_other("GET")
        self.send_json(*self.get_reply(self.route))

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: JsonDict = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = {}
        if not self.handle_post(self.route, body):
            self._record_other("POST")
            self.send_json(200, {})

    def send_json(self, status: int, payload: JsonDict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in self.json_headers().items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_sse(
        self,
        events: Iterable[tuple[str, JsonDict]],
        content_type: str = "text/event-stream",
        headers: dict[str, str] | None = None,
    ) -> None:
        """Stream ``(event name, payload)`` pairs as server-sent events, one chunk each."""
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        for name, payload in events:
            data = f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class FakeServer(Generic[RuleT]):
    """A scripted fake API on loopback. Use as a context manager or call start()/stop().

    Requests are recorded by kind: ``main`` (a rule answered), ``unscripted`` (none did: tests
    complain about those), ``other`` (paths the fake does not script) or what a subclass adds.
    """

    handler_class: ClassVar[type[FakeHandler]] = FakeHandler
    base_path: ClassVar[str] = ""  # what base_url adds to the origin

    def __init__(
        self,
        rules: list[RuleT] | None = None,
        log_path: Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.rules: list[RuleT] = list(rules or [])
        self.log_path = log_path
        self.log_full_bodies = False
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.records: list[JsonDict] = []
        self.unscripted: list[JsonDict] = []
        handler = type("Handler", (self.handler_class,), {"fake": self})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.base_path}"

    def start(self) -> Self:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def serve_until_interrupted(self) -> None:
        """For debugging by hand: log whole bodies, print the URL, serve until Ctrl-C."""
        self.log_full_bodies = True
        print(self.base_url, flush=True)
        self.start()
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            self.stop()

    # -- scripting -------------------------------------------------------------------------

    def add(self, rule: RuleT) -> RuleT:
        with self._lock:
            self.rules.append(rule)
        return rule

    def take_rule(self, body: JsonDict) -> RuleT | None:
        """The first rule that matches ``body``, counted as used once more."""
        with self._lock:
            for rule in self.rules:
                if rule.matches(body):
                    rule.used += 1
                    return rule
        return None

    def main_requests(self) -> list[JsonDict]:
        """The records of the scripted conversation: answered by a rule or unscripted."""
        with self._lock:
            return [r for r in self.records if r["kind"] in ("main", "unscripted")]

    def wait_for(self, predicate: Callable[[list[JsonDict]], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                snapshot = list(self.records)
            if predicate(snapshot):
                return True
            time.sleep(0.05)
        return False

    def record(self, entry: JsonDict) -> None:
        with self._lock:
            self.records.append(entry)
            if entry["kind"] == "unscripted":
                self.unscripted.append(entry)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def next_id(self, prefix: str) -> str:
        return f"{prefix}_lazyfake{next(self._ids):06d}"
