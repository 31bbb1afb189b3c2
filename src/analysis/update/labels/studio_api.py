"""Label Studio over its HTTP API: make a project from a selection, download its export.

Plain HTTP with :mod:`urllib`: Label Studio's own SDK does not fit the pipeline's pins
(label-studio-sdk 2.1.2 needs numpy 2.2 or later, where the pipeline pins numpy 2.1.0 for
byte-stable outputs, and brings OpenCV, NLTK and requests-mock); the server runs in an
environment of its own (:mod:`analysis.update.labels.studio_server`). The calls are Label
Studio's documented API:

    GET  /api/users/                       the organisation's members (matched by e-mail)
    POST /api/users/                       an account for an annotator who has none
    POST /api/projects/                    the project: configuration, instructions,
                                           maximum_annotations, overlap, sampling
    POST /api/projects/{id}/import         the tasks
    GET  /api/dm/columns/?project={id}     the data manager's columns
    POST /api/dm/views/                    its view: which columns the task list shows
    POST /api/projects/{id}/exports/       an export snapshot, annotators expanded
    GET  /api/projects/{id}/exports/{e}/download?exportType=JSON

A token is an access token of an administrator: a personal access token (a JWT refresh
token, exchanged at ``/api/token/refresh/`` for an access token sent as ``Bearer``) or a
legacy token (sent as ``Token``; ``make studio`` starts the server with legacy tokens
enabled). A server that cannot be reached, a token it refuses and any other answer than
the expected one are one line each, naming the server and the call.

The token goes only to the server the person running the command names
(:func:`chosen_url`: ``--url``, ``LABEL_STUDIO_URL``, else the local server of ``make
studio``): a project's record naming another is refused (:func:`check_record_server`),
and a redirect to another server is followed without it (:class:`KeepTokenHome`). An
answer is read within a bound: an export is copied to a file as it comes, up to its limit
(:meth:`Studio.download`), any other answer up to :data:`MAX_ANSWER_BYTES`.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from analysis.core.artifacts import disk_error, scratch_folder
from analysis.core.errors import InputError
from analysis.core.locks import try_lock
from analysis.core.sizes import MiB, size_text
from analysis.core.textsafe import visible

DEFAULT_URL = "http://127.0.0.1:8080"
URL_VARIABLE, TOKEN_VARIABLE = "LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY"
TIMEOUT = 120  # seconds for one call (an import of thousands of tasks takes a while)
EXPORT_WAIT = 600  # seconds to wait for an export snapshot to be built
MAX_ANSWER_BYTES = 64 * MiB  # an answer other than an export (a project, the users)
DOWNLOAD_CHUNK = MiB
TOKEN_FIX = (f"give the API token of a Label Studio administrator (--token or "
             f"{TOKEN_VARIABLE}; make studio writes its admin's in .studio/admin.json)")


class Studio:
    """A Label Studio server and the token to call it with."""

    def __init__(self, url: str, token: str, timeout: float = TIMEOUT):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self._header: str | None = None

    def auth_header(self) -> str:
        """``Bearer <access>`` for a personal access token (a JWT), else ``Token <key>``."""
        if self._header is None:
            if self.token.count(".") == 2:
                access = self.call("POST", "/api/token/refresh/", {"refresh": self.token},
                                   auth=False)
                self._header = f"Bearer {access['access']}"
            else:
                self._header = f"Token {self.token}"
        return self._header

    def request(self, method: str, path: str, body: object = None,
                query: dict | None = None, auth: bool = True) -> urllib.request.Request:
        """One API call's request (the token only in its ``Authorization`` header)."""
        url = self.url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {"Accept": "application/json"}
        if auth:
            headers["Authorization"] = self.auth_header()
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        return urllib.request.Request(url, data=data, method=method, headers=headers)

    def unreachable(self, exc: Exception) -> InputError:
        reason = getattr(exc, "reason", exc)
        return InputError(f"cannot reach Label Studio at {self.url} ({reason})",
                          fix="start it (make studio), or give its address (--url or "
                              f"{URL_VARIABLE})")

    @contextlib.contextmanager
    def answer(self, method: str, path: str, body: object = None, query: dict | None = None,
               auth: bool = True) -> Iterator[http.client.HTTPResponse]:
        """One API call's answer, open to be read; an error answer and a server that
        cannot be reached are one message each."""
        request = self.request(method, path, body, query, auth)
        try:
            response = OPENER.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            raise http_problem(self.url, method, path, exc) from exc
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise self.unreachable(exc) from exc
        with response:
            yield response

    def read(self, response: http.client.HTTPResponse, size: int) -> bytes:
        """Up to ``size`` bytes of an answer; a connection that breaks is one message."""
        try:
            return response.read(size)
        except (OSError, http.client.HTTPException) as exc:
            raise self.unreachable(exc) from exc

    def call(self, method: str, path: str, body: object = None, query: dict | None = None,
             auth: bool = True) -> object:
        """One API call; its JSON answer (at most :data:`MAX_ANSWER_BYTES`)."""
        with self.answer(method, path, body, query, auth) as response:
            content = self.read(response, MAX_ANSWER_BYTES + 1)
        if len(content) > MAX_ANSWER_BYTES:
            raise InputError(f"Label Studio at {self.url} answered {method} {path} with more "
                             f"than {size_text(MAX_ANSWER_BYTES)}", fix="check that --url is "
                             "a Label Studio server")
        try:
            return json.loads(content) if content.strip() else None
        except (ValueError, RecursionError) as exc:
            raise InputError(f"Label Studio at {self.url} answered {method} {path} with "
                             "something that is not JSON", fix="check that --url is a "
                             "Label Studio server") from exc

    def download(self, path: str, query: dict, out: BinaryIO, limit: int) -> int:
        """Copy an answer into ``out`` as it comes, refusing it past ``limit`` bytes
        (announced or read) without reading the rest; the bytes copied."""
        done = 0
        with self.answer("GET", path, query=query) as response:
            announced = response.headers.get("Content-Length")
            if announced and announced.isdigit() and int(announced) > limit:
                raise too_large(self.url, path, limit)
            while chunk := self.read(response, DOWNLOAD_CHUNK):
                done += len(chunk)
                if done > limit:
                    raise too_large(self.url, path, limit)
                out.write(chunk)
        return done


