"""The questions every front end asks of a view (bot/viewkeys.py), on views of the shape
docs/architecture.md fixes: nothing game-specific is read."""

from __future__ import annotations

from bot.viewkeys import autopass_hint, is_reaction, pass_action

PASS = {"type": "fight", "label": "Fight", "pass": True}
REACT = {"type": "retreat", "label": "Retreat"}


def test_only_a_reaction_prompt_with_a_marked_pass_gets_the_auto_pass_hint() -> None:
    reaction = {"prompt": "Avoid battle?", "reaction": True, "actions": [REACT, PASS]}
    assert is_reaction(reaction) and pass_action(reaction) == PASS
    assert autopass_hint(reaction, "`/prefs autopass:True`") == "Auto-pass such questions: `/prefs autopass:True`."
    # a reaction offering no marked pass, an ordinary question, a view that says nothing
    for view in ({"reaction": True, "actions": [REACT]}, {"reaction": False, "actions": [REACT, PASS]},
                 {"actions": [PASS]}):
        assert autopass_hint(view, "x") is None, view
