"""The end of a field combat: losses (8.5), Boabdil's capture (10.12.1), defeated artillery
(8.6.4), retreats (8.6), card replenishment (8.8) and follow-on battles (8.6.6); also the end
of a battle avoided before combat (8.6.7, 10.1, 10.5).

Steps of the battle frame handled here:

* ``loss`` — ``frame["loss_side"]`` picks one block to lose (attacker first, 8.5.2): deployed
  blocks first, then the others; forced picks are made automatically;
* ``castle_retreat`` — the loser, who owned the castle before combat, may leave up to 2
  blocks inside it (8.6.5);
* ``retreat`` — the loser chooses the one adjacent location his group retreats to; with grey
  and white stacks at the battle both retreat, each as a group (10.12.2).
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.granada import battle_deploy as bd
from engine.granada import battle_impacts as imp
from engine.granada import cards as cd
from engine.granada import components as comp
from engine.granada import retreat as rt
from engine.granada import state as st
from engine.granada import supply


def _blocks() -> dict[str, comp.Block]:
    return st.data().blocks   # comp.load()'s: a C-level cached call, not two Python ones


def _name(loc: str) -> str:
    return st.data().locations[loc].name


def loser(frame: dict[str, Any]) -> str:
    return st.other(frame["winner"])


# ---------------------------------------------------------------- losses (8.5)

def begin_losses(state: State, frame: dict[str, Any]) -> None:
    att, dfn = frame["attacker"], frame["defender"]
    bd.refresh(frame)
    a, d = frame["impacts"][att], frame["impacts"][dfn]
    frame["winner"] = att if a > d else dfn      # ties favour the defender (8.1)
    lose = loser(frame)
    oos = supply.out_of_supply(state)
    every = {s: supply.FIELD_EVERY if frame["loc"] in oos[s] else imp.FIELD_LOSS_EVERY for s in st.SIDES}
    for s in st.SIDES:
        if every[s] != imp.FIELD_LOSS_EVERY:
            st.log(state, f"The {s} stack at {_name(frame['loc'])} is out of supply: one loss per "
                          f"{every[s]} impacts (11.8).")
    frame["to_lose"] = {att: imp.field_losses(d, lose == att, every[att]),
                        dfn: imp.field_losses(a, lose == dfn, every[dfn])}
    st.log(state, f"The field combat at {_name(frame['loc'])} ends {a} to {d}: the {frame['winner']} "
                  f"player wins (8.1). Losses: {att} {frame['to_lose'][att]}, {dfn} "
                  f"{frame['to_lose'][dfn]} (8.5.1).")
    frame["step"] = "loss"
    frame["loss_side"] = att
    _progress_losses(state, frame)


def loss_candidates(state: State, frame: dict[str, Any], side: str) -> list[str]:
    """Blocks side may pick now: deployed ones first, then the others (8.5.2); Boabdil is
    never eliminated, only captured (3.2, 10.12.1)."""
    blocks = _blocks()
    fighting = [b for b in bd.force(state, frame, side) if not cd.is_boabdil(blocks[b])]
    shown = set(bd.deployed_ids(frame, side))
    first = [b for b in fighting if b in shown]
    return first or fighting


def lose_block(state: State, frame: dict[str, Any], side: str, b: str) -> None:
    st.eliminate(state, b)
    frame["lost"] = {**frame["lost"], side: [*frame["lost"][side], b]}
    frame["to_lose"] = {**frame["to_lose"], side: frame["to_lose"][side] - 1}
    st.log(state, f"{side.capitalize()} loses {st.block_name(b)} (8.5).")


def _progress_losses(state: State, frame: dict[str, Any]) -> None:
    """Take forced losses; stop where a side has a real choice."""
    order = [frame["attacker"], frame["defender"]]
    for side in order[order.index(frame["loss_side"]):]:
        while frame["to_lose"][side] > 0:
            cands = loss_candidates(state, frame, side)
            if not cands:
                frame["to_lose"] = {**frame["to_lose"], side: 0}
                break
            if len(cands) > frame["to_lose"][side]:
                frame["loss_side"] = side
                return
            for b in cands:
                lose_block(state, frame, side, b)
    after_losses(state, frame)


def after_losses(state: State, frame: dict[str, Any]) -> None:
    from engine.granada import special

    lose = loser(frame)
    blocks = _blocks()
    # 8.6.4: artillery used in battle (morale-failed included) cannot be carried away
    used = set(bd.deployed_ids(frame, lose))
    for b in bd.force(state, frame, lose):
        if b in used and blocks[b].gun:
            st.log(state, f"{st.block_name(b)} cannot retreat with its guns (8.6.4).")
            st.eliminate(state, b)
            frame["lost"] = {**frame["lost"], lose: [*frame["lost"][lose], b]}
    left = bd.force(state, frame, lose)
    boabdil = [b for b in left if cd.is_boabdil(blocks[b])]
    if boabdil and len(left) == 1 and blocks[boabdil[0]].colour == "black":
        st.log(state, "Every block accompanying Boabdil is eliminated: Boabdil is captured (10.12.1).")
        special.capture_boabdil(state)
    if lose == "christian" and any(cd.is_boabdil(blocks[b]) and blocks[b].colour == "grey" for b in left):
        st.log(state, "Boabdil loses a combat against the Muslims: the Mixed Army leaves the "
                      "Christian side (10.12.1).")
        special.grey_defeated(state)
    if capture_card_offered(state, frame):
        frame["step"] = "boabdil_card"
        return
    start_retreats(state, frame)


def capture_card_offered(state: State, frame: dict[str, Any]) -> bool:
    """11.4: the Christians won a field combat in which the black Boabdil was deployed and is
    still there, never captured before: the Christian is asked (whatever his hand, a reaction
    prompt) whether he plays the Boabdil Is Captured in Combat card."""
    from engine.granada import options as opt

    if not opt.on(state, "boabdil_captured_card") or frame["winner"] != "christian":
        return False
    if frame.get("mode") != "field" or state["boabdil"]["captures"]:
        return False
    blocks = _blocks()
    return any(blocks[b].special == "boabdil" and state["blocks"][b]["loc"] == frame["loc"]
               for b in bd.deployed_ids(frame, "muslim"))


def _capture_card_actions(state: State) -> list[Action]:
    acts: list[Action] = [{"type": "no_capture", "pass": True, "label": "Let Boabdil retreat with his army"}]
    for c in cd.hand_of_kind(state, "christian", "boabdil_captured"):
        acts.append({"type": "capture", "card": c,
                     "label": f"Play {st.card_choice(c)}: Boabdil is captured (11.4)"})
    return acts


def _apply_capture_card(state: State, frame: dict[str, Any], action: Action) -> None:
    from engine.granada import special

    if action["type"] == "capture":
        card = action["card"]
        state["hands"]["christian"].remove(card)
        if card in state["hand_known"]["christian"]:
            state["hand_known"]["christian"].remove(card)
        state["removed_cards"].append(card)
        state["reveals"] += 1
        st.log(state, f"Christian plays {st.card_name(card)}; it is removed from play (11.4).")
        special.capture_boabdil(state)
    frame["step"] = "loss"
    start_retreats(state, frame)


def start_retreats(state: State, frame: dict[str, Any]) -> None:
    """The loser's groups retreat one after the other (8.6, 10.12.2)."""
    lose = loser(frame)
    queue = ["fight"]
    if frame["colour"].get(lose):
        queue.append("aside")
    frame["queue"] = queue
    frame["castle_done"] = False
    next_retreat(state, frame)


