"""The ``explorer`` stage: every labelled issue, compact, for the website's issue explorer
(``issues.html``), and a few reports of the release per theme."""
