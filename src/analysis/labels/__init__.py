"""The labelling loop between selection and the pipeline (Section III.A/B of the paper).

Annotators label where they like to: in spreadsheets or in Label Studio; both routes end
in the one table of annotations and give the same batch.

- :mod:`analysis.labels.codebook`: every type, theme and sub-theme with its definition,
  details and examples, for the sheets and the Label Studio project;
- :mod:`analysis.labels.sheets`: one blank labelling sheet per annotator (CSV with the
  codebook beside it, or .xlsx with drop-downs, links and a Codebook tab);
- :mod:`analysis.labels.tables`: files saved by a spreadsheet program, read back (any
  encoding and delimiter, or a workbook);
- :mod:`analysis.labels.studio`, :mod:`analysis.labels.studio_api`,
  :mod:`analysis.labels.studio_server`: a Label Studio project of the candidates, its
  export read back, the HTTP calls, the local server in its own environment;
- :mod:`analysis.labels.annotations`, :mod:`analysis.labels.readers`: the one table of
  annotations and the readers that fill it (a filled sheet, a Label Studio export);
- :mod:`analysis.labels.checks`: every problem of the annotations, one message each, the
  inputs checked against their selection too;
- :mod:`analysis.labels.decisions`: the adjudicators' decisions, an input of the merge;
- :mod:`analysis.labels.merge`: the annotations and the decisions combined into a batch
  in the upstream layout, with the excluded candidates, the adjudication list, the
  annotations and the comments;
- :mod:`analysis.labels.extend`: a study dump plus a batch, the next study, each named
  annotator in one label column across batches;
- ``python -m analysis.labels sheets|studio|merge|extend``: the command line.
"""
