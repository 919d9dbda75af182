"""Outer rondel, the Storehouse and Market actions: expanding or activating a Storehouse,
and the Market's purchases, sales and trades (the quarries are in :mod:`.turn`, the
Construction action in :mod:`.construction`).
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.sabika import names as N
from engine.sabika import state as S
from engine.sabika.data import DATA, GOODS, MATERIALS, STOREHOUSES
from engine.sabika.names import ITEM_NAME, describe_bonus
from engine.sabika.resources import raw_available
from engine.sabika.state import R_MARKET, R_STOREHOUSE_ACTION, Decision
from engine.text import plural


def display_tiles(s: State, side: str | None) -> list[tuple[str, int, str]]:
    sides = [side] if side else ["left", "right"]
    return [(sd, i, t) for sd in sides for i, t in enumerate(s["store_display"][sd]) if t is not None]


def activatable(p: dict[str, Any]) -> list[int]:
    return [i for i, st in enumerate(p["stores"]) if st["tiles"]]


def _o_storehouse(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    out = []
    if any(len(st["tiles"]) < 2 for st in p["stores"]):
        for sd, i, t in display_tiles(s, dec["side"]):
            out.append(S.opt("expand", f"Expand with a {N.tagged(t, N.storehouse)}",
                            side=sd, slot=i))
    for i in activatable(p):
        top = p["stores"][i]["tiles"][-1]
        out.append(S.opt("activate", f"Activate Storehouse {i + 1} ({describe_bonus(STOREHOUSES[top]['bonus'])})", store=i))
    return out


def _o_expand_where(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    return [S.opt("onto", f"Place it on Storehouse {i + 1} ({'expanded once' if st['tiles'] else 'not yet expanded'})", store=i)
            for i, st in enumerate(p["stores"]) if len(st["tiles"]) < 2]


MARKET = DATA["market"]


def _o_market(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    h = S.holdings(p)
    out = []
    if any(S.funds(p) >= buy_price(s, dec["role"], m) for m in MATERIALS) or \
            (S.funds(p) >= buy_price(s, dec["role"], "raw") and raw_available(s)):
        out.append(S.opt("buy", "Buy a Material or a Raw Material"))
    if h:
        out.append(S.opt("sell", "Sell a Material or a Good"))
    if any(h.get(m) for m in MATERIALS):
        out.append(S.opt("trade", "Trade a Material for the next one up or down the Market Table"))
    out.append(S.opt("stop", "No more transactions"))
    return out


def buy_price(s: State, role: str, item: str) -> int:
    return int(MARKET["buy"][item]) + (1 if S.event_is(s, role, "dear_materials") else 0)


def _o_market_buy(s: State, dec: dict[str, Any]) -> list[Action]:
    role = dec["role"]
    p = s["players"][role]
    out = [S.opt("buy_item", f"Buy 1 {ITEM_NAME[m]} for {plural(buy_price(s, role, m), 'Dinar')}", item=m)
           for m in MATERIALS if S.funds(p) >= buy_price(s, role, m)]
    if S.funds(p) >= buy_price(s, role, "raw") and raw_available(s):
        out.append(S.opt("buy_item", f"Buy 1 Raw Material for {plural(buy_price(s, role, 'raw'), 'Dinar')}", item="raw"))
    return out + [S.opt("back", "Back")]


def _o_market_sell(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    h = S.holdings(p)
    out = [S.opt("sell_item", f"Sell 1 {ITEM_NAME[x]} for {plural(sell_price(x), 'Dinar')}", item=x)
           for x in (*MATERIALS, *GOODS) if h.get(x)]
    return out + [S.opt("back", "Back")]


def sell_price(item: str) -> int:
    """What the Market pays for a Material (its own price) or a Good (one price for all)."""
    return int(MARKET["sell"][item] if item in MATERIALS else MARKET["sell"]["good"])


def _o_market_trade(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    h = S.holdings(p)
    out = []
    for i, m in enumerate(MATERIALS):
        if not h.get(m):
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < 4:
                extra = " and 1 Dinar" if j < i else ""
                out.append(S.opt("trade_item", f"Trade 1 {ITEM_NAME[m]} for 1 {ITEM_NAME[MATERIALS[j]]}{extra}",
                                give=m, get=MATERIALS[j]))
    return out + [S.opt("back", "Back")]


def _r_storehouse(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    if a["type"] == "activate":
        top = p["stores"][a["store"]]["tiles"][-1]
        S.push_bonus(s, role, STOREHOUSES[top]["bonus"], f"Storehouse {a['store'] + 1} activated")
        return
    S.push(s, {"kind": "expand_where", "role": role, "side": a["side"], "slot": a["slot"]})


def _r_expand_where(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    tile = s["store_display"][dec["side"]][dec["slot"]]
    s["store_display"][dec["side"]][dec["slot"]] = None
    st = p["stores"][a["store"]]
    st["tiles"].append(tile)
    S.gain_pp(s, role, len(st["tiles"]), f"Storehouse {a['store'] + 1} expanded")
    S.push_bonus(s, role, STOREHOUSES[tile]["bonus"], "the new Storehouse")


def _r_market(s: State, dec: dict[str, Any], a: Action) -> None:
    if a["type"] == "stop":
        return
    S.push(s, {"kind": f"market_{a['type']}", "role": dec["role"], "left": dec["left"]})


def _market_next(s: State, dec: dict[str, Any]) -> None:
    if dec["left"] > 1:
        S.push(s, {"kind": "market", "role": dec["role"], "left": dec["left"] - 1})


def _market_goes_on(s: State, dec: dict[str, Any], a: Action) -> bool:
    """Whether a purchase, sale or trade goes on: ``back`` asks the Market's menu again with as
    many steps left (False); any other step first pushes the Market's next step, if one is left."""
    if a["type"] == "back":
        S.push(s, {"kind": "market", "role": dec["role"], "left": dec["left"]})
        return False
    _market_next(s, dec)
    return True


