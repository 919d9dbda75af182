"""Castle sieges (8.7): the inside/outside declaration (8.7.2), the Alhambra (8.7.3), disks
(8.7.4, 10.6, 10.7), the siege procedure with the 7/8/9/10 impact table, ports and naval
blockades, the defender's subtracting artillery (8.7.5), the restrictions (8.7.6).

The declaration runs inside the battle frame (step ``castle``, module battle.py). A siege
then takes the frame over (``frame["module"] = "siege"``) with these steps:

* ``besiege`` — the attacker assaults, or holds this turn (8.7.5 note: the besieger may
  continue the siege any other turn). The assault is offered only when the attacker's
  blocks and hand could eliminate at least one defending unit (8.7.1); the attacker is
  asked even when he may only hold, so that the defender learns nothing of his hand;
* ``assault`` — the attacker holds the initiative throughout and deploys as he wishes;
* ``fire`` — after each attacker deployment the defender may make artillery special attacks
  or play a Bombardment card (8.7.5 B, "at any moment"); a reaction prompt (its pass,
  "hold_fire", is marked ``"pass": True`` for a front end's auto-pass); ``fire_final`` is his
  last chance once the attacker is finished and is an ordinary question;
* ``siege_loss`` — the defender picks his losses, the disk always last (8.7.5 D).
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.granada import battle_deploy as bd
from engine.granada import battle_end as be
from engine.granada import battle_impacts as imp
from engine.granada import cards as cd
from engine.granada import components as comp
from engine.granada import state as st
from engine.granada import supply
from engine.text import plural

RULE = "8.7"
CASTLE_LIMIT = 2     # 8.7.2
ALHAMBRA = "granada"


def _blocks() -> dict[str, comp.Block]:
    return comp.load().blocks


def _name(loc: str) -> str:
    return st.data().locations[loc].name


# ---------------------------------------------------------------- declaration (8.7.2, 8.7.3)

def _owner_blocks(state: State, frame: dict[str, Any]) -> list[str]:
    owner = frame["castle_owner"]
    ids = st.blocks_at(state, frame["loc"], owner)
    colour = frame["colour"].get(owner)
    if colour:
        ids = [b for b in ids if (_blocks()[b].colour == "grey") == (colour == "grey")]
    return ids


def castle_situation(state: State, frame: dict[str, Any]) -> str:
    """"field", "siege", "none" (the active owner stays inside), or a decision to make:
    "choose" (inside or outside, 2 blocks or fewer) or "alhambra" (split, 8.7.3)."""
    loc, owner = frame["loc"], frame["castle_owner"]
    if owner is None or not st.data().locations[loc].castle:
        return _field(state, frame)
    mine = _owner_blocks(state, frame)
    if not mine:
        if owner == frame["defender"] and (st.disks_at(state, loc) or any(
                state["blocks"][b]["inside"] for b in st.blocks_at(state, loc, owner))):
            return "siege"           # a lone disk is always inside its castle (8.7.4)
        return _field(state, frame)
    if loc == ALHAMBRA and owner == "muslim":
        return "alhambra"
    if len(mine) > CASTLE_LIMIT:
        return _field(state, frame)  # more than 2 blocks always fight outside (8.7.2)
    return "choose"


def _field(state: State, frame: dict[str, Any]) -> str:
    """Everybody fights outside (disks stay in their castle, 8.7.4)."""
    for b in st.blocks_at(state, frame["loc"]):
        state["blocks"][b]["inside"] = False
    return "field"


def castle_chooser(frame: dict[str, Any]) -> str:
    owner: str = frame["castle_owner"]
    return owner


def castle_actions(state: State, frame: dict[str, Any], role: str) -> list[Action]:
    if frame["castle_mode"] == "choose":
        return [{"type": "stay_inside", "label": f"Stay inside the castle of {_name(frame['loc'])} (8.7.2)"},
                {"type": "come_out", "label": "Fight outside the castle: a field combat (8.7.2)"}]
    acts: list[Action] = []
    mine = _owner_blocks(state, frame)
    inside = [b for b in mine if state["blocks"][b]["inside"]]
    for b in mine:
        if state["blocks"][b]["inside"]:
            acts.append({"type": "bring_out", "block": b,
                         "label": f"{st.block_name(b)} defends in the open field"})
        elif len(inside) < CASTLE_LIMIT:
            acts.append({"type": "keep_inside", "block": b,
                         "label": f"{st.block_name(b)} stays inside the Alhambra (8.7.3)"})
    acts.append({"type": "split_done", "label": f"Done: {plural(len(inside), 'block')} inside the Alhambra"})
    return acts


def apply_castle(state: State, frame: dict[str, Any], role: str, action: Action) -> str | None:
    """Perform a step of the inside/outside declaration; returns the kind of battle once it
    is known ("field", "siege" or "none": battle.py goes on from there), else None."""
    kind = action["type"]
    mine = _owner_blocks(state, frame)
    if kind in ("keep_inside", "bring_out"):
        state["blocks"][action["block"]]["inside"] = kind == "keep_inside"
        return None
    if kind == "come_out":
        for b in mine:
            state["blocks"][b]["inside"] = False
        st.log(state, f"The {role} blocks fight outside the castle of {_name(frame['loc'])} (8.7.2).")
        return "field"
    if kind == "stay_inside":
        for b in mine:
            state["blocks"][b]["inside"] = True
    inside = [b for b in mine if state["blocks"][b]["inside"]]
    outside = [b for b in mine if not state["blocks"][b]["inside"]]
    st.log(state, f"{role.capitalize()}: {plural(len(inside), 'block')} inside the castle of "
                  f"{_name(frame['loc'])}, {len(outside)} outside (8.7.2).")
    if outside:
        return "field"
    return "none" if role == frame["attacker"] else "siege"


def castle_prompt(frame: dict[str, Any]) -> str:
    if frame["castle_mode"] == "alhambra":
        return "Christians reach Granada: choose up to 2 blocks to remain inside the Alhambra (8.7.3)."
    return f"Battle at {_name(frame['loc'])}: stay inside your castle or fight outside (8.7.2)?"


# ---------------------------------------------------------------- the siege (8.7.5)

def begin(state: State, frame: dict[str, Any]) -> None:
    frame["module"] = "siege"
    frame["mode"] = "siege"
    frame["step"] = "besiege"
    frame["initiative"] = frame["attacker"]
    frame["fire_done"] = False
    # The attacker is asked even when his blocks and hand cannot deliver one loss (8.7.1):
    # he then may only hold. Holding at once would tell the defender about his hand.
    st.log(state, f"Castle siege at {_name(frame['loc'])} (8.7).")


def _hold(state: State, frame: dict[str, Any]) -> None:
    st.log(state, f"The {frame['attacker']} player does not assault the castle of "
                  f"{_name(frame['loc'])} this turn (8.7).")
    st.settle_location(state, frame["loc"])
    be.close(state, frame, None)


def _port(state: State, frame: dict[str, Any]) -> tuple[bool, bool]:
    """(castle with a port, port blockaded by fleets of the besieger) (7.5.5, 8.7.5)."""
    loc = frame["loc"]
    zone = st.data().locations[loc].port
    if not zone:
        return False, False
    key = f"sea:{zone}"
    blocks = _blocks()
    enemy = frame["attacker"]
    blockade = any(rec["loc"] == key and blocks[b].fleet and st.owner(b) == enemy
                   for b, rec in state["blocks"].items())
    return True, blockade


def threshold(state: State, frame: dict[str, Any]) -> int:
    """8.7.5's table; an out-of-supply castle 5 or 7 instead (11.8)."""
    artillery = any(d["special"] == "artillery" for d in frame["deployed"][frame["attacker"]])
    if supply.is_out(state, frame["loc"], frame["defender"]):
        return supply.SIEGE_EVERY[artillery]
    port, blockade = _port(state, frame)
    return imp.siege_threshold(artillery, port, blockade)


