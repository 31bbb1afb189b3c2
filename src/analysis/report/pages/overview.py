"""The includes of the overview page (``index.qmd``): links to the study, the claims that
differ, the study now (on a study only), how to cite and the licence."""

from __future__ import annotations

import re

import pandas as pd

from analysis.core.claims import paper_statement
from analysis.core.formatting import MISSING, count, dec, interval, pct
from analysis.core.safeyaml import safe_load
from analysis.report.htmlsafe import esc, html_table, linkify, raw_html_block
from analysis.report.pages.base import AG, CP, FD, SCORECARD, T1, Include, Inputs, P, rel

CITATION = rel(P.citation)
LICENCE = rel(P.licence)
PROVENANCE = rel(P.provenance)
BY_SOURCE = FD("status_by_source.csv")
BY_CAUSE = FD("differences_by_cause.csv")


def relations(rows: pd.DataFrame) -> pd.Series:
    """The comparator of each claim (``=`` for a card written before it had one)."""
    return rows["relation"] if "relation" in rows else pd.Series("=", index=rows.index)


def in_paper_order(rows: pd.DataFrame, order: dict[str, int]) -> pd.DataFrame:
    """``rows`` in the paper's order of their ``source`` (``order``: source -> its place,
    as the findings stage ranks them), rows of one place in their own order."""
    last = max(order.values(), default=0) + 1
    keys = sorted(range(len(rows)), key=lambda i: (order.get(rows["source"].iloc[i], last),
                                                   i))
    return rows.iloc[keys]


def paper_places(by_source: pd.DataFrame) -> dict[str, int]:
    """source -> its place in the paper, as the findings stage's ``status_by_source``
    gives it."""
    return dict(zip(by_source["source"].astype(str), by_source["place"].astype(int),
                    strict=True))


def _differs_table(rows: pd.DataFrame) -> str:
    """Claims that differ: what the paper says, its value, ours and why (issue URLs in
    the reason as links)."""
    shown = pd.DataFrame({
        "what the paper says": [f'{esc(d)} <span class="claim-id">'
                                f'{esc(c).replace(".", ".<wbr>")} · {esc(w)}</span>'
                                for d, c, w in zip(rows["description"], rows["claim_id"],
                                                   rows["source"], strict=True)],
        "paper": [esc(paper_statement(v, r)) for v, r in zip(
            rows["paper_value"], relations(rows), strict=True)],
        "ours": rows["reproduced_value"].map(esc),
        "why": rows["note"].map(linkify)})
    return html_table(shown, numeric=["paper", "ours"], classes="table claims cards",
                      raw_columns=tuple(shown.columns))


def causes(card: pd.DataFrame) -> pd.Series:
    """The root cause of each claim (``other`` for a card written before it had them)."""
    if "cause" not in card:
        return pd.Series("other", index=card.index)
    return card["cause"].fillna("").astype(str).replace("", "other")


def differences_summary(by_cause: pd.DataFrame) -> str:
    """The differences per root cause (the findings stage's ``differences_by_cause``),
    each linking to its claims below: the first thing an evaluator reads."""
    if by_cause.empty:
        return raw_html_block("<p>No number of the paper differs from ours.</p>")
    items = "".join(
        f'<li><a href="#cause-{esc(r.cause)}"><strong>{count(int(r.claims))}</strong></a> '
        f"{'differs' if int(r.claims) == 1 else 'differ'}: {esc(r.meaning)}</li>"
        for r in by_cause.itertuples(index=False))
    return raw_html_block(f'<ul class="causes">{items}</ul>')


def scorecard_differs(card: pd.DataFrame, order: dict[str, int],
                      by_cause: pd.DataFrame | None = None) -> str:
    """Every claim whose verdict is ``differs``, grouped by root cause (the findings
    stage's order and words), each group in the paper's order: the paper's value, ours,
    and why. A group of more than eight claims is folded behind its count."""
    rows = card[card["status"] == "differs"]
    if rows.empty:
        return raw_html_block("<p>No number of the paper differs from ours.</p>")
    rows = in_paper_order(rows, order)
    cause = causes(rows)
    meanings = ({} if by_cause is None else
                dict(zip(by_cause["cause"], by_cause["meaning"], strict=True)))
    out = []
    for key in dict.fromkeys([*meanings, *cause]):
        mine = rows[(cause == key).to_numpy()]
        if mine.empty:
            continue
        title = (f"{len(mine):,} {'claim differs' if len(mine) == 1 else 'claims differ'}: "
                 f"{meanings.get(key, key)}")
        out.append(f'<details class="callout callout-note differs" id="cause-{esc(key)}"'
                   f'{"" if len(mine) > 8 else " open"}><summary class="callout-title">'
                   f'{esc(title)}</summary><div class="callout-body">'
                   f"{_differs_table(mine)}</div></details>")
    return raw_html_block("".join(out))


