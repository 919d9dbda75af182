"""Export, import and replay checks: a game as a file, and proof that its log replays."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import engine
from bot.models import (
    Game,
    GameRated,
    GameState,
    Move,
    RulesUpgrade,
    Seat,
    WebGame,
    dumps,
    loads,
    new_public_id,
    utcnow,
)
from bot.service.core import (
    _SEED_LIMIT,
    EXPORT_FORMAT,
    ServiceCore,
    _module,
    _standing_steps,
    _upgrade_base,
    rules_version,
    state_hash,
)
from bot.service.forced import is_auto
from bot.service.types import (
    ImportRefused,
    ReplayReport,
    ServiceError,
)
from engine.api import GameModule, RuleError, State, clone, strip_label, undo_barrier

log = logging.getLogger(__name__)


class ArchiveCommands(ServiceCore):
    """A game as a file and back, and the replay check of a stored or exported game."""


    async def export(self, game_pk: int) -> dict[str, Any]:
        """The game as a file (format 1): ``{"format", "game", "title", "seed", "options",
        "rules_version", "schema_revision", "upgrades", "players", "status", "result",
        "state_hash", "moves": [{"seq", "role", "action", "hash"}]}``. Only the steps still
        standing are listed (taken-back steps and the undo rows are left out; their ``seq``
        numbers show as gaps), so the file replays with the engine alone; ``hash`` is the
        fingerprint of the state after each move. ``rules_version`` is the game's at creation;
        ``upgrades`` the rules upgrades met since (``seq``, ``from``, ``to``, ``outcome``, and
        for a log that did not replay across it the ``state`` there), so that a reader with
        newer rules verifies the moves after the last such upgrade."""
        async with self._read() as session:
            game = await self._game_row(session, game_pk)
            seats = await self._seats(session, game_pk)
            rows = await self._move_rows(session, game_pk)
            upgrades = await self._upgrades(session, game_pk)
            snapshot, problem = await self._latest_text(session, game)
        if problem is not None:
            raise ServiceError(f"Game {game_pk} is inconsistent: {problem} Run `alcazaba replay-check {game_pk}`.")
        info = self._info(game, seats.values())
        return {
            "format": EXPORT_FORMAT,
            "game": game.game_id,
            "title": info.title,
            "seed": game.seed,
            "options": loads(game.options),
            "rules_version": game.rules_version,
            "schema_revision": game.schema_revision,
            "upgrades": [{"seq": u.seq, "from": u.from_version, "to": u.to_version, "outcome": u.outcome,
                          "diverging_seq": u.diverging_seq, "report": u.report, "hash": u.state_hash,
                          "state": loads(u.state)} for u in upgrades],
            "players": [{"role": s.role, "name": s.display_name, "bot": s.is_bot} for s in info.seats],
            "status": game.status,
            "result": loads(game.result),
            "state_hash": state_hash(snapshot),
            "moves": [{"seq": m.seq, "role": m.role, "action": loads(m.action), "hash": m.state_hash}
                      for m in _standing_steps(rows)],
        }

    async def import_game(self, data: dict[str, Any], *, created_by: int | None = None) -> int:
        """Store an exported game as a new game and return its id.

        Every move is replayed through the engine; the first one that is not legal, or
        whose resulting state differs from the file's ``hash``, refuses the whole file
        (ImportRefused naming that move, and the rules version the file needs when it was
        recorded under another). A file whose log stopped replaying at a rules upgrade is
        verified from the state stored there; the replay must end in the file's ``state_hash``
        (and ``result``, for a finished game). Seats come from ``players`` (terminal seats
        when absent); a game whose replay ends is 'finished', otherwise 'running'.
        """
        checked = _verify_file(data)  # raises ImportRefused
        module, options, moves, final = checked.module, checked.options, checked.moves, checked.final
        mismatch = _final_mismatch(data, module, final)
        if mismatch is not None:
            raise ImportRefused(mismatch)  # e.g. a file cut short: half a game is not stored
        result = module.result(final)
        players = {p.get("role"): p for p in data.get("players") or [] if isinstance(p, dict)}
        roles = module.roles(options)
        renumber = {_seq(m, i): i for i, m in enumerate(moves, start=1)}
        async with self._write() as session:
            game = Game(game_id=module.id, seed=checked.seed, options=dumps(options),
                        status="finished" if result is not None else "running", version=len(moves),
                        active=dumps(list(module.active(final))), created_by=created_by,
                        result=dumps(result) if result is not None else None,
                        rules_version=checked.rules_version, schema_revision=await self._schema_revision(session))
            session.add(game)
            await session.flush()
            assert game.id is not None
            session.add(GameRated(game_pk=game.id, rated=False))  # counts only when a manager rates it
            for role in roles:
                p = players.get(role, {})
                session.add(Seat(game_pk=game.id, role=role, user_id=None, display_name=str(p.get("name") or "")[:100],
                                 is_bot=bool(p.get("bot", False))))
            now = utcnow()
            session.add_all(
                Move(game_pk=game.id, seq=i, role=m["role"], user_id=None, action=dumps(strip_label(m["action"])),
                     kind="step", undoes_seq=None, barrier=barrier, state_hash=digest, created_at=now)
                for i, (m, (digest, barrier)) in enumerate(zip(moves, checked.steps, strict=True), start=1)
            )
            for up in checked.upgrades:
                # A file's seq numbers have gaps (taken-back steps); the stored log has none.
                seq = sum(1 for old in renumber if old <= up.seq)
                session.add(RulesUpgrade(game_pk=game.id, seq=seq, from_version=up.from_version,
                                         to_version=up.to_version, outcome=up.outcome,
                                         diverging_seq=renumber.get(up.diverging_seq or -1), report=up.report,
                                         state=up.state, state_hash=up.state_hash, created_at=now))
            session.add(GameState(game_pk=game.id, version=len(moves), state=dumps(final)))
            session.add(WebGame(game_pk=game.id, public_id=new_public_id()))  # its web address (bot.web)
            pk = game.id
        self._remember(pk, len(moves), final, len(moves))
        return pk

    async def replay_check(self, source: int | dict[str, Any]) -> ReplayReport:
        """Replay a stored game (by id) or an exported file from setup.

        For a stored game every row is replayed (undo rows included) and each state is
        compared with the hash recorded with its move, then the final state with the stored
        snapshot, byte for byte. For a file, each move must be legal and match its ``hash``
        and the final state the file's ``state_hash``, when given. The report names the first
        move that fails. A log that stopped replaying at a rules upgrade is verified from the
        state stored there; a log recorded under other rules that fails names the version it
        needs.
        """
        if isinstance(source, dict):
            try:
                checked = _verify_file(source)
            except ImportRefused as exc:
                return ReplayReport(False, 0, str(exc), exc.seq, "log" if exc.seq is None else "fails")
            module, moves, final = checked.module, checked.moves, checked.final
            mismatch = _final_mismatch(source, module, final)
            if mismatch is not None:
                return ReplayReport(False, len(moves), mismatch, None, "different")
            if checked.base_seq is not None:
                return ReplayReport(True, len(moves), f"ok: the moves after move {checked.base_seq} replay under "
                                    f"{module.title} rules version {rules_version(module)} from the state stored at "
                                    f"the rules upgrade, to the exported state; the moves before it need rules "
                                    f"version {checked.needs}.")
            return ReplayReport(True, len(moves), f"ok: {len(moves)} moves replay to the exported state.")
        async with self._read() as session:
            game = await self._game_row(session, source)
            rows = await self._move_rows(session, source)
            upgrades = await self._upgrades(session, source)
            latest, problem = await self._latest_text(session, game)
        module = _module(game.game_id)
        report = _replay_rows(module, game, rows, latest, game.version, _upgrade_base(upgrades))
        if report.ok and problem is not None:
            # Every move replays to its recorded hash, but the stored snapshot and deltas do
            # not give the state the last one recorded.
            report = ReplayReport(False, report.moves, f"The replay ends in a different state from the stored one: "
                                  f"{problem}", None, "different")
        recorded = upgrades[-1].to_version if upgrades else game.rules_version
        return _name_version(report, module, recorded)


# The documented limits of a game file (README, "Export format"); a file beyond them is
# refused before any game logic runs, in one sentence naming the field.
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 32
MAX_MOVES = 20_000
MAX_UPGRADES = 100
MAX_PLAYERS = 16
MAX_ID = 40  # a role, the game id, an option's name or text value (Seat.role is String(40))
MAX_HASH = 64  # a state fingerprint (Move.state_hash is String(64))
MAX_NAME = 100  # a player's name (Seat.display_name is String(100))
MAX_TITLE = 200
MAX_ACTION_TEXT = 200  # a string inside a move's action
MAX_TEXT = 10_000  # any other string: a result's reason, an upgrade's report or stored state
_QUOTE = 40  # quoted values are cut to this many characters

# Field: (JSON kinds it may have, longest string). Fields not in the table are refused.
_KindSpec = tuple[tuple[str, ...], int]
_FILE_FIELDS: dict[str, _KindSpec] = {
    "format": (("integer",), 0), "game": (("string",), MAX_ID), "title": (("string",), MAX_TITLE),
    "seed": (("integer",), 0), "options": (("object",), 0), "rules_version": (("integer",), 0),
    "schema_revision": (("string", "null"), MAX_ID), "upgrades": (("list",), 0), "players": (("list",), 0),
    "status": (("string",), 16), "result": (("object", "null"), 0), "state_hash": (("string", "null"), MAX_HASH),
    "moves": (("list",), 0),
}
_MOVE_FIELDS: dict[str, _KindSpec] = {
    "seq": (("integer",), 0), "role": (("string",), MAX_ID), "action": (("object",), 0),
    "hash": (("string", "null"), MAX_HASH),
}
_PLAYER_FIELDS: dict[str, _KindSpec] = {
    "role": (("string",), MAX_ID), "name": (("string", "null"), MAX_NAME), "bot": (("boolean",), 0),
}
_UPGRADE_FIELDS: dict[str, _KindSpec] = {
    "seq": (("integer",), 0), "from": (("integer",), 0), "to": (("integer",), 0), "outcome": (("string",), 16),
    "diverging_seq": (("integer", "null"), 0), "report": (("string",), MAX_TEXT), "hash": (("string",), MAX_HASH),
    "state": (("object", "null"), 0),
}
_KIND_NAMES = {"integer": "an integer", "number": "a number", "string": "a string", "object": "an object",
               "list": "a list", "boolean": "true or false", "null": "null"}
_OUTCOMES = ("identical", "different", "fails")


def quote(value: Any, limit: int = _QUOTE) -> str:
    """A value as a refusal shows it: its repr (which escapes what a terminal cannot print),
    cut to ``limit`` characters with an ellipsis, so a hostile file is never echoed whole."""
    if isinstance(value, dict | list):
        text = ("{" if isinstance(value, dict) else "[") + ("…" if value else "") + ("}" if isinstance(value, dict)
                                                                                  else "]")
    elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        text = f"an integer of {value.bit_length()} bits"  # repr of a huge one is slow, or refused
    else:
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    for kind, python in (("integer", int), ("number", float), ("string", str), ("object", dict), ("list", list)):
        if isinstance(value, python):
            return kind
    return type(value).__name__


def _where(path: Sequence[str | int]) -> str:
    """A path as jq addresses it, e.g. ``moves[4].role``, cut to 80 characters."""
    text = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if p.isidentifier() else f"[{quote(p, 20)}]")
                   for p in path).lstrip(".")
    return text if len(text) <= 80 else text[:79] + "…"


def _check_fields(item: dict[str, Any], fields: dict[str, _KindSpec], required: Sequence[str],
                  path: tuple[str | int, ...]) -> None:
    """One object of the file against its table: no unknown field, no missing one, each of
    its kind, no string longer than its limit."""
    for name, (kinds, longest) in fields.items():
        if name not in item:
            if name in required:
                raise ImportRefused(f"The file has no {_where((*path, name))}.")
            continue
        value, where = item[name], _where((*path, name))
        if _kind(value) not in kinds:
            raise ImportRefused(f"The file's {where} must be {' or '.join(_KIND_NAMES[k] for k in kinds)}, "
                                f"not {_KIND_NAMES.get(_kind(value), _kind(value))} ({quote(value)}).")
        if isinstance(value, str) and len(value) > longest:
            raise ImportRefused(f"The file's {where} is {len(value)} characters long ({quote(value)}); at most "
                                f"{longest} are allowed.")
    for name in item:
        if name not in fields:
            raise ImportRefused(f"The file has a field {_where((*path, name))} that game file format "
                                f"{EXPORT_FORMAT} does not have.")


def _check_values(data: dict[str, Any]) -> None:
    """Every value of the file, walked without recursion (a hostile file nests deeply): at
    most MAX_DEPTH levels, strings within their limit and valid Unicode, integers within 64
    bits, no NaN or infinity; so that nothing later (dumps, clone, the rules) meets a value
    it cannot handle."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict | list):
            if len(path) >= MAX_DEPTH:
                raise ImportRefused(f"The file nests deeper than {MAX_DEPTH} levels, at {_where(path)}.")
            if isinstance(value, dict):
                for key in value:
                    if not isinstance(key, str):
                        raise ImportRefused(f"The file's {_where(path)} has a key that is not a string.")
                    _check_text(key, path, _text_limit(path))
                children = [(v, (*path, k)) for k, v in value.items()]
            else:
                children = [(v, (*path, i)) for i, v in enumerate(value)]
            stack.extend(reversed(children))
        elif isinstance(value, str):
            _check_text(value, path, _text_limit(path))
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            if not -_SEED_LIMIT <= value < _SEED_LIMIT:
                raise ImportRefused(f"The file's {_where(path)} is an integer beyond 64 bits ({quote(value)}).")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ImportRefused(f"The file's {_where(path)} is {value}, which is not a JSON number.")
        else:
            raise ImportRefused(f"The file's {_where(path)} is not a JSON value ({type(value).__name__}).")


