"""The study the pipeline runs on: the release and the team's records of each batch.

A team's records of a batch are a folder of the project, ``labels/<batch>/``, under
version control: the candidates select wrote (``selection/``), the sheets the annotators
filled (``sheets/``, CSV or .xlsx) or a Label Studio export (``studio/export.json``), and
the adjudicators' ``decisions.csv`` when there is one. The batches of the study are listed
in ``params.yaml`` (``study: batches: [...]``), in the order they extend it. Three stages
rebuild the study from them, before ``ingest``:

- ``batches`` (:mod:`analysis.update.study.records`): the list checked against the records'
  folders, and what each holds (``build/merged/batches.json``);
- ``merge`` (:mod:`analysis.update.study.batch`), DVC's ``foreach`` over the list: each batch's
  records merged (:func:`analysis.update.labels.merge.merge_folder`) into ``build/merged/<batch>/``,
  with the record of what it read in ``merges/<batch>.json`` (in git: an answer changed
  after the merge is refused, :mod:`analysis.update.study.ledger`);
- ``study`` (:mod:`analysis.update.study.build`): the release (ingest's source, verified against
  its manifest) extended with every batch in turn (:mod:`analysis.update.labels.extend`) into
  ``build/study/dump/``, which the ``ingest`` stage copies into ``data/raw/``. Without a
  batch the study is the release, byte for byte.
"""

from analysis.core.pipeline import P, Stage, rel
from analysis.update.study.params import StudyParams

RECORDS = rel(P.records)  # one folder a batch: labels/<batch>/, in git
LEDGERS = rel(P.merge_records)  # the record of each batch's merges: merges/<batch>.json
BATCHES = rel(P.merged)  # one merged batch a folder, and their list
INDEX = f"{BATCHES}/batches.json"
STUDY = rel(P.study)  # the study's dump/ and its record, which ingest copies

# What the stages read and write (dvc.yaml is generated from it: analysis.tools.pipeline).
STAGES = (
    Stage("batches", reads=(RECORDS,), notebook=False, package="update/study", sections=("study",),
          module="analysis.update.study.records",
          cmd=f"python -m analysis.update.study.records --out {INDEX}", outs=(INDEX,)),
    Stage("merge", reads=(f"{RECORDS}/${{item}}", rel(P.taxonomy_file)), notebook=False,
          package="update/study", foreach="${study.batches}", module="analysis.update.study.batch",
          cmd=f"python -m analysis.update.study.batch {RECORDS}/${{item}} --out {BATCHES}/${{item}}"
              f" --record {LEDGERS}/${{item}}.json",
          outs=(f"{BATCHES}/${{item}}",), kept=(f"{LEDGERS}/${{item}}.json",)),
    Stage("study", reads=("${ingest.source}", BATCHES, rel(P.projects_file)), notebook=False,
          package="update/study", module="analysis.update.study.build", params=StudyParams,
          sections=("ingest",),
          cmd=f"python -m analysis.update.study.build --batches {BATCHES} --out {STUDY}",
          outs=(STUDY,)),
)
