"""The one-shot container's only way out: an HTTP proxy on a unix socket that injects the
real credential and audits every request.

The container holds a placeholder key and reaches this proxy through the socket mounted into
it (lazy-oneshot exposes it on the container's loopback). The proxy forwards to one upstream
only (the model API), replaces whatever credential the request carries with the real one, and
appends one JSON line per request (time, method, path, bytes each way, status) to the audit
log. A request still unanswered when the run ends is logged as such, so a hung model shows.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socketserver
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lazy.os.private import open_private, private_dir

# headers that belong to one hop, or that the proxy sets itself
_HOP = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
}
_CREDENTIAL = {"x-api-key", "authorization"}
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Credential:
    """The real credential: an API key (x-api-key) or an OAuth token (Bearer)."""

    header: str
    value: str

    @staticmethod
    def from_env(env: dict[str, str] | None = None) -> Credential | None:
        env = dict(os.environ) if env is None else env
        if env.get("ANTHROPIC_API_KEY"):
            return Credential("x-api-key", env["ANTHROPIC_API_KEY"])
        if env.get("ANTHROPIC_AUTH_TOKEN"):
            return Credential("authorization", f"Bearer {env['ANTHROPIC_AUTH_TOKEN']}")
        return None


class AuditLog:
    """Append-only JSON lines; one write per line, so concurrent runs do not interleave."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def append(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, sort_keys=True) + "\n").encode()
        with self._lock:
            private_dir(self.path.parent)
            fd = open_private(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    proxy: CredentialProxy


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        # the audit log is the record; the default logger writes to stderr
        return

    def do_GET(self) -> None:
        self._relay()

    def do_POST(self) -> None:
        self._relay()

    def do_HEAD(self) -> None:
        self._relay()

    def do_PUT(self) -> None:
        self._relay()

    def do_DELETE(self) -> None:
        self._relay()

    def do_PATCH(self) -> None:
        self._relay()

    def _relay(self) -> None:
        proxy = self.server.proxy
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        record: dict[str, Any] = {
            "time": _now(),
            "run": proxy.run_id,
            "method": self.command,
            "path": self.path,
            "request_bytes": len(body),
            "response_bytes": 0,
            "status": None,
        }
        token = proxy.opened(record)
        try:
            self._forward(proxy, body, record)
        finally:
            proxy.closed(token, record)

    def _forward(self, proxy: CredentialProxy, body: bytes, record: dict[str, Any]) -> None:
        headers = {
            k: v
            for k, v in self.headers.items()
            if k.lower() not in _HOP and k.lower() not in _CREDENTIAL
        }
        if proxy.credential is not None:
            headers[proxy.credential.header] = proxy.credential.value
        if body:
            headers["Content-Length"] = str(len(body))
        up = urlsplit(proxy.upstream)
        conn_cls = (
            http.client.HTTPSConnection if up.scheme == "https" else http.client.HTTPConnection
        )
        conn = conn_cls(up.netloc, timeout=proxy.upstream_timeout)
        try:
            conn.request(self.command, up.path.rstrip("/") + self.path, body or None, headers)
            resp = conn.getresponse()
        except OSError as e:
            record["status"] = 502
            record["error"] = f"{type(e).__name__}: {e}"
            conn.close()
            with contextlib.suppress(OSError):
                self.send_error(502, "lazy proxy: the model API cannot be reached")
            return
        try:
            record["status"] = resp.status
            self.send_response(resp.status, resp.reason)
            for k, v in resp.getheaders():
                if k.lower() not in _HOP or k.lower() == "content-length":
                    self.send_header(k, v)
            # HTTP/1.0 to the container: the body ends when the connection closes, so a
            # streamed (SSE) answer is relayed as it arrives
            self.send_header("Connection", "close")
            self.end_headers()
            while chunk := resp.read1(_CHUNK):
                self.wfile.write(chunk)
                self.wfile.flush()
                record["response_bytes"] += len(chunk)
        except OSError as e:
            record["error"] = f"{type(e).__name__}: {e}"
        finally:
            conn.close()


class CredentialProxy:
    """One run's proxy: ``start()`` binds ``socket_path``; ``stop()`` unbinds and records
    what is still unanswered."""

    def __init__(
        self,
        socket_path: Path,
        upstream: str,
        credential: Credential | None,
        audit: AuditLog,
        run_id: str,
        upstream_timeout: float = 600.0,
    ) -> None:
        self.socket_path = socket_path
        self.upstream = upstream
        self.credential = credential
        self.audit = audit
        self.run_id = run_id
        self.upstream_timeout = upstream_timeout
        self._inflight: dict[int, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._next = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def opened(self, record: dict[str, Any]) -> int:
        with self._lock:
            self._next += 1
            self._inflight[self._next] = record
            return self._next

    def closed(self, token: int, record: dict[str, Any]) -> None:
        with self._lock:
            if self._inflight.pop(token, None) is None:
                return  # already logged as unanswered by stop()
        self.audit.append(record)

    def start(self) -> CredentialProxy:
        server = _Server(str(self.socket_path), _Handler)
        server.proxy = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, name="lazy-oneshot-proxy", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        with self._lock:
            unanswered = list(self._inflight.values())
            self._inflight.clear()
        for record in unanswered:
            self.audit.append({**record, "outcome": "unanswered when the run ended"})
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
