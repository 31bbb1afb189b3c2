"""Select candidate issues for labelling (Section III.A of the paper), at any scale.

    python -m analysis.update.select INPUT [INPUT ...] --out DIR [--project KEY ...]
        [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--match word|plural]
        [--known DUMP|none] [--workers N|auto | --scheduler tcp://HOST:8786] [--force]
        [--max-line-bytes SIZE] [--max-file-bytes SIZE]

Inputs are raw issue exports (:mod:`analysis.update.select.formats`) and GH Archive hourly files
(:mod:`analysis.update.select.gharchive`; a file, a folder or a quoted glob). The collection
spec (:mod:`analysis.update.select.spec`) comes from the projects file: each project's
repository (and former names) and its filter, a keyword list of the keyword file or none.
The matching rule is :mod:`analysis.update.select.matching`; the issues the study already holds
are left out by :mod:`analysis.update.select.known`; the engines, the merge and the outputs are
:mod:`analysis.update.select.engine`.

Output (``--out``): ``selection/candidates.csv`` (every candidate: project, url,
created_at, title, the keywords matched in the title and in the body, and the source file
and line; ordered by project, creation date, URL) and ``selection/selection.json`` (the
inputs summarised: count, first and last, bytes, a digest; formats found; per project:
records read, pull requests skipped, out of the window, not matched, duplicates, already
in the study, candidates). The labelling sheets are written from the candidates by
``python -m analysis.update.labels sheets``. A selection without candidates ends with exit
status 3 and a line saying so.

Memory stays bounded whatever the input: a line longer than ``--max-line-bytes`` (default
128MiB) or a gzip file that decompresses to more than ``--max-file-bytes`` (default 8GiB)
is refused in one line (:class:`analysis.update.select.formats.Limits`).
"""
