"""Combat actions: archer attacks, standard attacks, cavalry charges and karr wa-l-farr.

A declared combat is kept in ``state["combat"]`` and resolved in stages, because several
decisions may fall in the middle of one: the Muslim's karr wa-l-farr declaration, reaction
special cards (advanced variant), the distribution of damage by each damaged side, and the
Muslim's optional advance after a victorious charge. :func:`step` runs the next automatic
stage; the flow driver calls it until a decision is needed or the combat is over.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from engine.navas import damage, movement, special, victory
from engine.navas.core import (
    CATALOG,
    OTHER,
    S_ARCHERS,
    S_CHRISTIAN_CHARGE,
    S_COMBAT,
    S_KARR,
    S_LIMITS,
    S_MELEE,
    S_MUSLIM_CHARGE,
    S_STANDARD,
    State,
    card_text,
    card_value,
    cost,
    describe_group,
    describe_units,
    distinct_groups,
    log,
    side_of,
    unit,
    unit_text,
    units_in,
    zone_has_icon,
    zone_has_kind,
    zone_power,
)
from engine.navas.data import NEIGHBOURS, RING2, ahead, distance
from engine.text import plural

MAX_COMBATS = 2
MAX_ARCHERS = 1

STAGES = {
    "archers": ["battle", "done"],
    "standard": ["karr", "kurdish", "black_guard", "fizzle", "battle", "jihad", "advance", "karr_battle", "done"],
    "charge": ["karr", "kurdish", "black_guard", "fizzle", "battle", "jihad", "advance", "karr_battle", "done"],
}
KIND_NAME = {"archers": "archer attack", "standard": "standard attack", "charge": "cavalry charge"}
ORDER_KIND = {"archers": "archers", "attack": "standard", "charge": "charge"}
_ORDER_KEYS = {"type", "target", "card", "label"}
_REACH = {z: NEIGHBOURS[z] + RING2[z] for z in CATALOG.zones}
"""Zones any combat action could reach from a zone: where :func:`orders` looks for targets."""


def section(kind: str, role: str) -> str:
    if kind == "archers":
        return S_ARCHERS
    if kind == "standard":
        return S_STANDARD
    return S_CHRISTIAN_CHARGE if role == "christian" else S_MUSLIM_CHARGE


# ---------------------------------------------------------------- declaring


def _fresh(state: State, uids: list[str]) -> list[str]:
    units = state["units"]
    return [u for u in uids if not units[u]["exhausted"]]


def targets(role: str, kind: str, zone: str) -> tuple[str, ...]:
    """The zones this kind of combat action can reach from ``zone``, whoever holds them."""
    if kind == "archers":
        return RING2[zone]
    if kind == "charge" and role == "christian":
        front = ahead(zone)
        return (front,) if front is not None else ()
    return NEIGHBOURS[zone]


Refusal = tuple[str, str] | None
"""Why an order is illegal (a sentence and its rule), or None when it is legal."""


def refusal(state: State, role: str, zone: str, order: dict[str, Any],
            occ: dict[str, list[str]]) -> Refusal:
    """Why a combat order from ``zone`` is illegal now (a sentence and its rule), or None when
    it is legal: the one place that decides, for the menu and for a refused order alike.

    The checks come in the order a player reads them (the turn's limits, the target, the units,
    the reach, the card); :func:`orders` runs the same checks, those that do not depend on the
    target once per kind of action rather than once per target."""
    kind = ORDER_KIND.get(str(order.get("type")))
    if kind is None:
        return f"{order.get('type')!r} is not a combat action (archers, attack, charge)", S_COMBAT
    rule = section(kind, role)
    extra = set(order) - _ORDER_KEYS
    if extra:
        return f"a combat order has a target and optionally a card, not {', '.join(sorted(extra))}", rule
    target = order.get("target")
    fresh = _fresh(state, occ.get(zone, []))
    why = (_limits(state["turn"], role, kind) or _enemy_held(role, kind, target, occ)
           or _attackers(role, zone, kind, fresh))
    if why is not None or not isinstance(target, str):
        return why
    why = _reach(role, kind, zone, target)
    card_id = order.get("card")
    if why is None and card_id is not None:
        return special.attack_card_refusal(state, role, zone, target, kind, card_id, fresh)
    return why


def _limits(turn: dict[str, Any], role: str, kind: str) -> Refusal:
    """The turn's combat limits and its action points (the same for every target)."""
    if turn["combats"] >= MAX_COMBATS:
        return f"at most {MAX_COMBATS} combat actions per turn, and this turn has had them", S_LIMITS
    if kind == "archers" and turn["archers"] >= MAX_ARCHERS:
        return "only one archer attack per turn", S_LIMITS
    if turn["ap"] < cost(role, kind):
        return f"a {KIND_NAME[kind]} costs {plural(cost(role, kind), 'action point')} and {turn['ap']} remain", section(kind, role)
    return None


