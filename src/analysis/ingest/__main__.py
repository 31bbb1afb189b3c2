"""``python -m analysis.ingest``: copy the released data into ``data/raw/`` (see
:mod:`analysis.ingest.ingest`)."""

import sys

from analysis.ingest.ingest import main

if __name__ == "__main__":
    sys.exit(main())
