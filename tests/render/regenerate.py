"""Rewrite the golden reference pictures: ``python -m tests.render.regenerate [NAME...]``.

Run it (or ``make golden``) after an intended change of a picture, look at the new files in
tests/render/golden/, and commit them with the change.
"""

from __future__ import annotations

import sys

from tests.render.cases import BY_NAME, CASES
from tests.render.compare import GOLDEN_DIR, golden_path


def main(names: list[str]) -> int:
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(BY_NAME)}", file=sys.stderr)
        return 2
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        if not case.golden or (names and case.name not in names):
            continue
        png = case.make()
        golden_path(case.name).write_bytes(png)
        print(f"wrote {golden_path(case.name)} ({len(png)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
