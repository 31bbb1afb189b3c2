"""Synthetic GH Archive hourly files, in the shape of the real ones.

Each line is one event of GitHub's Events API as GH Archive records it since 2015
(``{"id", "type", "actor", "repo": {"id", "name", "url"}, "payload", "public",
"created_at", "org"?}``). The mix follows GH Archive's: mostly pushes, then branch and tag
creations, pull-request events, stars, comments, a few percent issue events. Issues and
pull requests are opened in the given repositories and in others, with titles and bodies
that do and do not hold keywords, so that a selection has something to find and something
to skip. The same seed gives the same bytes.
"""

from __future__ import annotations

import gzip
import random
import zlib
from dataclasses import dataclass
from pathlib import Path

import orjson

# (event type, share of events) -- about GH Archive's mix of a 2024 hour
MIX = (("PushEvent", 0.55), ("CreateEvent", 0.13), ("PullRequestEvent", 0.09),
       ("WatchEvent", 0.07), ("IssueCommentEvent", 0.06), ("DeleteEvent", 0.03),
       ("IssuesEvent", 0.03), ("PullRequestReviewEvent", 0.02), ("ForkEvent", 0.02))
WORDS = ("the a to of and in is it that for with on this when error model training using "
         "run optimizer options optional yield tensor cuda gpu memory out backward forward "
         "loss device rank process node batch size shape dtype float version install "
         "import module function return value expected actual behavior bug fix please help "
         "thanks traceback file line self data loader checkpoint save load compile kernel "
         "zeros division by zero moment opts adopt output").split()
HITS = ("LLaMA", "llm", "Qwen", "FSDP", "bf16", "torch.compile", "LLMs", "vLLM", "DeepSpeed")
OTHERS = tuple(f"user{i}/project{i % 37}" for i in range(400))


@dataclass(frozen=True)
class Hour:
    """Where the synthetic issues go: repositories of the spec and how often."""

    repositories: tuple[str, ...]
    events: int = 2000
    spec_share: float = 0.2     # share of issue/PR events in the spec's repositories


def _text(rng: random.Random, low: int, high: int, hit: float) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    if rng.random() < hit:
        words.insert(rng.randrange(len(words) + 1), rng.choice(HITS))
    return " ".join(words)


def _user(rng: random.Random) -> dict:
    n = rng.randrange(100_000)
    return {"login": f"user{n}", "id": n, "url": f"https://api.github.com/users/user{n}",
            "type": "User", "site_admin": False}


def event(rng: random.Random, n: int, kind: str, repo: str, when: str) -> dict:
    """One event of ``kind`` in ``repo``; issues and pull requests opened."""
    actor = _user(rng)
    base = {"id": str(30_000_000_000 + n), "type": kind,
            "actor": {"id": actor["id"], "login": actor["login"], "display_login":
                      actor["login"], "gravatar_id": "", "url": actor["url"],
                      "avatar_url": f"https://avatars.githubusercontent.com/u/{actor['id']}?"},
            "repo": {"id": 1000 + zlib.crc32(repo.encode()) % 10_000_000, "name": repo,
                     "url": f"https://api.github.com/repos/{repo}"}}
    number = rng.randrange(1, 200_000)
    if kind == "IssuesEvent":
        action = "opened" if rng.random() < 0.6 else rng.choice(["closed", "reopened",
                                                                 "labeled"])
        payload = {"action": action, "issue": {
            "url": f"https://api.github.com/repos/{repo}/issues/{number}",
            "html_url": f"https://github.com/{repo}/issues/{number}", "id": number * 7,
            "number": number, "title": _text(rng, 4, 12, 0.3), "user": actor, "labels": [],
            "state": "open", "locked": False, "comments": 0, "created_at": when,
            "updated_at": when, "closed_at": None, "author_association": "NONE",
            "body": _text(rng, 20, 300, 0.3)}}
    elif kind == "PullRequestEvent":
        payload = {"action": "opened" if rng.random() < 0.5 else "closed",
                   "number": number, "pull_request": {
                       "url": f"https://api.github.com/repos/{repo}/pulls/{number}",
                       "html_url": f"https://github.com/{repo}/pull/{number}",
                       "diff_url": f"https://github.com/{repo}/pull/{number}.diff",
                       "number": number, "state": "open", "title": _text(rng, 4, 12, 0.3),
                       "user": actor, "body": _text(rng, 10, 200, 0.3), "created_at": when,
                       "head": {"ref": "fix", "sha": f"{rng.getrandbits(160):040x}",
                                "repo": {"id": 5, "name": repo.split("/")[1],
                                         "full_name": repo}},
                       "base": {"ref": "main", "sha": f"{rng.getrandbits(160):040x}"}}}
    elif kind == "PushEvent":
        payload = {"repository_id": 5, "push_id": n, "size": 1, "distinct_size": 1,
                   "ref": "refs/heads/main", "head": f"{rng.getrandbits(160):040x}",
                   "before": f"{rng.getrandbits(160):040x}",
                   "commits": [{"sha": f"{rng.getrandbits(160):040x}",
                                "author": {"email": "a@example.com", "name": actor["login"]},
                                "message": _text(rng, 3, 30, 0.05), "distinct": True,
                                "url": f"https://api.github.com/repos/{repo}/commits/x"}
                               for _ in range(rng.randint(1, 3))]}
    elif kind == "IssueCommentEvent":
        payload = {"action": "created", "issue": {
            "html_url": f"https://github.com/{repo}/issues/{number}", "number": number,
            "title": _text(rng, 4, 12, 0.3), "body": _text(rng, 10, 100, 0.3),
            "created_at": when}, "comment": {"body": _text(rng, 5, 80, 0.3)}}
    else:
        payload = {"ref": "main", "ref_type": "branch", "pusher_type": "user"}
    return {**base, "payload": payload, "public": True, "created_at": when}


