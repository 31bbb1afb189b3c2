"""The one check of an issue's address, shared by select, labels sheets (and Label
Studio's tasks) and labels merge: what select accepts, the next steps accept.

An address is ``http(s)://host[:port]/path`` without white space
(:data:`analysis.core.dump.URL_RE`, the rule the clean stage reads the dump by), no
control or formatting character (a line break, a bidi override, a NUL: never part of an
issue's address, always a forgery), and at most :data:`MAX_URL_CHARS` characters.
"""

from __future__ import annotations

import unicodedata

from analysis.core.dump import URL_RE

MAX_URL_CHARS = 2_000  # GitHub's and Gitee's issue addresses are under 200


def url_problem(url: object) -> str | None:
    """Why ``url`` cannot be an issue's address (see the module docstring); None when it
    can be. The text is shown cut to 120 characters."""
    if not isinstance(url, str) or not url:
        return "no URL"
    shown = repr(url[:120]) + ("..." if len(url) > 120 else "")
    if len(url) > MAX_URL_CHARS:
        return f"{shown} is longer than {MAX_URL_CHARS:,} characters"
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in url):
        return f"{shown} holds a control or formatting character"
    if not URL_RE.match(url):
        return f"{shown} is not an http(s) URL without spaces"
    return None
