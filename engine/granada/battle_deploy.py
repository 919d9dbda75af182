"""Deploying blocks into a battle (8.2, 8.3.4, 10.1, 10.2, 10.3): the steps shared by field
combat (battle.py) and castle sieges (siege.py).

One deployment takes small steps, each one decision:

* ``deploy_leader`` — a leader without a card before the side's first card (8.2.3);
* ``play`` a card — a private choice the player may still ``cancel``; then ``deploy`` the
  block it brings (the card and the block become public together);
* after a Double Shield card, ``deploy`` a second block of its faction or ``no_second`` (8.3.4);
* ``bombard`` — a Bombardment card (10.2): ``place`` up to 2 artillery blocks from the
  eliminated pile at locations with friendly blocks, then (castle siege) ``deploy`` one
  artillery block with an artillery special attack;
* ``watchtower`` — the defender's Watchtower card, +4 impacts, no block (10.3).

A battle frame keeps ``deployed[side]`` (see battle_impacts) and an optional ``pending``
``{"side", "card", "stage": "block" | "second" | "place" | "place_at" | "bomb_deploy",
"blocks": [...], "placed": int, "place_block": id}``. Only the blocks of ``pending`` that are
already deployed and its card once played are public; views show the rest to its owner only.
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.granada import battle_impacts as imp
from engine.granada import cards as cd
from engine.granada import components as comp
from engine.granada import pioneers
from engine.granada import state as st
from engine.granada.frames import deep_copy


def _blocks() -> dict[str, comp.Block]:
    return st.data().blocks   # comp.load()'s: a C-level cached call, not two Python ones


def _cards() -> dict[str, comp.Card]:
    return st.data().cards   # comp.load()'s: a C-level cached call, not two Python ones


# ---------------------------------------------------------------- forces

def force(state: State, frame: dict[str, Any], side: str) -> list[str]:
    """The blocks of ``side`` taking part in the battle now (8.1), derived from the map so
    that no hidden identity is stored in the frame: the chosen colour when grey and white
    blocks share the location (10.12.2); inside the castle for a besieged side, outside for
    the others; in a field combat, blocks left inside the Alhambra do not fight (8.7.3)."""
    loc = frame["loc"]
    ids = st.blocks_at(state, loc, side)
    colour = frame.get("colour", {}).get(side)
    if colour:
        blocks = _blocks()
        ids = [b for b in ids if (blocks[b].colour == "grey") == (colour == "grey")]
    recs = state["blocks"]
    if frame.get("mode") == "siege" and side == frame["defender"]:
        return [b for b in ids if recs[b]["inside"]]
    return [b for b in ids if not recs[b]["inside"]]


def deployed_ids(frame: dict[str, Any], side: str) -> list[str]:
    return [b for dep in frame["deployed"][side] for b in dep["blocks"]]


def undeployed(state: State, frame: dict[str, Any], side: str) -> list[str]:
    done = set(deployed_ids(frame, side))
    return [b for b in force(state, frame, side) if b not in done]


def context(frame: dict[str, Any], side: str) -> cd.Context:
    attacker = frame["attacker"]
    defender = frame["defender"]
    return cd.Context(
        siege=frame.get("mode") == "siege",
        attacker=side == attacker,
        watchtower=bool(frame.get("watchtower")),
        attacker_artillery=any(d["special"] == "artillery" and not d["out"]
                               for d in frame["deployed"][attacker]),
        defender_artillery=sum(1 for d in frame["deployed"][defender] if d["special"] == "artillery"),
    )


def impacts(frame: dict[str, Any], side: str) -> int:
    """A side's impacts on the Impact track (8.3; the Watchtower card's 4, 10.3; a besieged
    side's Sortie cards, 11.5, which subtract from the assault like its artillery)."""
    bonus = imp.WATCHTOWER_IMPACTS if frame.get("watchtower") == side else 0
    if side == frame["defender"]:
        bonus += frame.get("sortie", 0)
    bonus += frame.get("naval", {}).get(side, 0)       # Naval Bombardment (11.6)
    if frame.get("pioneer") and side == frame["attacker"]:
        bonus += pioneers.IMPACT                       # a Pioneers tile (11.7)
    return imp.total_impacts(frame["deployed"][side], _blocks(), frame.get("mode") == "siege", bonus)