def _text_limit(path: tuple[str | int, ...]) -> int:
    if path[:1] == ("moves",) and path[2:3] == ("action",):
        return MAX_ACTION_TEXT
    if path[:1] == ("options",):
        return MAX_ID
    return MAX_TEXT


def _check_text(text: str, path: tuple[str | int, ...], longest: int) -> None:
    if len(text) > longest:
        raise ImportRefused(f"The file's {_where(path)} holds a string {len(text)} characters long "
                            f"({quote(text)}); there, a string has at most {longest}.")
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            raise ImportRefused(f"The file's {_where(path)} holds a string that is not valid Unicode text "
                                f"({quote(text)}).") from None


def as_game_file(data: Any) -> dict[str, Any]:
    """``data`` if it is a JSON object, else ImportRefused: the command line tells a file from
    a stored game's id by this (a file holding ``5`` is not game 5)."""
    if not isinstance(data, dict):
        raise ImportRefused(f"A game file is a JSON object, not {_KIND_NAMES.get(_kind(data), _kind(data))}.")
    return data


def _check_shape(data: Any) -> None:
    """The file against the documented format (README, "Export format"): the kinds of every
    field and the documented limits, before any game logic runs."""
    as_game_file(data)
    if data.get("format") != EXPORT_FORMAT:
        raise ImportRefused(f"Unknown game file format {quote(data.get('format'))}; this server reads format "
                            f"{EXPORT_FORMAT}.")
    game_id = data.get("game")
    if "game" in data and (not isinstance(game_id, str) or game_id not in engine.GAMES):
        raise ImportRefused(f"Unknown game {quote(game_id)}; known games: {', '.join(sorted(engine.GAMES))}.")
    _check_fields(data, _FILE_FIELDS, ("game", "seed", "moves"), ())
    for name, most, what in (("moves", MAX_MOVES, "moves"), ("upgrades", MAX_UPGRADES, "rules upgrades"),
                             ("players", MAX_PLAYERS, "players")):
        if len(data.get(name) or []) > most:
            raise ImportRefused(f"The file's {name} has {len(data[name])} entries; a game file has at most "
                                f"{most} {what}.")
    for name, fields, required in (("moves", _MOVE_FIELDS, ("role", "action")),
                                   ("players", _PLAYER_FIELDS, ("role",)),
                                   ("upgrades", _UPGRADE_FIELDS, ("seq", "from", "to", "outcome", "hash"))):
        for index, item in enumerate(data.get(name) or []):
            if not isinstance(item, dict):
                raise ImportRefused(f"The file's {name}[{index}] must be an object, not "
                                    f"{_KIND_NAMES.get(_kind(item), _kind(item))} ({quote(item)}).")
            _check_fields(item, fields, required, (name, index))
    for index, up in enumerate(data.get("upgrades") or []):
        if up["outcome"] not in _OUTCOMES:
            raise ImportRefused(f"The file's upgrades[{index}].outcome is {quote(up['outcome'])}, not one of "
                                f"{', '.join(_OUTCOMES)}.")
    for name, value in (data.get("options") or {}).items():
        if _kind(value) not in ("boolean", "integer", "number", "string"):
            raise ImportRefused(f"The file's {_where(('options', name))} must be true or false, a number or a "
                                f"string, not {_KIND_NAMES.get(_kind(value), _kind(value))}.")
    _check_values(data)


