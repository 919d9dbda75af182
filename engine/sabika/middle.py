"""Middle rondel, exporting Goods: the Export, Consolidate and Produce actions, the routes
of the map and the City Bonuses.
"""

from __future__ import annotations

import heapq
from typing import Any

from engine.api import Action, State
from engine.sabika import names as N
from engine.sabika import state as S
from engine.sabika.data import CITIES, CITY_TILES, DATA, GOODS
from engine.sabika.names import ITEM_NAME, describe_bonus
from engine.sabika.state import R_CONSOLIDATE, R_EXPORT, R_PRODUCE, YUSUF, Decision
from engine.text import plural


def presence(s: State, role: str) -> list[str]:
    """In the order of the map's data, not of the state's keys: a state read back from
    storage has its keys sorted, and the view lists these cities."""
    return [c for c in CITIES if role in s["cities"][c]["left"] or role in s["cities"][c]["right"]]


def route_cost(s: State, role: str, city: str) -> int:
    """The cheapest chain of routes from the Kingdom of Granada or a City where ``role`` has a presence."""
    cost = distances(s, ["granada", *presence(s, role)])[city]
    if "routes" in S.blue_effects(s["players"][role]):
        cost = max(0, cost - 2)
    if S.event_is(s, role, "closed_ports"):
        cost += 1
    if S.event_is(s, role, "export_discount"):
        cost = max(0, cost - 1)
    return cost


def export_cities(s: State, role: str) -> list[str]:
    p = s["players"][role]
    if p["ships"] == 0 or not any(S.holdings(p).get(g) for g in GOODS):
        return []
    return [c for c in CITIES if c not in presence(s, role) and route_cost(s, role, c) <= S.funds(p)]


def _o_export(s: State, dec: dict[str, Any]) -> list[Action]:
    out = []
    for c in export_cities(s, dec["role"]):
        tile = CITY_TILES[s["cities"][c]["tile"]]
        seal = " and its Seal" if s["cities"][c]["seal"] else ""
        out.append(S.opt("city", f"Export to {CITIES[c]['name']} ({N.cost(route_cost(s, dec['role'], c))}, wants "
                                f"{ITEM_NAME[tile['demand']]}; bonus: {describe_bonus(tile['bonus'])}{seal})", city=c))
    return out