def refresh(frame: dict[str, Any]) -> None:
    """Recompute the impacts shown beside every deployment."""
    siege = frame.get("mode") == "siege"
    for side in st.SIDES:
        deps = frame["deployed"][side]
        for i, values in enumerate(imp.deployment_impacts(deps, _blocks(), siege)):
            # a new entry, not an edit (the entries may be the input state's: copy_frame);
            # an entry whose impacts are unchanged is kept as it is
            if deps[i].get("impacts") != values:
                deps[i] = {**deps[i], "impacts": values}
        frame["impacts"] = {**frame["impacts"], side: impacts(frame, side)}


# ---------------------------------------------------------------- what may be played

def eliminated_artillery(state: State) -> list[str]:
    blocks = _blocks()
    return sorted(b for b, rec in state["blocks"].items()
                  if rec["loc"] == "eliminated" and blocks[b].gun and blocks[b].colour == "white"
                  and not blocks[b].optional)


def _friendly_locations(state: State, frame: dict[str, Any], side: str) -> list[str]:
    """Locations with friendly blocks (10.2), the battle's own first."""
    locs = {rec["loc"] for b, rec in state["blocks"].items()
            if st.owner(b) == side and rec["loc"] in st.data().locations and not _blocks()[b].fleet}
    first = [frame["loc"]] if frame["loc"] in locs else []
    return first + sorted(locs - set(first))


def card_targets(state: State, frame: dict[str, Any], side: str, card_id: str,
                 ctx: cd.Context | None = None, free: list[str] | None = None) -> list[tuple[str, str]]:
    """(block, special attack) pairs the card may deploy now; ``ctx`` and ``free``: the
    battle's :func:`context` and the side's :func:`undeployed` blocks when the caller has
    them already (the play menu asks for every card in hand, issue 33)."""
    card = _cards()[card_id]
    if ctx is None:
        ctx = context(frame, side)
    out = []
    blocks = _blocks()
    for b in undeployed(state, frame, side) if free is None else free:
        special = cd.deploy_special(card, blocks[b], ctx)
        if special is not None:
            out.append((b, special))
    return out


def _deployable(card_id: str, ctx: cd.Context, free: list[str]) -> bool:
    """Whether :func:`card_targets` would list a pair: the play menu asks this of every card
    in hand, and stops at the first block the card may deploy (issue 33)."""
    card = _cards()[card_id]
    blocks = _blocks()
    special = cd.deploy_special
    for b in free:  # noqa: SIM110 (any() over a generator left before its end closes it, an exception)
        if special(card, blocks[b], ctx) is not None:
            return True
    return False


def watchtower_allowed(state: State, frame: dict[str, Any], side: str) -> bool:
    """10.3: the defender of a field combat at a watchtower he controls, once per combat."""
    loc = frame["loc"]
    return (frame.get("mode") == "field" and side == frame["defender"] and not frame.get("watchtower")
            and st.data().locations[loc].watchtower and state["control"].get(loc) == side)


def naval_fleets(state: State, frame: dict[str, Any], side: str) -> int:
    """Fleets of ``side`` in the sea zone off the battle's location (11.6); 0 inland."""
    zone = st.data().coast_zone.get(frame["loc"])
    if zone is None:
        return 0
    blocks = _blocks()
    return sum(1 for b, rec in state["blocks"].items()
               if rec["loc"] == f"sea:{zone}" and blocks[b].fleet and st.owner(b) == side)


def naval_bombardment_value(state: State, frame: dict[str, Any], side: str) -> int:
    """11.6: 2 impacts with 1 fleet, 3 with 2 fleets or more (added, or taken off a besieger)."""
    n = naval_fleets(state, frame, side)
    return 0 if n == 0 else 2 if n == 1 else 3


def naval_bombardment_actions(state: State, frame: dict[str, Any], side: str,
                              cards: list[str]) -> list[Action]:
    """11.6: during a combat at a coastal location with friendly fleets off it, once a battle."""
    value = naval_bombardment_value(state, frame, side)
    if not value or frame.get("naval", {}).get(side):
        return []
    verb = "-" if frame.get("mode") == "siege" and side == frame["defender"] else "+"
    return [{"type": "naval_bombard", "card": c,
             "label": f"Play {st.card_choice(c)}: {verb}{value} impacts from the fleets offshore (11.6)"}
            for c in cards]


