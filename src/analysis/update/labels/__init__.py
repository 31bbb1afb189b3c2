"""The labelling loop between selection and the pipeline (Section III.A/B of the paper).

Annotators label where they like to: in spreadsheets or in Label Studio; both routes end
in the one table of annotations and give the same batch.

- :mod:`analysis.update.labels.codebook`: every type, theme and sub-theme with its definition,
  details and examples, for the sheets and the Label Studio project;
- :mod:`analysis.update.labels.sheets`: one blank labelling sheet per annotator (CSV with the
  codebook beside it, or .xlsx with drop-downs, links and a Codebook tab);
- :mod:`analysis.update.labels.tables`: files saved by a spreadsheet program, read back (any
  encoding and delimiter, or a workbook);
- :mod:`analysis.update.labels.studio`, :mod:`analysis.update.labels.studio_api`,
  :mod:`analysis.update.labels.studio_server`: a Label Studio project of the candidates, its
  export read back, the HTTP calls, the local server in its own environment;
- :mod:`analysis.update.labels.annotations`, :mod:`analysis.update.labels.readers`: the one table of
  annotations and the readers that fill it (a filled sheet, a Label Studio export);
- :mod:`analysis.update.labels.checks`: every problem of the annotations, one message each, the
  inputs checked against their selection too;
- :mod:`analysis.update.labels.decisions`: the adjudicators' decisions, an input of the merge;
- :mod:`analysis.update.labels.merge`: the annotations and the decisions combined into a batch
  in the upstream layout, with the excluded candidates, the adjudication list, the
  annotations and the comments;
- :mod:`analysis.update.labels.extend`: a study dump plus a batch, the next study, each named
  annotator in one label column across batches;
- ``python -m analysis.update.labels sheets|studio|merge|extend``: the command line.
"""
