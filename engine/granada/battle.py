"""Land battles (8.1-8.6): the opening of every land battle and the field combat.

``start_battle(state, loc, attacker)`` pushes one frame ``{"module": "battle", "kind":
"battle", ...}`` that goes through these steps (each one waits for a single decision):

1. ``colour`` — grey and white Christian blocks share the location: the Christian player
   chooses which stack fights (10.12.2);
2. ``castle`` — the side owning the castle declares its blocks inside or outside, or splits
   them at the Alhambra (8.7.2, 8.7.3; see siege.py). A castle siege hands the frame to
   siege.py (``frame["module"] = "siege"``);
3. ``avoid`` — the defender may retreat before combat with a Commander card (10.1) or a
   Castle Surrender card (10.5); always offered when the rules allow it, whatever his hand
   (a reaction prompt: its "fight" carries ``"pass": True``, views.py "reaction");
4. ``deploy`` / ``morale`` / ``respond`` — field combat deployments with the initiative
   going to the side that is behind (8.2, 8.3), Morale Challenges, refutation and the
   Commander's denial (8.4);
5. ``loss`` / ``castle_retreat`` / ``retreat`` — losses and retreats (battle_end.py).

The frame stores only public things (deployed blocks, played cards) besides the deploying
player's private ``pending`` card choice, which ``view`` shows to him alone.
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.granada import battle_deploy as bd
from engine.granada import battle_end as be
from engine.granada import cards as cd
from engine.granada import components as comp
from engine.granada import retreat as rt
from engine.granada import state as st
from engine.text import plural

RULE = "8.2"
COPY_FRAME = bd.copy_frame
"""How apply copies this handler's frame (engine.granada._step): its deployments shared."""


def _blocks() -> dict[str, comp.Block]:
    return comp.load().blocks


def _name(loc: str) -> str:
    return st.data().locations[loc].name


# ---------------------------------------------------------------- entry point

def new_frame(loc: str, attacker: str) -> dict[str, Any]:
    return bd.new_frame(loc, attacker)


def start_battle(state: State, loc: str, attacker: str) -> None:
    """Push the land battle at ``loc`` (8.1) and run its opening up to the first decision."""
    open_frame(state, st.push_frame(state, new_frame(loc, attacker)))


def open_frame(state: State, frame: dict[str, Any]) -> None:
    """Run a pushed battle frame's opening up to its first decision."""
    if st.data().locations[frame["loc"]].castle:
        frame["castle_owner"] = state["castle"].get(frame["loc"])
    _open(state, frame)


def _open(state: State, frame: dict[str, Any]) -> None:
    chris = st.blocks_at(state, frame["loc"], "christian")
    colours = {_blocks()[b].colour == "grey" for b in chris}
    if len(colours) == 2:
        frame["step"] = "colour"
        return
    _castle(state, frame)


def _castle(state: State, frame: dict[str, Any]) -> None:
    from engine.granada import siege

    decision = siege.castle_situation(state, frame)
    if decision in ("choose", "alhambra"):
        frame["step"] = "castle"
        frame["castle_mode"] = decision
        return
    after_castle(state, frame, decision)


def after_castle(state: State, frame: dict[str, Any], mode: str) -> None:
    """The kind of battle is known (8.1, 8.7.2): offer the defender's pre-battle options."""
    frame["mode"] = mode
    if mode == "none":
        st.log(state, f"The {frame['attacker']} blocks stay inside the castle of "
                      f"{_name(frame['loc'])}: no combat this turn (8.7.2).")
        st.settle_location(state, frame["loc"])
        be.close(state, frame, None)
        return
    if not st.blocks_at(state, frame["loc"], frame["attacker"]):
        be.close(state, frame, frame["defender"])
        return
    if avoid_offered(state, frame):
        frame["step"] = "avoid"
        return
    begin(state, frame)


def begin(state: State, frame: dict[str, Any]) -> None:
    """The battle proper: field combat deployments or the castle siege (8.2, 8.7.5)."""
    if frame["mode"] == "siege":
        from engine.granada import siege

        siege.begin(state, frame)
        return
    frame["step"] = "deploy"
    frame["initiative"] = frame["attacker"]
    a = len(bd.force(state, frame, frame["attacker"]))
    d = len(bd.force(state, frame, frame["defender"]))
    st.log(state, f"Field combat at {_name(frame['loc'])}: {plural(a, frame['attacker'].capitalize() + ' block')} "
                  f"against {plural(d, frame['defender'].capitalize() + ' block')} (8.2).")


