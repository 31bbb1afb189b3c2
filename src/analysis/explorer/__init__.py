"""The ``explorer`` stage: every labelled issue, compact, for the website's issue explorer
(``issues.html``), and a few reports of the release per theme."""

from analysis.core.pipeline import P, Stage, rel

STAGE = Stage("explorer", reads=(rel(P.clean.processed), rel(P.taxonomy_file),
                                 rel(P.projects_file)),
              writes=("tables",))