def _parse_export(data: Any) -> tuple[GameModule, int, dict[str, Any], list[dict[str, Any]]]:
    _check_shape(data)
    module = engine.get(data["game"])
    seed = data["seed"]
    options = data.get("options", {})
    try:
        ServiceCore._options(module, options)
    except ServiceError as exc:
        raise ImportRefused(f"The file's options do not suit {module.title}: {exc}") from None
    roles = module.roles(options)
    seen: set[str] = set()
    for index, player in enumerate(data.get("players") or []):
        role = player["role"]
        if role not in roles or role in seen:
            what = "a second time" if role in seen else f"not a role of {module.title} ({', '.join(roles)})"
            raise ImportRefused(f"The file's players[{index}].role {quote(role)} is {what}.")
        seen.add(role)
    moves = data["moves"]
    previous = None
    for index, move in enumerate(moves, start=1):
        seq = _seq(move, index)
        if seq == previous:
            raise ImportRefused(f"Move {seq} is in the file twice: each move once, in increasing order.", seq)
        if previous is not None and seq <= previous:
            raise ImportRefused(f"Move {seq} comes after move {previous}: moves must be in increasing order.", seq)
        previous = seq
    return module, seed, options, moves


def _final_mismatch(data: dict[str, Any], module: GameModule, final: State) -> str | None:
    """Why the replayed game is not the one the file says it ends in (its ``state_hash``,
    and for a finished game its ``result``), or None."""
    if data.get("state_hash") and state_hash(dumps(final)) != data["state_hash"]:
        return "The replay ends in a different state from the one exported (the file's state_hash)."
    if "result" in data and data.get("status") == "finished" and not _same_result(module.result(final), data["result"]):
        return "The replay ends with a different result from the one exported."
    return None


