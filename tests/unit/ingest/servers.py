"""Local servers for the ingest and fetch tests: an HTTPS server on 127.0.0.1 with a
certificate of a throw-away CA (trustme), as in test_ingest.py, and a URL nothing answers."""

from __future__ import annotations

import http.server
import json
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def https_server(www: Path, cafile: Path) -> Iterator[tuple[str, list[str]]]:
    """Serve the folder ``www`` over HTTPS on 127.0.0.1; write the CA certificate that
    signs the server's to ``cafile``. Yields the base URL and the list of paths requested."""
    requested: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(www), **kw)

        def do_GET(self):
            requested.append(self.path)
            super().do_GET()

        def log_message(self, *a):
            pass

    with serving(Handler, cafile) as base:
        yield base, requested


@contextmanager
def serving(handler: type, cafile: Path) -> Iterator[str]:
    """Serve with ``handler`` over HTTPS on 127.0.0.1, with a certificate of a throw-away
    CA written to ``cafile``; yields the base URL."""
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    ca.cert_pem.write_to_path(str(cafile))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def vault_server(tarballs: dict[str, bytes], cafile: Path, statuses: tuple[str, ...] = ("done",)
                 ) -> Iterator[tuple[str, list[str]]]:
    """A local stand-in for Software Heritage's vault API (``<base>/api/1/``), as its
    documentation describes it: ``POST``/``GET /vault/flat/<swhid>/`` answer JSON whose
    ``status`` is, in turn, each of ``statuses`` (the last one repeated) with the
    ``fetch_url`` ``.../raw/``, which serves ``tarballs[swhid]``; an unknown SWHID is a 404.
    Yields the API's base URL and the requests (``METHOD path``)."""
    requested: list[str] = []
    answers = list(statuses)

    class Handler(http.server.BaseHTTPRequestHandler):
        def answer(self, method: str):
            requested.append(f"{method} {self.path}")
            parts = self.path.strip("/").split("/")
            if parts[:4] != ["api", "1", "vault", "flat"] or len(parts) < 5 \
                    or parts[4] not in tarballs:
                self.send_error(404, "Not Found")
                return
            swhid = parts[4]
            if parts[5:] == ["raw"] and method == "GET":
                self.reply(tarballs[swhid], "application/gzip")
                return
            status = answers.pop(0) if len(answers) > 1 else answers[0]
            base = f"https://127.0.0.1:{self.server.server_address[1]}"
            body = {"id": 1, "status": status, "swhid": swhid,
                    "progress_message": "cooking failed" if status == "failed" else None,
                    "fetch_url": f"{base}/api/1/vault/flat/{swhid}/raw/"}
            self.reply(json.dumps(body).encode(), "application/json")

        def reply(self, body: bytes, kind: str):
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self.answer("GET")

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.answer("POST")

        def log_message(self, *a):
            pass

    with serving(Handler, cafile) as base:
        yield f"{base}/api/1/", requested


def unreachable_url(name: str = "release.zip") -> str:
    """An https URL on 127.0.0.1 where nothing listens (a port just freed): connecting to
    it is refused at once, as when the machine is offline."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"https://127.0.0.1:{port}/{name}"
