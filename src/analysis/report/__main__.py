"""Command line: ``python -m analysis.report [--renderer auto|quarto|preview]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import InputError
from .layout import Layout
from .site import build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.report",
        description="Build the website report/_site/ from the pipeline's outputs.")
    parser.add_argument("--renderer", choices=("auto", "quarto", "preview"), default="auto",
                        help="auto (default): Quarto if `quarto` is on PATH, else the "
                             "pandoc preview")
    parser.add_argument("--root", type=Path, default=None,
                        help="project root (default: this checkout)")
    args = parser.parse_args(argv)
    try:
        build(Layout(args.root.resolve()) if args.root else Layout(), renderer=args.renderer)
    except InputError as exc:
        print(f"report: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
