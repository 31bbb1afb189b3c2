"""The labelling loop between selection and the pipeline (Section III.A/B of the paper).

- :mod:`analysis.labels.sheets`: one blank labelling sheet per annotator (CSV or .xlsx),
  written for a spreadsheet program, and the reading of filled ones, and of any file saved
  from one (any encoding and delimiter, or a workbook);
- :mod:`analysis.labels.checks`: every problem of the filled sheets, one message each,
  the sheets checked against their selection too;
- :mod:`analysis.labels.decisions`: the adjudicators' decisions, an input of the merge;
- :mod:`analysis.labels.merge`: the filled sheets and the decisions combined into a batch
  in the upstream layout, with the excluded candidates, the adjudication list and the
  annotators' comments;
- :mod:`analysis.labels.extend`: a study dump plus a batch, the next study;
- ``python -m analysis.labels sheets|merge|extend``: the command line.
"""
