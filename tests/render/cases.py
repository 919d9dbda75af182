"""The pictures the render tests check, each drawn from views of a REAL game, frozen.

Each case has two halves:

* ``views()`` plays the engine with the built-in player (engine.players.choose) from fixed
  seeds to the moment the picture shows, and returns the view(s) it is drawn from. Only
  ``python -m tests.render.regenerate`` calls it: it stores the views as JSON in
  ``tests/render/views/<case>.json`` and draws the golden PNGs from those stored views.
* ``draw(views)`` makes the picture from the views.

The golden tests draw from the stored views only, so a change of the rules or of the
built-in player (which changes the course of a seeded game) leaves them byte-stable; only a
change of the pictures, or of the view's shape, fails them. When the engine's views no
longer have the keys of the stored ones, :func:`load_views` says so and names the command
that refreshes them. Tests that assert properties rather than pixels (redeal byte-identity,
caching, the frames of a replay) keep playing the real engines through the functions below.
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.api import GameModule, State, View
from engine.players import choose

NAVAS_SEED = 3
NAVAS_STEPS = 60
NAVAS_OPTIONS: dict[str, Any] = {"advanced": True}
GRANADA_SEED = 1
GRANADA_STEPS = 150

VIEWS_DIR = Path(__file__).with_name("views")
FORMAT = 1
LOG_KEPT = 12        # log entries kept in a stored view (pictures draw at most the last few)
REGENERATE = "python -m tests.render.regenerate"


@dataclass(frozen=True)
class Case:
    name: str
    game: str
    views: Callable[[], list[View]]          # live: plays the engine (regenerate only)
    draw: Callable[[list[View]], bytes]      # the picture, from the (stored) views
    fmt: str                                 # "PNG" | "GIF"
    min_size: tuple[int, int]                # at least this wide and high
    max_size: tuple[int, int]                # at most
    max_bytes: int
    golden: bool = True
    options: dict[str, Any] = field(default_factory=dict)


def game(game_id: str) -> GameModule:
    module: GameModule = importlib.import_module(f"engine.{game_id}")  # type: ignore[assignment]
    return module


def play(module: GameModule, seed: int, options: dict[str, Any], steps: int,
         stop: Callable[[State], bool] | None = None) -> State:
    """``steps`` decisions of the built-in player (or until ``stop`` says so / the end)."""
    state = module.setup(seed, options)
    for n in range(steps):
        active = module.active(state)
        if not active:
            break
        role = active[0]
        state = module.apply(state, role, choose(module, state, role, seed * 100_003 + n))
        if stop is not None and stop(state):
            break
    return state


@functools.cache
def navas_state() -> State:
    return play(game("navas"), NAVAS_SEED, NAVAS_OPTIONS, NAVAS_STEPS)


@functools.cache
def granada_state() -> State:
    return play(game("granada"), GRANADA_SEED, {}, GRANADA_STEPS)


def _deployments(state: State, kind: str, least: int) -> bool:
    view = game("granada").view(state, None)
    b = view.get("battle")
    if not b or b.get("kind") != kind:
        return False
    if kind == "naval_battle":
        return True
    return sum(len(d["blocks"]) for side in b["deployed"].values() for d in side) >= least


@functools.cache
def granada_battle_state(kind: str) -> State:
    """The first state with a battle of ``kind`` showing deployments, in the first of a
    few fixed seeds whose game reaches one (sieges are rarer than field combats)."""
    least = 3 if kind == "battle" else 1
    for seed in range(GRANADA_SEED, GRANADA_SEED + 20):
        state = play(game("granada"), seed, {}, 5000, stop=lambda s: _deployments(s, kind, least))
        if _deployments(state, kind, least):
            return state
    raise AssertionError(f"no seeded Granada game reached a {kind} with {least} deployments")


@functools.cache
def granada_final_state() -> State:
    state = play(game("granada"), GRANADA_SEED, {}, 20000)
    if game("granada").result(state) is None:
        raise AssertionError("the seeded Granada game did not end")
    return state


BUSY_SEEDS = range(1, 9)


@functools.cache
def granada_busiest_state(by: str) -> State:
    """The busiest moment of the built-in player's games from ``BUSY_SEEDS``: the state
    with the most occupied map locations (``by="stacks"``) or the most blocks on the map
    (``by="blocks"``), the other count breaking ties; the first such moment wins."""
    module = game("granada")
    from engine.granada import components

    locations = set(components.load().locations)
    best: tuple[tuple[int, int], State] | None = None
    for seed in BUSY_SEEDS:
        state = module.setup(seed, {})
        n = 0
        while module.active(state) and n < 20000:
            role = module.active(state)[0]
            state = module.apply(state, role, choose(module, state, role, seed * 100_003 + n))
            n += 1
            per_loc: dict[str, int] = {}
            for rec in state["blocks"].values():
                if rec["loc"] in locations:
                    per_loc[rec["loc"]] = per_loc.get(rec["loc"], 0) + 1
            counts = (len(per_loc), sum(per_loc.values()))
            key = counts if by == "stacks" else (counts[1], counts[0])
            if best is None or key > best[0]:
                best = (key, state)
    assert best is not None
    return best[1]


@functools.cache
def granada_turn_views() -> tuple[View, ...]:
    """Spectator views at the start of every turn of the seeded game, and at its end
    (replay frames), picked from the real game's states."""
    module = game("granada")
    state = module.setup(GRANADA_SEED, {})
    views = [module.view(state, None)]
    last = (state["year"], state["turn"])
    n = 0
    while module.active(state) and n < 20000:
        role = module.active(state)[0]
        state = module.apply(state, role, choose(module, state, role, GRANADA_SEED * 100_003 + n))
        n += 1
        if (state["year"], state["turn"]) != last:
            last = (state["year"], state["turn"])
            views.append(module.view(state, None))
    views.append(module.view(state, None))
    return tuple(views)


