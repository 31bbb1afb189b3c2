"""How the interview stage normalises a cell: whitespace, header spellings, words of other
languages, years of experience, and gendered pronouns in text it publishes.

Each function returns the normalised value; the background and codebook cleaners report
what changed as anomalies of :data:`analysis.interviews.rules.RULES`.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np

CJK_RE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]+")
EXPERIENCE_PAIR_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([^\d\s.,]*)")
UNIT_YEARS = {
    "year": 1.0, "years": 1.0, "yr": 1.0, "yrs": 1.0, "y": 1.0, "年": 1.0,
    "month": 1 / 12, "months": 1 / 12, "mo": 1 / 12, "mos": 1 / 12, "m": 1 / 12,
    "个月": 1 / 12, "月": 1 / 12,
}
PRONOUNS = {"he": "the participant", "she": "the participant", "his": "their",
            "her": "their", "him": "them", "himself": "themselves", "herself": "themselves",
            "hers": "theirs"}


def header_key(name: object) -> str:
    """Fold a column header for matching: case, punctuation and whitespace do not count."""
    text = unicodedata.normalize("NFKC", str(name or "")).casefold()
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


def clean_text(value: object) -> str:
    """Trim a cell and collapse every run of whitespace (line breaks included) to a space."""
    if value is None:
        return ""
    text = unicodedata.normalize("NFC", str(value))
    return " ".join(text.split())


def whitespace_change(raw: str) -> str:
    """Say what :func:`clean_text` changes in ``raw`` (without repeating the value, which
    may be long or personal): e.g. "trailing line break removed"."""
    parts = []
    lead, trail = raw[: len(raw) - len(raw.lstrip())], raw[len(raw.rstrip()):]
    for where, ws in (("leading", lead), ("trailing", trail)):
        if ws:
            kind = "line break" if ("\n" in ws or "\r" in ws) else "whitespace"
            parts.append(f"{where} {kind} removed")
    inner = raw.strip()
    if inner != " ".join(inner.split()):
        parts.append("whitespace inside collapsed")
    return ", ".join(parts) or "Unicode normalised"


def translate(text: str, translations: dict[str, str]) -> tuple[str, list[str]]:
    """Replace known CJK words (``或`` -> ``or``); return the text and what stays untranslated.

    Why: the roles of the sheet mix English and Chinese ("... Engineer 或 Open-source ...");
    the report is English, so known words are translated and anything else is flagged.
    """
    for word, english in sorted(translations.items(), key=lambda kv: -len(kv[0])):
        text = re.sub(rf"\s*{re.escape(word)}\s*", f" {english} ", text)
    text = " ".join(text.split())
    return text, CJK_RE.findall(text)


def parse_experience(value: object) -> tuple[float | None, str | None]:
    """Years of experience from a cell such as ``"3 years"``, ``"8 Months"``, ``1.5``.

    Returns (years, note) where note is None for a plain value in years, ``"months"`` when
    months were converted, ``"no_unit"`` for a bare number, ``"unparsed"`` when no number
    with a known unit was found (years None). "1 year 6 months" adds up to 1.5.
    """
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None, "unparsed"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value), "no_unit"
    text = clean_text(value).casefold().replace(",", " ")
    text = re.sub(r"\band\b|\+", " ", text)
    pairs = EXPERIENCE_PAIR_RE.findall(text)
    rest = EXPERIENCE_PAIR_RE.sub(" ", text).strip()
    if not pairs or rest:
        return None, "unparsed"
    if len(pairs) == 1 and not pairs[0][1]:
        return float(pairs[0][0]), "no_unit"
    total, months = 0.0, False
    for number, unit in pairs:
        if unit not in UNIT_YEARS:
            return None, "unparsed"
        months |= UNIT_YEARS[unit] != 1.0
        total += float(number) * UNIT_YEARS[unit]
    return total, ("months" if months else None)


def canonical(value: str, choices: tuple[str, ...]) -> str | None:
    """The canonical spelling of ``value`` among ``choices`` ignoring case, or None."""
    folded = {c.casefold(): c for c in choices}
    return folded.get(value.casefold())


def neutral_pronouns(text: str) -> str:
    """Replace gendered pronouns by neutral ones, so published text does not reveal gender.

    "He is responsible" -> "The participant is responsible"; "her work" -> "their work".
    Third-person singular keeps the verbs grammatical.
    """
    def repl(match: re.Match) -> str:
        word = match.group(0)
        new = PRONOUNS[word.casefold()]
        return new[0].upper() + new[1:] if word[0].isupper() else new

    return re.sub(r"\b(" + "|".join(PRONOUNS) + r")\b", repl, text, flags=re.IGNORECASE)


def match_columns(header: list[str], spec: dict[str, tuple[str, ...]]
                  ) -> tuple[dict[str, int], list[int]]:
    """Map canonical column names to header positions; also return unused positions."""
    keys = [header_key(h) for h in header]
    found: dict[str, int] = {}
    for name, spellings in spec.items():
        for i, key in enumerate(keys):
            if key in spellings and i not in found.values():
                found[name] = i
                break
    extra = [i for i, key in enumerate(keys) if key and i not in found.values()]
    return found, extra

