"""``python -m analysis.compare snapshot --out FILE``: a baseline snapshot of a run (see
:mod:`analysis.compare.changes`)."""

import sys

from analysis.compare.changes import main

if __name__ == "__main__":
    sys.exit(main())