# ---------------------------------------------------------------- retreats (8.6)

def _aside(state: State, frame: dict[str, Any], side: str) -> list[str]:
    """The stack that stood aside while the other colour fought (10.12.2)."""
    fighting = set(bd.force(state, frame, side))
    return [b for b in st.blocks_at(state, frame["loc"], side)
            if b not in fighting and not state["blocks"][b]["inside"]]


def group(state: State, frame: dict[str, Any]) -> list[str]:
    side = loser(frame)
    if frame["queue"][0] == "fight":
        return bd.force(state, frame, side)
    return _aside(state, frame, side)


def castle_room(state: State, frame: dict[str, Any]) -> int:
    """8.6.5: up to 2 blocks inside, for the side that held the castle before combat."""
    loc, side = frame["loc"], loser(frame)
    if not st.data().locations[loc].castle or frame["castle_owner"] != side:
        return 0
    inside = [b for b in st.blocks_at(state, loc, side) if state["blocks"][b]["inside"]]
    return max(0, 2 - len(inside))


def next_retreat(state: State, frame: dict[str, Any]) -> None:
    side = loser(frame)
    attacker = side == frame["attacker"]
    while frame["queue"]:
        g = group(state, frame)
        if not g:
            frame["queue"] = frame["queue"][1:]
            continue
        if frame["queue"][0] == "fight" and not frame["castle_done"] and castle_room(state, frame):
            frame["step"] = "castle_retreat"
            return
        dests = rt.retreat_destinations(state, frame["loc"], side, g, attacker)
        if not dests:
            st.log(state, f"The {side} blocks at {_name(frame['loc'])} have nowhere to retreat and "
                          "are eliminated (8.6.1).")
            boabdil = [b for b in g if cd.is_boabdil(_blocks()[b])]
            for b in g:
                if b in boabdil:
                    continue
                st.eliminate(state, b)
                frame["lost"] = {**frame["lost"], side: [*frame["lost"][side], b]}
            if boabdil and _blocks()[boabdil[0]].colour == "black":
                # every block accompanying him is now eliminated: captured, never eliminated
                from engine.granada import special

                st.log(state, "Every block accompanying Boabdil is eliminated: Boabdil is "
                              "captured (10.12.1).")
                special.capture_boabdil(state)
            frame["queue"] = frame["queue"][1:]
            continue
        if len(dests) == 1:                      # nothing to choose (the map is public)
            follow = rt.arrive(state, frame["loc"], side, g, dests[0])
            if follow and follow not in frame["follow"]:
                frame["follow"] = [*frame["follow"], follow]
            frame["queue"] = frame["queue"][1:]
            continue
        frame["step"] = "retreat"
        return
    finish(state, frame)