def _o_export_goods(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    h = S.holdings(p)
    demand = CITY_TILES[s["cities"][dec["city"]]["tile"]]["demand"]
    out = []
    if dec["count"] < 2:
        out = [S.opt("good", f"Export 1 {ITEM_NAME[g]}{' (in demand)' if g == demand else ''}", good=g)
               for g in GOODS if h.get(g)]
    if dec["count"] >= 1:
        out.append(S.opt("done", "Export no more"))
    return out


def _o_consolidate(s: State, dec: dict[str, Any]) -> list[Action]:
    return [S.opt("city", f"Consolidate in {CITIES[c]['name']} ({CITY_TILES[info['tile']]['colour']})", city=c)
            for c in CITIES if dec["role"] in (info := s["cities"][c])["left"]]


def _o_produce(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    out = []
    if not dec["city"] and presence(s, dec["role"]):
        out.append(S.opt("city_bonus", "Earn the City Bonus of a City where you have a presence"))
    if not dec["process"] and p["processing"]:
        out.append(S.opt("process_two", "Process up to 2 Raw Materials"))
    out.append(S.opt("done", "Finish producing"))
    return out


def _o_city_bonus(s: State, dec: dict[str, Any]) -> list[Action]:
    return [S.opt("city", f"{CITIES[c]['name']}: {describe_bonus(CITY_TILES[s['cities'][c]['tile']]['bonus'])}", city=c)
            for c in presence(s, dec["role"])]


def _r_export(s: State, dec: dict[str, Any], a: Action) -> None:
    """Pay the routes (2), then place the Ship and take the Seal (3), export (4), the City Bonus (5)."""
    role, city = dec["role"], a["city"]
    cost = route_cost(s, role, city)
    S.log(s, f"{role} exports to {CITIES[city]['name']}, paying {plural(cost, 'Dinar')} for the routes.")
    S.push_bonus(s, role, CITY_TILES[s["cities"][city]["tile"]]["bonus"], f"City Bonus of {CITIES[city]['name']}")
    S.push(s, {"kind": "export_goods", "role": role, "city": city, "count": 0})
    S.push(s, {"kind": "effect", "role": role, "effect": {"k": "arrive"}, "city": city})
    S.push_pay(s, role, cost, "routes")


def arrive(s: State, dec: dict[str, Any]) -> None:
    role, city = dec["role"], dec["city"]
    p = s["players"][role]
    info = s["cities"][city]
    p["ships"] -= 1
    info["left"].append(role)
    if info["seal"]:
        info["seal"] = False
        p["seals"] += 1
        S.log(s, f"{role} is first in {CITIES[city]['name']} and takes its Seal.")


def _r_export_goods(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    if a["type"] == "done":
        return
    p = s["players"][role]
    g = a["good"]
    S.take_item(s, p, g)
    demand = CITY_TILES[s["cities"][dec["city"]]["tile"]]["demand"]
    n = 2 if g == demand else 1
    S.gain_parias(s, role, n)
    S.log(s, f"{role} exports 1 {ITEM_NAME[g]}: {n} PP and {plural(n, 'Paria')}.")
    S.gain_pp(s, role, n, "export")
    if dec["count"] + 1 < 2 and any(S.holdings(p).get(x) for x in GOODS):
        S.push(s, {**dec, "count": dec["count"] + 1})


def _r_consolidate(s: State, dec: dict[str, Any], a: Action) -> None:
    role, city = dec["role"], a["city"]
    info = s["cities"][city]
    info["left"].remove(role)
    for other in info["right"]:
        if other != YUSUF:  # Yusuf manages no Dinars
            s["players"][other]["dinars"] += 1
        S.gain_pp(s, other, 1, f"consolidated earlier in {CITIES[city]['name']}")
    info["right"].append(role)
    tile = CITY_TILES[info["tile"]]
    S.log(s, f"{role} consolidates the Trade Relationship with {CITIES[city]['name']} ({tile['colour']}).")
    if tile["colour"] == "red":
        S.push_bonus(s, role, tile["consolidate"], f"red City {CITIES[city]['name']}")


def _r_produce(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    if a["type"] == "done":
        return
    nxt = dict(dec)
    if a["type"] == "city_bonus":
        nxt["city"] = True
        S.push(s, nxt)
        S.push(s, {"kind": "city_bonus", "role": role})
    else:
        nxt["process"] = True
        S.push(s, nxt)
        S.push(s, {"kind": "process", "role": role, "left": 2, "optional": True})


def _r_city_bonus(s: State, dec: dict[str, Any], a: Action) -> None:
    tile = CITY_TILES[s["cities"][a["city"]]["tile"]]
    S.push_bonus(s, dec["role"], tile["bonus"], f"City Bonus of {CITIES[a['city']]['name']}")


_DISTANCES: dict[tuple[str, ...], dict[str, int]] = {}


def distances(s: State, starts: list[str]) -> dict[str, int]:
    """The cheapest chain of routes from any of ``starts`` to every place (Dijkstra): what a
    player's export costs and which City Yusuf takes both come from it. The map never
    changes, so the answer is remembered per list of starts (the search lists the exports
    and values their routes at every step of its playouts)."""
    key = tuple(starts)
    found = _DISTANCES.get(key)
    if found is None:
        found = _DISTANCES[key] = _dijkstra(starts)
    return dict(found)


def _dijkstra(starts: list[str]) -> dict[str, int]:
    graph: dict[str, list[tuple[str, int]]] = {}
    for a, b, cost in DATA["map"]["routes"]:
        graph.setdefault(a, []).append((b, cost))
        graph.setdefault(b, []).append((a, cost))
    best = {x: 0 for x in starts}
    heap = [(0, x) for x in starts]
    while heap:
        d, x = heapq.heappop(heap)
        if d > best.get(x, 1 << 30):
            continue
        for y, c in graph.get(x, []):
            if d + c < best.get(y, 1 << 30):
                best[y] = d + c
                heapq.heappush(heap, (d + c, y))
    return best


DECISIONS: dict[str, Decision] = {
    "export": Decision(_o_export, _r_export, R_EXPORT),
    "export_goods": Decision(_o_export_goods, _r_export_goods, R_EXPORT),
    "consolidate": Decision(_o_consolidate, _r_consolidate, R_CONSOLIDATE),
    "produce": Decision(_o_produce, _r_produce, R_PRODUCE),
    "city_bonus": Decision(_o_city_bonus, _r_city_bonus, R_PRODUCE),
}