def _same_result(replayed: Any, exported: Any) -> bool:
    """Whether the replayed result says what the file's does. A release may derive more keys
    from the final state than the one that exported the file (``winners`` came later), so the
    keys the file has must agree and the new ones are not held against it."""
    if isinstance(replayed, dict) and isinstance(exported, dict):
        return all(k in replayed and replayed[k] == v for k, v in exported.items())
    return bool(replayed == exported)


def _seq(move: Any, index: int) -> int:
    if isinstance(move, dict) and isinstance(move.get("seq"), int) and not isinstance(move.get("seq"), bool):
        return int(move["seq"])
    return index


def _describe_move(seq: int, move: dict[str, Any]) -> str:
    action = dumps(strip_label(move.get("action") or {}))
    return f"move {seq} ({move.get('role')}: {action if len(action) <= 60 else action[:59] + '…'})"


@dataclass(frozen=True)
class _FileUpgrade:
    seq: int
    from_version: int
    to_version: int
    outcome: str
    diverging_seq: int | None
    report: str
    state: str | None
    state_hash: str


@dataclass(frozen=True)
class _CheckedFile:
    """A game file that verified: what import stores. ``base_seq``: the move (file numbering)
    of the rules upgrade the check started from, None if it replayed from setup; ``needs``:
    the rules version the moves up to it were recorded under."""

    module: GameModule
    seed: int
    options: dict[str, Any]
    moves: list[dict[str, Any]]
    steps: list[tuple[str, bool]]
    final: State
    rules_version: int
    upgrades: list[_FileUpgrade]
    base_seq: int | None
    needs: int