def write_hour(path: Path, hour: Hour, seed: int, when: str) -> int:
    """Write one hourly file (gzip, one event a line); return the number of events."""
    rng = random.Random(seed)
    kinds = [k for k, _ in MIX]
    weights = [w for _, w in MIX]
    lines = []
    for n in range(hour.events):
        kind = rng.choices(kinds, weights)[0]
        spec = kind in ("IssuesEvent", "PullRequestEvent") and rng.random() < hour.spec_share
        repo = rng.choice(hour.repositories) if spec and hour.repositories \
            else rng.choice(OTHERS)
        lines.append(orjson.dumps(event(rng, seed * 1_000_000 + n, kind, repo, when)))
    path.write_bytes(gzip.compress(b"\n".join(lines) + b"\n", compresslevel=6, mtime=0))
    return hour.events


def write_archive(folder: Path, hours: int, hour: Hour, seed: int = 0) -> list[Path]:
    """``hours`` hourly files named as GH Archive names them (``2024-01-01-0.json.gz``...),
    events dated 2023-12-31 to 2024-01-01 so that a window can cut some."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for h in range(hours):
        day, hh = divmod(h, 24)
        date = f"2024-01-{1 + day:02d}" if h % 5 else "2023-12-31"
        path = folder / f"2024-01-{1 + day:02d}-{hh}.json.gz"
        write_hour(path, hour, seed * 10_000 + h, f"{date}T{hh:02d}:00:00Z")
        paths.append(path)
    return paths


def opened_issues(repo: str, issues: list[tuple[int, str, str, str]],
                  first_id: int = 40_000_000_000) -> list[dict]:
    """``IssuesEvent``s (action ``opened``) in ``repo``, one per (number, created_at, title,
    body), in the shape of :func:`event`'s."""
    rng = random.Random(zlib.crc32(repo.encode()))
    events = []
    for i, (number, when, title, body) in enumerate(issues):
        e = event(rng, first_id + i, "IssuesEvent", repo, when)
        issue = {**e["payload"]["issue"], "number": number, "title": title, "body": body,
                 "html_url": f"https://github.com/{repo}/issues/{number}",
                 "url": f"https://api.github.com/repos/{repo}/issues/{number}"}
        events.append({**e, "payload": {"action": "opened", "issue": issue}})
    return events


def write_events(path: Path, events: list[dict]) -> Path:
    """One hourly file of the given events (gzip, one event a line), as GH Archive writes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(b"".join(orjson.dumps(e) + b"\n" for e in events),
                                   compresslevel=6, mtime=0))
    return path


def edited_issue(opened: dict, when: str, title: str | None = None, body: str | None = None,
                 labels: list[str] | None = None, action: str = "edited") -> dict:
    """A later ``IssuesEvent`` of the issue ``opened`` opens (``edited`` by default, with
    ``payload.changes`` holding the old title and body as GitHub writes them; or
    ``labeled``, ``closed``...), at the time ``when``: the issue object as it then is."""
    old = opened["payload"]["issue"]
    issue = {**old, "updated_at": when,
             "title": old["title"] if title is None else title,
             "body": old["body"] if body is None else body,
             "labels": [{"id": zlib.crc32(n.encode()), "name": n, "color": "ededed",
                         "default": False, "description": ""} for n in labels or []]}
    changes = {key: {"from": old[key]} for key, new in (("title", title), ("body", body))
               if new is not None and new != old[key]}
    payload = {"action": action, "issue": issue}
    if action == "edited":
        payload["changes"] = changes
    return {**opened, "id": str(int(opened["id"]) + 1_000_000), "created_at": when,
            "payload": payload}
