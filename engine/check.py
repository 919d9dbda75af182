"""The engine contract check: random legal games played through :class:`engine.api.GameModule`.

Why here, in the engine package: the contract is the engine's promise to the server, so the
project must be able to check it on its own (``alcazaba check GAME``, the tests), without
tools from outside the repository. Pure: no files, no clock, no printing; the command line
formats the reports.

One game of a seed is played with uniformly random legal steps (the chooser's generator is
seeded from the game's seed, so a report names a reproducible game). Every step checks:

* the contract's shape: the active roles are roles, an inactive role has no actions, a game
  with a result has no active role, a game without one has an active role with an action
  (no dead end);
* every listed action applies, and ``apply`` leaves its input state as it was;
* at the *deep* steps (the first, every ``deep_every``-th and the last): the state, every
  role's view, the spectator's view and the actions are JSON (they survive a JSON round
  trip unchanged); each view has ``prompt``, ``actions`` (the role's legal actions; none for
  a spectator) and ``log`` without entries addressed to others; made-up actions, an action
  of a role that may not act and an unknown role are refused with a :class:`RuleError` that
  says something, and the refusal leaves the state as it was; re-dealing what a role cannot
  see (``redeal``) leaves that role's view unchanged and does not change its input; the
  state as a database gives it back (JSON text with sorted keys, read again) gives every
  role the same view and the same actions, so a server that reloads a game shows and allows
  exactly what it would have from memory, and the next step applied to it reaches the same
  state.

At the end: ``result`` is a JSON dict, and setting up the same seed and replaying the same
steps gives the identical state (determinism).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.api import (
    Action,
    GameModule,
    RuleError,
    RulesModule,
    State,
    adapt,
    clone,
    find_action,
    strip_label,
)

#: Made-up orders every game must refuse.
BOGUS_ACTIONS: tuple[Action, ...] = (
    {"type": "__not_an_order__"},
    {"type": "__not_an_order__", "where": "nowhere", "n": -1},
    {},
)
UNKNOWN_ROLE = "__nobody__"


class ContractBroken(Exception):
    """One broken promise of the contract; the message says which and where."""


@dataclass
class GameReport:
    """The outcome of one random game."""

    game: str
    seed: int
    options: dict[str, Any]
    steps: int = 0
    result: dict[str, Any] | None = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None


@dataclass
class CheckReport:
    """Every game checked for one game id and one set of options."""

    game: str
    options: dict[str, Any]
    games: list[GameReport] = field(default_factory=list)

    @property
    def failures(self) -> list[GameReport]:
        return [g for g in self.games if not g.ok]

    @property
    def ok(self) -> bool:
        return bool(self.games) and not self.failures


def as_json(value: Any, what: str) -> str:
    """The canonical JSON text of ``value``; raises ContractBroken if it is not plain JSON
    (a tuple, a set, a non-string key or NaN would not survive storage and replay)."""
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ContractBroken(f"{what} is not JSON-serialisable: {exc}") from None
    if json.loads(text) != value:
        raise ContractBroken(f"{what} does not survive a JSON round trip (tuples or non-string keys?)")
    return text


def _options(module: GameModule, options: dict[str, Any] | None) -> dict[str, Any]:
    chosen = adapt(module).defaults()
    chosen.update(options or {})
    return chosen


def _check_refused(module: GameModule, state: State, role: str, action: Action, why: str, before: str) -> None:
    try:
        module.apply(state, role, clone(action))
    except RuleError as exc:
        if not str(exc).strip():
            raise ContractBroken(f"{why} was refused with an empty message") from None
    except Exception as exc:
        raise ContractBroken(f"{why} raised {type(exc).__name__} ({exc}) instead of RuleError") from None
    else:
        raise ContractBroken(f"{why} was accepted: {action}")
    if as_json(state, "the state") != before:
        raise ContractBroken(f"refusing {why} changed the state")


def containers(value: Any, out: dict[int, Any] | None = None) -> dict[int, Any]:
    """Every list and dict inside ``value``, by identity (kept, so that no id is reused)."""
    out = {} if out is None else out
    if isinstance(value, dict):
        out[id(value)] = value
        for item in value.values():
            containers(item, out)
    elif isinstance(value, list):
        out[id(value)] = value
        for item in value:
            containers(item, out)
    return out


def _check_views(module: GameModule, state: State, roles: list[str]) -> dict[str | None, str]:
    """Check every role's view of ``state`` (and the spectator's); their JSON texts, by role."""
    in_state = containers(state)
    texts: dict[str | None, str] = {}
    for role in [*roles, None]:
        who = "the spectator" if role is None else repr(role)
        view = module.view(state, role)
        texts[role] = as_json(view, f"the view of {who}")
        if not isinstance(view, dict):
            raise ContractBroken(f"the view of {who} is a {type(view).__name__}, not a dict")
        # A view is the caller's to keep or edit: the service hands it out without a copy,
        # so it may share no list or dict with the state, nor with another call's view.
        in_view = containers(view)
        if in_view.keys() & in_state.keys():
            raise ContractBroken(f"the view of {who} shares a list or dict with the state")
        if in_view.keys() & containers(module.view(state, role)).keys():
            raise ContractBroken(f"two views of {who} share a list or dict")
        missing = [k for k in ("prompt", "actions", "log") if k not in view]
        if missing:
            raise ContractBroken(f"the view of {who} has no {', '.join(missing)}")
        legal = [] if role is None else module.actions(state, role)
        if [strip_label(a) for a in view["actions"]] != [strip_label(a) for a in legal]:
            raise ContractBroken(f"the view of {who} lists other actions than actions() gives")
        paging = [a for a in legal if module.is_nav(a)]
        if paging:
            raise ContractBroken(f"the actions of {who} turn a page ({paging[0]}): a game offers every "
                                 "choice at once, paging is the front end's (engine/api.py)")
        places = view.get("places", [])
        if not isinstance(places, list) or not all(isinstance(p, str) for p in places):
            raise ContractBroken(f"the view of {who} has places that are not a list of names")
        if view.get("focus") is not None and places and view["focus"] not in places:
            raise ContractBroken(f"the view of {who} focuses on {view['focus']!r}, not one of its places")
        for entry in view["log"]:
            if "to" in entry and (role is None or role not in entry["to"]):
                raise ContractBroken(f"the view of {who} shows a log line addressed to {entry['to']}")
    return texts


def _check_redeal(module: GameModule, state: State, roles: list[str], chooser: random.Random, before: str,
                  views: dict[str | None, str]) -> None:
    redeal = module.redeal
    for role in roles:
        seen = views[role]
        for _ in range(3):
            other = redeal(state, role, chooser.randrange(1 << 30))
            if as_json(module.view(other, role), f"the view of {role!r} after redeal") != seen:
                raise ContractBroken(f"the view of {role!r} changes when what it cannot see is re-dealt "
                                     "(hidden information reaches the view)")
    if as_json(state, "the state") != before:
        raise ContractBroken("redeal changed its input state")


def _check_read_back(module: GameModule, state: State, roles: list[str], before: str,
                     views: dict[str | None, str]) -> None:
    """A server stores states as JSON with sorted keys: a game read back must look and play
    the same, so nothing may depend on the order of a state's keys."""
    read_back = json.loads(before)
    for role in [*roles, None]:
        who = "the spectator" if role is None else repr(role)
        if as_json(module.view(read_back, role), f"the view of {who}") != views[role]:
            raise ContractBroken(f"the view of {who} changes when the state is read back from storage "
                                 "(it depends on the order of the state's keys)")
        if role is not None and module.actions(read_back, role) != module.actions(state, role):
            raise ContractBroken(f"the actions of {who} change when the state is read back from storage "
                                 "(they depend on the order of the state's keys)")