def too_large(url: str, path: str, limit: int) -> InputError:
    return InputError(f"Label Studio at {url} answered GET {path} with more than "
                      f"{size_text(limit)}, the limit of an export (docs/guarantees.md)",
                      fix="label the candidates in several batches (a project each)")


class KeepTokenHome(urllib.request.HTTPRedirectHandler):
    """Redirects followed as urllib follows them, but the ``Authorization`` header (the
    token) is dropped when one leads to another server (scheme, host or port)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and not same_server(req.full_url, newurl):
            new.remove_header("Authorization")
        return new


OPENER = urllib.request.build_opener(KeepTokenHome)


def server_key(url: str) -> tuple[str, str, int | None, str]:
    """What tells one server from another: scheme, host (lower case), port (the scheme's
    default when none is written) and path (without its trailing ``/``); text that is no
    address is a server of its own."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        port = parts.port
    except ValueError:  # not an address: no server's
        return ("", url, -1, "")
    port = port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    return (parts.scheme.lower(), (parts.hostname or "").lower(), port,
            parts.path.rstrip("/"))


def same_server(a: str, b: str) -> bool:
    """Whether two addresses name the same server (:func:`server_key`)."""
    return server_key(a) == server_key(b)


def is_loopback(url: str) -> bool:
    """Whether an address names this machine (``127.0.0.1``, ``localhost``, ``::1``):
    where ``make studio``'s server listens."""
    host = server_key(url)[1]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def http_problem(url: str, method: str, path: str, exc: urllib.error.HTTPError) -> InputError:
    """An HTTP error answer as one line (the server's detail, cut to 200 characters)."""
    try:
        detail = json.loads(exc.read() or b"{}")
        detail = detail.get("detail") or detail.get("validation_errors") or detail
    except (ValueError, OSError, AttributeError):
        detail = exc.reason
    text = " ".join(str(detail).split())[:200]
    if exc.code in (401, 403):
        return InputError(f"Label Studio at {url} refused the token ({exc.code}: {text})",
                          fix=TOKEN_FIX)
    return InputError(f"Label Studio at {url} answered {exc.code} to {method} {path}: {text}",
                      fix="check the server's log; a newer or older Label Studio than the "
                          "pinned one may differ (requirements-studio.txt)")


def members(studio: Studio) -> list[dict]:
    """The organisation's users (a list, or a page of them)."""
    found = studio.call("GET", "/api/users/", query={"page_size": 10_000})
    return found.get("results", []) if isinstance(found, dict) else list(found or [])


def ensure_users(studio: Studio, team: list[tuple[str, str]]) -> list[dict]:
    """The team's members as Label Studio users (name, e-mail, user id, whether made
    now): each found by e-mail, or made (an account without a password)."""
    known = {str(u.get("email", "")).casefold(): u for u in members(studio)}
    out = []
    for name, email in team:
        user = known.get(email.casefold())
        made = user is None
        if made:
            user = studio.call("POST", "/api/users/", {"email": email, "username": name,
                                                       "first_name": name})
        out.append({"name": name, "email": email, "id": user["id"], "created": made})
    return out


def create_project(studio: Studio, title: str, config: str, instructions: str,
                   annotators: int, description: str) -> dict:
    """A project every annotator labels whole, each task in an order of their own."""
    return studio.call("POST", "/api/projects/", {
        "title": title, "description": description, "label_config": config,
        "expert_instruction": instructions, "show_instruction": True,
        "maximum_annotations": annotators, "overlap_cohort_percentage": 100,
        "show_overlap_first": False, "sampling": "Uniform sampling",
        "show_skip_button": True, "enable_empty_annotation": False,
        "show_annotation_history": False})