# -- the study, its links, how to cite, the licence ----------------------------------------

def citation(text: str) -> dict:
    """``CITATION.cff`` as a mapping (empty if it holds nothing)."""
    return safe_load(text) or {}


def _link(href: str, text: str) -> str:
    ok = re.match(r"^https://[^\s\"'<>]+$", str(href or ""))
    return f'<a href="{esc(href)}">{esc(text)}</a>' if ok else esc(text)


def release_reference(cff: dict) -> dict:
    """The data reference of ``CITATION.cff`` (the upstream release)."""
    for ref in cff.get("references") or []:
        if ref.get("type") == "data":
            return ref
    return {}


def _identifier(work: dict) -> str:
    """The first identifier of a cited work (the arXiv id of the paper)."""
    return next((str(i.get("value")) for i in work.get("identifiers") or []
                 if i.get("value")), "")


NOT_PUBLISHED = ("not published yet (it has no public repository; "
                 "<code>repository-code</code> in CITATION.cff is unset)")


def published_repository(cff: dict) -> str:
    """This package's repository (``repository-code`` of ``CITATION.cff``), or ``""``
    while it is unset or still a placeholder: then no page links to it or cites it."""
    url = str(cff.get("repository-code") or "")
    return "" if not url or "REPLACE-ME" in url else url


def study_links(cff: dict, prov: dict, parts: pd.DataFrame | None = None) -> str:
    """Links to the paper, the upstream release at the pinned commit and this package; on
    a study (``parts``: :func:`study_parts`) also what this build's data is: the release +
    its batches, so the release is never cited as the whole of it."""
    paper = cff.get("preferred-citation") or {}
    ref = release_reference(cff)
    repo = ref.get("repository-code", "")
    commit = str(prov.get("commit") or ref.get("commit") or "")
    release = (f"{repo}/tree/{commit}" if repo and re.fullmatch(r"[0-9a-f]{40}", commit)
               else repo)
    own = published_repository(cff)
    items = [
        f"<li>The paper: {_link(paper.get('url', ''), paper.get('title', 'the paper'))}"
        + (f" ({esc(_identifier(paper))})" if _identifier(paper) else "") + "</li>",
        f"<li>The authors' release: {_link(release, repo.replace('https://github.com/', ''))}"
        f" at commit <code>{esc(commit[:7] or 'unknown')}</code></li>",
        "<li>This package: " + (_link(own, own) if own else NOT_PUBLISHED) + "</li>"]
    if parts is not None:
        batches = parts[parts["batch"] != RELEASE]
        items.insert(2, f"<li>This build's data: {esc(data_phrase(parts))}, "
                        f"{count(int(parts['reports'].sum()))} reports ("
                        + "; ".join(f"{esc(r.batch)}: {count(r.reports)}"
                                    for r in parts.itertuples(index=False))
                        + "): the authors' release (the study's base) and "
                        f"{len(batches)} batch{'es' if len(batches) != 1 else ''} of new "
                        "labels added by the pipeline (<code>study.batches</code> in "
                        "<code>params.yaml</code>)"
                        "</li>")
    return raw_html_block(f'<ul class="study-links">{"".join(items)}</ul>')


# -- a study (the release extended with new labels) ---------------------------------------

STUDY = T1("study.csv")
BATCH_RATES = T1("false_positives_by_batch.csv")
BATCHES = AG("batches.csv")
DRIFT_TESTS = CP("drift_tests.csv")
RELEASE = "release"
SUM = "Sum"


def study_parts(counts: pd.DataFrame) -> pd.DataFrame:
    """The study's parts (the release, then each batch), from the table1 stage's study
    table: batch, reports, first and last year, and the years the part shares with the
    release (a batch's reports of those years are its own)."""
    sums = counts[(counts["project"].astype(str) == SUM) & counts["batch"].notna()]
    rows = []
    for batch in dict.fromkeys(sums["batch"].astype(str)):
        mine = sums[sums["batch"].astype(str) == batch]
        years = mine[mine["column"].astype(str).str.isdigit() & (mine["issues"] > 0)]
        shared = years[years["release_year"].astype(str).str.lower() == "true"]
        total = mine.loc[mine["column"].astype(str) == "Total", "issues"]
        rows.append({"batch": batch, "reports": int(total.sum()),
                     "first": str(years["column"].min()) if len(years) else "",
                     "last": str(years["column"].max()) if len(years) else "",
                     "shared": ", ".join(sorted(shared["column"].astype(str)))})
    return pd.DataFrame(rows, columns=["batch", "reports", "first", "last", "shared"])


