"""The downloads as a Frictionless data package (``downloads/datapackage.json``).

Tools and evaluators load the site's tables with their types from it (``frictionless
validate downloads/datapackage.json``; ``frictionless.Package(...)``; pandas through
``frictionless``' pandas plugin). One resource per downloaded file, with its size and
SHA-256 (which ``frictionless validate`` checks); a CSV's table schema is derived from the
pandera schema of :mod:`analysis.core.table_schemas` that checks it in the pipeline: a
field per column of the file, in the file's order (a regex column of the pandera schema
gives one field per matching column), typed by the column's kind, with its description
and constraints (:func:`constraints`). The package describes the copies in ``downloads/``
as written, with the apostrophes of the spreadsheet rule (:mod:`.downloads`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pandera.pandas as pa

from analysis.core.artifacts import sha256_file
from analysis.core.columns import DECIMAL, INTEGER, YES_NO
from analysis.core.table_schemas import describing_column, reader_type
from analysis.core.textsafe import neutralise_cell

# a reader's kind (analysis.core.table_schemas) -> a Frictionless field type
FIELD_TYPES = {INTEGER: "integer", DECIMAL: "number", YES_NO: "boolean"}
PACKAGE_NAME = "llm-framework-challenges-reproduction"


def constraints(col: pa.Column) -> dict[str, object]:
    """The Frictionless constraints a pandera column states: ``required`` when it is never
    empty, and the bounds, word lists and patterns its checks carry as statistics.

    A word list also admits each word as the spreadsheet rule writes it in the downloads
    (``=`` as ``'=``); a pattern is anchored at the start only, as pandera's ``str.match``
    reads it (Frictionless anchors both ends).
    """
    out: dict[str, object] = {}
    if not col.nullable:
        out["required"] = True
    for check in col.checks:
        stats = check.statistics or {}
        for key in ("minimum", "maximum"):
            if stats.get(key) is not None:
                out[key] = stats[key]
        if "enum" in stats:
            words = [str(w) for w in stats["enum"]]
            out["enum"] = sorted(set(words) | {neutralise_cell(w) for w in words})
        if stats.get("pattern"):
            out["pattern"] = f"(?:{stats['pattern']})[\\s\\S]*"
    return out


def field(name: str, col: pa.Column) -> dict[str, object]:
    """The Frictionless field of the table column ``name`` described by ``col``."""
    kind = reader_type(col)
    out: dict[str, object] = {"name": name, "type": FIELD_TYPES.get(kind, "string"),
                              "description": col.description or ""}
    if kind == YES_NO:
        out.update(trueValues=["True"], falseValues=["False"])
    limits = constraints(col)
    if kind not in (INTEGER, DECIMAL):
        limits = {k: v for k, v in limits.items() if k not in ("minimum", "maximum")}
    if limits:
        out["constraints"] = limits
    return out


def written_name(header: str) -> str:
    """The column name as the stage wrote it, for a downloaded header: the downloads put an
    apostrophe before a would-be spreadsheet formula (:func:`neutralise_cell`), also in
    names that come from the data (an annotator's label in a column name, say)."""
    if header.startswith("'") and neutralise_cell(header[1:]) == header:
        return header[1:]
    return header


def table_schema(schema: pa.DataFrameSchema, columns: list[str]) -> dict[str, object]:
    """The Frictionless table schema of a file with ``columns`` checked by ``schema``.

    Raises ValueError for a column the schema does not describe (the pipeline's own
    validation refuses such a table first).
    """
    fields = []
    for name in columns:
        col = describing_column(schema, written_name(name))
        if col is None:
            raise ValueError(f"{schema.name}: no schema column describes {name!r}")
        fields.append(field(name, col))
    return {"fields": fields, "missingValues": [""]}


def resource(name: str, path: Path, description: str,
             schema: pa.DataFrameSchema | None = None) -> dict[str, object]:
    """One resource: the downloaded file ``path`` (``name`` under downloads/), its size and
    SHA-256, and, for a CSV with a schema, its table schema."""
    stem = name.rsplit(".", 1)[0].replace("/", "-").replace("_", "-").lower()
    out: dict[str, object] = {"name": stem, "path": name, "description": description,
                              "bytes": path.stat().st_size,
                              "hash": f"sha256:{sha256_file(path)}"}
    if name.endswith(".csv"):
        header = pd.read_csv(path, dtype=str, keep_default_na=False, nrows=0)
        out.update(type="table", scheme="file", format="csv", mediatype="text/csv",
                   encoding="utf-8",
                   dialect={"csv": {"delimiter": ",", "lineTerminator": "\n"}})
        if schema is not None:
            out["schema"] = table_schema(schema, [str(c) for c in header.columns])
    else:
        suffix = name.rsplit(".", 1)[-1]
        out.update(type="file", scheme="file", format=suffix,
                   mediatype={"json": "application/json"}.get(suffix, "text/plain"))
    return out


def sources(cff: dict, provenance: dict) -> list[dict[str, str]]:
    """Where the package's data comes from, from ``CITATION.cff`` and the provenance
    record: the paper, its arXiv identifier, and the authors' release at the commit the
    ingest verified."""
    paper = cff.get("preferred-citation") or {}
    arxiv = next((str(i["value"]) for i in paper.get("identifiers") or []
                  if str(i.get("value", "")).startswith("arXiv:")), "")
    release = next((r for r in cff.get("references") or [] if r.get("type") == "data"), {})
    commit = str(provenance.get("commit") or release.get("commit") or "")
    out = []
    if paper.get("title"):
        out.append({"title": f"The paper: {paper['title']} ({paper.get('year', '')})",
                    "path": str(paper.get("url", ""))})
    if arxiv:
        out.append({"title": arxiv,
                    "path": f"https://doi.org/10.48550/arXiv.{arxiv.split(':', 1)[1]}"})
    if release.get("repository-code"):
        out.append({"title": f"The authors' release: {release.get('title', '')}",
                    "path": f"{release['repository-code']}/tree/{commit}"
                    if commit else str(release["repository-code"]),
                    "version": commit})
    return [{k: v for k, v in s.items() if v} for s in out]


def licences(cff: dict, provenance: dict) -> list[dict[str, str]]:
    """The terms, apart: this package's licence (``CITATION.cff``) for its code, and the
    study authors' terms for their labels and the tables computed from them (their
    release states no licence)."""
    own = str(cff.get("license") or "")
    release = sources(cff, provenance)[-1:] if cff.get("references") else []
    out = []
    if own:
        out.append({"name": own, "path": f"https://spdx.org/licenses/{own}.html",
                    "title": f"{own}: the code that computed these tables (the package's "
                             "source), not the data"})
    for r in release:
        out.append({"path": r["path"], "title": "the study authors' terms, not "
                    f"{own or 'the code'}'s: the labels are theirs and their release states "
                    "no licence; the labels and the tables computed from them are offered "
                    "for checking this reproduction only"})
    return out


def datapackage(resources: list[dict[str, object]], title: str, description: str,
                cff: dict | None = None, provenance: dict | None = None
                ) -> dict[str, object]:
    """The package descriptor (Frictionless v2 data package) of ``resources``: with
    ``CITATION.cff`` (``cff``) and the ingest's provenance record, also its version, its
    sources (:func:`sources`) and licences (:func:`licences`). Its creation date is the
    commit's, added when the artifact is packaged (:func:`dated`): the pipeline's outputs
    do not depend on the commit."""
    cff, provenance = cff or {}, provenance or {}
    out: dict[str, object] = {"$frictionless": "package/v2", "name": PACKAGE_NAME,
                              "title": title, "description": description}
    if cff.get("version"):
        out["version"] = str(cff["version"])
    if cff:
        out.update(sources=sources(cff, provenance), licenses=licences(cff, provenance))
    out["resources"] = resources
    return out


def dated(package: dict[str, object], created: str) -> dict[str, object]:
    """``package`` with its creation date (``created``: an ISO 8601 date and time, the
    commit's), placed before its resources."""
    head = {k: v for k, v in package.items() if k != "resources"}
    return {**head, "created": created, "resources": package.get("resources", [])}
