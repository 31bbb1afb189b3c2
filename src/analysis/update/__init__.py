"""The update loop: carrying the study forward on newer issue data.

- :mod:`analysis.update.select`: collect candidate issues from newer data (GH Archive
  hours, GitHub exports) with the paper's keywords;
- :mod:`analysis.update.labels`: hand a selection to the annotators (sheets or Label
  Studio), read their labels back, adjudicate and merge a batch;
- :mod:`analysis.update.study`: the pipeline's first stages, which add the merged batches
  to the release as one study dump.

The reproduction (the analysis stages, :mod:`analysis.core`, :mod:`analysis.report`)
imports nothing from this package; the study stages hand it the study dump as files.
"""