def _file_upgrades(data: dict[str, Any]) -> list[_FileUpgrade]:
    out: list[_FileUpgrade] = []
    for up in data.get("upgrades") or []:
        try:
            state = up.get("state")
            out.append(_FileUpgrade(int(up["seq"]), int(up["from"]), int(up["to"]), str(up["outcome"]),
                                    up.get("diverging_seq") if isinstance(up.get("diverging_seq"), int) else None,
                                    str(up.get("report") or ""), None if state is None else dumps(state),
                                    str(up["hash"])))
        except (AttributeError, KeyError, TypeError, ValueError):
            raise ImportRefused("The file's upgrades must be objects with seq, from, to, outcome and hash.") from None
    return out


def _verify_file(data: Any) -> _CheckedFile:
    """Replay a game file under the installed rules: from setup, or, when its log stopped
    replaying at a rules upgrade to the installed version, from the state stored there (the
    moves before it keep their recorded hashes and count as barriers: undo never crosses
    them). ImportRefused names the first bad move and the rules version the file needs."""
    module, seed, options, moves = _parse_export(data)
    recorded = data.get("rules_version", 1)
    if not isinstance(recorded, int) or isinstance(recorded, bool):
        raise ImportRefused("The file's rules_version must be an integer.")
    upgrades = _file_upgrades(data)
    installed = rules_version(module)
    current = upgrades[-1].to_version if upgrades else recorded
    opaque = [u for u in upgrades if u.outcome != "identical"]
    base = opaque[-1] if opaque and opaque[-1].state is not None and opaque[-1].to_version == installed else None
    if base is not None:
        assert base.state is not None
        if state_hash(base.state) != base.state_hash:
            raise ImportRefused(f"The state stored at the rules upgrade after move {base.seq} does not match its hash.")
        before = [m for i, m in enumerate(moves, start=1) if _seq(m, i) <= base.seq]
        after = moves[len(before):]
        if before and before[-1].get("hash") is not None and _seq(before[-1], len(before)) == base.seq \
                and before[-1]["hash"] != base.state_hash:
            raise ImportRefused(f"The state stored at the rules upgrade is not the one move {base.seq} recorded.",
                                base.seq)
        steps, final = _replay_file(module, seed, options, after, start=loads(base.state), first=len(before) + 1)
        kept = [(str(m.get("hash") or ""), True) for m in before]
        return _CheckedFile(module, seed, options, moves, kept + steps, final, recorded, upgrades, base.seq,
                            base.from_version)
    try:
        steps, final = _replay_file(module, seed, options, moves)
    except ImportRefused as exc:
        if current == installed:
            raise
        raise ImportRefused(f"{str(exc).rstrip('.')}; the file was recorded under {module.title} rules version "
                            f"{current} and this release has version {installed}: use a release whose {module.id} "
                            f"rules are version {current}.", exc.seq) from None
    if current != installed:
        # It replays identically under the installed rules: record that, so undo may go on.
        last = _seq(moves[-1], len(moves)) if moves else 0
        upgrades.append(_FileUpgrade(last, current, installed, "identical", None,
                                     f"The log replays identically under rules version {installed}.", None,
                                     steps[-1][0] if steps else state_hash(dumps(module.setup(seed, clone(options))))))
    return _CheckedFile(module, seed, options, moves, steps, final, recorded, upgrades, None, current)