def data_phrase(parts: pd.DataFrame) -> str:
    """What a build's data is, as every sentence that names it says: ``the release`` or
    ``the release + 2 batches``."""
    n = int((parts["batch"] != RELEASE).sum())
    return "the release" if not n else f"the release + {n} batch{'es' if n != 1 else ''}"


def years_text(r) -> str:
    span = r.first if r.first == r.last else f"{r.first}–{r.last}"
    return span + (f" ({r.shared} also in the release)" if r.shared else "")


def study_now(i: Inputs) -> str:
    """The Overview's "The study now", on a study only: what the build reads (the release
    + its batches) and, per part, its reports, years, annotators, Fleiss' kappa with its
    interval, false-positive average and drift; nothing on the release alone."""
    counts = i.optional_csv(STUDY)
    if counts is None:
        return ""
    parts = study_parts(counts)
    agree = i.optional_csv(BATCHES)
    agree = None if agree is None else agree.set_index(agree["batch"].astype(str))
    rates = i.optional_csv(BATCH_RATES)
    averages = ({} if rates is None else {
        str(r.batch): r for r in rates[rates["project"].astype(str) == SUM]
        .itertuples(index=False)})
    tests = i.optional_csv(DRIFT_TESTS)
    drift = {} if tests is None else {str(t.batch): t for t in tests.itertuples(index=False)}
    rows = []
    for r in parts.itertuples(index=False):
        a = agree.loc[r.batch] if agree is not None and r.batch in agree.index else None
        fp, d = averages.get(r.batch), drift.get(r.batch)
        rows.append({
            "part": "release" if r.batch == RELEASE else f"batch {r.batch}",
            "reports": count(r.reports), "years": years_text(r),
            "annotators": MISSING if a is None else count(a["annotators"]),
            "Fleiss' κ (95% interval)": MISSING if a is None else
            f"{dec(a['fleiss_kappa'])} "
            f"({interval(a['fleiss_kappa_ci_low'], a['fleiss_kappa_ci_high'])})",
            "false positives (mean of projects; n)": "the paper's (not recorded)"
            if fp is None and r.batch == RELEASE else MISSING if fp is None else
            f"{pct(fp.false_positive_percent, 2)}; {count(fp.candidates)} candidates",
            "themes changed since the release": "" if r.batch == RELEASE else MISSING
            if d is None else f"{int(d.changed_themes)} of {int(d.themes)}"})
    shown = pd.DataFrame(rows)
    n = len(parts) - 1
    return ("## The study now\n\n"
            f"This build reads {esc(data_phrase(parts))} of new labels: "
            f"{count(int(parts['reports'].sum()))} reports. The paper is judged above on "
            f"the release's {count(int(parts['reports'].iloc[0]))} reports alone, so the "
            f"verdicts are those of the release; here is what the "
            f"batch{'es' if n != 1 else ''} add, each with its own annotators (their "
            "kappa on their own ratings) and its own false-positive rate.\n\n"
            + raw_html_block(html_table(shown, numeric=list(shown.columns[1:2]),
                                        classes="table compact cards study-now"))
            + "\n\nPer project and year: [Table I, the study now](table1.qmd#the-study-now); "
              "the batches' theme shares against the release's, with their intervals and "
              "what each batch could detect: [What changed](changes.qmd).\n")


def _authors(people: list[dict]) -> list[str]:
    out = []
    for p in people or []:
        if p.get("family-names"):
            out.append(f"{p['family-names']}, {p.get('given-names', '')}".strip(", "))
        elif p.get("name"):
            out.append(str(p["name"]))
    return out


def _bibtex(key: str, kind: str, fields: dict[str, str]) -> str:
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    return f"@{kind}{{{key},\n{body}\n}}"


SWH_RESOLVER = "https://archive.softwareheritage.org/"