OPTIONS_ALL: dict[str, Any] = {"all": True}
OPTION_SEEDS = range(1, 9)


def _optional_features(view: View) -> dict[str, bool]:
    """What of the optional rules a Christian view shows (the pictures must draw each)."""
    opt = view["optional"]
    on_map = [b for e in view["locations"].values() for bs in e["blocks"].values() for b in bs]
    return {
        "out_of_supply": any(opt["out_of_supply"].values()),
        "pioneers_on_map": any(w in view["locations"] for w in opt["pioneers"].values()),
        "mercenaries_on_map": any(b.get("special") == "mercenaries" for b in on_map),
        "mercenaries_in_box": any(opt["mercenaries"].values()),
        "crusaders_waiting": bool(opt["crusaders"]),
        "optional_card_in_hand": any(c["id"] in {"CX2", "CX3", "CX4"} for c in view["hand"]),
    }


@functools.cache
def granada_options_state() -> State:
    """A game with every optional rule on (``all``), at the first moment of the first of
    ``OPTION_SEEDS`` whose Christian view shows every optional piece at once: an Out of
    Supply marker, a Pioneers tile on the map, a Mercenaries block on the map and one in its
    box, the Crusaders waiting with the Papal Bull, an optional card in the Christian hand."""
    module = game("granada")

    def every(state: State) -> bool:
        return all(_optional_features(module.view(state, "christian")).values())

    for seed in OPTION_SEEDS:
        state = play(module, seed, OPTIONS_ALL, 20000, stop=every)
        if every(state):
            return state
    raise AssertionError("no seeded game with every option showed every optional piece at once")


@functools.cache
def granada_options_late_state() -> State:
    """With every option on, the first moment of ``OPTION_SEEDS`` with a card removed from
    play (11.3 General Mobilization played) and a Pioneers tile lost (11.7)."""
    module = game("granada")

    def late(state: State) -> bool:
        opt = module.view(state, None)["optional"]
        return bool(opt["removed_cards"]) and "eliminated" in opt["pioneers"].values()

    for seed in OPTION_SEEDS:
        state = play(module, seed, OPTIONS_ALL, 20000, stop=late)
        if late(state):
            return state
    raise AssertionError("no seeded game with every option removed a card and lost a Pioneers tile")


@functools.cache
def granada_options_battle_state(key: str) -> State:
    """With every option on, the first battle of ``OPTION_SEEDS`` whose view shows ``key``
    (``"pioneer"``: a Pioneers tile deployed in a siege, 11.7; ``"sortie"``: a Sortie card
    played, 11.5; ``"naval"``: a Naval Bombardment card played, 11.6) with at least one
    block deployed."""
    module = game("granada")

    def shows(state: State) -> bool:
        b = module.view(state, None)["battle"]
        return bool(b and b.get(key) and any(d for d in (b.get("deployed") or {}).values()))

    for seed in OPTION_SEEDS:
        state = play(module, seed, OPTIONS_ALL, 20000, stop=shows)
        if shows(state):
            return state
    raise AssertionError(f"no seeded game with every option showed a battle with {key}")


# ---------------------------------------------------------------------------------------
# The cases


def _views(game_id: str, state: Callable[[], State], *roles: str | None) -> Callable[[], list[View]]:
    return lambda: [game(game_id).view(state(), role) for role in roles]


def _draw(game_id: str, kind: str, *args: Any) -> Callable[[list[View]], bytes]:
    def draw(views: list[View]) -> bytes:
        module = importlib.import_module(f"render.{game_id}")
        result: bytes = getattr(module, kind)(*views, *args)
        return result

    return draw