def import_tasks(studio: Studio, project: int, tasks: list[dict], chunk: int = 1000) -> int:
    """Import the tasks, ``chunk`` at a time; the number imported."""
    done = 0
    for start in range(0, len(tasks), chunk):
        answer = studio.call("POST", f"/api/projects/{project}/import",
                             tasks[start:start + chunk])
        done += int((answer or {}).get("task_count", 0))
    return done


def task_view(studio: Studio, project: int, title: str,
              hidden: Callable[[list[dict]], dict[str, list[str]]]) -> dict:
    """The project's data-manager view, ``title``, hiding the columns ``hidden`` names
    among the project's (asked once the tasks are in: their data make columns)."""
    found = studio.call("GET", "/api/dm/columns/", query={"project": project})
    columns = found.get("columns", []) if isinstance(found, dict) else []
    return studio.call("POST", "/api/dm/views/", {
        "project": project, "data": {"title": title, "hiddenColumns": hidden(columns)}})


def export(studio: Studio, project: int, out: BinaryIO, limit: int,
           wait: float = EXPORT_WAIT) -> int:
    """Write the project's export into ``out`` (at most ``limit`` bytes: see
    :meth:`Studio.download`), every task with its annotations and each annotation's
    annotator expanded (id, e-mail, name): an export snapshot, built, then downloaded."""
    snapshot = studio.call("POST", f"/api/projects/{project}/exports/", {
        "title": "analysis.update.labels studio export",
        "serialization_options": {"annotations__completed_by": {"only_id": False},
                                  "drafts": {"only_id": True},
                                  "predictions": {"only_id": True}}})
    deadline = time.monotonic() + wait
    while not isinstance(snapshot, dict) or snapshot.get("status") not in ("completed",
                                                                            "failed"):
        if not isinstance(snapshot, dict) or not isinstance(snapshot.get("id"), int):
            raise InputError(f"Label Studio at {studio.url} answered the export of project "
                             f"{project} with no export snapshot", fix="check the server's "
                             "log; a newer or older Label Studio than the pinned one may "
                             "differ (requirements-studio.txt)")
        if time.monotonic() > deadline:
            raise InputError(f"the export of project {project} at {studio.url} was not "
                             f"ready after {wait:.0f} s", fix="try again later")
        time.sleep(1)
        snapshot = studio.call("GET", f"/api/projects/{project}/exports/{snapshot['id']}")
    if snapshot.get("status") == "failed":
        raise InputError(f"Label Studio at {studio.url} failed to export project {project}",
                         fix="check the server's log")
    return studio.download(f"/api/projects/{project}/exports/{snapshot['id']}/download",
                           {"exportType": "JSON"}, out, limit)


def chosen_url(url: str | None) -> str:
    """The server the person running the command names: ``--url``, else
    ``LABEL_STUDIO_URL``, else the local server of ``make studio``."""
    return (url or os.environ.get(URL_VARIABLE) or DEFAULT_URL).rstrip("/")


def check_record_server(record: dict, url: str, shown: str) -> None:
    """Refuse a project's record that names another server than ``url`` (the one the
    person running the command named): a record is data anyone may have committed, never
    a place to send the token to."""
    named = record.get("url")
    if named is None or (isinstance(named, str) and same_server(named, url)):
        return
    text = visible(named[:200]) if isinstance(named, str) else kind_text(named)
    raise InputError(f"the project's record names the server {text!r}, but this command "
                     f"calls {url} (--url, {URL_VARIABLE} or the local server of make "
                     "studio), and sends the token only there", file=shown,
                     fix=f"if the project is on {text!r} and you trust that server, pass "
                         "--url with its address; else correct the record's url")


def kind_text(value: object) -> str:
    return f"<{type(value).__name__}>"


@contextlib.contextmanager
def one_create_at_a_time(out: Path) -> Iterator[None]:
    """Hold the lock of ``studio create`` on the folder ``out`` (``flock`` on its
    :func:`~analysis.core.artifacts.scratch_folder`, outside the batch's records): a second
    create there meanwhile is refused, so two at once cannot make two projects."""
    try:
        Path(out).mkdir(parents=True, exist_ok=True)
        fd = os.open(scratch_folder(Path(out)), os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise disk_error(exc, Path(out)) from exc
    try:
        if not try_lock(fd):
            raise InputError("another studio create is making a project for this folder "
                             "now", file=str(out), fix="wait for it to end, then look at "
                             "its record (studio/project.json)")
        yield
    finally:
        os.close(fd)


def read_record(path: Path) -> dict:
    """A project's record (``studio/project.json``, written by ``studio create``)."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError("no record of a Label Studio project here (studio/project.json)",
                         file=str(path), fix="make the project first: python -m "
                         "analysis.update.labels studio create CANDIDATES --annotators NAMES --out "
                         "FOLDER") from exc
    project = record.get("project") if isinstance(record, dict) else None
    if not isinstance(project, int) or isinstance(project, bool) or project < 1:
        raise InputError("not a record of a Label Studio project", file=str(path),
                         fix="keep studio/project.json as studio create wrote it")
    return record