def _enemy_held(role: str, kind: str, target: Any, occ: dict[str, list[str]]) -> Refusal:
    """A combat action aims at a zone of the board that the opponent holds."""
    if not isinstance(target, str) or target not in CATALOG.zones:
        return f"{target!r} is not a zone of the board (A1 to C6)", section(kind, role)
    there = occ.get(target, [])
    if not there or unit(there[0]).side != OTHER[role]:
        return f"{target} is not occupied by the opponent", section(kind, role)
    return None


def _attackers(role: str, zone: str, kind: str, fresh: list[str]) -> Refusal:
    """Unexhausted units in ``zone`` able to make this kind of action (the same for every target)."""
    rule = section(kind, role)
    if not fresh:
        return f"every unit in {zone} is exhausted (exhausted units cannot attack until the turn ends)", rule
    if kind == "archers" and not any("archer" in unit(u).icons for u in fresh):
        return f"no unexhausted unit with the archer icon in {zone}", rule
    if kind == "charge" and not any("cavalry" in unit(u).icons for u in fresh):
        return f"a cavalry charge needs an unexhausted unit with the cavalry icon in {zone}", S_MELEE
    return None


def _reach(role: str, kind: str, zone: str, target: str) -> Refusal:
    """Archers shoot 2 zones away, a Christian charge goes straight ahead, the rest next door."""
    if target in targets(role, kind, zone):
        return None
    rule = section(kind, role)
    if kind == "archers":
        return f"archers shoot exactly 2 zones away, and {target} is {distance(zone, target)} from {zone}", rule
    if kind == "charge" and role == "christian":
        return "a Christian cavalry charge only goes forward, at the zone straight ahead in the column", rule
    return f"{target} is not adjacent to {zone}", rule


def _label(role: str, zone: str, order: dict[str, Any]) -> str:
    kind, target = order["type"], order["target"]
    if kind == "archers":
        return (f"Archers {zone}→{target} ({cost(role, 'archers')} AP, "
                f"{cost(role, 'archers', 'damage')} damage)")
    name = "Standard attack" if kind == "attack" else "Cavalry charge"
    if order.get("card"):
        return f"{name} {zone}→{target} with the {CATALOG.specials[order['card']].name} card (+2)"
    return f"{name} {zone}→{target} ({cost(role, ORDER_KIND[kind])} AP)"


