"""Local servers for the ingest and fetch tests: an HTTPS server on 127.0.0.1 with a
certificate of a throw-away CA (trustme), as in test_ingest.py, and a URL nothing answers."""

from __future__ import annotations

import http.server
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
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    ca.cert_pem.write_to_path(str(cafile))
    requested: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(www), **kw)

        def do_GET(self):
            requested.append(self.path)
            super().do_GET()

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", requested
    finally:
        server.shutdown()
        server.server_close()


def unreachable_url(name: str = "release.zip") -> str:
    """An https URL on 127.0.0.1 where nothing listens (a port just freed): connecting to
    it is refused at once, as when the machine is offline."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"https://127.0.0.1:{port}/{name}"
