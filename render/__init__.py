"""Pictures of the games, drawn from views only (a view in, PNG bytes out).

Render never receives a state, so it cannot draw what a role may not see. Each game has
its own module ``render.<game_id>`` exposing ``board(view) -> bytes``; other image kinds
are functions of those modules:

* ``render.granada``: ``hand(view)``, ``battle(view)``, ``reveal(view, *other_views)``,
  ``replay(views) -> GIF bytes``, ``closeup(view, location_id)``;
* ``render.navas``: ``hand(view)``, ``closeup(view, zone)``;
* ``render.granada_city``: ``scoring(view)`` (the latest scoring's majorities and moats).

A game kept outside this package (a test's own game) gives its pictures with
:func:`register` (``register(game_id, module)``): :func:`module` then finds that module
first, and every picture of the game comes from it.

Front ends (the terminal table, Discord) need no per-game code: :func:`pictures` lists the
pictures that apply to a view (board always; hand, battle board, final reveal where the
game draws them and the view calls for them), each with a digest of the part of the view
it is drawn from, so a front end redraws only what changed; :func:`images` draws them all;
:func:`reveal` and :func:`replay` make the final reveal and the animation of a game from
its end-of-game views and its spectator views. A game module says which kinds apply with
``image_inputs(view) -> {kind: part of the view}`` (default: the board, from the whole
view) and what a turn is with ``turn_key(view)`` (no replay without it).

The shared visual language is :mod:`render.common` (fonts, text fitting, panels, cards),
which gathers :mod:`render.palette`, :mod:`render.shapes` and :mod:`render.sprites`.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

View = dict[str, Any]
BenchCase = tuple[str, Callable[[], bytes], Callable[[], bytes]]

#: How a front end names each kind of picture ("hand of christian: ...").
TITLES = {"board": "board", "hand": "hand", "battle": "battle board", "reveal": "final reveal", "replay": "replay"}


_REGISTERED: dict[str, ModuleType] = {}


def register(game_id: str, pictures: ModuleType) -> None:
    """Draw the pictures of ``game_id`` with ``pictures`` (a module with ``board(view)`` and
    whatever else of the above it draws): the way a game kept outside this package, whose
    module is not ``render.<game_id>``, gets its pictures."""
    if not callable(getattr(pictures, "board", None)):
        raise TypeError(f"the pictures of {game_id!r} need board(view) -> PNG bytes")
    _REGISTERED[game_id] = pictures


def unregister(game_id: str) -> None:
    """Forget the pictures :func:`register` gave ``game_id`` (a test's game, when it is over)."""
    _REGISTERED.pop(game_id, None)


def module(game_id: str) -> ModuleType:
    """The pictures of ``game_id``: the module registered for it, else ``render.<game_id>``;
    ModuleNotFoundError (its ``name`` ``render.<game_id>``) when the game has none."""
    registered = _REGISTERED.get(game_id)
    if registered is not None:
        return registered
    return importlib.import_module(f"render.{game_id}")


def board(game_id: str, view: View) -> bytes:
    """PNG of the main board as ``view`` sees it."""
    png: bytes = module(game_id).board(view)
    return png


def digest(value: Any) -> str:
    """A content hash of a JSON value (key order does not matter)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Picture:
    """A picture that applies to a view, not drawn yet. ``digest`` changes whenever the part
    of the view it is drawn from changes: a front end that kept the digest of the file it
    wrote last redraws the picture only when the digest differs."""

    game_id: str
    kind: str
    digest: str
    view: View = field(repr=False, compare=False)

    @property
    def title(self) -> str:
        return TITLES.get(self.kind, self.kind.replace("_", " "))

    def draw(self) -> bytes:
        data: bytes = getattr(module(self.game_id), self.kind)(self.view)
        return data


def pictures(game_id: str, view: View) -> list[Picture]:
    """The pictures that apply to ``view``, board first, none drawn yet."""
    mod = module(game_id)
    inputs_of = getattr(mod, "image_inputs", None)
    inputs: dict[str, Any] = inputs_of(view) if inputs_of is not None else {"board": view}
    return [Picture(game_id, kind, digest(part), view) for kind, part in inputs.items()]


def images(game_id: str, view: View) -> dict[str, bytes]:
    """Every picture that applies to ``view``, drawn: {kind: PNG bytes}, board first."""
    return {p.kind: p.draw() for p in pictures(game_id, view)}


def reveal(game_id: str, views: list[View]) -> bytes | None:
    """The final reveal of a finished game (PNG), from its end-of-game views, the spectator's
    first. A game whose final view shows every piece needs only that one; the players'
    views, each showing its own pieces, complete it where the game was stopped outside the
    rules (a resignation). None when the game draws no reveal."""
    fn = getattr(module(game_id), "reveal", None)
    if not callable(fn) or not views:
        return None
    data: bytes = fn(*views)
    return data


def replay_frames(game_id: str, views: Iterable[View]) -> list[View]:
    """The frames of a replay: the first view of each turn and the last view, from
    ``views`` in the order of play (one per step is fine: only the frames are kept).
    [] when the game draws no replay."""
    turn_key = getattr(module(game_id), "turn_key", None)
    if turn_key is None:
        return []
    frames: list[View] = []
    last_key: Any = None
    last: View | None = None
    for view in views:
        key = turn_key(view)
        if not frames or key != last_key:
            frames.append(view)
            last_key = key
        last = view
    if last is not None and last is not frames[-1]:
        frames.append(last)
    return frames


def replay(game_id: str, views: Iterable[View]) -> bytes | None:
    """The animation of a game (GIF bytes), one frame per turn, from its spectator views
    in the order of play; None when the game draws no replay."""
    mod = module(game_id)
    if not callable(getattr(mod, "replay", None)):
        return None
    frames = replay_frames(game_id, views)
    if not frames:
        return None
    data: bytes = mod.replay(frames)
    return data


def bench_cases(seed: int = 1) -> list[BenchCase]:
    """(name, render, baseline) triples for the benchmark: each ``render`` draws a picture
    from a view of a real game (played by the built-in player from ``seed``), and its
    ``baseline`` encodes a blank image of the same size (Pillow's floor for that picture).

    Only the benchmark calls this: it plays games, which pictures never need to do.
    """
    from engine import GAMES
    from engine.players import choose
    from render import common as C

    def played(module: Any, steps: int, options: dict[str, Any]) -> Any:
        state = module.setup(seed, options)
        for n in range(steps):
            active = module.active(state)
            if not active:
                break
            state = module.apply(state, active[0], choose(module, state, active[0], seed * 7919 + n))
        return state

    cases: list[BenchCase] = []
    granada_module: Any = GAMES.get("granada") or importlib.import_module("engine.granada")
    from render import granada, granada_map, navas

    g_state = played(granada_module, 150, {})
    g_view = granada_module.view(g_state, "christian")
    g_spec = granada_module.view(g_state, None)
    g_size = (granada_map.WIDTH, granada_map.HEIGHT)
    cases.append(("granada_board_player", lambda: granada.board(g_view), lambda: C.blank_png(g_size)))
    cases.append(("granada_board_spectator", lambda: granada.board(g_spec), lambda: C.blank_png(g_size)))
    cases.append(("granada_hand", lambda: granada.hand(g_view), lambda: C.blank_png((1004, 700))))
    cases.append(("granada_closeup", lambda: granada.closeup(g_view, "granada"), lambda: C.blank_png((920, 736))))
    n_module: Any = GAMES.get("navas") or importlib.import_module("engine.navas")
    n_view = n_module.view(played(n_module, 60, {"advanced": True}), "christian")
    cases.append(("navas_board_player", lambda: navas.board(n_view), lambda: C.blank_png((navas.WIDTH, navas.HEIGHT))))
    return cases