def play_actions(state: State, frame: dict[str, Any], side: str, may_finish: bool = True) -> list[Action]:
    """The choices of the side holding the initiative, with no deployment under way."""
    acts: list[Action] = []
    blocks = _blocks()
    ctx = context(frame, side)
    free = undeployed(state, frame, side)
    if not frame["first_card"][side] and not (ctx.siege and not ctx.attacker):
        for b in free:
            if blocks[b].leader:
                acts.append({"type": "deploy_leader", "block": b,
                             "label": f"Deploy the leader {st.block_name(b)} without a card (8.2.3)"})
    for tile in pioneers.siege_tiles(state, frame, side):
        acts.append({"type": "deploy_pioneer", "tile": tile,
                     "label": f"Deploy the Pioneers tile {tile} without a card: +1 impact (11.7)"})
    cards = _cards()
    for c in state["hands"][side]:
        card = cards[c]
        if card.kind == "bombardment":
            # (the blocks at hand first: the eliminated ones are a look at every record)
            if _deployable(c, ctx, free) or eliminated_artillery(state):
                acts.append({"type": "bombard", "card": c, "label": f"Play {st.card_choice(c)} (10.2)"})
        elif card.kind == "watchtower":
            if watchtower_allowed(state, frame, side):
                acts.append({"type": "watchtower", "card": c,
                             "label": f"Play {st.card_choice(c)}: +4 impacts (10.3)"})
        elif card.kind == "naval_bombardment":
            acts.extend(naval_bombardment_actions(state, frame, side, [c]))
        elif card.kind in cd.DEPLOYING_KINDS and _deployable(c, ctx, free):
            acts.append({"type": "play", "card": c, "label": f"Play {st.card_choice(c)}"})
    if may_finish:
        acts.append({"type": "finish", "label": "Deploy no more blocks in this battle (8.2.4)"})
    return acts


def pending_actions(state: State, frame: dict[str, Any], side: str) -> list[Action]:
    """The next step of a deployment under way (see the module docstring)."""
    p = frame["pending"]
    stage = p["stage"]
    card_id = p["card"]
    card = _cards()[card_id]
    if stage == "block":
        acts: list[Action] = [
            {"type": "deploy", "block": b,
             "label": f"Deploy {st.block_name(b)}" + (f" with {st.article(s)} {s} special attack" if s else "")}
            for b, s in card_targets(state, frame, side, card_id)]
        acts.append({"type": "cancel", "label": f"Take back {st.card_choice(card_id)}"})
        return acts
    if stage == "second":
        blocks = _blocks()
        acts = [{"type": "deploy", "block": b, "label": f"Also deploy {st.block_name(b)} (8.3.4)"}
                for b, _ in card_targets(state, frame, side, card_id)
                if not cd.any_faction(blocks[b]) and blocks[b].faction in card.factions]
        acts.append({"type": "no_second", "label": "Deploy no second block with this card"})
        return acts
    if stage == "place":
        acts = []
        if p["placed"] < 2:
            acts = [{"type": "place", "block": b,
                     "label": f"Bring {st.block_name(b)} back from the eliminated pile (10.2)"}
                    for b in eliminated_artillery(state)]
        acts.append({"type": "place_done", "label": "Bring no more artillery blocks"})
        return acts
    if stage == "place_at":
        used = p.get("place_locs", [])
        locs = _friendly_locations(state, frame, side)
        if len(set(used)) >= 2:
            locs = [x for x in locs if x in used]
        return [{"type": "place_at", "loc": x, "label": f"Place it at {st.data().locations[x].name}"}
                for x in locs if x != frame["loc"] or _room_at_battle(state, frame, side)]
    if stage == "bomb_deploy":
        acts = [{"type": "deploy", "block": b, "label": f"Artillery special attack with {st.block_name(b)}"}
                for b, s in card_targets(state, frame, side, card_id) if s == "artillery"]
        acts.append({"type": "no_deploy", "label": "Deploy no artillery block with this card"})
        return acts
    raise ValueError(f"unknown deployment stage {stage}")


def _room_at_battle(state: State, frame: dict[str, Any], side: str) -> bool:
    """A besieged side keeps to the 2-block castle limit (8.7.2)."""
    if frame.get("mode") == "siege" and side == frame["defender"]:
        return len(force(state, frame, side)) < 2
    return True


