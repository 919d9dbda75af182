"""Pictures of *Granada: Last Stand of the Moors*, drawn from views only.

* :func:`board` — the campaign map as one role (or a spectator) sees it: control pieces,
  blocks (own ones showing their face, opposing ones plain unless revealed), fleets, disks,
  pending battles, the turn track, victory points and the boxes; with optional rules in
  play (section 11, the view's ``optional``) their markers ride on the stacks (Out of
  Supply, Pioneers), the Papal Bull's window is bracketed on the turn track, and a strip
  under the panel shows the Mercenaries boxes, the Papal Bull and Crusaders, the cards
  removed from play and a key of the markers (a board without options is unchanged).
* :func:`hand` — the role's cards and Castle Surrender cards.
* :func:`battle` — the battle board of the battle in progress.
* :func:`reveal` — the final reveal: every block's face and the score.
* :func:`replay` — an animated GIF, one frame per view (spectator views, one per turn).
* :func:`closeup` — an enlarged crop around a location, for reading on a phone.

:func:`image_inputs` says which of these apply to a view and what each is drawn from (for
``render.pictures``); :func:`turn_key` says where a replay starts a new frame.

The board itself is drawn by :mod:`render.granada_board`, the other pictures by
:mod:`render.granada_extra`; this module is their front: imports flow from here down.
"""

from __future__ import annotations

from typing import Any

from render import common as C
from render import granada_map as M
from render import granada_pieces as P
from render.granada_board import ROMAN, SIDE_NAME, draw_board, static_board
from render.granada_extra import draw_battle, draw_hand, draw_reveal, merge_views
from render.granada_scene import YEARS, scene

__all__ = ["battle", "board", "closeup", "hand", "image_inputs", "replay", "resolve_place", "reveal",
           "static_board", "turn_key"]

# ---------------------------------------------------------------------------------------
# Public image kinds


def board(view: dict[str, Any]) -> bytes:
    """PNG of the map as ``view``'s role sees it (a spectator view: what both can see)."""
    return C.encode_png(draw_board(scene(view)))


def _fold(text: str) -> str:
    import unicodedata

    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(ch for ch in plain.casefold() if ch.isalnum())


def resolve_place(place: str) -> str:
    """A location or sea zone id from an id or a name, with or without accents
    ("malaga", "Málaga", "MALAGA", "bay_of_malaga", "Bay of Málaga")."""
    comps = P._components()
    if place in comps.locations or place in comps.sea_zones:
        return place
    wanted = _fold(place)
    for pid, obj in list(comps.locations.items()) + list(comps.sea_zones.items()):
        if wanted in (_fold(pid), _fold(obj.name)):
            return str(pid)
    known = ", ".join(sorted(comps.locations))
    raise KeyError(f"unknown location {place!r}; locations are: {known}")


def closeup(view: dict[str, Any], location_id: str, scale: float = 2.0) -> bytes:
    """PNG of the map around one location (or sea zone), enlarged for a phone screen."""
    geo = M.geometry()
    location_id = resolve_place(location_id)
    if location_id in geo.loc:
        px, py = geo.loc[location_id]
    else:
        px, py = geo.sea[location_id]
    half_w, half_h = 230, 170
    cx = min(max(px, half_w), M.WIDTH - half_w)
    cy = min(max(py + M.HEADER, M.HEADER + half_h), M.HEADER + M.MAP_HEIGHT - half_h)
    box = (round((cx - half_w) * scale), round((cy - half_h) * scale), round((cx + half_w) * scale),
           round((cy + half_h) * scale))
    sc = scene(view)
    img = draw_board(sc, scale, box)
    L = P._components().locations.get(location_id)
    name = L.name if L is not None else P._components().sea_zones[location_id].name
    year = YEARS[sc.year] if 0 <= sc.year < len(YEARS) else str(sc.year)
    title = f"{name} · {year} turn {ROMAN.get(sc.turn, sc.turn)} · {SIDE_NAME[sc.viewer]} view"
    return C.encode_png(C.titled(img, title, 56))


def hand(view: dict[str, Any]) -> bytes:
    """PNG of the viewer's hand and Castle Surrender cards."""
    known = [str(c) for c in view.get("known_opponent_cards") or []]
    return C.encode_png(draw_hand(scene(view), known))


def battle(view: dict[str, Any]) -> bytes:
    """PNG of the battle board of the battle in progress in ``view``."""
    return C.encode_png(draw_battle(scene(view)))


def reveal(view: dict[str, Any], *other_views: dict[str, Any]) -> bytes:
    """PNG of the final reveal: every block's identity where it stands, and the score.

    One view is enough once the game has a result: every end-of-game view (a spectator's
    too) shows every block. A game stopped outside the rules (a resignation) has views that
    still hide each side's blocks from the other: pass the players' views as well, each
    showing its own blocks, and the picture merges them."""
    sc = merge_views(scene(view), [scene(v) for v in other_views])
    return C.encode_png(draw_reveal(sc))


def replay(views: list[dict[str, Any]]) -> bytes:
    """An animated GIF of a game, one frame per view (spectator views, one per turn)."""
    frames = [draw_board(scene(v)) for v in views]
    return C.animate_gif(frames, duration_ms=1500, width=1200)


# ---------------------------------------------------------------------------------------
# What each picture is drawn from (render.pictures)

#: View keys the map never shows (the cards are in the hand picture; the map shows how many
#: each side holds): a step that changes only these leaves the board as it was.
NOT_ON_BOARD = frozenset({"actions", "log", "prompt", "prefs", "hand", "known_opponent_cards", "bids", "surrender"})
def _own(view: dict[str, Any], key: str, role: str) -> dict[str, Any]:
    """``view[key]`` narrowed to ``role``'s entry: the hand shows only the viewer's deck,
    bid and Castle Surrender cards, so the opponent's bid does not redraw it."""
    entries = view.get(key) or {}
    return {role: entries[role]} if role in entries else {}


def image_inputs(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """For each picture that applies to ``view``, the part of the view it is drawn from (a
    view made of that part alone draws the same picture): the board always; the hand for a
    player (a spectator holds no cards); the battle board while a battle is under way; the
    final reveal once the game has a result."""
    board_part = {k: v for k, v in view.items() if k not in NOT_ON_BOARD}
    out: dict[str, dict[str, Any]] = {"board": board_part}
    role = view.get("role")
    if role is not None:
        out["hand"] = {"game": view.get("game"), "role": role, "hand": view.get("hand"),
                       "known_opponent_cards": view.get("known_opponent_cards"),
                       "surrender": _own(view, "surrender", role), "deck_sizes": _own(view, "deck_sizes", role),
                       "bids": _own(view, "bids", role)}
    battle = view.get("battle")
    if battle:
        where = (view.get("locations") or {}).get(str(battle.get("loc")))
        out["battle"] = {"game": view.get("game"), "role": role, "battle": battle,
                         "locations": {str(battle["loc"]): where} if where is not None else {}}
    if view.get("result") is not None:
        out["reveal"] = board_part
    return out


def turn_key(view: dict[str, Any]) -> tuple[int, int]:
    """The Turn track space of a view: a replay shows one frame per space."""
    return (int(view.get("year", 0)), int(view.get("turn", 0)))
