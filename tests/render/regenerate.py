"""Refresh the frozen views and the golden pictures (see tests/render/__init__.py).

    python -m tests.render.regenerate [NAME...]               play, store views, draw goldens
    python -m tests.render.regenerate --keep-views [NAME...]  draw goldens from the stored views
    python -m tests.render.regenerate --docs                  draw the README pictures in docs/

Look at the new files before committing them with the change that made them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.render.cases import BY_NAME, CASES, VIEWS_DIR, load_views, store_views
from tests.render.compare import GOLDEN_DIR

DOCS_DIR = Path(__file__).resolve().parents[2] / "docs"
#: docs picture -> the case whose stored view it is drawn from
DOCS = {"board-christian.png": "granada_board_christian", "board-spectator.png": "granada_board_spectator"}


def regenerate(names: list[str], keep_views: bool = False, views_dir: Path = VIEWS_DIR,
               golden_dir: Path = GOLDEN_DIR, say: bool = True) -> list[Path]:
    """For each case (all when ``names`` is empty): unless ``keep_views``, play the engine
    and store the views it draws from; then draw its golden picture from the STORED views,
    exactly as the golden test will. Returns the files written."""
    written: list[Path] = []
    golden_dir.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        if names and case.name not in names:
            continue
        paths = []
        if not keep_views:
            paths.append(store_views(case, case.views(), views_dir))
        if case.golden:
            path = golden_dir / f"{case.name}.png"
            path.write_bytes(case.draw(load_views(case, views_dir)))
            paths.append(path)
        if say:
            for path in paths:
                print(f"wrote {path} ({path.stat().st_size} bytes)")
        written += paths
    return written


def docs(docs_dir: Path = DOCS_DIR, views_dir: Path = VIEWS_DIR) -> list[Path]:
    """The README pictures: a Granada player board mid-game, as sent to that player, and the
    spectator's board of the same moment, drawn from the stored views."""
    docs_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for filename, name in DOCS.items():
        case = BY_NAME[name]
        path = docs_dir / filename
        path.write_bytes(case.draw(load_views(case, views_dir)))
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.render.regenerate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME", help="cases to refresh (default: all)")
    parser.add_argument("--keep-views", action="store_true",
                        help="do not play the engines: redraw the goldens from the stored views (a picture change)")
    parser.add_argument("--docs", action="store_true", help="only draw the README pictures in docs/")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in BY_NAME]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(BY_NAME)}", file=sys.stderr)
        return 2
    if args.docs:
        for path in docs():
            print(f"wrote {path} ({path.stat().st_size} bytes)")
        return 0
    regenerate(args.names, keep_views=args.keep_views)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
