"""The terminal table: play a game at the keyboard on the same service and database.

Hot-seat (one person plays every seat given with ``--seat``, or all seats), or against the
built-in player (seats not given), or ``--autoplay`` (the built-in player takes every seat).
After each change it writes the pictures of every seat played here (board, hand, battle
board while a battle is fought: whatever ``render.pictures`` says applies) and prints the
path of each one that changed; at the end, the final reveal and the replay animation of the
whole game. ``q`` leaves the game in the database; ``--resume ID`` continues it, even after
the process was killed: every step is committed before the next prompt.

Pictures are redrawn only when the part of the view they are drawn from changed (the
picture's digest), so a move that leaves a hand as it was does not redraw it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
import render
from bot.service import GameInfo, GameService, NotAllowed, ServiceError, StaleVersion
from engine.api import RuleError, View, describe

Output = Callable[[str], None]
Input = Callable[[str], str]

#: Pictures of the whole table, written once from the spectator's view rather than per seat.
PUBLIC_KINDS = frozenset({"reveal"})
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
    #: (role or None for the table, kind) -> (digest of what the file was drawn from, path)
    drawn: dict[tuple[str | None, str], tuple[str, Path]] = field(default_factory=dict)
    failed_kinds: set[str] = field(default_factory=set)

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
        """The pictures of every seat played here, as that seat sees it (only those whose
        part of the view changed since they were last written)."""
        for seat in info.seats:
            if seat.is_terminal and not self.images_disabled and self.images_dir is not None:
                view = await self.service.view(self.game_pk, seat.role)
                self.write_pictures(seat.role, view.view)

    def write_pictures(self, role: str | None, view: View, skip: frozenset[str] = PUBLIC_KINDS) -> None:
        """Write the pictures that apply to ``view`` and changed; remove the file of a kind
        that no longer applies (a battle board once the battle is over)."""
        pictures = self._guard(lambda: render.pictures(self.game_id, view), "pictures")
        if pictures is None:
            return
        wanted = {p.kind for p in pictures if p.kind not in skip}
        for (who, kind), (_digest, path) in list(self.drawn.items()):
            if who == role and kind not in wanted and kind not in skip:
                path.unlink(missing_ok=True)
                del self.drawn[(who, kind)]
        for picture in pictures:
            if picture.kind not in wanted or picture.kind in self.failed_kinds:
                continue
            if self.drawn.get((role, picture.kind), ("", None))[0] == picture.digest:
                continue
            data = self._guard(picture.draw, f"the {picture.title} of {role}", picture.kind)
            if self.images_disabled:
                return
            if data is not None:
                self._save(role, picture.kind, picture.title, picture.digest, data)

    async def write_final_pictures(self) -> None:
        """The final reveal (from the end-of-game views: the spectator's, then each player's,
        which complete it where a single view does not show every piece) and the replay
        animation, its frames rebuilt from the move log."""
        if self.images_disabled or self.images_dir is None:
            return
        info = await self.service.game(self.game_pk)
        views = [(await self.service.view(self.game_pk, role)).view for role in [None, *info.roles]]
        key = render.digest(views)
        if self.drawn.get((None, "reveal"), ("", None))[0] != key:
            data = self._guard(lambda: render.reveal(self.game_id, views), "the final reveal", "reveal")
            if data is not None:
                self._save(None, "reveal", render.TITLES["reveal"], key, data)
        if self.images_disabled or "replay" in self.failed_kinds:
            return
        exported = await self.service.export(self.game_pk)
        key = str(exported["state_hash"])
        if self.drawn.get((None, "replay"), ("", None))[0] != key:
            data = self._guard(lambda: render.replay(self.game_id, _spectator_views(exported)), "the replay",
                               "replay")
            if data is not None:
                self._save(None, "replay", render.TITLES["replay"], key, data)

    def _guard(self, work: Callable[[], Any], what: str, kind: str | None = None) -> Any:
        """``work()``, or None after saying why there is no picture: a game without a render
        module gets none at all, a drawing bug loses that kind of picture only (a picture
        must never end the game at the table)."""
        try:
            return work()
        except ImportError as exc:
            self.out(f"(no pictures: render.{self.game_id} is not available: {exc})")
            self.images_disabled = True
        except Exception as exc:
            self.out(f"(no pictures of this kind: drawing {what} failed: {exc!r})")
            if kind is not None:
                self.failed_kinds.add(kind)
            else:
                self.images_disabled = True
        return None

    def _save(self, role: str | None, kind: str, title: str, digest: str, data: bytes) -> None:
        assert self.images_dir is not None
        self.images_dir.mkdir(parents=True, exist_ok=True)
        ext = "gif" if data[:4] == b"GIF8" else "png"
        name = f"{self.game_id}-{self.game_pk}"
        if role is not None:
            name += f"-{role}"
        if kind != "board" or role is None:
            name += f"-{kind}"
        path = self.images_dir / f"{name}.{ext}"
        tmp = path.with_suffix(f".{ext}.tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
        self.drawn[(role, kind)] = (digest, path)
        self.out(f"  {title} of {role}: {path}" if role is not None else f"  {title}: {path}")

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
                    if info.status == "finished":
                        await self.write_final_pictures()
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


def _spectator_views(exported: dict[str, Any]) -> Iterator[View]:
    """The spectator's view after every standing step of an exported game, from its setup:
    the replay keeps one per turn, so they are made one at a time, never all held."""
    module = engine.get(str(exported["game"]))
    state = module.setup(int(exported["seed"]), dict(exported["options"]))
    yield module.view(state, None)
    for move in exported["moves"]:
        state = module.apply(state, move["role"], move["action"])
        yield module.view(state, None)


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