# ---------------------------------------------------------------- pre-battle options

def _surrender_possible(state: State, frame: dict[str, Any]) -> bool:
    loc, side = frame["loc"], frame["defender"]
    return bool(st.data().locations[loc].castle and state["castle"].get(loc) == side
                and state["surrender"][side])


def avoid_offered(state: State, frame: dict[str, Any]) -> bool:
    """Whether the pre-battle prompt appears; it depends only on public facts."""
    side = frame["defender"]
    if st.blocks_at(state, frame["loc"], side):
        return True          # a Commander card could take the defending stack away (10.1)
    return _surrender_possible(state, frame)


def avoid_actions(state: State, frame: dict[str, Any], side: str) -> list[Action]:
    acts: list[Action] = [
        {"type": "fight", "pass": True, "label": "Fight the battle"},
    ]
    movers = rt.avoiding_blocks(state, frame["loc"], side)
    if movers and rt.avoid_destinations(state, frame["loc"], side, movers):
        for c in cd.hand_of_kind(state, side, "commander"):
            acts.append({"type": "commander_retreat", "card": c,
                         "label": f"Retreat before combat with {st.card_choice(c)} (10.1)"})
    if _surrender_possible(state, frame) and (
            not movers or rt.avoid_destinations(state, frame["loc"], side, movers)):
        c = state["surrender"][side][0]
        acts.append({"type": "surrender", "card": c,
                     "label": f"Surrender the castle of {_name(frame['loc'])} (10.5)"})
    return acts


def _apply_avoid(state: State, frame: dict[str, Any], side: str, action: Action) -> None:
    kind = action["type"]
    if kind == "fight":
        begin(state, frame)
        return
    surrender = kind == "surrender"
    card = action["card"]
    if surrender:
        state["surrender"][side].remove(card)
        st.log(state, f"{side.capitalize()} plays {st.card_name(card)}: the castle of "
                      f"{_name(frame['loc'])} surrenders without a fight (10.5).")
        state["reveals"] += 1
    else:
        st.discard_cards(state, side, [card], "to retreat before combat (10.1)")
    frame["avoid"] = {"surrender": surrender}
    if not rt.avoiding_blocks(state, frame["loc"], side):
        be.after_avoid(state, frame, None)
        return
    frame["step"] = "avoid_to"


def _avoid_to_actions(state: State, frame: dict[str, Any]) -> list[Action]:
    movers = rt.avoiding_blocks(state, frame["loc"], frame["defender"])
    return [{"type": "retreat", "to": x, "label": f"Retreat to {_name(x)} (8.6.7)"}
            for x in rt.avoid_destinations(state, frame["loc"], frame["defender"], movers)]


# ---------------------------------------------------------------- field combat flow

def after_deployment(state: State, frame: dict[str, Any], side: str, outcome: str | None) -> None:
    """After a deployment step of the side holding the initiative (8.2.4, 8.4.1)."""
    if outcome == "finish":
        frame["finished"] = {**frame["finished"], side: True}
        st.log(state, f"{side.capitalize()} deploys no more blocks (8.2.4).")
        _pass_initiative(state, frame)
        return
    if outcome == "deployed" and _challenge_offered(state, frame, side):
        frame["step"] = "morale"
        frame["challenge"] = {"side": side, "dep": len(frame["deployed"][side]) - 1, "card": None}
        return
    if outcome is not None:
        _pass_initiative(state, frame)


def _challenge_offered(state: State, frame: dict[str, Any], side: str) -> bool:
    """8.4.1: right after a challengeable deployment, whatever the challenger holds.
    Once the defender has played a Watchtower card, the attacker may no longer challenge and
    the defender's deployments are protected (10.3)."""
    if frame["mode"] != "field":
        return False
    dep = bd.last_deployment(frame, side)
    if not cd.challengeable(dep["card"], dep["blocks"]):
        return False
    return not (frame.get("watchtower") and side == frame["defender"])