_DEPLOY_STAGES = {
    "block": "Choose the block to deploy with the card played, or take the card back",
    "place": "Bring back eliminated artillery blocks, or no more",
    "place_at": "Choose where the artillery block is placed",
}


def offer(state: State, frame: dict[str, Any], side: str, finish: str = "declare you are finished") -> str:
    """What the deployment menu offers now, in words, for a battle's or an assault's heading
    (``finish``: how its end is said): a card played asks for its block, and "Deploy a block"
    above a lone "Deploy no more blocks" misled (issue 38)."""
    kinds = {a["type"] for a in actions(state, frame, side)}
    pending = frame.get("pending")
    if pending is not None and pending.get("side") == side:
        if pending.get("stage") == "second":
            return ("Choose a second block to deploy with this card, or deploy none" if "deploy" in kinds
                    else "No second block can deploy with this card: go on")
        if pending.get("stage") in _DEPLOY_STAGES:
            return _DEPLOY_STAGES[pending["stage"]]
    if kinds - {"finish"}:
        return f"Deploy a block or {finish}" if "finish" in kinds else "Deploy a block"
    return f"You can deploy nothing more: {finish}"


def actions(state: State, frame: dict[str, Any], side: str, may_finish: bool = True) -> list[Action]:
    p = frame.get("pending")
    # A private card choice whose card left the hand (a re-dealt state) is void.
    if p is not None and p["side"] == side and not (
            p["stage"] == "block" and p["card"] not in state["hands"][side]):
        return pending_actions(state, frame, side)
    return play_actions(state, frame, side, may_finish)


# ---------------------------------------------------------------- doing it

def _record(state: State, frame: dict[str, Any], side: str, block_id: str, card: str | None,
            special: str) -> dict[str, Any]:
    dep = {"blocks": [block_id], "card": card, "special": special, "out": [], "impacts": []}
    frame["deployed"][side].append(dep)
    _reveal_deployed(state, frame, side, block_id, special)
    return dep


def _reveal_deployed(state: State, frame: dict[str, Any], side: str, block_id: str, special: str) -> None:
    st.reveal(state, block_id)
    refresh(frame)
    dep = frame["deployed"][side][-1]
    value = dep["impacts"][dep["blocks"].index(block_id)]
    how = f" with {st.article(special)} {special} special attack" if special else ""
    st.log(state, f"{side.capitalize()} deploys {st.block_name(block_id)}{how}: {value} impact"
                  f"{'s' if value != 1 else ''} (total {frame['impacts'][side]}).")


