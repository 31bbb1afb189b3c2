"""``python -m analysis.compare snapshot --out FILE``: a baseline snapshot of a run (see
:mod:`analysis.compare.snapshot`)."""

import sys

from analysis.compare.snapshot import main

if __name__ == "__main__":
    sys.exit(main())