def _replay(views: list[View]) -> bytes:
    from render import granada

    return granada.replay(views)


def _battle(kind: str) -> Callable[[], State]:
    return lambda: granada_battle_state(kind)


MIB = 1024 * 1024
NAVAS_SIZE = (1500, 1000)
GRANADA_SIZE = (1800, 1347)
OPTIONS_SIZE = (1800, 1347 + 176)      # a board with optional rules has their strip under the panel
G = "granada"

CASES: list[Case] = [
    Case("navas_board_christian", "navas", _views("navas", navas_state, "christian"), _draw("navas", "board"),
         "PNG", NAVAS_SIZE, NAVAS_SIZE, 2 * MIB, options=NAVAS_OPTIONS),
    Case("navas_board_muslim", "navas", _views("navas", navas_state, "muslim"), _draw("navas", "board"),
         "PNG", NAVAS_SIZE, NAVAS_SIZE, 2 * MIB, options=NAVAS_OPTIONS),
    Case("navas_board_spectator", "navas", _views("navas", navas_state, None), _draw("navas", "board"),
         "PNG", NAVAS_SIZE, NAVAS_SIZE, 2 * MIB, options=NAVAS_OPTIONS),
    Case("navas_hand_christian", "navas", _views("navas", navas_state, "christian"), _draw("navas", "hand"),
         "PNG", (500, 250), (2000, 400), 1 * MIB, options=NAVAS_OPTIONS),
    Case("navas_closeup_a3", "navas", _views("navas", navas_state, "muslim"), _draw("navas", "closeup", "A3"),
         "PNG", (800, 600), (1600, 1200), 2 * MIB, options=NAVAS_OPTIONS),
    Case("granada_board_christian", G, _views(G, granada_state, "christian"), _draw(G, "board"),
         "PNG", GRANADA_SIZE, GRANADA_SIZE, 2 * MIB),
    Case("granada_board_muslim", G, _views(G, granada_state, "muslim"), _draw(G, "board"),
         "PNG", GRANADA_SIZE, GRANADA_SIZE, 2 * MIB),
    Case("granada_board_spectator", G, _views(G, granada_state, None), _draw(G, "board"),
         "PNG", GRANADA_SIZE, GRANADA_SIZE, 2 * MIB),
    Case("granada_hand_muslim", G, _views(G, granada_state, "muslim"), _draw(G, "hand"),
         "PNG", (800, 400), (1200, 1600), 1 * MIB),
    Case("granada_closeup_granada", G, _views(G, granada_state, "christian"), _draw(G, "closeup", "granada"),
         "PNG", (800, 600), (1000, 800), 2 * MIB),
    Case("granada_battle_field", G, _views(G, _battle("battle"), "christian"), _draw(G, "battle"),
         "PNG", (1200, 700), (1600, 1000), 1 * MIB),
    Case("granada_battle_siege", G, _views(G, _battle("siege"), "muslim"), _draw(G, "battle"),
         "PNG", (1200, 700), (1600, 1000), 1 * MIB),
    Case("granada_battle_naval", G, _views(G, _battle("naval_battle"), "christian"), _draw(G, "battle"),
         "PNG", (1200, 500), (1600, 1000), 1 * MIB),
    Case("granada_reveal", G, _views(G, granada_final_state, None), _draw(G, "reveal"),
         "PNG", GRANADA_SIZE, GRANADA_SIZE, 2 * MIB),
    Case("granada_busiest_stacks_christian", G, _views(G, lambda: granada_busiest_state("stacks"), "christian"),
         _draw(G, "board"), "PNG", GRANADA_SIZE, GRANADA_SIZE, 2 * MIB),
    Case("granada_busiest_stacks_muslim", G, _views(G, lambda: granada_busiest_state("stacks"), "muslim"),
         _draw(G, "board"), "PNG", GRANADA_SIZE, GRANADA_SIZE, 2 * MIB, golden=False),
    Case("granada_busiest_stacks_spectator", G, _views(G, lambda: granada_busiest_state("stacks"), None),
         _draw(G, "board"), "PNG", GRANADA_SIZE, GRANADA_SIZE, 2 * MIB, golden=False),
    Case("granada_busiest_blocks_muslim", G, _views(G, lambda: granada_busiest_state("blocks"), "muslim"),
         _draw(G, "board"), "PNG", GRANADA_SIZE, GRANADA_SIZE, 2 * MIB),
    Case("granada_busiest_blocks_christian", G, _views(G, lambda: granada_busiest_state("blocks"), "christian"),
         _draw(G, "board"), "PNG", GRANADA_SIZE, GRANADA_SIZE, 2 * MIB, golden=False),
    Case("granada_options_board_christian", G, _views(G, granada_options_state, "christian"), _draw(G, "board"),
         "PNG", GRANADA_SIZE, OPTIONS_SIZE, 2 * MIB, options=OPTIONS_ALL),
    Case("granada_options_board_spectator", G, _views(G, granada_options_state, None), _draw(G, "board"),
         "PNG", GRANADA_SIZE, OPTIONS_SIZE, 2 * MIB, options=OPTIONS_ALL),
    Case("granada_options_hand_christian", G, _views(G, granada_options_state, "christian"), _draw(G, "hand"),
         "PNG", (800, 400), (1200, 1600), 1 * MIB, options=OPTIONS_ALL),
    Case("granada_options_siege_pioneer", G, _views(G, lambda: granada_options_battle_state("pioneer"), "christian"),
         _draw(G, "battle"), "PNG", (1200, 700), (1600, 1000), 1 * MIB, options=OPTIONS_ALL),
    Case("granada_options_siege_sortie", G, _views(G, lambda: granada_options_battle_state("sortie"), "muslim"),
         _draw(G, "battle"), "PNG", (1200, 700), (1600, 1000), 1 * MIB, options=OPTIONS_ALL),
    Case("granada_options_battle_bombardment", G,
         _views(G, lambda: granada_options_battle_state("naval"), "christian"), _draw(G, "battle"),
         "PNG", (1200, 700), (1600, 1000), 1 * MIB, options=OPTIONS_ALL),
    Case("granada_options_late_spectator", G, _views(G, granada_options_late_state, None), _draw(G, "board"),
         "PNG", GRANADA_SIZE, OPTIONS_SIZE, 2 * MIB, options=OPTIONS_ALL),
    Case("granada_replay", G, lambda: list(granada_turn_views()), _replay,
         "GIF", (600, 400), GRANADA_SIZE, 10 * MIB, golden=False),
]