def apply(state: State, frame: dict[str, Any], side: str, action: Action) -> str | None:
    """Perform a deployment step; returns "deployed" when a deployment is complete (the
    caller then offers Morale Challenges and passes the initiative), "event" after a Naval
    Bombardment card (11.6: no block, like the Watchtower), "watchtower" after a
    Watchtower card, "finish" when the side declares it is finished, None otherwise."""
    kind = action["type"]
    p = frame.get("pending")
    if kind == "finish":
        return "finish"
    if kind == "deploy_leader":
        _record(state, frame, side, action["block"], None, "")
        return "deployed"
    if kind == "watchtower":
        cd.play_to_battle(state, side, action["card"], "(Watchtower: +4 impacts, 10.3)")
        frame["watchtower"] = side
        refresh(frame)
        return "watchtower"
    if kind == "play":
        frame["pending"] = {"side": side, "card": action["card"], "stage": "block"}
        return None
    if kind == "deploy_pioneer":
        frame["pioneer"] = action["tile"]
        refresh(frame)
        st.log(state, f"{side.capitalize()} deploys the Pioneers tile {action['tile']}: +1 impact "
                      f"(total {frame['impacts'][side]}, 11.7).")
        return "event"
    if kind == "naval_bombard":
        value = naval_bombardment_value(state, frame, side)
        how = "takes" if frame.get("mode") == "siege" and side == frame["defender"] else "adds"
        cd.play_to_battle(state, side, action["card"],
                          f"(Naval Bombardment: {how} {value} impacts, 11.6)")
        frame["naval"] = {**frame.get("naval", {}), side: value}
        refresh(frame)
        return "event"
    if kind == "cancel":
        frame["pending"] = None
        return None
    if kind == "bombard":
        cd.play_to_battle(state, side, action["card"], "(Bombardment, 10.2)")
        frame["pending"] = {"side": side, "card": action["card"], "stage": "place", "placed": 0,
                            "place_locs": []}
        if not eliminated_artillery(state):
            _after_placing(state, frame, side)
        return None
    assert p is not None
    card_id = p["card"]
    card = _cards()[card_id]
    if kind == "deploy" and p["stage"] == "block":
        special = dict(card_targets(state, frame, side, card_id))[action["block"]]
        cd.play_to_battle(state, side, card_id, "")
        frame["first_card"] = {**frame["first_card"], side: True}
        _record(state, frame, side, action["block"], card_id, special)
        if card.kind == "double" and not cd.any_faction(_blocks()[action["block"]]):
            p["stage"] = "second"                      # the entry grows in place
            p["dep"] = len(frame["deployed"][side]) - 1
            return None
        frame["pending"] = None
        return "deployed"
    if kind == "deploy" and p["stage"] == "second":
        deps = frame["deployed"][side]
        # a new entry, not an edit (the entries may be the input state's: copy_frame)
        deps[p["dep"]] = {**deps[p["dep"]], "blocks": [*deps[p["dep"]]["blocks"], action["block"]]}
        _reveal_deployed(state, frame, side, action["block"], "")
        frame["pending"] = None
        return "deployed"
    if kind == "no_second":
        frame["pending"] = None
        return "deployed"
    if kind == "place":
        p["stage"] = "place_at"
        p["place_block"] = action["block"]
        return None
    if kind == "place_at":
        bid = p.pop("place_block")
        rec = state["blocks"][bid]
        here = action["loc"] == frame["loc"]
        inside = here and frame.get("mode") == "siege" and side == frame["defender"]
        rec.update(loc=action["loc"], inside=inside, carried_by=None, fresh=True)
        rec["moved"] = True
        st.reveal(state, bid)
        st.log(state, f"{side.capitalize()} brings {st.block_name(bid)} back from the eliminated pile "
                      f"to {st.data().locations[action['loc']].name} (10.2).")
        p["placed"] += 1
        p["place_locs"].append(action["loc"])
        frame["placed"] = [*frame.get("placed", []), bid]
        p["stage"] = "place"
        if p["placed"] >= 2 or not eliminated_artillery(state):
            _after_placing(state, frame, side)
        return None
    if kind == "place_done":
        _after_placing(state, frame, side)
        return None
    if kind == "deploy" and p["stage"] == "bomb_deploy":
        frame["first_card"] = {**frame["first_card"], side: True}
        _record(state, frame, side, action["block"], card_id, "artillery")
        frame["pending"] = None
        return "deployed"
    if kind == "no_deploy":
        frame["pending"] = None
        return None
    raise ValueError(f"not a deployment step: {kind}")


def _after_placing(state: State, frame: dict[str, Any], side: str) -> None:
    p = frame["pending"]
    if frame.get("mode") == "siege" and any(
            s == "artillery" for _, s in card_targets(state, frame, side, p["card"])):
        p["stage"] = "bomb_deploy"
    else:
        frame["pending"] = None


def last_deployment(frame: dict[str, Any], side: str) -> dict[str, Any]:
    dep: dict[str, Any] = frame["deployed"][side][-1]
    return dep


def describe(frame: dict[str, Any], side: str) -> list[dict[str, Any]]:
    """Public description of a side's deployments, for views."""
    out = []
    for dep in frame["deployed"][side]:
        out.append({
            "blocks": [{"id": b, "name": st.block_name(b), "impacts": v, "fights": b not in dep["out"]}
                       for b, v in zip(dep["blocks"], dep.get("impacts") or [0] * len(dep["blocks"]))],
            "card": cd.describe_card(dep["card"]) if dep["card"] else None,
            "special": dep["special"],
        })
    return out


def weight(action: Action) -> float:
    """Built-in player: deploy readily, finish now and then, cancel rarely."""
    return {"finish": 0.35, "cancel": 0.05, "no_second": 0.3, "place_done": 0.5,
            "no_deploy": 0.2}.get(action["type"], 1.0)


# ---------------------------------------------------------------- the frame and its view

