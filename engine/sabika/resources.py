"""Resources and Storehouses: taking Materials, Raw Materials and Goods, processing Raw
Materials into Goods, storing what is taken (making room when every Storehouse is full), and
paying Dinars with Seals.
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.sabika.data import GOODS
from engine.sabika.names import ITEM_NAME, RAW_NAME
from engine.sabika.state import R_RESOURCES, R_STOREHOUSES, Decision, capacity, log, opt, push, push_store
from engine.text import plural


def _o_pay(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    amount = dec["amount"]
    low = max(0, amount - p["dinars"])
    return [opt("seals", f"Pay {plural(amount - k, 'Dinar')} and {plural(k, 'Seal')}", n=k) for k in range(low, min(p["seals"], amount) + 1)]


def _o_store(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    item = ITEM_NAME[dec["item"]]
    room = [i for i in range(4) if len(p["stores"][i]["items"]) < capacity(p, i)]
    if room:
        return [opt("store", f"Put the {item} in Storehouse {i + 1}", store=i) for i in room]
    out = [opt("make_room", f"Storehouse {i + 1} is full: empty a space for the {item}", store=i)
           for i in range(4) if p["stores"][i]["items"]]
    out.append(opt("forfeit", f"Do not keep the {item}"))
    return out


def _o_make_room(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    items = sorted(set(p["stores"][dec["store"]]["items"]))
    return [opt("discard", f"Return the {ITEM_NAME[x]} to make room", item=x) for x in items]


def _o_pickmat(s: State, dec: dict[str, Any]) -> list[Action]:
    return [opt("material", f"Take 1 {ITEM_NAME[m]}", material=m) for m in dec["of"]]


def _o_raw(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    out = []
    for sq, token in sorted(s["raw_squares"].items(), key=lambda kv: int(kv[0])):
        if token is None:
            continue
        if dec.get("good"):
            out.append(opt("token", f"Take the {RAW_NAME[token]} of square {sq} as {ITEM_NAME[token]}", square=int(sq)))
        elif token in p["processing"]:
            out.append(opt("token", f"Earn {RAW_NAME[token]} (square {sq}): process yours into {ITEM_NAME[token]}",
                            square=int(sq)))
        else:
            out.append(opt("token", f"Take the {RAW_NAME[token]} of square {sq}", square=int(sq)))
    return out


def _o_process(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    out = [opt("process", f"Process your {RAW_NAME[g]} into {ITEM_NAME[g]}", good=g) for g in sorted(p["processing"])]
    if dec.get("optional"):
        out.append(opt("stop", "Process no more"))
    return out


def raw_available(s: State) -> bool:
    return any(t is not None for t in s["raw_squares"].values())


def gain_raw_from(s: State, role: str, sq: str) -> None:
    p = s["players"][role]
    token = s["raw_squares"][sq]
    assert token is not None
    if token in p["processing"]:
        p["processing"].remove(token)  # the token stays on the rondel; yours becomes a Good
        log(s, f"{role} earns {RAW_NAME[token]} and processes the one in the workshop into {ITEM_NAME[token]}.")
        push_store(s, role, token)
    else:
        s["raw_squares"][sq] = None
        p["processing"].append(token)
        log(s, f"{role} takes {RAW_NAME[token]} to the workshop.")


def _r_pay(s: State, dec: dict[str, Any], a: Action) -> None:
    p = s["players"][dec["role"]]
    k = a["n"]
    p["seals"] -= k
    p["dinars"] -= dec["amount"] - k
    if k:
        log(s, f"{dec['role']} pays {plural(dec['amount'] - k, 'Dinar')} and {plural(k, 'Seal')} ({dec['why']}).")


def _r_store(s: State, dec: dict[str, Any], a: Action) -> None:
    role, item = dec["role"], dec["item"]
    p = s["players"][role]
    if a["type"] == "store":
        p["stores"][a["store"]]["items"].append(item)
    elif a["type"] == "make_room":
        push(s, {"kind": "make_room", "role": role, "store": a["store"], "item": item})
    else:
        if item in GOODS:
            s["discard_goods"][item] += 1
        log(s, f"{role} has no room and does not keep the {ITEM_NAME[item]}.")


def _r_make_room(s: State, dec: dict[str, Any], a: Action) -> None:
    p = s["players"][dec["role"]]
    st = p["stores"][dec["store"]]
    st["items"].remove(a["item"])
    if a["item"] in GOODS:
        s["discard_goods"][a["item"]] += 1
    st["items"].append(dec["item"])
    log(s, f"{dec['role']} returns a {ITEM_NAME[a['item']]} to make room for a {ITEM_NAME[dec['item']]}.")


def _r_pickmat(s: State, dec: dict[str, Any], a: Action) -> None:
    log(s, f"{dec['role']} takes 1 {ITEM_NAME[a['material']]}.")
    push_store(s, dec["role"], a["material"])


def _r_raw(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    sq = str(a["square"])
    if dec.get("good"):
        token = s["raw_squares"][sq]
        s["raw_squares"][sq] = None
        log(s, f"{role} takes {RAW_NAME[token]} from the rondel directly as {ITEM_NAME[token]}.")
        push_store(s, role, token)
    else:
        gain_raw_from(s, role, sq)


def _r_process(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    if a["type"] == "stop":
        return
    g = a["good"]
    p["processing"].remove(g)
    log(s, f"{role} processes {RAW_NAME[g]} into {ITEM_NAME[g]}.")
    if dec["left"] > 1 and len(p["processing"]) > 0:
        push(s, {"kind": "process", "role": role, "left": dec["left"] - 1, "optional": dec["optional"]})
    push_store(s, role, g)


DECISIONS: dict[str, Decision] = {
    "pay": Decision(_o_pay, _r_pay, "ships"),
    "store": Decision(_o_store, _r_store, R_STOREHOUSES),
    "make_room": Decision(_o_make_room, _r_make_room, R_STOREHOUSES),
    "pickmat": Decision(_o_pickmat, _r_pickmat, R_RESOURCES),
    "raw": Decision(_o_raw, _r_raw, R_RESOURCES),
    "process": Decision(_o_process, _r_process, R_RESOURCES),
}