def release_citation(ref: dict) -> str:
    """The study's data as ``CITATION.cff`` cites it: the authors' repository at the
    commit and, beside it, the same commit's SWHIDs in Software Heritage (which keeps it
    if the repository goes); ``""`` without a data reference."""
    repo, commit = str(ref.get("repository-code") or ""), str(ref.get("commit") or "")
    if not repo:
        return ""
    swhids = [str(i.get("value")) for i in ref.get("identifiers") or []
              if i.get("type") == "swh" and re.fullmatch(r"swh:1:\w{3}:[0-9a-f]{40}",
                                                          str(i.get("value")))]
    kept = ("; in Software Heritage: " + ", ".join(
        _link(SWH_RESOLVER + s, s) for s in swhids)) if swhids else ""
    where = f"{repo}/tree/{commit}" if commit else repo
    return ("<p><strong>The data</strong></p><p>The authors' release, "
            f"{_link(where, where)}{kept}.</p>")


def how_to_cite(cff: dict) -> str:
    """A "How to cite" block built from ``CITATION.cff``: the study and this package (while
    the package is not published, :func:`published_repository`, it says so and names no
    placeholder author or address)."""
    if not cff:
        return "No `CITATION.cff` in this build.\n"
    paper = cff.get("preferred-citation") or {}
    paper_authors = _authors(paper.get("authors"))
    ident = _identifier(paper)
    own = published_repository(cff)
    study = (f"{'; '.join(paper_authors)} ({paper.get('year', '')}). "
             f"{paper.get('title', '')}. {paper.get('journal', '')} {ident}. "
             f"{paper.get('url', '')}")
    entries = [_bibtex("mu2025designing", "article", {
        "title": paper.get("title", ""), "author": " and ".join(paper_authors),
        "journal": f"{paper.get('journal', '')} {ident}".strip(),
        "year": str(paper.get("year", "")), "url": paper.get("url", "")})]
    if own:
        pkg_authors = _authors(cff.get("authors"))
        package = esc(f"{'; '.join(pkg_authors)}. {cff.get('title', '')} (version "
                      f"{cff.get('version', '')}) [software]. {own}")
        entries.append(_bibtex("reproduction_package", "software", {
            "title": cff.get("title", ""), "author": " and ".join(pkg_authors),
            "version": str(cff.get("version", "")), "url": own,
            "license": cff.get("license", "")}))
    else:
        package = ("Not published yet: there is no public repository or author list to "
                   "cite. Cite the study; this package's citation appears here once "
                   "<code>repository-code</code> and the authors are set in CITATION.cff.")
    bib = "\n\n".join(entries)
    data = release_citation(release_reference(cff))
    return raw_html_block(
        '<div class="cite"><p><strong>The study</strong></p>'
        f"<p>{esc(study)}</p>{data}<p><strong>This reproduction package</strong></p>"
        f"<p>{package}</p><details><summary>BibTeX</summary>"
        f'<pre class="bibtex">{esc(bib)}</pre></details>'
        "<p>Built from <code>CITATION.cff</code> in the repository.</p></div>")


def licence_block(text: str, name: str = LICENCE) -> str:
    """The licence of the code (the first line of ``LICENSE``, the full text folded)."""
    text = text.strip()
    first = text.splitlines()[0] if text else name
    return raw_html_block(
        f"<p>The code of this package is under the {esc(first)}. The released data are "
        "the study authors'; their repository states no licence, so the downloads on the "
        "Data page are offered for checking this reproduction only.</p>"
        f'<details><summary>{esc(first)}, full text</summary><pre class="licence">'
        f"{esc(text)}</pre></details>")


INCLUDES: tuple[Include, ...] = (
    Include("scorecard_differs.md", (SCORECARD, BY_SOURCE, BY_CAUSE),
            lambda i: scorecard_differs(i.card, paper_places(i.csv(BY_SOURCE)),
                                        i.csv(BY_CAUSE))),
    Include("differences_by_cause.md", (BY_CAUSE,),
            lambda i: differences_summary(i.csv(BY_CAUSE))),
    Include("links.md", (CITATION, PROVENANCE, STUDY),
            lambda i: study_links(citation(i.text(CITATION)), i.json(PROVENANCE),
                                  None if (c := i.optional_csv(STUDY)) is None
                                  else study_parts(c)),
            optional=(STUDY,)),
    Include("overview/study_now.md", (STUDY, BATCHES, BATCH_RATES, DRIFT_TESTS), study_now,
            optional=(STUDY, BATCHES, BATCH_RATES, DRIFT_TESTS)),
    Include("cite.md", (CITATION,), lambda i: how_to_cite(citation(i.text(CITATION)))),
    Include("licence.md", (LICENCE,), lambda i: licence_block(i.text(LICENCE))),
)
