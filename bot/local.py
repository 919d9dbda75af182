"""The terminal table: play a game at the keyboard on the same service and database.

Hot-seat (one person plays every seat given with ``--seat``, or all seats), or against the
built-in player (seats not given), or ``--autoplay`` (the built-in player takes every seat).
After each change it writes the board of every seat played here as a PNG and prints the
path. ``q`` leaves the game in the database; ``--resume ID`` continues it, even after the
process was killed: every step is committed before the next prompt.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
import render
from bot.service import GameInfo, GameService, NotAllowed, ServiceError, StaleVersion
from engine.api import RuleError, describe

Output = Callable[[str], None]
Input = Callable[[str], str]

HELP = "Type the number of an order, 'u' to take back your last step, 'q' to stop (the game is kept)."


class LocalError(Exception):
    """A terminal-table command that cannot go on (bad role, wrong game id...)."""


@dataclass
class Table:
    """One terminal session over one game."""

    service: GameService
    game_pk: int
    game_id: str
    images_dir: Path | None
    out: Output = print
    ask: Input = input
    seen: dict[str | None, int] = field(default_factory=dict)
    images_disabled: bool = False

    # ----------------------------------------------------------------- output

    async def show_new_lines(self, role: str | None, keep: int | None = None) -> None:
        """Print the log lines ``role`` may read that were not shown to it yet."""
        view = await self.service.view(self.game_pk, role)
        log = view.view.get("log") or []
        start = self.seen.get(role)
        if start is None:
            start = 0 if keep is None else max(0, len(log) - keep)
        for entry in log[start:]:
            prefix = "  (private) " if "to" in entry else "  "
            self.out(f"{prefix}{entry.get('text', '')}")
        self.seen[role] = len(log)

    async def write_images(self, info: GameInfo) -> None:
        """The board of every seat played here, as that seat sees it."""
        if self.images_disabled or self.images_dir is None:
            return
        for seat in info.seats:
            if not seat.is_terminal:
                continue
            view = await self.service.view(self.game_pk, seat.role)
            try:
                png = render.board(self.game_id, view.view)
            except ImportError as exc:
                self.out(f"(no board images: render.{self.game_id} is not available: {exc})")
                self.images_disabled = True
                return
            except Exception as exc:  # a drawing bug must not end the game at the table
                self.out(f"(no board images: drawing the {seat.role} board failed: {exc!r})")
                self.images_disabled = True
                return
            self.images_dir.mkdir(parents=True, exist_ok=True)
            path = self.images_dir / f"{self.game_id}-{self.game_pk}-{seat.role}.png"
            tmp = path.with_suffix(".png.tmp")
            tmp.write_bytes(png)
            tmp.replace(path)
            self.out(f"  board of {seat.role}: {path}")

    # ----------------------------------------------------------------- the loop

    async def run(self, autoplay_output: bool = False) -> int:
        """Play until the game ends or the player quits; 0 either way."""
        info = await self.service.game(self.game_pk)
        changed = True
        while True:
            steps = await self.service.play_bots(self.game_pk, max_steps=200)
            if steps:
                changed = True
            info = await self.service.game(self.game_pk)
            if info.status in ("finished", "aborted"):
                await self.show_new_lines(None)
                if changed:
                    await self.write_images(info)
                return self.finish(info)
            if steps and (autoplay_output or not any(s.is_terminal for s in info.seats)):
                await self.show_new_lines(None)
                continue
            terminal = [r for r in info.active if (s := info.seat(r)) is not None and s.is_terminal]
            if not terminal:
                if steps:
                    continue
                self.out(f"Waiting for {', '.join(info.active)}, who do not play at this table.")
                return 0
            if changed:
                await self.write_images(info)
                changed = False
            outcome = await self.turn(info, terminal[0])
            if outcome == "quit":
                self.out(f"game {self.game_pk} saved; continue with: alcazaba local {self.game_id} "
                         f"--resume {self.game_pk}")
                return 0
            changed = outcome == "changed"

    async def turn(self, info: GameInfo, role: str) -> str:
        """Ask ``role`` for one order: 'changed', 'same' (nothing happened) or 'quit'."""
        view = await self.service.view(self.game_pk, role)
        actions: list[dict[str, Any]] = view.view.get("actions") or []
        self.out("")
        self.out(f"--- {info.title} #{self.game_pk} - {role} - move {view.version} ---")
        await self.show_new_lines(role, keep=8)
        self.out(str(view.view.get("prompt", "")))
        for number, action in enumerate(actions, start=1):
            self.out(f"  {number:>3}. {describe(action)}")
        extra = "u = take back, " if view.can_undo else ""
        while True:
            try:
                answer = self.ask(f"{role}> order number ({extra}q = quit): ").strip().lower()
            except EOFError:
                return "quit"
            if answer in ("q", "quit", "exit"):
                return "quit"
            if answer in ("?", "h", "help"):
                self.out(HELP)
                continue
            if answer in ("u", "undo"):
                outcome = await self.undo(info, role)
                if outcome == "same":
                    continue
                return outcome
            if not answer:
                self.out(f"Please type a number from 1 to {len(actions)}. {HELP}")
                continue
            if not answer.isdigit():
                self.out(f"{answer!r} is not a number. {HELP}")
                continue
            number = int(answer)
            if not 1 <= number <= len(actions):
                self.out(f"There is no order {number}: choose from 1 to {len(actions)}.")
                continue
            try:
                step = await self.service.apply(self.game_pk, role, actions[number - 1], view.version)
            except RuleError as exc:
                self.out(f"Refused: {exc.explain()}")
                continue
            except StaleVersion as exc:
                self.out(str(exc))
                return "same"
            except ServiceError as exc:
                self.out(f"Refused: {exc}")
                return "same"
            for entry in step.log:
                prefix = "  (private) " if "to" in entry else "  "
                self.out(f"{prefix}{entry.get('text', '')}")
            self.seen[role] = self.seen.get(role, 0) + len(step.log)
            return "changed"

    async def undo(self, info: GameInfo, role: str) -> str:
        """Take back the last step, if a seat of this table made it (hot-seat: the player who
        just ended a turn may still take it back)."""
        candidates = [role] + [s.role for s in info.seats if s.is_terminal and s.role != role]
        refusal = ""
        for who in candidates:
            reason = await self.service.can_undo(self.game_pk, who)
            if reason is None:
                try:
                    await self.service.undo(self.game_pk, who, info.version)
                except (NotAllowed, StaleVersion) as exc:
                    self.out(str(exc))
                    return "same"
                self.out(f"{who} takes back a step.")
                self.seen.clear()
                return "changed"
            refusal = refusal or reason
        self.out(refusal)
        return "same"

    def finish(self, info: GameInfo) -> int:
        if info.status == "aborted":
            self.out(f"game {self.game_pk} aborted: {json.dumps(info.result, sort_keys=True)}")
        else:
            self.out(f"game {self.game_pk} finished: {json.dumps(info.result, sort_keys=True)}")
        return 0


async def play(
    service: GameService,
    game_id: str,
    *,
    seats: list[str] | None = None,
    autoplay: bool = False,
    seed: int | None = None,
    resume: int | None = None,
    images_dir: Path | None = None,
    out: Output = print,
    ask: Input = input,
) -> int:
    """Create (or resume) a game and play it at the terminal. Returns the exit status."""
    if resume is not None:
        info = await service.game(resume)
        if game_id and info.game_id != game_id:
            raise LocalError(f"game {resume} is a game of {info.game_id}, not {game_id}.")
        if any(s.user_id is not None for s in info.seats):
            raise LocalError(f"game {resume} is played on Discord; it cannot be continued here.")
        if info.status == "open":
            info = await service.start(resume, fill_with_bots=True)
        out(f"game {info.id}: {info.title}, resumed at move {info.version}")
    else:
        if game_id not in engine.GAMES:
            raise LocalError(f"unknown game {game_id!r}; known games: {', '.join(sorted(engine.GAMES))}")
        info = await service.create_game(game_id, {}, seed)
        wanted = _seat_plan(info.roles, seats or [], autoplay)
        for role in info.roles:
            if role in wanted:
                await service.join(info.id, None, f"terminal ({role})", role)
            else:
                await service.join(info.id, None, "built-in player", role, is_bot=True)
        info = await service.start(info.id)
        players = ", ".join(f"{s.role}: {'built-in player' if s.is_bot else 'you'}" for s in info.seats)
        out(f"game {info.id}: {info.title}, seed {info.seed} ({players})")
    table = Table(service, info.id, info.game_id, images_dir, out=out, ask=ask)
    if resume is not None:
        roles: list[str | None] = [None, *[s.role for s in info.seats if s.is_terminal]]
        for who in roles:
            table.seen[who] = max(0, len((await service.view(info.id, who)).view.get("log") or []) - 8)
    return await table.run(autoplay_output=autoplay)


def _seat_plan(roles: list[str], seats: list[str], autoplay: bool) -> set[str]:
    """The roles played at the keyboard."""
    if autoplay:
        if seats:
            raise LocalError("--autoplay gives every seat to the built-in player; do not combine it with --seat.")
        return set()
    unknown = [s for s in seats if s not in roles]
    if unknown:
        raise LocalError(f"no role {', '.join(unknown)} in this game; the roles are {', '.join(roles)}.")
    return set(seats) if seats else set(roles)