def orders(state: State, role: str, zone: str, occ: dict[str, list[str]]) -> list[dict[str, Any]]:
    """The combat orders from ``zone`` that :func:`refusal` lets through, labelled.

    Asked about: each kind at each zone the opponent holds within reach (2 zones), plain, and
    with each attack card the role holds when the plain order passes (:func:`refusal` looks at
    the card last, so a card cannot make a refused order legal)."""
    enemy = OTHER[role]
    held = [z for z in _REACH[zone] if occ.get(z) and unit(occ[z][0]).side == enemy]
    if not held:
        return []
    hand = state["specials"][role]["hand"]
    cards = [c for c in special.attack_card_ids(role) if c in hand]
    fresh = _fresh(state, occ.get(zone, []))
    turn = state["turn"]
    found: list[dict[str, Any]] = []
    for name in ("archers", "attack", "charge"):
        kind = ORDER_KIND[name]
        if _limits(turn, role, kind) is not None or _attackers(role, zone, kind, fresh) is not None:
            continue  # refused whatever the target: refusal() would say so at every one of them
        for target in held:  # each passes _enemy_held by construction
            if _reach(role, kind, zone, target) is not None:
                continue
            order: dict[str, Any] = {"type": name, "target": target}
            found.append(order | {"label": _label(role, zone, order)})
            for card_id in cards if kind != "archers" else []:
                if special.attack_card_refusal(state, role, zone, target, kind, card_id, fresh) is None:
                    with_card = order | {"card": card_id}
                    found.append(with_card | {"label": _label(role, zone, with_card)})
    return found


def why_not(state: State, role: str, zone: str, order: dict[str, Any],
            occ: dict[str, list[str]]) -> tuple[str, str] | None:
    """A teaching sentence for a refused combat order and the rule behind it (None if legal)."""
    return refusal(state, role, zone, order, occ)


def unit_options(state: State, role: str, zone: str, order: dict[str, Any]) -> list[list[str]]:
    """Which unexhausted units may join: one archer shoots; any group joins an attack, a charge
    needs a cavalry unit in the group, and the Lopez de Haro card needs Lopez de Haro in it."""
    fresh = _fresh(state, units_in(state, zone))
    kind = ORDER_KIND[order["type"]]
    if kind == "archers":
        # one entry per distinct archer: of two alike archers, which one shoots changes nothing
        return distinct_groups(state, [[u] for u in fresh if "archer" in unit(u).icons])
    groups = [list(c) for size in range(len(fresh), 0, -1) for c in combinations(fresh, size)]
    if kind == "charge":
        groups = [g for g in groups if any("cavalry" in unit(u).icons for u in g)]
    if order.get("card") == "lopez":
        groups = [g for g in groups if any(unit(u).kind == "lopez" for u in g)]
    return distinct_groups(state, groups)


def units_label(kind: str, group: list[str], state: State | None = None, among: list[str] | None = None) -> str:
    """The entry of a unit choice; with ``state`` and ``among`` (the units of every entry of
    the menu), each unit says what sets it apart from the others of its name."""
    verb = {"archers": "Shoot with", "standard": "Attack with", "charge": "Charge with"}[kind]
    if state is not None and among is not None:
        return f"{verb} {describe_group(state, group, among)}"
    return f"{verb} {describe_units(group)}"


def declare(state: State, role: str, zone: str, order: dict[str, Any], group: list[str]) -> None:
    """Pay, exhaust the units and open the combat; resolution follows in :func:`step`."""
    kind = ORDER_KIND[order["type"]]
    target = order["target"]
    turn = state["turn"]
    points = cost(role, kind)
    turn["ap"] -= points
    turn["combats"] += 1
    turn["acted"] = True
    turn["target"] = target  # the zone a front end shows close up once the battle is fought
    if kind == "archers":
        turn["archers"] += 1
    for uid in group:
        state["units"][uid]["exhausted"] = True
    cards = []
    if order.get("card"):
        special.use(state, role, order["card"])
        cards.append(order["card"])
    log(state, (f"{role.capitalize()}: {KIND_NAME[kind]} {zone}→{target} with {describe_units(group)} "
                f"({points} AP)."))
    state["combat"] = {
        "kind": kind, "attacker": role, "from": zone, "to": target, "units": list(group), "cards": cards,
        "stage": STAGES[kind][0], "damage": [], "settle": False, "karr": None, "stop_advance": False,
        "target_kinds": sorted({unit(u).kind for u in units_in(state, target)}),
    }


# ---------------------------------------------------------------- the game deck


