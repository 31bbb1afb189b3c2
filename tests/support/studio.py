"""A real Label Studio server for the tests, and its people.

The server runs in Label Studio's own environment, made from ``requirements-studio.txt``
once per pinned version in the cache folder (:func:`analysis.update.labels.studio_server.
cached_venv`; installed by the first test that needs it, when missing: a fresh machine
with PyPI reachable pays a minute or two once). Its database is made once too: a first
server's migrated SQLite database and administrator are kept beside the environment
(``template/``) and copied for each test's server, which starts on a free port of
127.0.0.1 with a data folder of its own. Annotators join as people do: they sign up with
the organisation's invitation link and a password (:func:`sign_up`), then take their API
token from their session; one made by ``studio create`` (an account without a password)
is given its token by Label Studio's own command line (:func:`token_of`).
"""

from __future__ import annotations

import ast
import http.cookiejar
import json
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from analysis.update.labels import studio_server


@dataclass(frozen=True)
class Server:
    url: str
    token: str       # the administrator's API token
    data: Path
    venv: Path
    timings: dict    # seconds: install (0 when cached), template, start


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(process: subprocess.Popen) -> None:
    """End a server started in its own session (its process group)."""
    import os
    import signal

    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def prepared() -> tuple[Path, Path, dict]:
    """The cached environment and template database (made when missing, one process at a
    time), and how long making them took."""
    venv = studio_server.cached_venv()
    venv.parent.mkdir(parents=True, exist_ok=True)
    timings = {}
    with FileLock(str(venv) + ".lock"):
        timings["install"] = round(studio_server.install(venv), 1)
        template = venv / "template"
        started = time.monotonic()
        if not (template / "ready").is_file():
            shutil.rmtree(template, ignore_errors=True)
            port = free_port()
            process, _ = studio_server.start(venv, template, port, log=venv / "template.log")
            try:
                studio_server.wait_until_up(f"http://127.0.0.1:{port}", process)
            finally:
                stop(process)
            (template / "ready").write_text("migrated\n", encoding="utf-8")
        timings["template"] = round(time.monotonic() - started, 1)
    return venv, template, timings


@contextmanager
def running(folder: Path):
    """A Label Studio server of its own for the duration of the block."""
    venv, template, timings = prepared()
    data = folder / "studio-data"
    shutil.copytree(template, data, ignore=shutil.ignore_patterns("ready", "*.log"))
    port = free_port()
    started = time.monotonic()
    process, admin = studio_server.start(venv, data, port, log=folder / "studio.log")
    try:
        url = f"http://127.0.0.1:{port}"
        studio_server.wait_until_up(url, process)
        timings["start"] = round(time.monotonic() - started, 1)
        yield Server(url, admin["token"], data, venv, timings)
    finally:
        stop(process)


def call(url: str, token: str, method: str, path: str, body: object = None) -> object:
    """One API call as the holder of ``token``."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url + path, data=data, method=method, headers={
        "Authorization": f"Token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        raw = response.read()
    return json.loads(raw) if raw.strip() else None


def sign_up(server: Server, email: str, password: str) -> str:
    """Sign up with the organisation's invitation link, as a person does in a browser,
    and return the new user's API token (from the session)."""
    invite = call(server.url, server.token, "GET", "/api/invite")
    jar = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = server.url + invite["invite_url"]
    browser.open(page).read()
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    form = urllib.parse.urlencode({"email": email, "password": password,
                                   "csrfmiddlewaretoken": csrf}).encode()
    browser.open(urllib.request.Request(page, data=form, headers={"Referer": page})).read()
    answer = browser.open(urllib.request.Request(server.url + "/api/current-user/token",
                                                 headers={"Referer": server.url}))
    return json.loads(answer.read())["token"]


def token_of(server: Server, email: str) -> str:
    """The API token of an account made without a password (by ``studio create``), as an
    administrator reads it with Label Studio's command line on the server."""
    proc = subprocess.run(
        [str(server.venv / "bin" / "label-studio"), "user", "--username", email,
         "--data-dir", str(server.data), "--database",
         str(server.data / "label_studio.sqlite3")],
        env=studio_server.server_env(server.data, studio_server.admin(server.data)),
        capture_output=True, text=True, check=True)
    info = next(line for line in proc.stdout.splitlines() if line.startswith("{"))
    return ast.literal_eval(info)["token"]
