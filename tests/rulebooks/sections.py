"""The section lists of the rulebooks, kept in the repository as data (numbers and titles,
never the books' text), so that the rule-coverage tests run on a lone clone.

The books themselves live outside the repository (``../shared/rulebooks``). Where they are
there, the coverage tests also parse them and compare (a heading added to a book, or a
data file edited by hand, fails); ``python -m tests.rulebooks.sections`` rewrites the data
files from the books after such a change.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BOOKS = HERE.parents[2] / "shared" / "rulebooks"
NAVAS_BOOK = "1212-las-navas-de-tolosa.en.txt"
GRANADA_BOOK = "granada-last-stand-of-the-moors.en.txt"


def data_file(book: str) -> Path:
    return HERE / book.replace(".en.txt", ".sections.json")


def book_path(book: str) -> Path | None:
    """The rulebook's text when it is beside the clone, else None."""
    path = BOOKS / book
    return path if path.is_file() else None


def load(book: str) -> list[dict[str, Any]]:
    sections: list[dict[str, Any]] = json.loads(data_file(book).read_text(encoding="utf-8"))["sections"]
    return sections


# ------------------------------------------------------------------ 1212 Las Navas de Tolosa

# Lines that look like headings but are captions of pictures or of the table of contents.
_CAPTIONS = {"Index", "Aragon Castile Navarre", "Muslims", "Christians"}
_LEAD_IN = re.compile(r"^\**([A-Z][A-Za-z' ]{2,30}?)\**:\s")


def _is_heading(line: str) -> bool:
    words = line.split()
    return (bool(words) and len(words) <= 8 and "\t" not in line and ":" not in line
            and line[0].isalpha() and line[0].isupper() and not line.isupper()
            and line[-1] not in ".,;!" and not line.startswith("Example") and line not in _CAPTIONS)


def parse_navas(text: str) -> list[dict[str, Any]]:
    """The 1212 book has no numbers: its headings (the special cards as "Advanced variant /
    <card>") and the bold lead-ins of its rule paragraphs, in order."""
    found: list[dict[str, Any]] = []
    names: set[str] = set()
    under_variant = False
    in_body = False
    for raw in text.splitlines():
        line = re.sub(r"\*|</?i>", "", raw).strip()
        if not line or "\t" in raw:
            continue
        if _is_heading(line):
            if line == "Components":
                in_body = True
            if line == "Victory conditions":
                in_body, under_variant = False, False
            name = f"Advanced variant / {line}" if under_variant else line
            if line == "Advanced variant":
                under_variant = True
            if name not in names:
                names.add(name)
                found.append({"title": name, "kind": "heading"})
            continue
        lead = _LEAD_IN.match(raw.strip())
        if in_body and lead and lead.group(1) != "Example" and lead.group(1) not in names:
            names.add(lead.group(1))
            found.append({"title": lead.group(1), "kind": "paragraph"})
    return found


# ------------------------------------------------------------------ Granada: Last Stand of the Moors


def _key(number: str) -> tuple[int, ...]:
    return tuple(int(x) for x in number.split("."))


def parse_granada(text: str) -> list[dict[str, Any]]:
    """Every numbered heading (``#### 8.4 Title``) once, in section order."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = re.match(r"^#+\s*(\d+\.\d+(?:\.\d+)*)\s+(.*?)\s*$", line)
        if match and match.group(1) not in found:
            found[match.group(1)] = re.sub(r"\*", "", match.group(2)).strip()
    return [{"number": n, "title": found[n]} for n in sorted(found, key=_key)]


def granada_rule_sections(sections: list[dict[str, Any]]) -> list[str]:
    """The sections a test must name: the leaves from 2.1 on (8.3.3 is covered through
    8.3.3.1 and 8.3.3.2), not the chapter headings (x.0); 11.1 has rules of its own beside
    its variant 11.1.1. The same count as ../shared/tools/rule_coverage.py."""
    numbers = [s["number"] for s in sections]
    leaves = [n for n in numbers if n == "11.1" or not any(o.startswith(n + ".") for o in numbers)]
    return [n for n in leaves if not n.endswith(".0") and _key(n) >= (2, 1)]


def is_optional(number: str) -> bool:
    """Section 11: the optional rules (not implemented yet)."""
    return _key(number)[0] == 11


# ------------------------------------------------------------------ writing the data files


def write(book: str, sections: list[dict[str, Any]]) -> Path:
    path = data_file(book)
    body = {
        "book": book,
        "what": "section numbers and titles of the rulebook (not its text), for the rule-coverage tests; "
                "rewritten from ../shared/rulebooks by `python -m tests.rulebooks.sections`",
        "sections": sections,
    }
    rows = ",\n".join("  " + json.dumps(s, ensure_ascii=False) for s in sections)
    head = json.dumps({k: v for k, v in body.items() if k != "sections"}, indent=1, ensure_ascii=False)
    path.write_text(head[:-2] + ',\n "sections": [\n' + rows + "\n ]\n}\n", encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8")) == body
    return path


def main() -> int:
    status = 0
    for book, parse in ((NAVAS_BOOK, parse_navas), (GRANADA_BOOK, parse_granada)):
        path = book_path(book)
        if path is None:
            print(f"{BOOKS / book} is not there; {data_file(book).name} is left as it is", file=sys.stderr)
            status = 1
            continue
        written = write(book, parse(path.read_text(encoding="utf-8")))
        print(f"wrote {written}")
    return status


if __name__ == "__main__":
    sys.exit(main())
