"""The site tests' Chromium driver (``tests.support.browser``): what a page's scripts do
after the load event still reaches the problems of :meth:`Browser.open`: an error thrown
by a timer the page set, and what a script logs or throws when a slow request it sent
after the load event comes back."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from tests.support.browser import Browser, find_chromium

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(find_chromium() is None, reason="chromium not installed")]

PAGE = b"""<!doctype html><html><head><link rel="icon" href="data:,"></head><body>
<p>a page</p>
<script>
setTimeout(() => { throw new Error("thrown by a timer"); }, 0);
window.addEventListener("load", () => fetch("slow.json").then(r => r.json()).then(d => {
  console.error("came back with " + d.n); throw new Error("thrown after the request");
}));
</script></body></html>"""
SLOW = 0.5  # seconds the server takes to answer slow.json: longer than the driver's quiet


class Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the handler's name in http.server
        if self.path.endswith("slow.json"):
            time.sleep(SLOW)
            body, kind = b'{"n": 7}', "application/json"
        else:
            body, kind = PAGE, "text/html"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def base():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_what_scripts_do_after_the_load_event_is_among_the_problems(base):
    with Browser(find_chromium()) as browser:
        problems = browser.open(base + "page.html")["problems"]
        assert browser.open_requests() == set()
    text = " | ".join(problems)
    assert "thrown by a timer" in text
    assert "console: came back with 7" in text
    assert "thrown after the request" in text