def draw(state: State) -> str:
    """Draw the top card of the game deck for a battle; turn the discard pile over, unshuffled,
    when the deck is empty (players may remember its order, so its order becomes public)."""
    if not state["deck"]:
        if not state["discard"]:
            raise RuntimeError("no card left in the deck nor in the discard pile")
        state["deck"] = state["discard"]
        state["discard"] = []
        state["deck_known"] = True
        log(state, ("The game deck is empty: the discard pile is turned over WITHOUT SHUFFLING; "
                    "the new deck, top first: " + ", ".join(card_text(c) for c in state["deck"]) + "."))
    cid = state["deck"].pop(0)
    if not state["deck_known"]:
        state["reveals"] += 1
    state["discard"].append(cid)
    return cid


# ---------------------------------------------------------------- strengths


def strengths(state: State, c: dict[str, Any], cid: str) -> dict[str, Any]:
    """Both sides' totals for a standard attack or charge: card value, units' Power, modifiers."""
    attacker, kind = c["attacker"], c["kind"]
    defender = OTHER[attacker]
    units = state["units"]
    joined = [u for u in c["units"] if units[u]["zone"] == c["from"]]
    a_parts = [(f"card {card_value(cid, attacker)}", card_value(cid, attacker)),
               ("units", sum(units[u]["power"] for u in joined))]
    d_parts = [(f"card {card_value(cid, defender)}", card_value(cid, defender)),
               ("units", zone_power(state, c["to"]))]
    mod = int(CATALOG.reference[attacker][kind]["modifier"])
    a_parts.append((KIND_NAME[kind], mod))
    sm = CATALOG.special_modifiers
    if attacker == "christian":
        arms = CATALOG.cards[state["turn"]["card"]].arms
        if CATALOG.column_kingdoms[c["from"][0]] == arms:
            a_parts.append(("For the King", int(CATALOG.reference["christian"]["for_the_king"]["modifier"])))
        if c["to"] == CATALOG.camp:
            d_parts.append(("al-Nasir's camp", sm["camp_defense"]))
        if zone_has_kind(state, c["to"], "jihad"):
            d_parts.append(("Jihad Volunteers defending", sm["volunteers_defense"]))
    elif any(unit(u).kind == "jihad" for u in joined):
        a_parts.append(("Jihad Volunteers attacking", sm["volunteers_attack"]))
    for card_id in c["cards"]:
        a_parts.append((f"{CATALOG.specials[card_id].name} card", sm["special_card_attack"]))
    return {"attacker": attacker, "defender": defender,
            "attacker_total": sum(v for _, v in a_parts), "defender_total": sum(v for _, v in d_parts),
            "attacker_parts": a_parts, "defender_parts": d_parts}


def _parts_text(parts: list[tuple[str, int]]) -> str:
    return " ".join(f"{v:+d} {name}" if i else f"{v} ({name})" for i, (name, v) in enumerate(parts))


def _queue_result(state: State, c: dict[str, Any], a_zone: str, d_zone: str, a_total: int, d_total: int) -> str:
    diff = a_total - d_total
    if diff > 0:
        c["damage"].append({"zone": d_zone, "amount": diff})
        return f"the defenders in {d_zone} take {diff} damage"
    if diff < 0:
        c["damage"].append({"zone": a_zone, "amount": -diff})
        return f"the attackers in {a_zone} take {-diff} damage"
    c["damage"].append({"zone": d_zone, "amount": 1})
    c["damage"].append({"zone": a_zone, "amount": 1})
    return "a tie: both sides take 1 damage"


# ---------------------------------------------------------------- stages


def _next_stage(c: dict[str, Any]) -> None:
    stages = STAGES[c["kind"]]
    c["stage"] = stages[stages.index(c["stage"]) + 1]


def _open_window(state: State, card_id: str) -> None:
    state["pending"] = {"kind": "window", "role": "muslim", "card": card_id}


