"""The words of the release archive (``make release``): what it may carry and how to use it.

The code and the data come under different terms, and every place that states terms says
both, apart: the code (``source/``, and what it computed as software) is under the
package's licence (``CITATION.cff``'s ``license``, MIT, the ``LICENSE`` file); the labels,
taxonomy details and interview coding are the study authors' release, which states no
licence, so they stay under their authors' terms and are offered for checking this
reproduction only. The archive's top-level ``README.md`` says this, how to read the site,
how to rebuild it from ``source/`` without git and without network, and what the people
who deposit it must fill in.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from analysis.core.paths import Paths

# Where the rebuild reads the release inside source/ (ingest.source's default).
RELEASE_FOLDER = Paths(Path(".")).release.as_posix()
# The file of source/ that names the commit it was archived from (no .git in the archive).
COMMIT_FILE = "COMMIT"
DATA_TERMS_NAME = "The study authors' terms (their release states no licence)"
DATA_TERMS = ("The labels, taxonomy details and interview coding are the study authors' "
              "release, which states no licence: they remain under their authors' terms and "
              "are offered here for checking this reproduction only. The tables and figures "
              "computed from them (downloads/, site/) carry the same terms.")
DEPOSITORS = (
    "1. Name the authors in CITATION.cff (`authors:`, each with `orcid:` where they have "
    "one); .zenodo.json takes them as its creators when `make release` is run again.",
    "2. Agree the data's terms with the study's authors (see Terms, below), and set "
    "`repository-code` in CITATION.cff to the package's public repository.",
    "3. Upload the zip to Zenodo (or another repository that keeps files and mints "
    "DOIs); check the creators, their ORCID iDs, the licence and the description it "
    "shows.",
    "4. Put the DOI back: as `doi:` (and an `identifiers:` entry) in CITATION.cff and the "
    "README, commit, and run `make report` and `make release` again.")


@dataclass(frozen=True)
class Sources:
    """Where the study's data can be had: the authors' repository at a commit, and the
    same commit's identifiers in Software Heritage (``None`` when not known)."""

    repository: str
    commit: str
    swh_revision: str | None = None
    swh_directory: str | None = None


def data_sources(cff: dict) -> Sources:
    """The release the study's data comes from, as ``CITATION.cff`` cites it (its
    ``references`` entry of type ``data``, with the SWHIDs among its ``identifiers``)."""
    release = next((r for r in cff.get("references") or [] if r.get("type") == "data"), {})
    swhids = [str(i.get("value", "")) for i in release.get("identifiers") or []
              if i.get("type") == "swh"]
    return Sources(str(release.get("repository-code", "")), str(release.get("commit", "")),
                   next((s for s in swhids if s.startswith("swh:1:rev:")), None),
                   next((s for s in swhids if s.startswith("swh:1:dir:")), None))


def code_terms(cff: dict) -> str:
    """The code's licence in one sentence."""
    return (f"The code (source/) is under the {cff.get('license', '')} licence (LICENSE); so "
            "is what it adds to the site (its pages' text and scripts).")


def zenodo_description(cff: dict, commit: str) -> str:
    """``.zenodo.json``'s description (HTML, as Zenodo reads it): what the package is, what
    the archive holds, where the data comes from, and the terms of code and data apart."""
    paper = (cff.get("preferred-citation") or {}).get("title", "the study")
    src = data_sources(cff)
    swh = (f" (Software Heritage: {src.swh_revision}, directory {src.swh_directory})"
           if src.swh_revision else "")
    return (
        f"<p>A reproduction package for the empirical study <em>{paper}</em>: the "
        "pipeline that recomputes the paper's tables, agreement figures, taxonomy and "
        "interview findings from the authors' released labels, and the website that sets "
        "each number beside the paper's with a verdict.</p>"
        f"<p>The archive holds the source at commit {commit} (source/), the rendered "
        "website (site/), the downloads as a Frictionless data package (downloads/), the "
        "citation (CITATION.cff) and an RO-Crate of the pipeline's run "
        "(ro-crate-metadata.json); README.md says how to rebuild the site from source/ "
        "without network.</p>"
        f"<p>Data: the authors' release, {src.repository} at commit {src.commit}{swh}.</p>"
        f"<p>Terms: {code_terms(cff)} {DATA_TERMS}</p>")


def archive_readme(cff: dict, name: str, commit: str) -> str:
    """The archive's top-level README.md (see the module docstring)."""
    src = data_sources(cff)
    swh = (f"\n- Software Heritage: revision `{src.swh_revision}`, directory "
           f"`{src.swh_directory}`" if src.swh_revision else "")
    steps = "\n".join(DEPOSITORS)
    return f"""# {cff.get('title', name)}

Version {cff.get('version', '')}, built from commit `{commit}`.

## What is here

| path | what it is |
|---|---|
| `site/` | the website: `python3 -m http.server --directory site`, then port 8000 |
| `downloads/` | the tables and figures, with `datapackage.json` (Frictionless) |
| `source/` | the source at the commit; `source/{COMMIT_FILE}` names the commit |
| `CITATION.cff`, `.zenodo.json` | how to cite it; the repository's metadata |
| `ro-crate-metadata.json` | an RO-Crate: these files and the pipeline's run, with hashes |
| `LICENSE` | the code's licence |

## Rebuilding the site from this archive

The study's data is not in `source/`. Get the authors' release at commit `{src.commit}`:

- GitHub: {src.repository}{swh}

and put its files (the folder holding `CodeBook.csv` and `Issue Report/`) at
`source/{RELEASE_FOLDER}/`. Then, with Python 3.11 and `make`:

```bash
cd source
make report   # set up .venv, verify the data, run every stage, render the site
```

`make report` checks every file against `source/data/release.sha256`. With a network it
fetches the release itself, from GitHub or else from Software Heritage; without one, the
set-up needs the Python packages of `source/requirements*.txt` in uv's or pip's cache.
The archive has no `.git`: `source/.dvc/config.local` tells DVC to work without it.

## Terms

- {code_terms(cff)}
- {DATA_TERMS}

## For the people who deposit it

{steps}
"""