def can_assault(state: State, frame: dict[str, Any]) -> bool:
    """8.7.1: enough impacts to eliminate one defending block or disk, reactions aside.
    A Bombardment card in hand also counts the (up to 2) artillery blocks it could bring
    back from the eliminated pile (10.2)."""
    att = frame["attacker"]
    blocks = _blocks()
    cards = comp.load().cards
    port, blockade = _port(state, frame)
    force = [blocks[b] for b in bd.force(state, frame, att)]
    if any(cards[c].kind == "bombardment" for c in state["hands"][att]):
        guns = sorted((blocks[b] for b in bd.eliminated_artillery(state)), key=lambda b: -b.shields)
        force += guns[:2]
    return imp.siege_can_start(force, [cards[c] for c in state["hands"][att]], port, blockade)


def defender_units(state: State, frame: dict[str, Any]) -> int:
    return len(bd.force(state, frame, frame["defender"])) + len(st.disks_at(state, frame["loc"]))


def _fire_offered(state: State, frame: dict[str, Any]) -> bool:
    """The defender is asked whenever blocks of his could fire (whatever his hand), until
    he gave up firing for this siege."""
    return not frame["fire_done"] and bool(bd.force(state, frame, frame["defender"]))


def _after_attacker(state: State, frame: dict[str, Any], outcome: str | None) -> None:
    att = frame["attacker"]
    if outcome == "finish":
        frame["finished"] = {**frame["finished"], att: True}
        st.log(state, f"{att.capitalize()} ends the assault with {frame['impacts'][att]} impacts (8.7.5).")
        if _fire_offered(state, frame):
            frame["step"] = "fire_final"
        else:
            resolve(state, frame)
    elif outcome == "deployed" and _fire_offered(state, frame):
        frame["step"] = "fire"