def step(state: State) -> None:
    """Run the current stage of the combat in progress (it may open a decision)."""
    c = state["combat"]
    stage = c["stage"]
    if stage != "done":
        _next_stage(c)
    attacker = c["attacker"]
    christian_melee = attacker == "christian" and c["kind"] in ("standard", "charge")
    if stage == "karr":
        if attacker == "christian" and c["kind"] == "charge" and zone_has_icon(state, c["to"], "cavalry"):
            state["pending"] = {"kind": "karr", "role": "muslim"}
    elif stage == "kurdish":
        if (attacker == "christian" and c["kind"] == "charge" and c["karr"]
                and zone_has_kind(state, c["to"], "kurdish") and special.window_open(state, "kurdish")):
            _open_window(state, "kurdish")
    elif stage == "black_guard":
        if (christian_melee and c["to"] == CATALOG.camp and special.window_open(state, "black-guard")
                and special.related_alive(state, "black-guard")):
            _open_window(state, "black-guard")
    elif stage == "fizzle":
        units = state["units"]
        if not any(units[u]["zone"] == c["from"] for u in c["units"]):
            log(state, f"Every unit that joined the {KIND_NAME[c['kind']]} is gone: it is not resolved.")
            c["stage"] = "done"
    elif stage == "battle":
        _battle(state, c)
    elif stage == "jihad":
        if (christian_melee and "jihad" in c["target_kinds"]
                and not any(unit(u).kind == "jihad" and state["units"][u]["zone"] is not None
                            for u in CATALOG.unit_order)
                and special.window_open(state, "jihad")):
            _open_window(state, "jihad")
    elif stage == "advance":
        _advance(state, c)
    elif stage == "karr_battle":
        _karr_battle(state, c)
    elif stage == "done":
        state["combat"] = None


def _battle(state: State, c: dict[str, Any]) -> None:
    if c["kind"] == "archers":
        points = cost(c["attacker"], "archers", "damage")
        c["damage"].append({"zone": c["to"], "amount": points})
        log(state, f"The archers hit {c['to']}: {points} damage.")
        c["settle"] = True
        state["last_battle"] = {"kind": "archers", "attacker": c["attacker"], "from": c["from"], "to": c["to"],
                                "damage": points}
        return
    cid = draw(state)
    s = strengths(state, c, cid)
    outcome = _queue_result(state, c, c["from"], c["to"], s["attacker_total"], s["defender_total"])
    a, d = s["attacker"], s["defender"]
    log(state, (f"Battle {c['from']}→{c['to']}: card {card_text(cid)}; {a.capitalize()} "
                f"{s['attacker_total']} = {_parts_text(s['attacker_parts'])}; {d.capitalize()} "
                f"{s['defender_total']} = {_parts_text(s['defender_parts'])}; {outcome}."))
    c["settle"] = True
    state["last_battle"] = {"kind": c["kind"], "attacker": a, "from": c["from"], "to": c["to"], "card": cid,
                            "attacker_total": s["attacker_total"], "defender_total": s["defender_total"],
                            "attacker_parts": [list(p) for p in s["attacker_parts"]],
                            "defender_parts": [list(p) for p in s["defender_parts"]]}


def _advance(state: State, c: dict[str, Any]) -> None:
    """After a battle that emptied the target zone: Jihad Volunteers must advance, a Muslim charge
    may advance, a Christian charge must advance with its whole column behind it."""
    if c["kind"] == "archers" or side_of(state, c["to"]) is not None:
        return
    origin_units = movement.mobile(units_in(state, c["from"]))
    if not origin_units or unit(origin_units[0]).side != c["attacker"]:
        return
    if c["attacker"] == "muslim":
        if any(unit(u).kind == "jihad" for u in c["units"]):
            moved = movement.move_all(state, c["from"], c["to"])
            log(state, (f"The Jihad Volunteers joined the attack and the zone is empty: "
                        f"{describe_units(moved)} advance {c['from']}→{c['to']}, as they must."))
            c["settle"] = True
        elif c["kind"] == "charge":
            state["pending"] = {"kind": "advance", "role": "muslim", "from": c["from"], "to": c["to"]}
        return
    if c["kind"] != "charge":
        return
    if "jund" in c["target_kinds"] and special.window_open(state, "jund") and not c.get("jund_asked"):
        c["jund_asked"] = True
        c["stage"] = "advance"
        _open_window(state, "jund")
        return
    if c["stop_advance"]:
        log(state, "The Jund Infantry card stops the advance of the Christian column.")
        return
    movement.advance_column(state, c["from"], c["to"])
    c["settle"] = True