# the containers of a battle frame that are replaced, never edited in place (each change
# builds a new one: ``frame["lost"] = {**frame["lost"], side: [...]}``): copy_frame shares them
_REPLACED = frozenset({"colour", "impacts", "first_card", "finished", "to_lose", "lost", "challenge",
                       "follow", "queue", "retreats", "avoid", "naval", "placed"})
# the keys whose values are scalars (nothing in them to edit in place): not looked at either
_SHARED = _REPLACED | {"module", "kind", "loc", "attacker", "defender", "step", "mode", "castle_owner",
                       "initiative", "watchtower", "winner", "loss_side", "castle_done", "castle_mode",
                       "fire_done", "lost_disks", "sortie", "pioneer", "threshold"}


def copy_frame(frame: dict[str, Any]) -> dict[str, Any]:
    """The copy of a battle frame an apply edits (engine.granada._step; battle.py's
    ``COPY_FRAME``): the containers named in :data:`_REPLACED` and the entries of
    ``deployed`` are shared with the input (the per-side lists of ``deployed`` are copied),
    every other container is deep-copied. The deep copy of a battle frame was about a
    twentieth of a random step (issue 33). So the battle modules (this one, battle.py,
    battle_end.py, siege.py) replace those containers and the recorded entries of
    ``deployed`` (:func:`refresh`, a Double Shield's second block, a conceded Morale
    Challenge) rather than edit them: keep it so."""
    out = frame.copy()
    for k in frame.keys() - _SHARED:    # "deployed", "pending" and any key not known here
        v = frame[k]
        cls = v.__class__
        if cls is dict or cls is list:
            if k == "deployed" and cls is dict:
                out[k] = {side: deps[:] if deps.__class__ is list else deep_copy(deps) for side, deps in v.items()}
            else:
                out[k] = deep_copy(v)
    return out


def new_frame(loc: str, attacker: str) -> dict[str, Any]:
    """A land battle frame at ``loc`` (battle.py); step "open" until battle.py opens it."""
    return {
        "module": "battle", "kind": "battle", "loc": loc,
        "attacker": attacker, "defender": st.other(attacker),
        "step": "open", "mode": None, "colour": {}, "castle_owner": None,
        "deployed": {s: [] for s in st.SIDES}, "impacts": {s: 0 for s in st.SIDES},
        "first_card": {s: False for s in st.SIDES}, "finished": {s: False for s in st.SIDES},
        "initiative": attacker, "watchtower": None, "pending": None, "challenge": None,
        "to_lose": {s: 0 for s in st.SIDES}, "lost": {s: [] for s in st.SIDES},
        "winner": None, "retreats": [], "follow": [],
    }


def board_view(state: State, role: str | None, frame: dict[str, Any]) -> dict[str, Any]:
    """The battle board as ``role`` may see it: deployments and played cards are public,
    undeployed blocks only counted, a pending card choice shown to its owner only."""
    out: dict[str, Any] = {
        "kind": "battle", "mode": frame["mode"], "loc": frame["loc"], "step": frame["step"],
        "attacker": frame["attacker"], "defender": frame["defender"],
        "impacts": dict(frame["impacts"]), "initiative": frame["initiative"],
        "finished": dict(frame["finished"]), "watchtower": frame["watchtower"],
        "deployed": {s: describe(frame, s) for s in st.SIDES},
        "undeployed": {s: len(undeployed(state, frame, s)) for s in st.SIDES},
        "to_lose": dict(frame["to_lose"]), "winner": frame["winner"],
        "battle_discard": {s: list(state["battle_discard"][s]) for s in st.SIDES},
        "naval": dict(frame.get("naval", {})),     # Naval Bombardment impacts by side (11.6)
        "pioneer": frame.get("pioneer"),           # the Pioneers tile deployed in a siege (11.7)
    }
    p = frame.get("pending")
    if p is not None and role == p["side"]:
        out["pending"] = {"card": p["card"], "stage": p["stage"]}
    if frame.get("challenge") and frame["challenge"].get("card"):
        out["challenge"] = dict(frame["challenge"])
    return out


def redeal_pending(state: State, role: str, frame: dict[str, Any]) -> None:
    """The opponent's private card choice (not yet public) is forgotten (views.redeal)."""
    p = frame.get("pending")
    if p is not None and p["side"] != role and p["stage"] == "block":
        frame["pending"] = None