def _pass_initiative(state: State, frame: dict[str, Any]) -> None:
    """Initiative to the side that is behind, ties favouring the defender (8.2.4); once a
    side is finished the other keeps it; when both are, the battle ends."""
    frame["step"] = "deploy"
    frame["challenge"] = None
    att, dfn = frame["attacker"], frame["defender"]
    fin = frame["finished"]
    if fin[att] and fin[dfn]:
        be.begin_losses(state, frame)
        return
    if fin[att] or fin[dfn]:
        frame["initiative"] = dfn if fin[att] else att
        return
    behind = att if frame["impacts"][att] <= frame["impacts"][dfn] else dfn
    if behind != frame["initiative"]:
        st.log(state, f"Impacts {att} {frame['impacts'][att]}, {dfn} {frame['impacts'][dfn]}: "
                      f"the initiative passes to the {behind} player (8.2.4).")
    frame["initiative"] = behind


def _morale_actions(state: State, frame: dict[str, Any], side: str) -> list[Action]:
    acts: list[Action] = [{"type": "pass", "pass": True, "label": "Let the deployment stand"}]
    for c in cd.hand_of_kind(state, side, "morale"):
        acts.append({"type": "challenge", "card": c,
                     "label": f"Challenge the deployment with {st.card_choice(c)} (8.4)"})
    return acts


def _challenged_block(frame: dict[str, Any]) -> comp.Block:
    ch = frame["challenge"]
    dep = frame["deployed"][ch["side"]][ch["dep"]]
    blocks = _blocks()
    return next(blocks[b] for b in dep["blocks"] if not cd.morale_immune(blocks[b]))


def _respond_actions(state: State, frame: dict[str, Any], side: str) -> list[Action]:
    target = _challenged_block(frame)
    cards = comp.load().cards
    acts: list[Action] = []
    for c in state["hands"][side]:
        if cd.can_refute(cards[c], target):
            acts.append({"type": "refute", "card": c,
                         "label": f"Show {st.card_choice(c)}: the block keeps its morale (8.4.1)"})
    for c in cd.hand_of_kind(state, side, "commander"):
        acts.append({"type": "deny", "card": c,
                     "label": f"Deny the challenge with {st.card_choice(c)} (10.1)"})
    acts.append({"type": "concede", "label": "Show no card: the deployment does not fight (8.4.1)"})
    return acts


def _apply_morale(state: State, frame: dict[str, Any], side: str, action: Action) -> None:
    ch = frame["challenge"]
    if action["type"] == "pass":
        _pass_initiative(state, frame)
        return
    cd.play_to_battle(state, side, action["card"], "to challenge the morale of that deployment (8.4)")
    frame["challenge"] = {**ch, "card": action["card"]}
    frame["step"] = "respond"


def _apply_respond(state: State, frame: dict[str, Any], side: str, action: Action) -> None:
    ch = frame["challenge"]
    dep = frame["deployed"][side][ch["dep"]]
    kind = action["type"]
    if kind in ("refute", "deny"):
        st.show_card(state, side, action["card"])
        how = "refutes the challenge by showing" if kind == "refute" else "denies the challenge with"
        st.log(state, f"{side.capitalize()} {how} {st.card_name(action['card'])}; "
                      f"it returns to his hand (8.4.1{', 10.1' if kind == 'deny' else ''}).")
    else:
        blocks = _blocks()
        # a new entry, not an edit (the entries may be the input state's: bd.copy_frame)
        dep = frame["deployed"][side][ch["dep"]] = {
            **dep, "out": [b for b in dep["blocks"] if not cd.morale_immune(blocks[b])]}
        bd.refresh(frame)
        names = ", ".join(st.block_name(b) for b in dep["out"])
        st.log(state, f"{side.capitalize()} cannot refute: {names} does not fight in this battle "
                      f"(8.4.1); impacts now {frame['impacts'][side]}.")
    _pass_initiative(state, frame)


# ---------------------------------------------------------------- frame protocol

def active(state: State, frame: dict[str, Any]) -> list[str]:
    step = frame["step"]
    if step == "colour":
        return ["christian"]
    if step == "castle":
        from engine.granada import siege

        return [siege.castle_chooser(frame)]
    if step in ("avoid", "avoid_to"):
        return [frame["defender"]]
    if step == "deploy":
        return [frame["initiative"]]
    if step == "morale":
        return [st.other(frame["challenge"]["side"])]
    if step == "respond":
        return [frame["challenge"]["side"]]
    return be.active(state, frame)


def actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    return _actions(state, role, frame)