BY_NAME = {c.name: c for c in CASES}


# ---------------------------------------------------------------------------------------
# Stored views


class StaleViews(AssertionError):
    """The stored views of a case are missing, unreadable, or no longer shaped like the
    engine's views."""


def views_path(name: str, views_dir: Path = VIEWS_DIR) -> Path:
    return views_dir / f"{name}.json"


def store_views(case: Case, views: list[View], views_dir: Path = VIEWS_DIR) -> Path:
    """Write ``views`` as the case's fixture, sorted keys so that a refresh diffs cleanly.

    Each view is kept whole except its log, cut to the last ``LOG_KEPT`` entries: no
    picture draws more of it (a game's log grows to hundreds of lines, which would make the
    replay's turn views most of a megabyte)."""
    views_dir.mkdir(parents=True, exist_ok=True)
    path = views_path(case.name, views_dir)
    kept = [{**v, "log": v["log"][-LOG_KEPT:]} if isinstance(v.get("log"), list) else v for v in views]
    doc = {"format": FORMAT, "case": case.name, "game": case.game, "options": case.options,
           "made_by": REGENERATE, "views": kept}
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


@functools.cache
def engine_view_keys(game_id: str, options_json: str, role: str | None) -> frozenset[str]:
    """The keys of the views the engine gives now (its views have the same keys at every
    moment of a game, so the first moment tells)."""
    module = game(game_id)
    return frozenset(module.view(module.setup(1, json.loads(options_json)), role))


def load_views(case: Case, views_dir: Path = VIEWS_DIR) -> list[View]:
    """The case's stored views, checked against the shape of the engine's views now."""
    path = views_path(case.name, views_dir)
    fix = f"run `{REGENERATE} {case.name}` (or `make golden`) and look at the new pictures"
    if not path.exists():
        raise StaleViews(f"{case.name}: no stored views {path}; {fix}")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise StaleViews(f"{case.name}: {path} is not JSON ({exc}); {fix}") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("game") != case.game \
            or not isinstance(doc.get("views"), list) or not doc["views"]:
        raise StaleViews(f"{case.name}: {path} is not a format-{FORMAT} file of {case.game} views; {fix}")
    views: list[View] = doc["views"]
    options = json.dumps(doc.get("options") or {}, sort_keys=True)
    for n, view in enumerate(views):
        role = view.get("role")
        now = engine_view_keys(case.game, options, role)
        missing, gone = sorted(now - set(view)), sorted(set(view) - now)
        if missing or gone:
            who = role or "spectator"
            raise StaleViews(
                f"{case.name}: stored view {n} ({who}) in {path} no longer has the shape of engine.{case.game}'s "
                f"views (keys the engine now gives that it lacks: {missing or 'none'}; keys it has that the engine "
                f"no longer gives: {gone or 'none'}); {fix}")
    return views
