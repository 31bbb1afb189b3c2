"""A small headless-Chromium driver over the DevTools protocol (for the site tests).

Starts Debian's ``chromium`` with a fresh profile and no background traffic, opens pages
by ``file://`` URL, and collects what a reader would notice: console errors, uncaught
exceptions, failed loads, and facts about the page (images, figures, tables, links)
gathered by a script run in the page. Screenshots are full-page PNGs.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-quic", "--disable-extensions", "--disable-default-apps", "--mute-audio",
    "--hide-scrollbars", "--remote-debugging-port=0", "--remote-allow-origins=*",
]

PAGE_FACTS = r"""
(() => {
  const imgs = [...document.images].map(i => ({src: i.getAttribute('src'),
    complete: i.complete, w: i.naturalWidth, h: i.naturalHeight,
    shownW: i.getBoundingClientRect().width, shownH: i.getBoundingClientRect().height,
    alt: i.getAttribute('alt')}));
  const figures = [...document.querySelectorAll('figure, .quarto-figure')].map(f => {
    const r = f.getBoundingClientRect(); return {w: r.width, h: r.height,
      caption: (f.querySelector('figcaption') || {}).textContent || ''}; });
  const links = [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'));
  const tables = [...document.querySelectorAll('table')].map(t => ({id: t.id,
    cls: t.className, rows: t.rows.length}));
  const handlers = [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]
    .filter(a => a.name.toLowerCase().startsWith('on'))
    .map(a => e.tagName.toLowerCase() + '.' + (e.getAttribute('class') || '') + ' ' + a.name));
  const jsLinks = [...document.querySelectorAll('[href], [src]')].map(e =>
    e.getAttribute('href') || e.getAttribute('src')).filter(u => /^\s*javascript:/i.test(u));
  const brand = document.querySelector('.navbar-title, .site-nav .brand');
  const nav = document.querySelector('nav.navbar, .site-nav nav');
  return {title: document.title, imgs, figures, links, tables, handlers, jsLinks,
          brandCut: brand ? brand.scrollWidth > brand.clientWidth + 1 : null,
          navHeight: nav ? nav.getBoundingClientRect().height : null,
          scripts: [...document.scripts].map(s => s.src || 'inline'),
          navbar: !!document.querySelector('nav, .navbar, .site-nav'),
          text: document.body.innerText,
          height: document.documentElement.scrollHeight};
})()
"""


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, executable: str, width: int = 1280, height: int = 900):
        from websockets.sync.client import connect

        self.profile = tempfile.mkdtemp(prefix="chromium-profile-")
        self.proc = subprocess.Popen(
            [executable, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and url is None:
            line = self.proc.stderr.readline()
            if not line and self.proc.poll() is not None:
                break
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                url = m.group(1)
        if not url:
            self.close()
            raise RuntimeError("chromium did not start its DevTools endpoint")
        self.ws = connect(url, max_size=None, open_timeout=30)
        self.next_id = 0
        self.events: list[dict] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
            self.call(domain, session=True)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                  session=True)
        self.width, self.height = width, height

    def call(self, method: str, params: dict | None = None, session: bool = False,
             timeout: float = 60) -> dict:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        deadline = time.monotonic() + timeout
        while True:
            raw = self.ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            data = json.loads(raw)
            if data.get("id") == self.next_id:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                return data.get("result", {})
            if "method" in data:
                self.events.append(data)

    def wait_for(self, method: str, timeout: float = 60) -> None:
        if any(e["method"] == method for e in self.events):
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            data = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if "method" in data:
                self.events.append(data)
                if data["method"] == method:
                    return
        raise TimeoutError(method)

    def open(self, url: str) -> dict:
        """Load ``url``; return page facts plus the problems seen while loading."""
        self.events = []
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for("Page.loadEventFired")
        self.settle()
        facts = self.evaluate(PAGE_FACTS)
        problems = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                problems.append("console: " + " ".join(str(a.get("value", a.get(
                    "description", ""))) for a in p.get("args", [])))
            elif e["method"] == "Runtime.exceptionThrown":
                details = p.get("exceptionDetails", {})
                problems.append(" ".join(filter(None, (
                    "exception:", details.get("text", ""),
                    details.get("exception", {}).get("description", "")))))
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                problems.append("log: " + p["entry"].get("text", "") + " "
                                + p["entry"].get("url", ""))
            elif e["method"] == "Network.loadingFailed":
                problems.append("load failed: " + p.get("errorText", ""))
            elif e["method"] == "Page.javascriptDialogOpening":
                problems.append("dialog: " + p.get("message", ""))
        facts["problems"] = problems
        facts["requests"] = [e["params"]["request"]["url"] for e in self.events
                             if e["method"] == "Network.requestWillBeSent"]
        return facts

    def open_requests(self) -> set[str]:
        """The requests of the events read so far that have neither finished nor failed."""
        sent, done = set(), set()
        for e in self.events:
            if e["method"] == "Network.requestWillBeSent":
                sent.add(e["params"]["requestId"])
            elif e["method"] in ("Network.loadingFinished", "Network.loadingFailed"):
                done.add(e["params"]["requestId"])
        return sent - done

    def settle(self, quiet: float = 0.05, most: float = 5.0) -> None:
        """Read the page's events until what its scripts do after the load event is in
        :attr:`events`: the timers and promises already queued have run, and no request
        has been open for ``quiet`` seconds (so a script's fetch has ended, with what it
        logs or throws). ``most`` bounds the wait, for a request that never ends."""
        self.evaluate("new Promise(done => setTimeout(done, 0))")
        deadline = time.monotonic() + most
        while time.monotonic() < deadline:
            wait = max(0.01, deadline - time.monotonic())
            if not self.open_requests():
                wait = min(wait, quiet)
            try:
                data = json.loads(self.ws.recv(timeout=wait))
            except TimeoutError:
                if not self.open_requests():
                    return
                continue
            if "method" in data:
                self.events.append(data)

    def evaluate(self, expression: str):
        res = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                             "awaitPromise": True}, session=True)
        if "exceptionDetails" in res:
            raise RuntimeError(res["exceptionDetails"].get("text"))
        return res["result"].get("value")

    def screenshot(self, path: Path, max_height: int = 6000) -> Path:
        height = int(self.evaluate("document.documentElement.scrollHeight") or self.height)
        height = min(max(height, self.height), max_height)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": height, "deviceScaleFactor": 1,
                   "mobile": False}, session=True)
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1,
                   "mobile": False}, session=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            if getattr(self, "ws", None):
                try:
                    self.call("Browser.close", timeout=5)
                except Exception:  # noqa: BLE001 - closing anyway
                    pass
                self.ws.close()
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@contextlib.contextmanager
def serve(folder: Path):
    """Serve ``folder`` over HTTP on 127.0.0.1 (a free port); yield its base URL.

    Quarto's pages load their scripts as ES modules, which browsers refuse to load from
    ``file://``, so the site is read as a reader's local web server would serve it.
    """
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
