"""The contract is the only door between the games and their callers (engine/api.py):

* no caller probes a game module for a capability (``getattr(module, "OPTIONS", {})``): the
  one adapter, ``engine.api.Game``, reads every optional capability once and fills in its
  documented default;
* the front ends (``bot/``) and the shared drawing code (``render/common.py`` and the palette,
  shapes and sprites it gathers) name no game and read no view key that only some games have:
  a fifth game needs no edit there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

import engine
from engine.api import VIEW_KEYS, Game, GameModule, adapt

ROOT = Path(__file__).resolve().parents[2]
FRONT_ENDS = [*sorted((ROOT / "bot").rglob("*.py")),
              *(ROOT / "render" / f"{name}.py" for name in ("common", "palette", "shapes", "sprites"))]
# the callers of the contract: front ends, service, pictures, benchmarks, and the engine's
# shared tools (a game's own package probes its own frame handlers as it likes)
CALLERS = [p for d in ("bot", "render", "benchmarks", "engine") for p in sorted((ROOT / d).rglob("*.py"))
           if p != ROOT / "engine" / "api.py"
           and (d != "engine" or p.parent in (ROOT / "engine", ROOT / "engine" / "ai"))]
CAPABILITIES = frozenset({"OPTIONS", "RULES_VERSION", "CHANGELOG", "NAV_TYPES", "legal_actions", "redeal",
                          "canonical", "concealed_ids", "choose", "parse_order", "__file__"})


@cache
def real_games() -> dict[str, Game]:
    """The games registered from engine/ (test doubles aside)."""
    return {g: engine.get(g) for g, m in engine.GAMES.items()
            if (source := adapt(m).source) is not None and (ROOT / "engine") in source.parents}


@cache
def game_only_view_keys() -> frozenset[str]:
    """Top-level view keys some registered game has and the contract does not declare (nor
    every game has): what only a game-aware front end would read."""
    seen: dict[str, set[str]] = {}
    for game_id, game in real_games().items():
        keys = seen.setdefault(game_id, set())
        options = game.defaults()
        state = game.setup(1, options)
        for n in range(80):
            for role in [*game.roles(options), None]:
                keys |= set(game.view(state, role))
            active = game.active(state)
            if not active:
                break
            state = game.apply(state, active[0], game.choose(state, active[0], n))
    return frozenset(set.union(*seen.values()) - set.intersection(*seen.values()) - VIEW_KEYS)


def _probes(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in CAPABILITIES):
            yield node.lineno, ast.unparse(node)


def _view_reads(tree: ast.AST, keys: frozenset[str]) -> Iterator[tuple[int, str]]:
    """``view.get("k")``, ``view["k"]`` and ``"k" in view`` where ``view`` is a view."""
    def is_view(expr: ast.expr) -> bool:
        text = ast.unparse(expr)
        return "view" in text.lower() or text in ("v", "shown")

    for node in ast.walk(tree):
        key: object = None
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and node.args and isinstance(node.args[0], ast.Constant) and is_view(node.func.value)):
            key = node.args[0].value
        elif (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
              and is_view(node.value)):
            key = node.slice.value
        elif (isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant)
              and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
              and any(is_view(c) for c in node.comparators)):
            key = node.left.value
        if isinstance(key, str) and key in keys:
            yield node.lineno, ast.unparse(node)


def _game_ids(tree: ast.AST, ids: frozenset[str]) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ids:
            yield node.lineno, repr(node.value)


def test_no_caller_probes_a_game_module_outside_the_adapter() -> None:
    found = [f"{p.relative_to(ROOT)}:{line}: {text}" for p in CALLERS for line, text in _probes(ast.parse(p.read_text()))]
    assert found == [], "probe the module in engine.api.Game only:\n" + "\n".join(found)


def test_front_ends_name_no_game_and_read_no_game_only_view_key() -> None:
    ids = frozenset(real_games())
    keys = game_only_view_keys()
    assert {"zones", "locations", "specials"} <= keys, "the keys of 1212's and Granada's own views are found"
    found = []
    for path in FRONT_ENDS:
        tree = ast.parse(path.read_text())
        found += [f"{path.relative_to(ROOT)}:{line}: game id {text}" for line, text in _game_ids(tree, ids)]
        found += [f"{path.relative_to(ROOT)}:{line}: view key in {text}" for line, text in _view_reads(tree, keys)]
    assert found == [], "front ends know no game (engine/api.py declares what they may read):\n" + "\n".join(found)


@pytest.mark.parametrize(("source", "caught"), [
    ('spec = getattr(module, "OPTIONS", {}) or {}', "probe"),
    ('here = view.get("zones") or view.get("locations")', "key"),
    ('SHORTHANDS = {"granada": parse}', "id"),
])
def test_the_checks_catch_what_the_review_found(source: str, caught: str) -> None:
    """Each check fails on the code the review found (bot/discord/orders.py, cogs/play.py...)."""
    tree = ast.parse(source)
    hits = {"probe": list(_probes(tree)), "key": list(_view_reads(tree, game_only_view_keys())),
            "id": list(_game_ids(tree, frozenset(real_games())))}
    assert hits[caught]


def test_the_adapter_fills_every_optional_capability_with_its_default() -> None:
    import types

    from tests.bot import toygame

    bare = types.SimpleNamespace(**{n: getattr(toygame, n) for n in (
        "id", "title", "roles", "setup", "active", "actions", "apply", "view", "result")})
    game: GameModule = adapt(bare)
    assert adapt(bare) is game and adapt(game) is game
    state = game.setup(1, {})
    assert game.OPTIONS == {} and game.RULES_VERSION == 1 and game.CHANGELOG == {} and frozenset() == game.NAV_TYPES
    assert game.legal_actions(state, "red") == game.actions(state, "red")
    assert game.redeal(state, "red", 3) == state and game.redeal(state, "red", 3) is not state
    assert game.canonical(state, "red") == state and game.concealed_ids(state, "red") is None
    assert game.parse_order("add 1 > bank") is None and game.source is None
    assert game.choose(state, "red", 5) in game.actions(state, "red")
    with pytest.raises(TypeError, match="must define roles, .*apply"):
        adapt(types.SimpleNamespace(id="x", title="X"))


def test_the_contract_check_refuses_a_game_that_offers_a_page_turn() -> None:
    """Navigation is the front end's: the check fails a game whose actions turn a page."""
    import types

    from engine.check import check_all
    from tests.bot import toygame

    def actions(state: dict[str, object], role: str) -> list[dict[str, object]]:
        offered = toygame.actions(state, role)
        return [*offered, {"type": "more", "nav": True, "label": "More choices"}] if offered else offered

    def view(state: dict[str, object], role: str | None) -> dict[str, object]:
        return {**toygame.view(state, role), "actions": actions(state, role) if role else []}

    paging = types.SimpleNamespace(**{n: getattr(toygame, n) for n in (
        "id", "title", "OPTIONS", "roles", "setup", "active", "apply", "result", "redeal")}, actions=actions, view=view)
    report = check_all(paging, games=1, seed=1, deep_every=1)
    assert not report.ok and "turn a page" in str(report.failures[0].problem)
