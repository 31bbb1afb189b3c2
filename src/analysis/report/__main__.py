"""Command line of the website build.

    python -m analysis.report                  generate and render (the `report` stage)
    python -m analysis.report generate         step 1 only: variables, includes, downloads
    python -m analysis.report render           step 2 only: render report/_site/ (only
                                               the pages whose inputs changed; --full: all)
    python -m analysis.report render --if-needed   only if the site does not show the
                                               current sources (report/_site/sources.json),
                                               or the preview rendered it and Quarto is here
    python -m analysis.report quarto-setup     find Quarto, or try once to install it

``--renderer auto|quarto|preview`` picks the renderer (auto: Quarto if it can be found).
"""

from __future__ import annotations

import argparse
import errno
import sys
from pathlib import Path

from analysis.core.errors import run_command
from analysis.core.paths import Paths
from analysis.report.quarto import setup
from analysis.report.site import needs_render, render

# Operating-system errors a user can fix (permissions, a read-only or full disk): one line.
USER_ERRNOS = (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.report",
        description="Build the website report/_site/ from the pipeline's outputs.")
    parser.add_argument("step", nargs="?", default="all",
                        choices=("all", "generate", "render", "quarto-setup"),
                        help="all (default): generate, then render")
    parser.add_argument("--renderer", choices=("auto", "quarto", "preview"), default="auto",
                        help="auto (default): Quarto if it can be found, else the pandoc "
                             "preview")
    parser.add_argument("--if-needed", action="store_true",
                        help="render only if the site does not show the current sources, "
                             "or a better renderer is here")
    parser.add_argument("--full", action="store_true",
                        help="render every page (by default only the pages whose inputs "
                             "changed since the last render are rendered again)")
    parser.add_argument("--root", type=Path, default=None,
                        help="project root (default: this checkout)")
    args = parser.parse_args(argv)
    paths = Paths(args.root.resolve()) if args.root else Paths()
    # an OSError (an output that cannot be read, say) is the user's to fix: USER_ERRNOS
    return run_command("report", lambda: run_step(args, paths), errnos=USER_ERRNOS)


def run_step(args: argparse.Namespace, paths: Paths) -> int:
    """Run the step ``args`` names; the exit status."""
    if args.step == "quarto-setup":
        setup()
    elif args.step == "generate":
        # step 1 alone needs pandas, pandera and matplotlib: the render step loads none
        from analysis.report.generation import generate

        generate(paths)
    elif args.step == "render":
        reason = needs_render(paths, args.renderer) if args.if_needed else "asked"
        site = paths.site.relative_to(paths.root).as_posix()
        if reason is None:
            print(f"report: {site}/ shows the current sources; not rendered again")
        else:
            if args.if_needed:
                print(f"report: rendering {site}/ again: {reason}")
            render(paths, renderer=args.renderer, full=args.full)
    else:
        from analysis.report.generation import build

        build(paths, renderer=args.renderer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