def _r_market_buy(s: State, dec: dict[str, Any], a: Action) -> None:
    if not _market_goes_on(s, dec, a):
        return
    role = dec["role"]
    item = a["item"]
    S.log(s, f"{role} buys 1 {'Raw Material' if item == 'raw' else ITEM_NAME[item]}.")
    if item == "raw":
        S.push(s, {"kind": "raw", "role": role, "good": False})
    else:
        S.push_store(s, role, item)
    S.push_pay(s, role, buy_price(s, role, item), "purchase")


def _r_market_sell(s: State, dec: dict[str, Any], a: Action) -> None:
    if not _market_goes_on(s, dec, a):
        return
    role = dec["role"]
    item = a["item"]
    p = s["players"][role]
    S.take_item(s, p, item)
    price = sell_price(item)
    p["dinars"] += price
    S.log(s, f"{role} sells 1 {ITEM_NAME[item]} for {plural(price, 'Dinar')}.")


def _r_market_trade(s: State, dec: dict[str, Any], a: Action) -> None:
    if not _market_goes_on(s, dec, a):
        return
    role = dec["role"]
    p = s["players"][role]
    S.take_item(s, p, a["give"])
    down = MATERIALS.index(a["get"]) < MATERIALS.index(a["give"])
    if down:
        p["dinars"] += 1
    S.log(s, f"{role} trades 1 {ITEM_NAME[a['give']]} for 1 {ITEM_NAME[a['get']]}{' and 1 Dinar' if down else ''}.")
    S.push_store(s, role, a["get"])


DECISIONS: dict[str, Decision] = {
    "storehouse": Decision(_o_storehouse, _r_storehouse, R_STOREHOUSE_ACTION),
    "expand_where": Decision(_o_expand_where, _r_expand_where, R_STOREHOUSE_ACTION),
    "market": Decision(_o_market, _r_market, R_MARKET),
    "market_buy": Decision(_o_market_buy, _r_market_buy, R_MARKET),
    "market_sell": Decision(_o_market_sell, _r_market_sell, R_MARKET),
    "market_trade": Decision(_o_market_trade, _r_market_trade, R_MARKET),
}
