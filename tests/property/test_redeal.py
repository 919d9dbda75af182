"""Property tests of the engine contract for every registered game (issue 6, "Nothing leaks").

Why properties rather than examples: a leak hides in a state nobody thought to write down.
Hypothesis draws a seed and a number of random legal steps, so the states checked are the
ones real play reaches (deep into the game, mid-battle, at simultaneous choices), and a
failure shrinks to the shortest game that shows it.

``redeal(state, role, k)`` draws again everything hidden from ``role``. If the view of
``role`` changed under a redeal, that view depended on something ``role`` may not know: a
leak. The spectator sees only what both players see, so a redeal for *either* role must
leave the spectator's view alone.

New games appear here by joining ``engine.GAMES``; nothing in this file names a game.
ALCAZABA_PROPERTY_EXAMPLES raises the number of examples for a long manual run.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.api import GameModule, State, clone, find_action
from engine.rng import Generator

GAME_IDS = sorted(engine.GAMES)
EXAMPLES = int(os.environ.get("ALCAZABA_PROPERTY_EXAMPLES", "50"))
MAX_STEPS = 600
"""Random steps before the checks; enough to reach late phases of the shorter games and the
middle of long ones (a game that ends earlier is checked in its final state)."""

PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def option_values(module: GameModule) -> st.SearchStrategy[dict[str, Any]]:
    """Every combination of the game's options (a bool, or one of its ``choices``)."""
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for name, spec in (getattr(module, "OPTIONS", {}) or {}).items():
        if not isinstance(spec, dict):
            continue
        if spec.get("choices"):
            parts[name] = st.sampled_from(list(spec["choices"]))
        elif spec.get("type") == "bool" or isinstance(spec.get("default"), bool):
            parts[name] = st.booleans()
        elif "default" in spec:
            parts[name] = st.just(spec["default"])
    return st.fixed_dictionaries(parts)


def reach(module: GameModule, seed: int, steps: int, options: dict[str, Any]) -> tuple[State, list[str]]:
    """The state after up to ``steps`` uniformly random legal steps from ``setup(seed)``."""
    state = module.setup(seed, clone(options))
    roles = list(module.roles(options))
    pick = Generator(seed ^ 0x5EED)
    for _ in range(steps):
        if module.result(state) is not None:
            break
        movers = [r for r in module.active(state) if module.actions(state, r)]
        assert movers, f"seed {seed}: active roles {module.active(state)} have no legal action"
        role = pick.choice(movers)
        action = pick.choice(module.actions(state, role))
        state = module.apply(state, role, action)
    return state, roles


def game_params() -> list[Any]:
    if not GAME_IDS:
        return [pytest.param(None, marks=pytest.mark.skip(reason="engine.GAMES is empty"))]
    return GAME_IDS


seeds = st.integers(min_value=0, max_value=2**31 - 1)
step_counts = st.integers(min_value=0, max_value=MAX_STEPS)


@pytest.mark.parametrize("game_id", game_params())
@PROPERTY
@given(data=st.data(), seed=seeds, steps=step_counts, redeal_seed=seeds)
def test_redeal_leaves_every_view_unchanged(game_id: str, data: st.DataObject, seed: int, steps: int,
                                            redeal_seed: int) -> None:
    module = engine.GAMES[game_id]
    state, roles = reach(module, seed, steps, data.draw(option_values(module), label="options"))
    before = dumps(state)
    spectator = dumps(module.view(state, None))
    own = {role: dumps(module.view(state, role)) for role in roles}
    for role in roles:
        other = module.redeal(clone(state), role, redeal_seed)
        dumps(other)  # the redealt state is a state: JSON-compatible
        assert dumps(module.view(other, role)) == own[role], (
            f"{game_id} seed={seed} steps={steps}: {role}'s view changed when what {role} "
            f"cannot see was re-dealt (redeal seed {redeal_seed}): the view leaks hidden information"
        )
        assert dumps(module.view(other, None)) == spectator, (
            f"{game_id} seed={seed} steps={steps}: the spectator view changed under a redeal for "
            f"{role} (redeal seed {redeal_seed}): it shows something {role} cannot see"
        )
        # What an AI player samples must be playable: the role's own choices are the same.
        assert dumps(module.actions(other, role)) == dumps(module.actions(state, role))
    assert dumps(state) == before, "view/actions/redeal changed the state they were given"


