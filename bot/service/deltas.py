"""State deltas and snapshots: a move row stores what its step changed (a delta), the game's
whole state is written every ``SNAPSHOT_EVERY`` moves, and the state of the game's latest
version is rebuilt from the snapshot and the deltas after it, checked against the hash every
move keeps (issue 13)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from bot.models import loads
from bot.service.canon import Canonical, by_parts, kept_prefix, quick_dumps, same_text
from bot.service.canon import state_hash as state_hash  # where the service has always taken it from

SNAPSHOT_EVERY = 32
"""Moves between two snapshots of a game's whole state (issue 13): the moves in between store
only what they changed, so a step writes a few hundred bytes instead of the 20-65 KB state,
and a game loaded cold applies at most this many deltas."""


def state_delta(old: Any, new: Any) -> dict[str, Any]:
    """What turns ``old`` into ``new``, as JSON: ``{"=": value}`` replaces, ``{"{": {key:
    delta}, "-": [keys]}`` patches an object's keys (and drops some), ``{"[": n, "+":
    [items]}`` keeps a list's first n items and appends the rest (a log that grows).

    Parts are compared as their canonical JSON would be (``canon.same_text``: ``False``, ``0``
    and ``0.0`` are three values there, though Python finds them equal); a part the step did not
    touch is usually the very object of the state before (engines share what they do not
    change), which is recognised at once. The result is checked against the move's hash
    whenever it is applied (``Storage._rebuild``, bot/service/storage.py)."""
    change = _delta(old, new)
    if change is None:  # a step that changed nothing
        return {"{": {}} if new.__class__ is dict else {"=": new}
    return change


def _delta(old: Any, new: Any) -> dict[str, Any] | None:
    if old is new:
        return None
    if old.__class__ is dict and new.__class__ is dict:
        keys: dict[str, Any] = {}
        for key, value in new.items():
            if key not in old:
                keys[key] = {"=": value}
            else:
                sub = _delta(old[key], value)
                if sub is not None:
                    keys[key] = sub
        gone = [key for key in old if key not in new]
        if not keys and not gone:
            return None
        return {"{": keys, "-": gone} if gone else {"{": keys}
    if old.__class__ is list and new.__class__ is list:
        keep = kept_prefix(old, new)
        if keep == len(old) == len(new):
            return None
        if keep:
            return {"[": keep, "+": new[keep:]}
        return {"=": new}
    return None if same_text(old, new) else {"=": new}


def apply_delta(value: Any, delta: dict[str, Any]) -> Any:
    """The value :func:`state_delta` described, made from ``value`` (changed in place: pass
    a freshly parsed state)."""
    if "=" in delta:
        return delta["="]
    if "{" in delta:
        if not isinstance(value, dict):
            raise ValueError("an object delta applied to a non-object")
        for key in delta.get("-", ()):
            del value[key]
        added = False
        for key, sub in delta["{"].items():
            added = added or key not in value
            value[key] = apply_delta(value.get(key), sub)
        if added:
            # the keys in the order a parse of the canonical text gives (sorted), so that the
            # state rebuilt here is the very value ``loads`` of its text would make
            ordered = sorted(value.items())
            value.clear()
            value.update(ordered)
        return value
    if "[" in delta:
        if not isinstance(value, list) or len(value) < delta["["]:
            raise ValueError("a list delta applied to a shorter list or a non-list")
        del value[delta["["]:]
        value.extend(delta["+"])
        return value
    raise ValueError(f"unknown delta {sorted(delta)}")


def _rebuilt(text: str, snapshot: int, version: int, rows: Sequence[Any]) -> tuple[str, str | None]:
    """The text of the state at ``version`` from the snapshot ``text`` (at ``snapshot``) and
    the move rows after it (seq, delta, state_hash), or the snapshot's text and a sentence
    saying what does not fit."""
    out, _state, problem = _replayed(text, snapshot, version, rows)
    return out, problem


def _replayed(text: str, snapshot: int, version: int, rows: Sequence[Any],
              parts: bool = False) -> tuple[str, Canonical | None, str | None]:
    """As :func:`_rebuilt`, with the state its text is the canonical text of, when deltas
    were applied to make it (else None: the snapshot's text is the state's, parse it): the
    same value a parse of the text would make, keys in the same order (:func:`apply_delta`),
    so that a game loaded cold is not parsed twice (issue 33). ``parts``: the text made by
    parts (``canon.by_parts``, a third dearer than whole), for a step, which then encodes
    only the parts it changes."""
    if snapshot == version:
        return text, None, None
    if snapshot > version:
        return text, None, f"its snapshot is at version {snapshot}, the game at version {version}."
    if [r.seq for r in rows] != list(range(snapshot + 1, version + 1)):
        return text, None, f"moves {snapshot + 1}-{version} after its snapshot are not all in the log."
    state = loads(text)
    for r in rows:
        if r.delta is None:
            return text, None, f"move {r.seq} has no delta and no snapshot was written with it."
        try:
            state = apply_delta(state, loads(r.delta))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            return text, None, f"the delta of move {r.seq} does not apply ({exc})."
    canon = by_parts(state) if parts else Canonical(state, quick_dumps(state), None)
    if canon.hash != rows[-1].state_hash:
        return text, None, (f"its snapshot (version {snapshot}) and the deltas after it do not lead to the "
                            f"state move {version} recorded.")
    return canon.text, canon, None


def rebuild_snapshots_sync(conn: sa.Connection) -> int:
    """Bring every game's snapshot up to its version (migration 0006's downgrade: older code
    reads the latest state from ``game_state`` alone). Returns how many were rewritten;
    raises when one does not rebuild (a downgrade must not lose a state)."""
    behind = conn.execute(sa.text(
        "SELECT s.game_pk, s.version, s.state, g.version FROM game_state s JOIN game g ON g.id = s.game_pk "
        "WHERE s.version < g.version")).all()
    for game_pk, snapshot, text, version in behind:
        rows = conn.execute(sa.text(
            "SELECT seq, delta, state_hash FROM move WHERE game_pk = :pk AND seq > :s AND seq <= :v ORDER BY seq"),
            {"pk": game_pk, "s": snapshot, "v": version}).all()
        rebuilt, problem = _rebuilt(text, snapshot, version, rows)
        if problem is not None:
            raise RuntimeError(f"Game {game_pk} does not rebuild: {problem}")
        conn.execute(sa.text("UPDATE game_state SET version = :v, state = :t WHERE game_pk = :pk"),
                     {"v": version, "t": rebuilt, "pk": game_pk})
    return len(behind)
