"""The commands that play: ``run`` (the Discord bot, or the terminal table with its
questions: the game, what the game lets vary, the seats), ``local`` (the terminal table from
the command line) and ``sync`` (the slash commands)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from bot.commands.base import (
    CommandError,
    _call,
    _migrate,
    _optional_module,
    _safe_url,
    _with_service,
    parse_options,
)
from bot.settings import Settings, url_for_db_option

if TYPE_CHECKING:
    from engine.api import GameModule

log = logging.getLogger("alcazaba")


def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    url = settings.db_url
    if settings.discord_token is None and not _interactive():
        raise CommandError(
            "DISCORD_TOKEN is not set and there is no terminal to open the terminal table on: set "
            "DISCORD_TOKEN to the bot's token (docker run -e DISCORD_TOKEN=...), or run with a terminal "
            "(docker run -it ...), or play a scripted game with the local command")
    _migrate(url)
    log.info("database ready at %s", _safe_url(url))
    _upgrade_check_at_start(url)
    _optional_module("bot.web.commands", "the web pages").start_in_background(settings)  # WEB_PORT set
    if settings.discord_token is not None:
        front = _optional_module("bot.discord", "the Discord front end")
        runner = getattr(front, "run", None)
        if runner is None:
            raise CommandError("the Discord front end offers no run(settings)")
        return _call(runner, settings)
    import engine

    games = sorted(engine.GAMES)
    print("DISCORD_TOKEN is not set: opening the terminal table instead of the Discord bot.")
    default = settings.default_game if settings.default_game in engine.GAMES else next(iter(engine.GAMES))
    try:
        game_id = _ask(f"Game to play ({', '.join(games)}) [{default}]: ", default,
                       lambda g: None if g in engine.GAMES else f"There is no game {g!r}: choose one of {', '.join(games)}.")
        options = _ask_options(engine.get(game_id))
        roles = engine.get(game_id).roles({**_default_options(game_id), **options})
        answer = _ask(f"Seats you play ({', '.join(roles)}, comma-separated; 'all' = hot-seat, 'none' = watch)"
                      f" [{roles[0]}]: ", roles[0], lambda a: _seat_problem(a, roles)).lower()
    except EOFError:
        return 0
    if answer == "all":
        seats, autoplay = list(roles), False
    elif answer == "none":
        seats, autoplay = [], True
    else:
        seats, autoplay = [s.strip() for s in answer.split(",") if s.strip()], False
    return _local(settings, url, game_id, seats, autoplay, None, None, options, {})


_TRUE, _FALSE = ("true", "yes", "on", "y", "1"), ("false", "no", "off", "n", "0")


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _ask_options(game: GameModule) -> dict[str, Any]:
    """The options of a new game, asked from what the game declares it lets vary (its
    ``OPTIONS``: the number of players, variants): each shown with its choices and default,
    then one answer, ``name=value`` pairs, Enter for the defaults. {} for a game with none."""
    if not game.OPTIONS:
        return {}
    print(f"{game.title} lets these vary:")
    for name, spec in game.OPTIONS.items():
        kind = spec.get("type") or type(spec["default"]).__name__
        choices = spec.get("choices")
        allowed = "/".join(_option_text(c) for c in choices) if choices else ("yes/no" if kind == "bool" else kind)
        help_text = " ".join(str(spec.get("help") or "").split())
        line = f"  {name} ({allowed}, default {_option_text(spec['default'])})" + (f": {help_text}" if help_text else "")
        print(line if len(line) <= 160 else line[:159] + "…")
    example = next(iter(game.OPTIONS))
    chosen: dict[str, Any] = {}

    def problem(answer: str) -> str | None:
        chosen.clear()
        try:
            chosen.update(_option_values(game, answer))
        except ValueError as exc:
            return str(exc)
        return None

    _ask(f"Options to change (e.g. {example}=..., several separated by spaces) [none]: ", "", problem)
    return dict(chosen)


def _option_values(game: GameModule, answer: str) -> dict[str, Any]:
    """``name=value`` pairs typed at the terminal, each checked against the game's ``OPTIONS``
    (ValueError: a sentence saying what is wrong)."""
    values: dict[str, Any] = {}
    for pair in answer.replace(",", " ").split():
        name, sep, raw = pair.partition("=")
        spec = game.OPTIONS.get(name)
        if spec is None or not sep:
            raise ValueError(f"Write name=value with one of: {', '.join(game.OPTIONS)}.")
        kind = spec.get("type") or type(spec["default"]).__name__
        value: Any = raw
        if kind == "bool":
            if raw.lower() not in _TRUE + _FALSE:
                raise ValueError(f"{name} is yes or no.")
            value = raw.lower() in _TRUE
        elif kind in ("int", "float"):
            try:
                value = int(raw) if kind == "int" else float(raw)
            except ValueError:
                raise ValueError(f"{name} is a number.") from None
        choices = spec.get("choices")
        if choices is not None and value not in choices:
            raise ValueError(f"{name} is one of {', '.join(_option_text(c) for c in choices)}.")
        values[name] = value
    return values


def _interactive() -> bool:
    """Whether a person can answer the table's questions: stdin is a terminal. A container
    started without ``-it`` (or with stdin closed) has none, and the table would read end of
    file at once and quit in silence."""
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return False


def _ask(question: str, default: str, problem: Callable[[str], str | None]) -> str:
    """Ask until the answer is acceptable: a typo gets a sentence and the question again,
    never an exit (EOFError ends the conversation)."""
    while True:
        answer = input(question).strip() or default
        trouble = problem(answer)
        if trouble is None:
            return answer
        print(trouble)


def _seat_problem(answer: str, roles: list[str]) -> str | None:
    if answer.lower() in ("all", "none"):
        return None
    unknown = [s.strip() for s in answer.lower().split(",") if s.strip() and s.strip() not in roles]
    if unknown:
        return f"There is no seat {unknown[0]!r}: the seats are {', '.join(roles)} (or 'all', 'none')."
    return None


def _default_options(game_id: str) -> dict[str, Any]:
    import engine

    return engine.get(game_id).defaults()


def _local(settings: Settings, url: str, game_id: str, seats: list[str], autoplay: bool, seed: int | None,
           resume: int | None, options: dict[str, Any], levels: dict[str | None, str], db: str | None = None) -> int:
    from bot.local import LocalError, play, program_name
    from bot.service import ServiceError
    from bot.thinking import InlineThinker

    async def work(service: Any) -> int:
        try:
            return await play(service, game_id, seats=seats, autoplay=autoplay, seed=seed, resume=resume,
                              images_dir=settings.images_dir, options=options, program=program_name(),
                              levels=levels, thinker=InlineThinker(settings.ai_iteration_cap),
                              db=db if db is None or "://" in db else os.path.abspath(db))
        except (LocalError, ServiceError) as exc:
            raise CommandError(str(exc)) from None

    return _with_service(url, work)


def cmd_local(args: argparse.Namespace, settings: Settings) -> int:
    options = parse_options(args.option or [])
    if args.players is not None:
        options["players"] = args.players
    if options and args.resume is not None:
        raise CommandError("--option sets up a new game; a resumed game keeps the options it was created with")
    levels = parse_levels(args.level or [])
    url = url_for_db_option(args.db, settings)
    _migrate(url)
    return _local(settings, url, args.game, args.seat or [], args.autoplay, args.seed, args.resume, options, levels,
                  args.db or None)


def parse_levels(given: Sequence[str]) -> dict[str | None, str]:
    """``--level LEVEL`` (every seat of the built-in player) and ``--level ROLE=LEVEL`` (one
    seat; repeat), as a level per role, ``None`` for every role not named. Whether a role
    exists is the game's to say (``bot.local``)."""
    from engine.ai import LEVELS

    levels: dict[str | None, str] = {}
    for item in given:
        role, sep, level = item.partition("=")
        key: str | None = role.strip() if sep else None
        level = (level if sep else role).strip().lower()
        if level not in LEVELS:
            raise CommandError(f"--level {item}: there is no level {level!r}; the levels are {', '.join(LEVELS)}")
        if sep and not key:
            raise CommandError(f"--level {item}: name a role before '=' (e.g. christian=hard)")
        if key in levels and levels[key] != level:
            raise CommandError(f"--level gives {'every seat' if key is None else key} two levels "
                               f"({levels[key]} and {level})")
        levels[key] = level
    return levels


def _upgrade_check_at_start(url: str) -> None:
    """``run``: replay the games whose rules changed since they were last checked, once the
    schema is current, and log the summary (a game that no longer replays carries on; the
    check records it)."""
    from bot.upgrade import check_at_start

    async def work(service: Any) -> int:
        report = await check_at_start(service)
        log.info("%s", report.summary())
        for game in report.games:
            if game.outcome != "identical":
                log.warning("%s", game.public)
        return 0

    try:
        _with_service(url, work)
    except Exception:  # the bot still serves its players; the operator reads why in the log
        log.exception("the upgrade check failed")


def cmd_sync(args: argparse.Namespace, settings: Settings) -> int:
    front = _optional_module("bot.discord", "the Discord front end")
    sync = getattr(front, "sync", None)
    if sync is None:
        raise CommandError("the Discord front end offers no sync(settings)")
    if settings.discord_token is None:
        raise CommandError("DISCORD_TOKEN is not set: syncing slash commands needs the bot's token")
    return _call(sync, settings)

