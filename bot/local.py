"""The terminal table: play a game at the keyboard on the same service and database.

Hot-seat (one person plays every seat given with ``--seat``, or all seats), or against the
built-in player (seats not given), or ``--autoplay`` (the built-in player takes every seat).
``--level`` sets the level the built-in player plays at (every seat, or one role's), kept with
the game's seats, so ``--resume`` plays on at the same level.
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
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
import render
from bot.service import (
    CONFIRM_FORCED,
    GameInfo,
    GameService,
    NotAllowed,
    ServiceError,
    StaleVersion,
    StepResult,
    _bot_seed,
)
from bot.service.levels import level_of
from bot.service.outcome import result_sentence
from bot.thinking import Decision, InlineThinker, Thinking
from bot.viewkeys import autopass_hint, entry_text, pass_action
from engine.api import RuleError, View, describe, view_held, visible_log
from engine.text import plural, role_name

Output = Callable[[str], None]
Input = Callable[[str], str]

#: Pictures of the whole table, written once from the spectator's view rather than per seat.
PUBLIC_KINDS = frozenset({"reveal"})
HELP = ("Type the number of an order, 'u' to take back your last step, 'log' to see the whole log, "
        "'autopass on' or 'autopass off' to let the table pass reaction prompts for this seat, "
        "'confirm on' to be asked for forced steps too (your only choice, which decides nothing: "
        "by default the table takes them for you and says so), 'confirm off' to let it take them again, "
        "'q' to stop (the game is kept). An entry marked (final: cannot be taken back) draws at random "
        "or reveals hidden information: 'u' cannot undo it.")
#: The seat preference where the table keeps how much of the log it printed (public lines,
#: the seat's private lines), so that a resumed game prints each line once, even after a crash.
SEEN_PREF = "log_seen"


def program_name(argv0: str | None = None) -> str:
    """How to call ``alcazaba`` again, for the "continue with" hint: the bare name only when
    it is on the PATH; else the script's absolute path (``/.../.venv/bin/alcazaba`` after
    ``make run``), so that the hint works pasted in any folder."""
    raw = sys.argv[0] if argv0 is None else argv0
    script = Path(raw)
    if script.name != "alcazaba":
        script = Path(sys.executable).with_name("alcazaba")  # python -m bot.cli, tests
    on_path = shutil.which("alcazaba")
    if on_path is not None and script.exists() and Path(on_path).resolve() == script.resolve():
        return "alcazaba"
    return os.path.abspath(script)


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
    program: str = "alcazaba"
    #: The built-in player also moves for the seats of this table (``--autoplay``).
    autoplay: bool = False
    #: Public log lines (those every view shows) already printed, counted from the start:
    #: one count for the whole table, so that hot-seat players, the spectator's lines and a
    #: resumed game never print a line twice.
    public_seen: int = 0
    #: Private lines (with ``"to"``) already printed, per role.
    private_seen: dict[str, int] = field(default_factory=dict)
    images_disabled: bool = False
    #: (role or None for the table, kind) -> (digest of what the file was drawn from, path)
    drawn: dict[tuple[str | None, str], tuple[str, Path]] = field(default_factory=dict)
    failed_kinds: set[str] = field(default_factory=set)
    #: Where the built-in player's searches run (here, by default: nothing else waits).
    thinker: Thinking = field(default_factory=InlineThinker)
    #: The ``--db`` the table was started with (absolute path or URL), for the resume hint.
    db: str | None = None

    # ----------------------------------------------------------------- output

    async def show_new_lines(self, role: str | None) -> None:
        """Print the log lines ``role`` may read that were not printed yet."""
        view = await self.service.view(self.game_pk, role)
        self.print_new(role, view.view.get("log") or [])
        await self.remember_seen()

    def print_new(self, role: str | None, log: list[dict[str, Any]]) -> None:
        public = private = 0
        known_private = self.private_seen.get(role, 0) if role is not None else 0
        for entry in log:
            if "to" in entry:
                if private >= known_private:
                    self.out(f"  (private) {entry.get('text', '')}")
                private += 1
            else:
                if public >= self.public_seen:
                    self.out(f"  {entry.get('text', '')}")
                public += 1
        self.public_seen = max(self.public_seen, public)
        if role is not None:
            self.private_seen[role] = max(known_private, private)

    async def remember_seen(self) -> None:
        """Keep, in each seat of this table, how much of the log was printed (SEEN_PREF):
        written as soon as lines are printed, so a resume after ``q`` or after a crash
        prints the lines not seen yet and no others."""
        info = await self.service.game(self.game_pk)
        for seat in info.seats:
            if not seat.is_terminal:
                continue
            mark = {"public": self.public_seen, "private": self.private_seen.get(seat.role, 0)}
            if seat.prefs.get(SEEN_PREF) != mark:
                await self.service.set_prefs(self.game_pk, seat.role, {**seat.prefs, SEEN_PREF: mark})

    async def catch_up(self, info: GameInfo) -> None:
        """A resumed game: the log counted as printed as far as the seats' SEEN_PREF says (a
        game without one, from an older release, counts as read); says how to read it again."""
        spectator = (await self.service.view(self.game_pk, None)).view.get("log") or []
        public = sum(1 for e in spectator if "to" not in e)
        marks = {s.role: s.prefs.get(SEEN_PREF) for s in info.seats if s.is_terminal}
        known = [m for m in marks.values() if isinstance(m, dict)]
        self.public_seen = min(public, max((int(m.get("public", 0)) for m in known), default=public))
        for role, mark in marks.items():
            log = (await self.service.view(self.game_pk, role)).view.get("log") or []
            private = sum(1 for e in log if "to" in e)
            self.private_seen[role] = min(private, int(mark.get("private", 0))) if isinstance(mark, dict) else private
        if self.public_seen:
            self.out(f"(the {self.public_seen} log lines printed before are not repeated; type 'log' to read the "
                     "whole log)")

    async def forget_taken_back(self, roles: list[str]) -> None:
        """After an undo the log is shorter: the counts follow it down, so that the lines of a
        step made again are printed again, and nothing else is."""
        spectator = (await self.service.view(self.game_pk, None)).view.get("log") or []
        self.public_seen = min(self.public_seen, sum(1 for e in spectator if "to" not in e))
        for role in roles:
            log = (await self.service.view(self.game_pk, role)).view.get("log") or []
            self.private_seen[role] = min(self.private_seen.get(role, 0), sum(1 for e in log if "to" in e))

    async def show_whole_log(self, role: str) -> None:
        log = (await self.service.view(self.game_pk, role)).view.get("log") or []
        self.out(f"--- the whole log, as {role_name(role)} reads it ({plural(len(log), 'line')}) ---")
        for entry in log:
            prefix = "  (private) " if "to" in entry else "  "
            self.out(f"{prefix}{entry.get('text', '')}")
        self.out("--- end of the log ---")

    async def show_final_hands(self, info: GameInfo) -> None:
        """The final reveal in words: what each side held at the end (the game is over, so
        nothing is hidden any more), from each side's own end-of-game view."""
        lines = []
        for role in info.roles:
            view = (await self.service.view(self.game_pk, role)).view
            held = _held(view)
            if held is not None:
                lines.append(f"  {role}: {held}")
        if lines:
            self.out("Final reveal (what each side held at the end):")
            for line in lines:
                self.out(line)

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
        for forced in await self.service.take_forced(self.game_pk):  # a game that starts with one
            self.print_forced_note(forced)
        while True:
            steps = await self.service.play_bots(self.game_pk, max_steps=200, thinker=self.thinker)
            if steps:
                changed = True
                for step in steps:
                    self.print_forced(step)
            info = await self.service.game(self.game_pk)
            if info.status in ("finished", "aborted"):
                await self.show_new_lines(None)
                if changed:
                    await self.write_images(info)
                    if info.status == "finished":
                        await self.write_final_pictures()
                if info.status == "finished":
                    await self.show_final_hands(info)
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
            if self.autoplay:
                await self.play_for(info, terminal[0])
                await self.show_new_lines(None)
                changed = True
                continue
            if await self.auto_pass(info, terminal):
                changed = True
                continue
            if changed:
                await self.write_images(info)
                changed = False
            outcome = await self.turn(info, terminal[0])
            if outcome == "quit":
                self.out(f"game {self.game_pk} saved; continue with: {self.resume_command()}")
                return 0
            changed = outcome == "changed"

    def resume_command(self) -> str:
        """The command that continues this game, as it can be pasted: the program's absolute
        path (or its name on the PATH) and the ``--db`` the table was started with."""
        words = [self.program, "local", self.game_id, "--resume", str(self.game_pk)]
        return shlex.join(words + (["--db", self.db] if self.db else []))

    async def play_for(self, info: GameInfo, role: str) -> None:
        """One move of the built-in player for a seat of this table (``--resume --autoplay``):
        the same player at the game's level, seeded the same way, as for the seats it holds."""
        version, state = await self.service.state(self.game_pk)
        decision = Decision(game_pk=self.game_pk, game_id=self.game_id, version=version, state=state, role=role,
                            seed=_bot_seed(info.seed, version, role), level=level_of(info, role))
        action = await self.thinker.decide(decision)
        await self.service.apply(self.game_pk, role, action, version)

    async def auto_pass(self, info: GameInfo, roles: list[str]) -> bool:
        """Pass for a seat that asked for it (``autopass on``, the seat preference Discord's
        ``/prefs autopass`` sets) when its prompt is a reaction with a pass on offer."""
        for role in roles:
            seat = info.seat(role)
            if seat is None or not seat.prefs.get("autopass"):
                continue
            view = await self.service.view(self.game_pk, role)
            chosen = pass_action(view.view)
            if chosen is None:
                continue
            await self.show_new_lines(role)
            step = await self.service.apply(self.game_pk, role, chosen, view.version)
            self.out(f"  (auto-pass) {role}: {describe(chosen)}")
            self.print_result(role, step)
            await self.remember_seen()
            return True
        return False

    def print_result(self, role: str, step: StepResult) -> None:
        """The lines of a step ``role`` made, then each forced step the service took after it,
        said to be automatic, with its lines."""
        after = [visible_log(f.log, role) for f in step.forced]
        own = len(step.log) - sum(len(lines) for lines in after)
        self.print_step(role, step.log[:own])
        for forced, lines in zip(step.forced, after, strict=True):
            self.print_forced_note(forced)
            self.print_step(role, lines)

    def print_forced(self, step: StepResult) -> None:
        """Say which forced steps the service took after a step of the built-in player (their
        lines come with the next prompt)."""
        for forced in step.forced:
            self.print_forced_note(forced)

    def print_forced_note(self, forced: StepResult) -> None:
        self.out(f"  (automatic) {forced.role}: {describe(forced.action or {})} - the only choice, "
                 "taken for you ('confirm on' to be asked)")

    def print_step(self, role: str, log: list[dict[str, Any]]) -> None:
        for entry in log:
            private = "to" in entry
            self.out(f"{'  (private) ' if private else '  '}{entry.get('text', '')}")
            if private:
                self.private_seen[role] = self.private_seen.get(role, 0) + 1
            else:
                self.public_seen += 1

    async def set_autopass(self, role: str, answer: str) -> None:
        words = answer.split()
        if len(words) != 2 or words[1] not in ("on", "off"):
            self.out("Type 'autopass on' or 'autopass off'.")
            return
        info = await self.service.game(self.game_pk)
        seat = info.seat(role)
        prefs = dict(seat.prefs) if seat is not None else {}
        prefs["autopass"] = words[1] == "on"
        await self.service.set_prefs(self.game_pk, role, prefs)
        if prefs["autopass"]:
            self.out(f"Auto-pass is on for {role}: reaction prompts that offer a pass are passed for you.")
        else:
            self.out(f"Auto-pass is off for {role}: every reaction prompt is asked.")

    async def set_confirm(self, role: str, answer: str) -> None:
        """``confirm on``: forced steps are asked like any other; ``confirm off``: the service
        takes them (the seat preference Discord's ``/prefs confirm_forced`` sets)."""
        words = answer.split()
        if len(words) != 2 or words[1] not in ("on", "off"):
            self.out("Type 'confirm on' or 'confirm off'.")
            return
        info = await self.service.game(self.game_pk)
        seat = info.seat(role)
        prefs = dict(seat.prefs) if seat is not None else {}
        prefs[CONFIRM_FORCED] = words[1] == "on"
        await self.service.set_prefs(self.game_pk, role, prefs)
        if prefs[CONFIRM_FORCED]:
            self.out(f"Forced steps are asked for {role}: even a menu with one choice that decides nothing waits "
                     "for you.")
        else:
            self.out(f"Forced steps are taken for {role}: a menu with one choice that decides nothing is answered "
                     "for you, and the table says so.")

    async def turn(self, info: GameInfo, role: str) -> str:
        """Ask ``role`` for one order: 'changed', 'same' (nothing happened) or 'quit'."""
        view = await self.service.view(self.game_pk, role)
        actions: list[dict[str, Any]] = view.view.get("actions") or []
        self.out("")
        self.out(f"--- {info.title} #{self.game_pk} - {role} - move {await self.steps_standing()} ---")
        await self.show_new_lines(role)
        self.out(str(view.view.get("prompt", "")))
        hint = autopass_hint(view.view, "type 'autopass on'")
        if hint:
            self.out(hint)
        for number, action in enumerate(actions, start=1):
            self.out(f"  {number:>3}. {entry_text(action)}")
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
            if answer == "log":
                await self.show_whole_log(role)
                continue
            if answer.split()[:1] == ["confirm"]:
                await self.set_confirm(role, answer)
                if answer.split()[1:] == ["off"]:
                    taken = await self.service.take_forced(self.game_pk)
                    for forced in taken:  # this very prompt, if it is a forced step
                        self.print_forced_note(forced)
                    if taken:
                        return "changed"
                continue
            if answer.split()[:1] == ["autopass"]:
                await self.set_autopass(role, answer)
                if pass_action(view.view) is not None and answer.split()[1:] == ["on"]:
                    return "same"  # the loop passes this very prompt
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
            self.print_result(role, step)
            await self.remember_seen()
            return "changed"

    async def steps_standing(self) -> int:
        return await steps_standing(self.service, self.game_pk)

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
                self.out(f"{role_name(who)} takes back a step.")
                await self.forget_taken_back([s.role for s in info.seats if s.is_terminal])
                await self.remember_seen()
                return "changed"
            refusal = refusal or reason
        self.out(refusal)
        return "same"

    def finish(self, info: GameInfo) -> int:
        if info.status == "aborted":
            self.out(f"game {self.game_pk} aborted: {json.dumps(info.result, sort_keys=True)}")
        else:
            # In words first (who won, from the result itself), then the result for scripts.
            self.out(f"Result: {result_sentence(info.result)}")
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
    options: dict[str, Any] | None = None,
    program: str | None = None,
    out: Output = print,
    ask: Input = input,
    levels: dict[str | None, str] | None = None,
    thinker: Thinking | None = None,
    db: str | None = None,
) -> int:
    """Create (or resume) a game and play it at the terminal. Returns the exit status.

    ``levels``: the built-in player's level per role, ``None`` standing for every role not
    named (``--level hard --level muslim=easy``); kept with the seats. ``db``: the ``--db``
    given (absolute path or URL), repeated in the resume hint."""
    if resume is not None:
        info = await service.game(resume)
        if game_id and info.game_id != game_id:
            raise LocalError(f"game {resume} is a game of {info.game_id}, not {game_id}.")
        if any(s.user_id is not None for s in info.seats):
            raise LocalError(f"game {resume} is played on Discord; it cannot be continued here.")
        if seats:
            raise LocalError("--seat chooses the seats of a new game; a resumed game keeps its seats.")
        if info.status == "open":
            info = await service.start(resume, fill_with_bots=True)
        if levels and info.status == "running":
            info = await service.set_levels(info.id, _levels_per_role(info.roles, levels))
        out(f"game {info.id}: {info.title}, resumed at move {await steps_standing(service, info.id)}"
            + (" (the built-in player finishes it)" if autoplay else ""))
    else:
        if game_id not in engine.GAMES:
            raise LocalError(f"unknown game {game_id!r}; known games: {', '.join(sorted(engine.GAMES))}")
        info = await service.create_game(game_id, options or {}, seed)
        wanted = _seat_plan(info.roles, seats or [], autoplay)
        per_role = _levels_per_role(info.roles, levels or {})
        for role in info.roles:
            if role in wanted:
                await service.join(info.id, None, f"terminal ({role})", role)
            else:
                await service.join(info.id, None, "built-in player", role, is_bot=True)
        if per_role:
            await service.set_levels(info.id, per_role)
        info = await service.start(info.id)
        players = ", ".join(f"{s.role}: {f'built-in player ({level_of(info, s.role)})' if s.is_bot else 'you'}"
                            for s in info.seats)
        out(f"game {info.id}: {info.title}, seed {info.seed} ({players})")
    table = Table(service, info.id, info.game_id, images_dir, out=out, ask=ask,
                  program=program if program is not None else program_name(),
                  autoplay=autoplay and resume is not None, thinker=thinker or InlineThinker(), db=db)
    if resume is not None:
        await table.catch_up(info)
    return await table.run(autoplay_output=autoplay)