def _replay_file(module: GameModule, seed: int, options: dict[str, Any], moves: list[dict[str, Any]],
                 start: State | None = None, first: int = 1) -> tuple[list[tuple[str, bool]], State]:
    """(hash, barrier) after each move of a file, and the final state; ImportRefused at the
    first bad move. Keeps one state at a time: a long game must not hold thousands.
    ``start``: the state before the first move (default: setup); ``first``: its index."""
    states = engine.replay(module, seed, options, moves, start=start)
    state = next(states)
    out: list[tuple[str, bool]] = []
    for index, move in enumerate(moves, start=first):
        seq = _seq(move, index)
        what = _describe_move(seq, move)
        try:
            new_state = _replay_step(module, state, move, what, seq, states)
        except ImportRefused:
            raise
        except Exception as exc:  # noqa: BLE001 - a file is the sender's: one sentence, never a traceback
            log.debug("the rules failed on %s of a game file", what, exc_info=True)
            raise ImportRefused(f"{what} cannot be replayed: the {module.title} rules failed on it "
                                f"({type(exc).__name__}).", seq) from None
        digest = state_hash(dumps(new_state))
        if move.get("hash") is not None and move["hash"] != digest:
            raise ImportRefused(f"{what} does not lead to the state recorded in the file.", seq)
        out.append((digest, undo_barrier(state, new_state)))
        state = new_state
    try:
        module.result(state), module.active(state)
    except Exception as exc:  # noqa: BLE001 - a state stored in the file may be anything
        log.debug("the rules cannot read the last state of a game file", exc_info=True)
        raise ImportRefused(f"The {module.title} rules cannot read the game's last state ({type(exc).__name__}).",
                            None) from None
    return out, state