def resolve(state: State, frame: dict[str, Any]) -> None:
    """8.7.5 C-G: impacts minus the defender's artillery, one unit per 7-10 impacts."""
    att, dfn = frame["attacker"], frame["defender"]
    bd.refresh(frame)
    need = threshold(state, frame)
    a, d = frame["impacts"][att], frame["impacts"][dfn]
    n = min(imp.siege_losses(a, d, need), defender_units(state, frame))
    frame["to_lose"] = {att: 0, dfn: n}
    frame["threshold"] = need
    st.log(state, f"Siege of {_name(frame['loc'])}: {a} impacts"
                  f"{f' minus {d} from the defender' if d else ''}, one loss per {need}: "
                  f"the defender loses {n} unit{'s' if n != 1 else ''} (8.7.5).")
    frame["step"] = "siege_loss"
    frame["loss_side"] = dfn
    _progress(state, frame)


def _candidates(state: State, frame: dict[str, Any]) -> list[str]:
    blocks = _blocks()
    return [b for b in bd.force(state, frame, frame["defender"]) if not cd.is_boabdil(blocks[b])]


def _progress(state: State, frame: dict[str, Any]) -> None:
    from engine.granada import special

    dfn = frame["defender"]
    blocks = _blocks()
    while frame["to_lose"][dfn] > 0:
        cands = _candidates(state, frame)
        if cands:
            if len(cands) > frame["to_lose"][dfn]:
                return           # the defender chooses (8.7.5 D)
            for b in cands:
                be.lose_block(state, frame, dfn, b)
            continue
        boabdil = [b for b in bd.force(state, frame, dfn) if cd.is_boabdil(blocks[b])]
        if boabdil:
            frame["to_lose"] = {**frame["to_lose"], dfn: frame["to_lose"][dfn] - 1}
            if blocks[boabdil[0]].colour == "black":
                st.log(state, "Boabdil cannot be eliminated: he is captured in his castle (10.12.1).")
                special.capture_boabdil(state)
            else:
                special.grey_defeated(state)
            continue
        disks = st.disks_at(state, frame["loc"])
        if not disks:
            frame["to_lose"] = {**frame["to_lose"], dfn: 0}
            break
        state["disks"][disks[0]] = "eliminated"
        frame["to_lose"] = {**frame["to_lose"], dfn: frame["to_lose"][dfn] - 1}
        frame["lost_disks"] = frame.get("lost_disks", 0) + 1
        state["reveals"] += 1
        st.log(state, f"The disk of {st.data().disks[disks[0]].name} is lost, the last unit of the "
                      f"castle (8.7.4, 10.6, 10.7).")
    _finish(state, frame)


def _finish(state: State, frame: dict[str, Any]) -> None:
    att, dfn, loc = frame["attacker"], frame["defender"], frame["loc"]
    blocks = _blocks()
    fell = defender_units(state, frame) == 0
    if fell:
        st.log(state, f"The castle of {_name(loc)} falls to the {att} player (8.7.5 E).")
    st.settle_location(state, loc)
    lost = sum(1 for b in frame["lost"][dfn] if blocks[b].colour != "grey") + frame.get("lost_disks", 0)
    cd.replenish(state, {dfn: lost}, "8.7.5 G, 8.8")
    st.conceal(state, [b for s in st.SIDES for b in bd.deployed_ids(frame, s)] + frame.get("placed", []))
    frame["winner"] = att if fell else None
    be.close(state, frame, frame["winner"])


# ---------------------------------------------------------------- frame protocol

