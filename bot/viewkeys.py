"""What a front end reads from a view without knowing the game (docs/architecture.md, "What a view
carries"): ``phase``, ``reaction``, the pass marked ``"pass": true`` (``engine.api.is_pass``,
the one definition a deadline's auto-pass uses too) and the entries marked ``final`` (a step
that cannot be taken back, ``engine.api.mark_steps``). The Discord front end
and the terminal table both ask these questions here, so that neither guesses at a game's
own keys and both answer a reaction prompt the same way.
"""

from __future__ import annotations

from typing import Any

from engine.api import View, describe, pass_of, view_actions


def phase_key(view: View) -> str | None:
    """The view's ``phase``: it changes exactly when a new public picture is worth posting (a
    new turn, phase or battle). None when the view says nothing, so no picture is forced."""
    phase = view.get("phase")
    if phase is None or isinstance(phase, list | dict):
        return None
    return str(phase)[:200]


def is_reaction(view: View) -> bool:
    """A prompt that only asks whether to react: the engine says so with ``reaction``."""
    return view.get("reaction") is True


def pass_action(view: View) -> dict[str, Any] | None:
    """The pass the engine offers on a reaction prompt (the action marked ``"pass": true``),
    or None: on any other prompt, or when the engine offers no marked pass (the front ends add
    no rule)."""
    if not is_reaction(view):
        return None
    return pass_of(view_actions(view))


def autopass_hint(view: View, how: str) -> str | None:
    """The line a front end adds under a reaction prompt that offers a pass, saying how to let
    it be passed (``how``: that front end's own command). The engine's prompt names no front end."""
    return f"Auto-pass such questions: {how}." if pass_action(view) is not None else None


FINAL_NOTE = "(final: cannot be taken back)"
"""What an entry marked ``final`` says after its text: the step draws at random or reveals
hidden information, so ``u``/undo will refuse it afterwards."""


def is_final(action: dict[str, Any]) -> bool:
    """An entry whose step cannot be taken back (marked by the engine's adapter)."""
    return action.get("final") is True


def entry_text(action: dict[str, Any], limit: int | None = None) -> str:
    """A menu entry's text: the action's label, with :data:`FINAL_NOTE` after it on a step
    that cannot be taken back; within ``limit`` characters, the label shortened first so that
    the note is never cut off."""
    note = f" {FINAL_NOTE}" if is_final(action) else ""
    text = describe(action)
    if limit is not None and len(text) + len(note) > limit:
        room = max(1, limit - len(note) - 1)
        text = text[:room].rstrip() + "…"
    return f"{text}{note}"