def _replay_step(module: GameModule, state: State, move: dict[str, Any], what: str, seq: int,
                 states: Iterator[State]) -> State:
    """One move of a file applied (the next state of the file's replay), or ImportRefused
    saying why it is not legal."""
    role = move["role"]
    if module.result(state) is not None:
        raise ImportRefused(f"{what} comes after the end of the game.", seq)
    active = module.active(state)
    if role not in active:
        raise ImportRefused(f"{what} is not legal: it is not {role}'s turn (waiting for "
                            f"{', '.join(active) or 'nobody'}).", seq)
    try:
        return next(states)
    except RuleError as exc:
        explained = exc.explain()
        raise ImportRefused(f"{what} is not legal: {explained if len(explained) <= 150 else explained[:149] + '…'}",
                            seq) from None


def _name_version(report: ReplayReport, module: GameModule, recorded: int) -> ReplayReport:
    """A replay that fails on a log recorded under other rules says which version it needs."""
    installed = rules_version(module)
    if report.ok or recorded == installed or report.problem == "log":
        return report
    return ReplayReport(False, report.moves, f"{report.message} The game was recorded under {module.title} rules "
                        f"version {recorded}; this release has version {installed}: replay it with a release whose "
                        f"{module.id} rules are version {recorded}.", report.seq, report.problem)


