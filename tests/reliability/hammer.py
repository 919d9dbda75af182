"""Players and delivery workers that race each other through the real game service, and the
checks that nothing was lost or doubled.

Used in-process (several GameService objects on one database, i.e. several connections) and
as separate processes (``python -m tests.reliability.hammer``), which is how two bot shards
or two front ends share a database. Each player loops: look at the game as the front end
would (the role's view and its version), pick a legal order, send it with that version.
When another player got there first, the service must refuse with StaleVersion carrying the
current version and the new prompt; the checks afterwards prove that every accepted order
is in the log exactly once, in order, that the stored state is the replay of the log, and
that each notification row exists once and was delivered once.

Events are JSON lines: ``{"event": "ok"|"stale"|"refused"|"delivered", ...}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import engine
from bot.models import dumps
from bot.service import GameService, NotAllowed, StaleVersion
from engine.api import State, strip_label, visible_log
from engine.rng import Generator

Event = dict[str, Any]
ANN, BOB = 101, 202
CHANNEL = 900


async def make_games(service: GameService, count: int, *, target: int = 20, seed: int = 1) -> list[int]:
    """Running toy games held by two Discord users, with a channel for public posts."""
    out = []
    for k in range(count):
        info = await service.create_game("toy", {"target": target}, seed=seed + k, created_by=ANN, guild_id=1,
                                         channel_id=CHANNEL)
        await service.join(info.id, ANN, "Ann", "red")
        await service.join(info.id, BOB, "Bob", "blue")
        await service.start(info.id)
        out.append(info.id)
    return out


async def play(service: GameService, games: list[int], seed: int, name: str, events: list[Event],
               deadline: float | None = None, think_ms: float = 0.0) -> None:
    """Play each game to its end (or until ``deadline``), racing whoever else plays it.

    ``think_ms``: a pause of up to that long between reading the game and ordering, as a
    person takes; it widens the window in which another process moves first, so that
    racing processes certainly collide even on an idle, fast machine."""
    pick = Generator(seed)
    for pk in games:
        while deadline is None or time.monotonic() < deadline:
            info = await service.game(pk)
            if info.status != "running" or not info.active:
                break
            role = pick.choice(info.active)
            seat = info.seat(role)
            assert seat is not None
            seen = await service.view(pk, role, user_id=seat.user_id)
            legal = seen.view.get("actions") or []
            if not legal:
                continue
            action = strip_label(pick.choice(legal))
            if think_ms:
                await asyncio.sleep(pick.randbelow(int(think_ms * 1000) + 1) / 1_000_000)
            try:
                step = await service.apply(pk, role, action, seen.version, user_id=seat.user_id)
            except StaleVersion as exc:
                events.append({"event": "stale", "worker": name, "game": pk, "role": role, "expected": exc.expected,
                               "version": exc.version, "prompt": exc.prompt, "message": str(exc)})
                continue
            except NotAllowed as exc:  # the game ended or the turn passed under our feet
                events.append({"event": "refused", "worker": name, "game": pk, "role": role,
                               "expected": seen.version, "message": str(exc)})
                continue
            events.append({"event": "ok", "worker": name, "game": pk, "role": role, "version": step.version,
                           "action": action})


async def deliver(service: GameService, name: str, events: list[Event], done: asyncio.Event,
                  sent: Any = None) -> None:
    """Claim notifications, "send" them (record the event, or call ``sent``), mark them sent,
    until ``done`` is set and nothing is left to claim."""
    while True:
        finished = done.is_set()
        items = await service.claim_outbox(name, limit=5)
        for item in items:
            events.append({"event": "delivered", "worker": name, "id": item.id, "key": item.dedupe_key})
            if sent is not None:
                sent(item)
            if not await service.mark_sent(item.id, name):
                events.append({"event": "claim_lost", "worker": name, "id": item.id})
        if not items:
            if finished:
                return
            await asyncio.sleep(0.01)


# --------------------------------------------------------------------------- checks


def replay_states(game_id: str, seed: int, options: dict[str, Any], moves: list[dict[str, Any]]) -> list[State]:
    """The state after each version (index 0 = setup), from the stored log (steps only)."""
    module = engine.get(game_id)
    state = module.setup(seed, options)
    states = [state]
    for move in moves:
        assert move["kind"] == "step", "these scenarios make no undo"
        state = module.apply(state, move["role"], move["action"])
        states.append(state)
    return states


async def check_game(service: GameService, pk: int, events: list[Event]) -> list[str]:
    """Everything that must hold for one raced game; a list of problems (empty: all good)."""
    problems: list[str] = []
    info = await service.game(pk)
    moves = await service.moves(pk)
    module = engine.get(info.game_id)
    ok = [e for e in events if e["event"] == "ok" and e["game"] == pk]
    versions = Counter(e["version"] for e in ok)
    doubled = [v for v, n in versions.items() if n > 1]
    if doubled:
        problems.append(f"game {pk}: versions accepted twice: {doubled}")
    if [m["seq"] for m in moves] != list(range(1, len(moves) + 1)):
        problems.append(f"game {pk}: the log's seq numbers have gaps or repeats")
    if len(moves) != info.version or sorted(versions) != list(range(1, info.version + 1)):
        problems.append(f"game {pk}: {len(ok)} accepted orders, {len(moves)} moves logged, version {info.version}")
    by_seq = {m["seq"]: m for m in moves}
    for e in ok:
        m = by_seq.get(e["version"])
        if m is None or m["role"] != e["role"] or m["action"] != e["action"]:
            problems.append(f"game {pk}: accepted order {e} is not move {e['version']} of the log ({m})")
    report = await service.replay_check(pk)
    if not report.ok:
        problems.append(f"game {pk}: replay-check failed: {report.message}")
    states = replay_states(info.game_id, info.seed, info.options, moves)
    for e in (e for e in events if e["event"] == "stale" and e["game"] == pk):
        if not e["expected"] < e["version"] <= info.version:
            problems.append(f"game {pk}: stale refusal with versions {e['expected']} -> {e['version']}")
            continue
        prompt = str(module.view(states[e["version"]], e["role"]).get("prompt", ""))
        if e["prompt"] != prompt or prompt not in e["message"]:
            problems.append(f"game {pk}: stale refusal carries prompt {e['prompt']!r}, the game asks {prompt!r}")
    problems += await check_notifications(service, pk, info.game_id, states, moves)
    return problems


async def check_notifications(service: GameService, pk: int, game_id: str, states: list[State],
                              moves: list[dict[str, Any]]) -> list[str]:
    """Each step's public lines reach the channel in exactly one row, and each turn change
    (and each step after which its role must act again) gives exactly one your-turn DM;
    nothing private in a channel row."""
    problems: list[str] = []
    rows = await service.outbox(pk)
    keys = Counter(o.dedupe_key for o in rows)
    if any(n > 1 for n in keys.values()):
        problems.append(f"game {pk}: notification written twice: {[k for k, n in keys.items() if n > 1]}")
    log_rows = Counter((o.payload["version"], tuple(o.payload.get("lines") or [])) for o in rows
                       if o.kind == "channel" and o.payload.get("type") == "log")
    module = engine.get(game_id)
    expected: Counter[tuple[int, tuple[str, ...]]] = Counter()
    turns: Counter[tuple[int, str]] = Counter()
    for version in range(1, len(states)):
        before, after = states[version - 1], states[version]
        new = after["log"][len(before["log"]):]
        public = tuple(str(e.get("text", "")) for e in visible_log(new, None))
        if public:
            expected[(version, public)] += 1
        if module.result(after) is None:
            actor = moves[version - 1]["role"]
            for role in module.active(after):
                # A prompt when the turn comes to a role, and when the role that acted must
                # act again (its next prompt goes through the outbox too).
                if role not in module.active(before) or role == actor:
                    turns[(version, role)] += 1
    if log_rows != expected:
        problems.append(f"game {pk}: channel log rows {sorted(log_rows.items())[:5]}... differ from the "
                        f"public lines of the steps {sorted(expected.items())[:5]}...")
    dms = Counter((o.payload["version"], o.payload["role"]) for o in rows if o.payload.get("type") == "your_turn"
                  and o.payload["version"] > 0)
    if dms != turns:
        problems.append(f"game {pk}: your-turn DMs {sorted(dms)} differ from the prompts due {sorted(turns)}")
    return problems


def check_deliveries(events: list[Event], row_ids: set[int]) -> list[str]:
    delivered = Counter(e["id"] for e in events if e["event"] == "delivered")
    problems = []
    twice = sorted(i for i, n in delivered.items() if n > 1)
    if twice:
        problems.append(f"notifications delivered more than once: {twice[:20]}")
    missing = sorted(row_ids - set(delivered))
    if missing:
        problems.append(f"notifications never delivered: {missing[:20]}")
    lost = [e for e in events if e["event"] == "claim_lost"]
    if lost:
        problems.append(f"claims lost to another worker: {lost[:5]}")
    return problems


# --------------------------------------------------------------------------- as a process


async def _main(args: argparse.Namespace) -> None:
    engine.GAMES.setdefault("toy", __import__("tests.bot.toygame", fromlist=["toygame"]))
    service = GameService.open(args.url)
    events: list[Event] = []
    try:
        print(json.dumps({"event": "ready"}), flush=True)
        go = Path(args.go)
        while not go.exists():
            await asyncio.sleep(0.005)
        done = asyncio.Event()
        delivery = asyncio.create_task(deliver(service, args.name, events, done)) if args.deliver else None
        await play(service, [int(g) for g in args.games.split(",")], args.seed, args.name, events,
                   think_ms=args.think_ms)
        done.set()
        if delivery is not None:
            await delivery
    finally:
        await service.close()
        for e in events:
            sys.stdout.write(dumps(e) + "\n")
        sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description="race other players on the same games")
    parser.add_argument("--url", required=True)
    parser.add_argument("--games", required=True, help="comma-separated game ids, played in this order")
    parser.add_argument("--think-ms", type=float, default=0.0, help="pause up to this long before each order")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--name", default="worker")
    parser.add_argument("--go", required=True, help="start when this file exists")
    parser.add_argument("--deliver", action="store_true", help="also deliver notifications")
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
