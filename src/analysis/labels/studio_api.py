"""Label Studio over its HTTP API: make a project from a selection, download its export.

Plain HTTP with :mod:`urllib`: Label Studio's own SDK does not fit the pipeline's pins
(label-studio-sdk 2.1.2 needs numpy 2.2 or later, where the pipeline pins numpy 2.1.0 for
byte-stable outputs, and brings OpenCV, NLTK and requests-mock); the server runs in an
environment of its own (:mod:`analysis.labels.studio_server`). The calls are Label
Studio's documented API:

    GET  /api/users/                       the organisation's members (matched by e-mail)
    POST /api/users/                       an account for an annotator who has none
    POST /api/projects/                    the project: configuration, instructions,
                                           maximum_annotations, overlap, sampling
    POST /api/projects/{id}/import         the tasks
    POST /api/projects/{id}/exports/       an export snapshot, annotators expanded
    GET  /api/projects/{id}/exports/{e}/download?exportType=JSON

A token is an access token of an administrator: a personal access token (a JWT refresh
token, exchanged at ``/api/token/refresh/`` for an access token sent as ``Bearer``) or a
legacy token (sent as ``Token``; ``make studio`` starts the server with legacy tokens
enabled). A server that cannot be reached, a token it refuses and any other answer than
the expected one are one line each, naming the server and the call.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from analysis.core.errors import InputError

DEFAULT_URL = "http://127.0.0.1:8080"
URL_VARIABLE, TOKEN_VARIABLE = "LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY"
TIMEOUT = 120  # seconds for one call (an import of thousands of tasks takes a while)
EXPORT_WAIT = 600  # seconds to wait for an export snapshot to be built
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

    def call(self, method: str, path: str, body: object = None, query: dict | None = None,
             auth: bool = True, raw: bool = False) -> object:
        """One API call; its JSON answer (``raw``: its bytes)."""
        url = self.url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {"Accept": "application/json"}
        if auth:
            headers["Authorization"] = self.auth_header()
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                content = response.read()
        except urllib.error.HTTPError as exc:
            raise http_problem(self.url, method, path, exc) from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise InputError(f"cannot reach Label Studio at {self.url} ({reason})",
                             fix="start it (make studio), or give its address (--url or "
                                 f"{URL_VARIABLE})") from exc
        if raw:
            return content
        try:
            return json.loads(content) if content.strip() else None
        except ValueError as exc:
            raise InputError(f"Label Studio at {self.url} answered {method} {path} with "
                             "something that is not JSON", fix="check that --url is a "
                             "Label Studio server") from exc


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


def export(studio: Studio, project: int, wait: float = EXPORT_WAIT) -> bytes:
    """The project's export, every task with its annotations and each annotation's
    annotator expanded (id, e-mail, name): an export snapshot, built, then downloaded."""
    snapshot = studio.call("POST", f"/api/projects/{project}/exports/", {
        "title": "analysis.labels studio export",
        "serialization_options": {"annotations__completed_by": {"only_id": False},
                                  "drafts": {"only_id": True},
                                  "predictions": {"only_id": True}}})
    deadline = time.monotonic() + wait
    while snapshot.get("status") not in ("completed", "failed"):
        if time.monotonic() > deadline:
            raise InputError(f"the export of project {project} at {studio.url} was not "
                             f"ready after {wait:.0f} s", fix="try again later")
        time.sleep(1)
        snapshot = studio.call("GET", f"/api/projects/{project}/exports/{snapshot['id']}")
    if snapshot.get("status") == "failed":
        raise InputError(f"Label Studio at {studio.url} failed to export project {project}",
                         fix="check the server's log")
    return studio.call("GET", f"/api/projects/{project}/exports/{snapshot['id']}/download",
                       query={"exportType": "JSON"}, raw=True)


def read_record(path: Path) -> dict:
    """A project's record (``studio/project.json``, written by ``studio create``)."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError("no record of a Label Studio project here (studio/project.json)",
                         file=str(path), fix="make the project first: python -m "
                         "analysis.labels studio create CANDIDATES --annotators NAMES --out "
                         "FOLDER") from exc
    if not isinstance(record, dict) or not isinstance(record.get("project"), int):
        raise InputError("not a record of a Label Studio project", file=str(path),
                         fix="keep studio/project.json as studio create wrote it")
    return record