def _replay_rows(module: GameModule, game: Game, rows: Sequence[Move], snapshot: str, version: int,
                 base: RulesUpgrade | None = None) -> ReplayReport:
    """Replay a stored log, undo rows included (see GameService.replay_check).

    An undo row is checked against the undo rule and replayed as the service made it: the
    standing steps replayed from setup, or from ``base``, the state stored at a rules upgrade
    the log does not replay across (the rows up to it are then only checked for gaps).
    """
    options = loads(game.options)
    from_base = base is not None and base.state is not None
    base_seq = base.seq if base is not None and from_base else 0

    def start() -> State:
        if from_base:
            assert base is not None and base.state is not None
            return loads(base.state)
        return module.setup(game.seed, clone(options))

    state = start()
    standing: list[tuple[Move, bool]] = []  # (step row, was it a barrier)
    for expected_seq, move in enumerate(rows, start=1):
        done = expected_seq - 1
        what = f"move {move.seq} ({move.role}, {move.kind})"
        if move.seq != expected_seq:
            return ReplayReport(False, done, f"The log has a gap: {what} where move {expected_seq} was expected.",
                                move.seq, "log")
        if move.seq <= base_seq:
            if move.seq == base_seq and base is not None and move.state_hash != base.state_hash:
                return ReplayReport(False, done, f"The state stored at the rules upgrade is not the one {what} "
                                    "recorded.", move.seq, "log")
            continue
        if move.kind == "step":
            if move.role not in module.active(state):
                return ReplayReport(False, done, f"{what} is not legal: it is not {move.role}'s turn.", move.seq,
                                    "fails")
            try:
                new_state = module.apply(state, move.role, loads(move.action))
            except RuleError as exc:
                return ReplayReport(False, done, f"{what} is not legal: {exc.explain()}", move.seq, "fails",
                                    exc.rule)
            standing.append((move, undo_barrier(state, new_state)))
        elif move.kind == "undo":
            last = standing[-1] if standing else None
            # The step a player chose, with the forced steps the service took after it (automatic):
            # undo takes them back together, a row each, the latest first (GameService.undo).
            chosen = next((n for n in range(len(standing) - 1, -1, -1)
                           if not is_auto(loads(standing[n][0].action))), None)
            unit = standing[chosen:] if chosen is not None else []
            if (last is None or chosen is None or last[0].seq != move.undoes_seq
                    or unit[0][0].role != move.role or any(barrier for _step, barrier in unit)):
                return ReplayReport(False, done, f"{what} takes back move {move.undoes_seq}, which could not "
                                    "be taken back then.", move.seq, "fails")
            standing.pop()
            new_state = engine.replay_last(module, game.seed, options,
                                           [(step.role, loads(step.action)) for step, _barrier in standing],
                                           start=start() if from_base else None)
        else:
            return ReplayReport(False, done, f"{what} has an unknown kind.", move.seq, "log")
        if state_hash(dumps(new_state)) != move.state_hash:
            return ReplayReport(False, done, f"{what} leads to a different state from the one recorded.", move.seq,
                                "different")
        state = new_state
    if version != len(rows) or game.version != len(rows):
        return ReplayReport(False, len(rows), f"The stored version {version} does not match the {len(rows)} moves "
                            "logged.", None, "log")
    if dumps(state) != snapshot:
        return ReplayReport(False, len(rows), "The replay ends in a different state from the stored one.", None,
                            "different")
    if from_base:
        return ReplayReport(True, len(rows), f"ok: moves 1-{base_seq} were recorded under rules version "
                            f"{base.from_version if base else '?'} (that release replays them); moves "
                            f"{base_seq + 1}-{len(rows)} replay under version {base.to_version if base else '?'} "
                            "to the stored state.")
    return ReplayReport(True, len(rows), f"ok: {len(rows)} moves replay to the stored state.")