def _karr_battle(state: State, c: dict[str, Any]) -> None:
    if not c["karr"]:
        return
    target, origin = c["to"], c["from"]
    holder = side_of(state, target)
    if holder == "muslim":
        attack_zone, defend_zone = target, origin
    elif holder == "christian":
        attack_zone = ahead(target) or ""
        defend_zone = target
        if not attack_zone or side_of(state, attack_zone) != "muslim":
            log(state, f"Karr wa-l-farr: no Muslim units in the next zone of the column; no second battle ({S_KARR}).")
            return
    else:
        log(state, f"Karr wa-l-farr: the charged zone is empty and unoccupied; no second battle ({S_KARR}).")
        return
    if side_of(state, defend_zone) != "christian":
        log(state, f"Karr wa-l-farr: no Christian troops left to strike; no second battle ({S_KARR}).")
        return
    cid = draw(state)
    karr_mod = int(CATALOG.reference["muslim"]["karr"]["modifier"])
    a_parts = [(f"card {card_value(cid, 'muslim')}", card_value(cid, "muslim")),
               ("units", zone_power(state, attack_zone)), ("karr wa-l-farr", karr_mod)]
    d_parts = [(f"card {card_value(cid, 'christian')}", card_value(cid, "christian")),
               ("units", zone_power(state, defend_zone))]
    a_total, d_total = sum(v for _, v in a_parts), sum(v for _, v in d_parts)
    outcome = _queue_result(state, c, attack_zone, defend_zone, a_total, d_total)
    log(state, (f"Karr wa-l-farr {attack_zone}→{defend_zone}: card {card_text(cid)}; Muslim {a_total} = "
                f"{_parts_text(a_parts)}; Christian {d_total} = {_parts_text(d_parts)}; {outcome}."))
    c["settle"] = True
    state["last_battle"] = {"kind": "karr", "attacker": "muslim", "from": attack_zone, "to": defend_zone,
                            "card": cid, "attacker_total": a_total, "defender_total": d_total,
                            "attacker_parts": [list(p) for p in a_parts],
                            "defender_parts": [list(p) for p in d_parts]}


# ---------------------------------------------------------------- damage queue


def settle_damage(state: State) -> None:
    """Apply the head of the damage queue, or ask its zone's owner how to distribute it."""
    c = state["combat"]
    head = c["damage"][0]
    holder = side_of(state, head["zone"])
    if holder is None:
        c["damage"].pop(0)
        return
    choices = damage.distributions(state, head["zone"], head["amount"])
    if len(choices) == 1:
        damage.apply(state, head["zone"], choices[0])
        c["damage"].pop(0)
        return
    state["pending"] = {"kind": "damage", "role": holder, "zone": head["zone"], "amount": head["amount"]}


def settle_victory(state: State) -> bool:
    c = state["combat"]
    c["settle"] = False
    return victory.check(state)


def push_card_damage(state: State, card_id: str) -> None:
    """Black Guard, Kurdish cavalry and Jihad Volunteers cards: 2 automatic damage to the zone the
    attack came from."""
    c = state["combat"]
    points = CATALOG.special_modifiers["special_card_damage"]
    c["damage"].append({"zone": c["from"], "amount": points})
    c["settle"] = True
    log(state, f"The {CATALOG.specials[card_id].name} card inflicts {points} damage on {c['from']}.")


def joined_text(c: dict[str, Any]) -> str:
    return ", ".join(unit_text(u) for u in c["units"])
