"""Select candidate issues for labelling (Section III.A of the paper), at any scale.

    python -m analysis.select INPUT [INPUT ...] --out DIR [--project KEY ...]
        [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--match word|plural] [--annotators N]
        [--workers N | --scheduler tcp://HOST:8786] [--force]
        [--max-line-bytes SIZE] [--max-file-bytes SIZE]

Inputs are raw issue exports (:mod:`analysis.select.formats`) and GH Archive hourly files
(:mod:`analysis.select.gharchive`; a file, a folder or a quoted glob). The collection
spec (:mod:`analysis.select.spec`) comes from the projects file: each project's
repository (and former names) and its filter, a keyword list of the keyword file or none.
The matching rule is :mod:`analysis.select.matching`; the engines, the merge and the
outputs are :mod:`analysis.select.engine`.

Output (``--out``): ``selection/candidates.csv`` (every candidate: project, url,
created_at, title, the keywords matched in the title and in the body, and the source file
and line; ordered by project, creation date, URL), ``selection/selection.json`` (formats
found; per input and per project: records read, pull requests skipped, out of the window,
duplicates, candidates) and ``sheets/annotator_<k>.csv``, one blank labelling sheet per
annotator.

Memory stays bounded whatever the input: a line longer than ``--max-line-bytes`` (default
128MiB) or a gzip file that decompresses to more than ``--max-file-bytes`` (default 8GiB)
is refused in one line (:class:`analysis.select.formats.Limits`).
"""