@pytest.mark.parametrize("game_id", game_params())
@PROPERTY
@given(data=st.data(), seed=seeds, steps=step_counts, choice_seed=seeds)
def test_apply_never_mutates_its_input(game_id: str, data: st.DataObject, seed: int, steps: int,
                                       choice_seed: int) -> None:
    module = engine.GAMES[game_id]
    state, _ = reach(module, seed, steps, data.draw(option_values(module), label="options"))
    if module.result(state) is not None:
        return
    pick = Generator(choice_seed)
    role = pick.choice([r for r in module.active(state) if module.actions(state, r)])
    action = pick.choice(module.actions(state, role))
    state_text, action_text = dumps(state), dumps(action)
    after = module.apply(state, role, action)
    assert dumps(state) == state_text, f"{game_id}: apply changed the state it was given ({action})"
    assert dumps(action) == action_text, f"{game_id}: apply changed the action it was given"
    assert after is not state
    # A second apply of the same step on the untouched input gives the same result: nothing
    # was shared between the input and the first result and then changed.
    assert dumps(module.apply(state, role, action)) == dumps(after)


def made_up_actions(module: GameModule, state: State, role: str, legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Orders no rule allows: an unknown type, and near misses of real orders (an unknown
    extra field, a field pointing at a place or piece that does not exist)."""
    made = [{"type": "__not_an_action__"}, {}, {"type": legal[0]["type"] if legal else "pass", "x": "__nowhere__"}]
    for real in legal[:3]:
        extra = dict(real)
        extra["__extra__"] = 1
        made.append(extra)
        for key, value in real.items():
            if key in ("type", "label"):
                continue
            bogus = dict(real)
            bogus[key] = "__nowhere__" if not isinstance(value, int) or isinstance(value, bool) else 10**9
            made.append(bogus)
            break
    return [m for m in made if find_action(legal, m) is None]


@pytest.mark.parametrize("game_id", game_params())
@PROPERTY
@given(data=st.data(), seed=seeds, steps=step_counts)
def test_illegal_made_up_actions_raise_rule_error(game_id: str, data: st.DataObject, seed: int, steps: int) -> None:
    module = engine.GAMES[game_id]
    state, roles = reach(module, seed, steps, data.draw(option_values(module), label="options"))
    before = dumps(state)
    for role in roles:
        legal = module.actions(state, role)
        for bad in made_up_actions(module, state, role, legal):
            with pytest.raises(engine.RuleError) as caught:
                module.apply(state, role, bad)
            assert str(caught.value).strip(), "a RuleError must carry a sentence a player can read"
            assert dumps(state) == before, f"{game_id}: a refused action {bad} changed the state"
        if not legal and legal_of_others(module, state, role):
            # A role that may not act now is refused even a step that is legal for another role.
            other_action = legal_of_others(module, state, role)[0]
            with pytest.raises(engine.RuleError):
                module.apply(state, role, other_action)
            assert dumps(state) == before


def strings_in(value: Any) -> set[str]:
    """Every key and string value of a JSON value (a text naming a piece once seen, like a
    log line of a past battle, is history, not where the piece is now)."""
    out: set[str] = set()
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out |= strings_in(k) | strings_in(v)
    elif isinstance(value, list):
        for v in value:
            out |= strings_in(v)
    return out


def games_naming_concealed_pieces() -> list[Any]:
    ids = [g for g in GAME_IDS if callable(getattr(engine.GAMES[g], "concealed_ids", None))]
    return ids or [pytest.param(None, marks=pytest.mark.skip(reason="no game lists its concealed pieces"))]


@pytest.mark.parametrize("game_id", games_naming_concealed_pieces())
@PROPERTY
@given(data=st.data(), seed=seeds, steps=step_counts)
def test_no_concealed_piece_is_named_anywhere_in_a_view(game_id: str, data: st.DataObject, seed: int,
                                                        steps: int) -> None:
    """A redeal only proves a view unchanged by what it re-draws; a piece a game forgot to
    re-draw (a fleet face down in a recruitment box) slips through it. So: the ids of the
    pieces a role may not identify now (``module.concealed_ids(state, role)``, None for a
    spectator) appear nowhere in that role's view, as a key or a value."""
    module = engine.GAMES[game_id]
    state, roles = reach(module, seed, steps, data.draw(option_values(module), label="options"))
    for role in [*roles, None]:
        hidden = set(module.concealed_ids(state, role))
        named = hidden & strings_in(module.view(state, role))
        assert not named, (f"{game_id} seed={seed} steps={steps}: the view of {role or 'a spectator'} "
                           f"names concealed pieces {sorted(named)}")


def legal_of_others(module: GameModule, state: State, role: str) -> list[dict[str, Any]]:
    return [a for r in module.active(state) if r != role for a in module.actions(state, r)]