def active(state: State, frame: dict[str, Any]) -> list[str]:
    step = frame["step"]
    if step in ("besiege", "assault"):
        return [frame["attacker"]]
    if step in ("fire", "fire_final", "siege_loss"):
        return [frame["defender"]]
    return []


def actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    return _actions(state, role, frame)


def _actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    step = frame["step"]
    if step == "besiege":
        acts: list[Action] = []
        if can_assault(state, frame):
            acts.append({"type": "assault", "label": f"Assault the castle of {_name(frame['loc'])} (8.7.5)"})
        acts.append({"type": "hold", "label": "Do not assault this turn (the siege goes on)"})
        return acts
    if step == "assault":
        return bd.actions(state, frame, role)
    if step in ("fire", "fire_final"):
        acts = bd.actions(state, frame, role, may_finish=False)
        if any(a["type"] in ("deploy", "cancel", "place", "place_at", "place_done", "no_deploy")
               for a in acts):
            return acts                       # a deployment under way is finished first
        if role == "muslim":
            for c in cd.hand_of_kind(state, role, "sortie"):
                acts.append({"type": "sortie", "card": c, "label": f"Play {st.card_choice(c)}: "
                             f"-{cd.sortie_value(comp.load().cards[c])} impacts to the assault (11.5)"})
        if step == "fire":
            acts.append({"type": "hold_fire", "pass": True, "label": "No artillery now"})
            acts.append({"type": "cease_fire", "label": "No artillery for the rest of this siege"})
        else:
            acts.append({"type": "hold_fire", "label": "No more artillery: resolve the siege"})
        return acts
    if step == "siege_loss":
        return [{"type": "lose", "block": b, "label": f"Lose {st.block_name(b)} (8.7.5 D)"}
                for b in _candidates(state, frame)]
    return []


def apply(state: State, role: str, action: Action, frame: dict[str, Any]) -> None:
    step = frame["step"]
    kind = action["type"]
    if step == "besiege":
        if kind == "hold":
            _hold(state, frame)
        else:
            frame["step"] = "assault"
        return
    if step == "assault":
        _after_attacker(state, frame, bd.apply(state, frame, role, action))
        return
    if step in ("fire", "fire_final"):
        if kind == "sortie":
            value = cd.sortie_value(comp.load().cards[action["card"]])
            cd.play_to_battle(state, role, action["card"], f"(Sortie: -{value} impacts to the assault, 11.5)")
            frame["sortie"] = frame.get("sortie", 0) + value
            bd.refresh(frame)
            return
        if kind in ("hold_fire", "cease_fire"):
            if kind == "cease_fire" or step == "fire_final":
                frame["fire_done"] = True
            if step == "fire_final":
                resolve(state, frame)
            else:
                frame["step"] = "assault"
            return
        bd.apply(state, frame, role, action)
        return
    if step == "siege_loss":
        be.lose_block(state, frame, role, action["block"])
        _progress(state, frame)


def advance(state: State, frame: dict[str, Any]) -> bool:
    frame.pop("returns", None)
    return False


def prompt(state: State, role: str, frame: dict[str, Any]) -> str:
    step = frame["step"]
    where = _name(frame["loc"])
    imp_ = frame["impacts"]
    if step == "besiege":
        return f"The enemy holds the castle of {where}: assault it now or hold (8.7)?"
    if step == "assault":
        return (f"Siege of {where}: {imp_[frame['attacker']]} impacts so far. "
                f"{bd.offer(state, frame, role, 'end the assault')} (8.7.5).")
    if step in ("fire", "fire_final"):
        return (f"Your castle of {where} is assaulted ({imp_[frame['attacker']]} impacts): fire your "
                "artillery to subtract impacts? (8.7.5 B)")
    return f"Choose a block to lose in the castle of {where} (8.7.5 D)."


def view(state: State, role: str | None, frame: dict[str, Any]) -> dict[str, Any]:
    out = bd.board_view(state, role, frame)
    out["kind"] = "siege"
    out["threshold"] = threshold(state, frame)
    out["disks"] = st.disks_at(state, frame["loc"])
    out["sortie"] = frame.get("sortie", 0)          # impacts taken off by Sortie cards (11.5)
    return out


def choose_weight(action: Action) -> float:
    return {"hold": 0.3, "cease_fire": 0.2, "hold_fire": 1.0}.get(
        action["type"], bd.weight(action))


def redeal(state: State, role: str, frame: dict[str, Any], gen: Any) -> None:
    bd.redeal_pending(state, role, frame)
