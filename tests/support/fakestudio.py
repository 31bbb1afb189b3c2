"""A stand-in for a Label Studio server, on 127.0.0.1, for the unit tests of the studio
commands: it answers the calls ``studio create`` and ``studio export`` make with what a
test gives, and records every request (method, path, headers) it receives."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Fake:
    url: str
    requests: list[dict] = field(default_factory=list)
    # (method, path without query) -> a function of the request giving (status, headers,
    # body: bytes or an iterator of bytes)
    routes: dict[tuple[str, str], Callable] = field(default_factory=dict)
    sent: int = 0  # bytes of bodies sent


def json_answer(data: object, status: int = 200) -> Callable:
    body = json.dumps(data).encode("utf-8")
    return lambda request: (status, {"Content-Type": "application/json"}, body)


def export_routes(project: int, body: bytes | Callable[[], Iterator[bytes]]) -> dict:
    """The calls of ``studio export``: a snapshot made at once, then its download."""
    def download(request):
        return 200, {"Content-Type": "application/json"}, body() if callable(body) else body
    return {("POST", f"/api/projects/{project}/exports/"): json_answer(
                {"id": 7, "status": "completed"}),
            ("GET", f"/api/projects/{project}/exports/7/download"): download}


@contextmanager
def serving(routes: dict | None = None) -> Iterator[Fake]:
    """A fake server for the duration of the block; a request without a route is 404."""
    fake = Fake("", routes=dict(routes or {}))

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0]
            request = {"method": self.command, "path": path, "headers": dict(self.headers),
                       "body": body}
            fake.requests.append(request)
            route = fake.routes.get((self.command, path))
            status, headers, content = route(request) if route else (404, {}, b"{}")
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            if isinstance(content, bytes):
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)
                fake.sent += len(content)
                return
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for chunk in content:
                    self.wfile.write(chunk)
                    fake.sent += len(chunk)
            except OSError:  # the client stopped reading
                pass
            self.close_connection = True

        do_GET = do_POST = do_PATCH = answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
