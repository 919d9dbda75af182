"""Menus: every list of actions a role is offered holds at most 25 entries (a Discord select
menu holds no more, docs/architecture.md "Small steps").

Frames list every legal action, however many (activating any of 40 locations under total
movement, taking any block of a big stack, placing Boabdil back in any Muslim location...).
When such a list is longer than fits, the dispatcher (``engine.granada.actions``) shows it in
two steps: the action types with many entries are folded into pages ("Activate a location:
Adra to Guadix"), and choosing a page (a ``{"type": "menu"}`` action) shows that page's
entries and a way back. The choice of page is remembered per role in the top frame
(``frame["_menu"][role]``) and forgotten as soon as that role takes any other action.

Menus change nothing in the rules: ``apply`` still accepts any legal action, shown on the
current page or not; the page is only what a front end offers.

NAVIGATION STEPS. A ``{"type": "menu"}`` action is applied like any other order (the service
stores it in the move log and replays it), but it is navigation only: it changes nothing but
the page pointer of its role, draws nothing and reveals nothing (so
``engine.api.undo_barrier`` is False across it: the step can be taken back), and writes no
log line. Front ends may therefore treat "menu" steps as navigation: apply them without
announcing a move, skip them when replaying or summarising a game, and let the player page
back and forth freely.
"""

from __future__ import annotations

from typing import Any

from engine.api import Action

LIMIT = 25          # entries in one select menu
PAGE = LIMIT - 1    # entries of a page, plus "Back"
MENU = "menu"

TITLES = {
    "activate": "Activate a location",
    "take": "Take a block",
    "pick_up": "Pick up a block",
    "drop_off": "Drop off a block",
    "pay": "Discard a card",
    "exchange": "Exchange a card",
    "discard": "Discard a card",
    "bid": "Bid a card",
    "muster_single": "Muster one block unseen",
    "muster_at": "Muster at",
    "bring": "Bring a block",
    "place_boabdil": "Place Boabdil",
    "battle": "Declare a battle",
    "embark": "Embark a block",
}


def _title(kind: str) -> str:
    return TITLES.get(kind, kind.replace("_", " ").capitalize())


def _groups(full: list[Action]) -> dict[str, list[Action]]:
    groups: dict[str, list[Action]] = {}
    for a in full:
        groups.setdefault(str(a["type"]), []).append(a)
    return groups


def _pages(n: int, page: int = PAGE) -> int:
    return -(-n // page)


def _folded(groups: dict[str, list[Action]], limit: int, page: int) -> set[str]:
    """The action types shown as pages: the biggest ones, until the top list fits."""
    folded: set[str] = set()

    def size() -> int:
        return sum(_pages(len(v), page) if k in folded else len(v) for k, v in groups.items())

    while size() > limit:
        open_types = [k for k, v in groups.items() if k not in folded and len(v) > 1]
        if not open_types:
            break
        folded.add(max(open_types, key=lambda k: (len(groups[k]), k)))
    return folded


def _label(a: Action) -> str:
    return str(a.get("label") or a.get("type"))


def _span(chunk: list[Action]) -> str:
    """'Alcalá la Real to Guadix' from 'Activate Alcalá la Real' ... 'Activate Guadix'."""
    words = [_label(a).split() for a in chunk]
    common = 0
    while all(len(w) > common + 1 for w in words) and len({w[common] for w in words}) == 1:
        common += 1
    first = " ".join(words[0][common:])
    last = " ".join(words[-1][common:])
    return first if len(chunk) == 1 else f"{first} to {last}"


def _page_action(kind: str, k: int, chunk: list[Action], total: int) -> Action:
    n = f" ({k + 1}/{total})" if total > 1 else ""
    return {"type": MENU, "group": kind, "page": k,
            "label": f"{_title(kind)}{n}: {_span(chunk)}"[:100]}


BACK: Action = {"type": MENU, "group": None, "page": 0, "label": "Back to the other choices"}


def _top(full: list[Action], limit: int) -> tuple[list[Action], dict[tuple[str, int], list[Action]]]:
    """The top menu (at most ``limit`` entries) and the pages it points to (each at most
    ``limit - 1`` entries, leaving room for "Back")."""
    page = limit - 1
    groups = _groups(full)
    folded = _folded(groups, limit, page)
    shown: list[Action] = []
    pages: dict[tuple[str, int], list[Action]] = {}
    if sum(_pages(len(v), page) if k in folded else len(v) for k, v in groups.items()) > limit:
        # more kinds of action than a menu holds (never seen): page the whole list
        chunks = [full[i:i + page] for i in range(0, len(full), page)]
        for k, chunk in enumerate(chunks):
            pages[("*", k)] = chunk
            shown.append(_page_action("*", k, chunk, len(chunks)) | {"label": f"Choices {k + 1}/{len(chunks)}"})
        return shown, pages
    for kind, items in groups.items():
        if kind not in folded:
            shown.extend(items)
            continue
        chunks = [items[i:i + page] for i in range(0, len(items), page)]
        for k, chunk in enumerate(chunks):
            pages[(kind, k)] = chunk
            shown.append(_page_action(kind, k, chunk, len(chunks)))
    return shown, pages


def paged(full: list[Action], menu: dict[str, Any] | None) -> list[Action]:
    """What a role is offered: ``full`` itself when it is short, else its top menu or the
    page ``menu`` points to (a stale pointer falls back to the top menu)."""
    if len(full) <= LIMIT:
        return full
    shown, pages = _top(full, LIMIT)
    if menu:
        chunk = pages.get((str(menu.get("group")), int(menu.get("page", 0))))
        if chunk is not None:
            return chunk + [BACK]
    return shown


def chosen(action: Action) -> dict[str, Any] | None:
    """The menu pointer a menu action sets (None: back to the top menu)."""
    if action.get("group") is None:
        return None
    return {"group": action["group"], "page": action["page"]}
