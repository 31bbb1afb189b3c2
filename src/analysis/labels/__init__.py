"""The labelling loop between selection and the pipeline (Section III.A/B of the paper).

- :mod:`analysis.labels.sheets`: one blank labelling sheet per annotator, written for a
  spreadsheet program, and the reading of filled ones (any encoding and delimiter a
  spreadsheet program saves);
- :mod:`analysis.labels.checks`: every problem of the filled sheets, one message each;
- :mod:`analysis.labels.merge`: the filled sheets combined into a dump in the upstream
  layout, with the excluded candidates and an adjudication list;
- ``python -m analysis.labels sheets|merge``: the command line.
"""
