"""Reading the scoreboards back from a page: the counts a reader sees, per kind of claim."""

from __future__ import annotations

import re

BOARD_RE = re.compile(r'<div class="scoreboard" data-kind="([a-z_]+)" data-claims="(\d+)">'
                      r"(.*?)</ul></div>", re.S)
STATUS_RE = re.compile(r'<li data-status="([a-z_]+)">.*?<strong>([\d,]+) ', re.S)


def scoreboard_counts(html: str) -> dict[str, dict[str, int]]:
    """kind -> {"claims": n, status: n, ...} as the scoreboards of ``html`` print them."""
    return {kind: {"claims": int(claims),
                   **{s: int(n.replace(",", "")) for s, n in STATUS_RE.findall(body)}}
            for kind, claims, body in BOARD_RE.findall(html)}