def _check_read_back_step(module: GameModule, state: State, stored: str, role: str, action: Action,
                          after: State) -> None:
    """The same step applied to the state read back from storage reaches the same state:
    otherwise a server that reloads a game records other states than a replay computes."""
    if as_json(module.apply(state, role, clone(action)), "the state") != as_json(after, "the state"):
        raise ContractBroken(f"the action {action} of {role!r} applied twice to the same state gives two states "
                             "(not deterministic)")
    try:
        again = module.apply(json.loads(stored), role, clone(action))
    except RuleError as exc:
        raise ContractBroken(f"the listed action {action} of {role!r} is refused once the state is read back "
                             f"from storage: {exc.explain()}") from None
    if as_json(again, "the state") != as_json(after, "the state"):
        raise ContractBroken(f"the action {action} of {role!r} gives another state when the state is read back "
                             "from storage (the rules depend on the order of the state's keys)")


def _deep_checks(module: GameModule, state: State, roles: list[str], active: list[str], step: int,
                 chooser: random.Random, before: str) -> None:
    """The deep checks of one step; ``before`` is the state's JSON text (:func:`as_json`)."""
    views = _check_views(module, state, roles)
    _check_read_back(module, state, roles, before, views)
    if as_json(state, "the state") != before:  # said here, not blamed on the refusals below
        raise ContractBroken("apply changed its input state, or a view did (a view applies every listed action to "
                             "mark it)")
    for role in active:
        as_json(module.actions(state, role), f"the actions of {role!r}")
    for number, bogus in enumerate(BOGUS_ACTIONS):
        _check_refused(module, state, active[0], {**bogus, "n": step} if number == 0 else bogus,
                       f"a made-up action of {active[0]!r}", before)
    idle = [r for r in roles if r not in active]
    for role in idle:
        for act_role in active:
            for action in module.actions(state, act_role)[:2]:
                if find_action(module.actions(state, role), action) is None:
                    _check_refused(module, state, role, action, f"{act_role!r}'s action played by idle {role!r}",
                                   before)
    legal = module.actions(state, active[0])
    if legal:
        _check_refused(module, state, UNKNOWN_ROLE, legal[0], "an action of an unknown role", before)
    _check_redeal(module, state, roles, chooser, before, views)