def _actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    step = frame["step"]
    if step == "colour":
        return [{"type": "fight_with", "colour": c,
                 "label": f"The {c} blocks fight; the others stand aside (10.12.2)"}
                for c in ("white", "grey")]
    if step == "castle":
        from engine.granada import siege

        return siege.castle_actions(state, frame, role)
    if step == "avoid":
        return avoid_actions(state, frame, role)
    if step == "avoid_to":
        return _avoid_to_actions(state, frame)
    if step == "deploy":
        return bd.actions(state, frame, role)
    if step == "morale":
        return _morale_actions(state, frame, role)
    if step == "respond":
        return _respond_actions(state, frame, role)
    return be.actions(state, role, frame)


def apply(state: State, role: str, action: Action, frame: dict[str, Any]) -> None:
    step = frame["step"]
    if step == "colour":
        frame["colour"] = {**frame["colour"], "christian": action["colour"]}
        st.log(state, f"The Christian {action['colour']} blocks fight at {_name(frame['loc'])} (10.12.2).")
        _castle(state, frame)
    elif step == "castle":
        from engine.granada import siege

        mode = siege.apply_castle(state, frame, role, action)
        if mode is not None:
            after_castle(state, frame, mode)
    elif step == "avoid":
        _apply_avoid(state, frame, role, action)
    elif step == "avoid_to":
        be.after_avoid(state, frame, action["to"])
    elif step == "deploy":
        after_deployment(state, frame, role, bd.apply(state, frame, role, action))
    elif step == "morale":
        _apply_morale(state, frame, role, action)
    elif step == "respond":
        _apply_respond(state, frame, role, action)
    else:
        be.apply(state, role, action, frame)


def advance(state: State, frame: dict[str, Any]) -> bool:
    if frame["step"] == "open":
        # a battle asked for by battle_end.close (a retreat's follow-on battle, 8.6.6)
        open_frame(state, frame)
        return True
    return be.advance(state, frame)


def prompt(state: State, role: str, frame: dict[str, Any]) -> str:
    where = _name(frame["loc"])
    step = frame["step"]
    if step == "colour":
        return f"Battle at {where}: choose whether your white or your grey blocks fight (10.12.2)."
    if step == "castle":
        from engine.granada import siege

        return siege.castle_prompt(frame)
    if step == "avoid":
        # the choices the menu lists (a Commander card to retreat, a castle to surrender), and
        # only those: "or retreat" above a lone "Fight the battle" misled (issue 38)
        kinds = {a["type"] for a in avoid_actions(state, frame, role)}
        offers = ["fight"] + [w for k, w in (("commander_retreat", "retreat before combat with a Commander card"),
                                              ("surrender", "surrender the castle")) if k in kinds]
        if len(offers) == 1:
            return f"You are attacked at {where}: you hold no card to retreat before combat; fight (10.1)."
        return f"You are attacked at {where}: {', '.join(offers[:-1])} or {offers[-1]} (10.1, 10.5)?"
    if step == "avoid_to":
        return f"Choose where your blocks retreat from {where} (8.6.7)."
    if step == "deploy":
        imp = frame["impacts"]
        return (f"Field combat at {where} — impacts: attacker {imp[frame['attacker']]}, defender "
                f"{imp[frame['defender']]}. {bd.offer(state, frame, role)} (8.2).")
    if step == "morale":
        if not any(a["type"] == "challenge" for a in _morale_actions(state, frame, role)):
            return "Your opponent has just deployed; you hold no Morale Challenge card: let it stand (8.4)."
        return "Your opponent has just deployed: challenge its morale? (8.4)"
    if step == "respond":
        return "Your deployment is challenged: show a card of its faction, deny with a Commander, or concede (8.4.1)."
    return be.prompt(state, role, frame)


def view(state: State, role: str | None, frame: dict[str, Any]) -> dict[str, Any]:
    """The battle board as ``role`` may see it (battle_deploy.board_view)."""
    return bd.board_view(state, role, frame)


def choose_weight(action: Action) -> float:
    return {"concede": 0.3, "fight": 3.0,
            "pass": 2.0}.get(action["type"], bd.weight(action))


def redeal(state: State, role: str, frame: dict[str, Any], gen: Any) -> None:
    """The opponent's private card choice is forgotten (battle_deploy.redeal_pending)."""
    bd.redeal_pending(state, role, frame)