def _retreat_to(state: State, frame: dict[str, Any], dest: str) -> None:
    side = loser(frame)
    follow = rt.arrive(state, frame["loc"], side, group(state, frame), dest)
    if follow and follow not in frame["follow"]:
        frame["follow"] = [*frame["follow"], follow]
    frame["queue"] = frame["queue"][1:]
    next_retreat(state, frame)


def finish(state: State, frame: dict[str, Any]) -> None:
    """Card replenishment (8.8), blocks concealed again (8.1), hand back to the caller."""
    st.settle_location(state, frame["loc"])
    blocks = _blocks()
    extra = {s: sum(1 for b in frame["lost"][s] if blocks[b].colour != "grey") // 2 for s in st.SIDES}
    cd.replenish(state, extra, "8.8")
    shown = [b for s in st.SIDES for b in bd.deployed_ids(frame, s)] + frame.get("placed", [])
    st.conceal(state, shown)
    close(state, frame, frame["winner"])


def close(state: State, frame: dict[str, Any], winner: str | None) -> None:
    """Pop the battle frame and start the battles its retreats caused (8.6.6): each is a new
    battle frame in step "open", which battle.py opens as soon as it is on top (its
    ``advance``), the first retreat's battle first."""
    follow = list(frame.get("follow", []))
    side = loser(frame) if frame.get("winner") else None
    st.finish_frame(state, {"kind": "battle", "loc": frame["loc"], "winner": winner,
                            "mode": frame.get("mode")})
    for dest in reversed(follow):
        if side and st.blocks_at(state, dest, side) and st.enemy_units_at(state, dest, side):
            st.log(state, f"The retreat into {_name(dest)} causes a battle there; the retreating "
                          "blocks attack (8.6.6).")
            st.push_frame(state, bd.new_frame(dest, side))


def after_avoid(state: State, frame: dict[str, Any], dest: str | None) -> None:
    """The defender left before combat (8.6.7); a surrendered castle loses its disk and goes
    to the attacker (10.5). The card used is not replenished (8.2.1)."""
    loc, side = frame["loc"], frame["defender"]
    movers = rt.avoiding_blocks(state, loc, side)
    if dest is not None and movers:
        rt.arrive(state, loc, side, movers, dest)
    if frame["avoid"]["surrender"]:
        for disk in st.disks_at(state, loc):
            state["disks"][disk] = "eliminated"
            st.log(state, f"The disk of {st.data().disks[disk].name} is lost; no card is drawn (10.5).")
        state["castle"][loc] = frame["attacker"] if any(
            _blocks()[b].colour != "grey" for b in st.blocks_at(state, loc, frame["attacker"])) else None
    st.settle_location(state, loc)
    frame["mode"] = "avoided"
    close(state, frame, frame["attacker"])


# ---------------------------------------------------------------- frame protocol (end steps)

def active(state: State, frame: dict[str, Any]) -> list[str]:
    step = frame["step"]
    if step == "loss":
        return [frame["loss_side"]]
    if step in ("castle_retreat", "retreat"):
        return [loser(frame)]
    if step == "boabdil_card":
        return ["christian"]
    return []


def actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    step = frame["step"]
    if step == "boabdil_card":
        return _capture_card_actions(state)
    if step == "loss":
        return [{"type": "lose", "block": b, "label": f"Lose {st.block_name(b)} (8.5.2)"}
                for b in loss_candidates(state, frame, role)]
    if step == "castle_retreat":
        acts: list[Action] = [{"type": "enter_castle", "block": b,
                               "label": f"Put {st.block_name(b)} inside the castle (8.6.5)"}
                              for b in group(state, frame)]
        acts.append({"type": "castle_done", "label": "No more blocks into the castle"})
        return acts
    if step == "retreat":
        side = loser(frame)
        g = group(state, frame)
        return [{"type": "retreat", "to": d, "label": f"Retreat to {_name(d)} (8.6)"}
                for d in rt.retreat_destinations(state, frame["loc"], side, g, side == frame["attacker"])]
    return []


def apply(state: State, role: str, action: Action, frame: dict[str, Any]) -> None:
    kind = action["type"]
    if frame["step"] == "boabdil_card":
        _apply_capture_card(state, frame, action)
        return
    if kind == "lose":
        lose_block(state, frame, role, action["block"])
        _progress_losses(state, frame)
    elif kind == "enter_castle":
        state["blocks"][action["block"]]["inside"] = True
        st.log(state, f"{role.capitalize()} leaves a block inside the castle of {_name(frame['loc'])} (8.6.5).")
        if not castle_room(state, frame) or not group(state, frame):
            frame["castle_done"] = True
            next_retreat(state, frame)
    elif kind == "castle_done":
        frame["castle_done"] = True
        next_retreat(state, frame)
    elif kind == "retreat":
        _retreat_to(state, frame, action["to"])


def advance(state: State, frame: dict[str, Any]) -> bool:
    """A battle waits for decisions only; anything handed back by a child frame (e.g. a
    frame of special.py pushed during the battle) needs no action here."""
    frame.pop("returns", None)
    return False


def prompt(state: State, role: str, frame: dict[str, Any]) -> str:
    step = frame["step"]
    where = _name(frame["loc"])
    if step == "loss":
        return f"Choose a block to lose at {where}: {frame['to_lose'][role]} to go (8.5.2)."
    if step == "castle_retreat":
        return f"You lost at {where}: leave up to 2 blocks inside the castle (8.6.5)."
    if step == "boabdil_card":
        return f"You won at {where}, where Boabdil was deployed: capture him with a card (11.4)?"
    if step == "retreat":
        return f"You lost at {where}: choose where your blocks retreat (8.6)."
    return f"Battle at {where}."