def play_one(module: GameModule | RulesModule, seed: int, options: dict[str, Any] | None = None, *,
             max_steps: int = 50_000, deep_every: int = 25) -> GameReport:
    """Play and check one random game; the report carries the first broken promise, if any."""
    module = adapt(module)
    chosen = _options(module, options)
    report = GameReport(str(module.id), seed, chosen)
    try:
        _play(module, seed, chosen, max_steps, deep_every, report)
    except ContractBroken as exc:
        report.problem = f"step {report.steps}: {exc}"
    except RuleError as exc:
        report.problem = f"step {report.steps}: unexpected RuleError: {exc.explain()}"
    except Exception as exc:  # a crash of the engine is a finding, reported like the others
        report.problem = f"step {report.steps}: {type(exc).__name__}: {exc}"
    return report


def _play(module: GameModule, seed: int, options: dict[str, Any], max_steps: int, deep_every: int,
          report: GameReport) -> None:
    chooser = random.Random(seed * 7_368_787 + 11)
    roles = list(module.roles(clone(options)))
    if not roles:
        raise ContractBroken("roles() is empty")
    state = module.setup(seed, clone(options))
    if as_json(state, "the set-up state") != as_json(module.setup(seed, clone(options)), "the set-up state"):
        raise ContractBroken("two set-ups of the same seed differ")
    moves: list[tuple[str, Action]] = []
    for step in range(max_steps):
        report.steps = step
        outcome = module.result(state)
        active = list(module.active(state))
        if outcome is not None:
            if active:
                raise ContractBroken(f"the game has a result but {active} may still act")
            if not isinstance(outcome, dict):
                raise ContractBroken(f"result() is a {type(outcome).__name__}, not a dict")
            as_json(outcome, "the result")
            _check_views(module, state, roles)
            _check_replay(module, seed, options, moves, state)
            report.result = outcome
            return
        if not active:
            raise ContractBroken("nobody may act and there is no result")
        strangers = [r for r in active if r not in roles]
        if strangers:
            raise ContractBroken(f"active role(s) {strangers} are not among the roles {roles}")
        for role in roles:
            if role not in active and module.actions(state, role):
                raise ContractBroken(f"{role!r} is not active but has actions")
        # Taken before the deep checks: a view marks its actions by applying them
        # (engine.api.mark_steps), so an apply that changes its input shows there first.
        before = as_json(state, "the state") if step % deep_every == 0 else None
        if before is not None:
            _deep_checks(module, state, roles, active, step, chooser, before)
        movers = [r for r in active if module.actions(state, r)]
        if not movers:
            raise ContractBroken(f"dead end: the active role(s) {active} have no legal action")
        role = chooser.choice(movers)
        action = chooser.choice(module.actions(state, role))
        try:
            after = module.apply(state, role, clone(action))
        except RuleError as exc:
            raise ContractBroken(f"the listed action {action} of {role!r} was refused: {exc.explain()}") from None
        if before is not None and as_json(state, "the state") != before:
            raise ContractBroken(f"apply changed its input state (action {action} of {role!r})")
        if before is not None:
            _check_read_back_step(module, state, before, role, action, after)
        if after is state:
            raise ContractBroken("apply returned its input object instead of a new state")
        moves.append((role, action))
        state = after
    report.steps = max_steps
    raise ContractBroken(f"no result after {max_steps} steps")


def _check_replay(module: GameModule, seed: int, options: dict[str, Any], moves: list[tuple[str, Action]],
                  final: State) -> None:
    state = module.setup(seed, clone(options))
    for role, action in moves:
        state = module.apply(state, role, clone(action))
    if as_json(state, "the replayed state") != as_json(final, "the final state"):
        raise ContractBroken("replaying the same seed and steps gives a different state (not deterministic)")


def check(module: GameModule | RulesModule, *, games: int = 10, seed: int = 1, options: dict[str, Any] | None = None,
          max_steps: int = 50_000, deep_every: int = 25) -> Iterator[GameReport]:
    """One report per game, seeds ``seed`` .. ``seed + games - 1``, as each game ends (so a
    caller can show progress)."""
    for number in range(seed, seed + games):
        yield play_one(module, number, options, max_steps=max_steps, deep_every=deep_every)


def check_all(module: GameModule | RulesModule, **kwargs: Any) -> CheckReport:
    """:func:`check` gathered into one report."""
    module = adapt(module)
    report = CheckReport(str(module.id), _options(module, kwargs.get("options")))
    report.games.extend(check(module, **kwargs))
    return report