async def steps_standing(service: GameService, game_pk: int) -> int:
    """The move counter: steps made and not taken back (an undo record is no move)."""
    return sum(1 if m["kind"] == "step" else -1 for m in await service.moves(game_pk))


def _held(view: View) -> str | None:
    """What a side's own view says it holds: the game's own words for it (the view's
    ``held``, engine/api.py: cards named, special cards with their names), else its ``hand``
    as it is. The table knows no game's cards."""
    said = view_held(view)
    if said is not None:
        return "; ".join(said) or None
    hand = view.get("hand")
    if isinstance(hand, list):
        cards = view.get("cards")
        table: dict[str, Any] = cards if isinstance(cards, dict) else {}
        return "hand: " + (", ".join(_card(c, table) for c in hand) or "empty")
    return None


def _card(card: Any, table: dict[str, Any]) -> str:
    """A card of a hand by the name its view gives it (the id after it, for reference)."""
    entry = table.get(card) if isinstance(card, str) else card
    if isinstance(entry, dict) and entry.get("name"):
        return f"{entry['name']} ({card})" if isinstance(card, str) else str(entry["name"])
    if isinstance(entry, dict) and isinstance(card, str):
        return f"{card} (" + ", ".join(f"{k} {v}" for k, v in entry.items()) + ")"
    return json.dumps(card) if not isinstance(card, str) else card


def _spectator_views(exported: dict[str, Any]) -> Iterator[View]:
    """The spectator's view after every standing step of an exported game, from its setup:
    the replay keeps one per turn, so they are made one at a time, never all held."""
    module = engine.get(str(exported["game"]))
    for state in engine.replay(module, int(exported["seed"]), exported["options"], exported["moves"]):
        yield module.view(state, None)


def _levels_per_role(roles: list[str], levels: dict[str | None, str]) -> dict[str, str]:
    """``--level`` given per role (``None``: every role not named) as a level for each role;
    a role the game does not have is refused."""
    unknown = [r for r in levels if r is not None and r not in roles]
    if unknown:
        raise LocalError(f"--level names no role of this game ({', '.join(unknown)}); the roles are "
                         f"{', '.join(roles)}.")
    every = levels.get(None)
    chosen: dict[str, str] = {}
    for role in roles:
        level = levels.get(role, every)
        if level is not None:
            chosen[role] = level
    return chosen


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
