"""The stored-games database of the service figures and the storage figures (``storage.*``).

``service.step`` runs in a database of 10,000 stored games, made by bulk SQL copies of real games
(seconds instead of the minutes that playing them would take): :func:`build_store`,
:func:`bulk_copy`. ``storage.bytes_per_move`` reads its move log; ``storage.granada_game_bytes``
plays whole Granada games into databases of their own."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import engine
from benchmarks.common import (
    SEAT_USER_BASE,
    STORED_GAMES,
    Bench,
    default_options,
    figure,
    play_random,
    skipped,
)
from engine.api import State
from engine.rng import Generator


async def build_store(bench: Bench) -> tuple[Path, dict[str, dict[int, State]]]:
    """A database of STORED_GAMES games: real games of every registered game (random
    lengths, imported through the service), copied by SQL. Returns the database and,
    per game id, the state of each template game."""
    from bot.service import GameService, rules_version
    from bot.settings import sqlite_url

    path = bench.migrated_copy("store.db")
    service = GameService.open(sqlite_url(path))
    templates: dict[str, dict[int, State]] = {}
    try:
        for game_id in sorted(engine.GAMES):
            module = engine.get(game_id)
            pick = Generator(4242)
            # Templates stop before most random games would end, so that most stored games
            # are running, as on a real server.
            lengths = [len(g.moves) for g in bench.played_games(game_id, 3)]
            cap = max(1, min(bench.plan.template_max_steps, int(0.8 * min(lengths))))
            for k in range(bench.plan.templates_per_game):
                seed = 50_000 + k
                steps = pick.randbelow(cap + 1)
                game = play_random(module, seed, max_steps=steps)
                # (played under the installed rules: an archive without a version is taken as
                # one of version 1, which a start would then check and record as upgraded)
                data = {"format": 1, "game": game_id, "seed": seed, "options": default_options(module),
                        "rules_version": rules_version(module),
                        "moves": [{"seq": i, "role": r, "action": a}
                                  for i, (r, a) in enumerate(game.moves, start=1)]}
                pk = await service.import_game(data)
                templates.setdefault(game_id, {})[pk] = game.state
    finally:
        await service.close()
    bulk_copy(path, [pk for per in templates.values() for pk in per], STORED_GAMES)
    bench.db_path = path
    return path, templates


def storage_per_move(bench: Bench, path: Path, mark: int) -> None:
    """Bytes of one move-log row: its stored values (median, p95), and the table plus its
    indexes on disk divided by the rows (``disk_bytes_per_move``). Template and freshly
    played rows only: the bulk copies would only repeat them. A row holds what the move
    changed (``delta``) except every ``snapshot_every`` moves, when the whole state is
    written to ``game_state`` instead: ``written_bytes_per_step`` is what a freshly played
    step wrote on average, move rows and snapshots together (issue 13)."""
    from bot.service.deltas import SNAPSHOT_EVERY

    con = sqlite3.connect(path)
    cols = [r[1] for r in con.execute("PRAGMA table_info(move)")]
    size = " + ".join(f"coalesce(length(CAST({c} AS BLOB)), 0)" for c in cols)
    rows = [r[0] for r in con.execute(
        f"SELECT {size} FROM move WHERE id > ? OR game_pk IN (SELECT src FROM bench_source)", (mark,))]
    fresh = con.execute(f"SELECT count(*), coalesce(sum({size}), 0), "
                        "coalesce(sum(delta IS NULL), 0) FROM move WHERE id > ?", (mark,)).fetchone()
    state_bytes = con.execute("SELECT avg(length(CAST(state AS BLOB))) FROM game_state").fetchone()[0] or 0
    written = round((fresh[1] + fresh[2] * state_bytes) / fresh[0], 1) if fresh[0] else None
    disk = None
    try:
        names = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_schema WHERE tbl_name = 'move' AND type IN ('table', 'index')")]
        pages = con.execute(
            f"SELECT sum(pgsize) FROM dbstat WHERE name IN ({','.join('?' * len(names))})", names).fetchone()[0]
        count = con.execute("SELECT count(*) FROM move").fetchone()[0]
        disk = round(pages / count, 1) if count else None
    except sqlite3.OperationalError:
        pass  # SQLite built without dbstat
    con.close()
    if rows:
        bench.emit(figure("storage.bytes_per_move", "bytes", [float(r) for r in rows],
                         disk_bytes_per_move=disk, snapshot_every=SNAPSHOT_EVERY,
                         written_bytes_per_step=written))
    else:
        bench.emit(skipped("storage.bytes_per_move", "no move was stored"))


async def granada_game_bytes(bench: Bench) -> None:
    """``storage.granada_game_bytes``: the growth of a database (after VACUUM) for one finished
    random Granada game played through the service by two seated players."""
    name = "storage.granada_game_bytes"
    if "granada" not in engine.GAMES:
        bench.emit(skipped(name, "granada is not in engine.GAMES yet"))
        return
    from bot.service import GameService
    from bot.settings import sqlite_url

    module = engine.get("granada")
    sizes: list[float] = []
    details: list[dict[str, Any]] = []
    empty = vacuumed_size(bench.migrated_copy("granada-empty.db"))
    for game in bench.played_games("granada", bench.plan.storage_games):
        path = bench.migrated_copy(f"granada-{game.seed}.db")
        service = GameService.open(sqlite_url(path))
        try:
            info = await service.create_game("granada", default_options(module), game.seed,
                                             guild_id=1, channel_id=2, thread_id=3, pace="24h")
            users = {}
            for n, role in enumerate(info.roles):
                users[role] = SEAT_USER_BASE + n
                await service.join(info.id, users[role], f"player {n}", role)
            await service.start(info.id)
            version = 0
            for role, action in game.moves:
                step = await service.apply(info.id, role, action, version, user_id=users[role])
                version = step.version
            # Delivered notifications stay in the table as sent rows.
            for item in await service.outbox(info.id, pending_only=True):
                await service.claim_outbox("bench", limit=1000)
                await service.mark_sent(item.id, "bench")
        finally:
            await service.close()
        con = sqlite3.connect(path)
        counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("move", "outbox")}
        con.close()
        size = vacuumed_size(path) - empty
        sizes.append(float(size))
        details.append({"moves": counts["move"], "outbox_rows": counts["outbox"], "bytes": size})
    bench.emit(figure(name, "bytes", sizes, games=details,
                     note="whole database growth (game, seats, move log, state, sent notifications) after VACUUM"))


def bulk_copy(path: Path, templates: list[int], total: int) -> None:
    """Fill the database up to ``total`` games with copies of ``templates`` (game row, seats,
    state, move log, and one delivered notification per move), then give every seat a fake
    Discord user and every game a server, channel and thread, as Discord play would.

    ``bench_source(id, src)`` records which template each game copies."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("CREATE TABLE bench_source (id INTEGER PRIMARY KEY, src INTEGER NOT NULL)")
    con.executemany("INSERT INTO bench_source VALUES (?, ?)", [(pk, pk) for pk in templates])
    top = con.execute("SELECT coalesce(max(id), 0) FROM game").fetchone()[0]
    have = con.execute("SELECT count(*) FROM game").fetchone()[0]
    con.executemany("INSERT INTO bench_source VALUES (?, ?)",
                    [(top + 1 + i, templates[i % len(templates)]) for i in range(max(0, total - have))])

    def columns(table: str) -> list[str]:
        return [r[1] for r in con.execute(f"PRAGMA table_info({table})")]

    copies = "bench_source m JOIN {t} x ON x.{key} = m.src WHERE m.id <> m.src"
    game_cols = [c for c in columns("game") if c != "id"]
    con.execute(f"INSERT INTO game (id, {', '.join(game_cols)}) SELECT m.id, {', '.join('x.' + c for c in game_cols)} "
                f"FROM {copies.format(t='game', key='id')}")
    for table in ("seat", "game_state", "move"):
        cols = [c for c in columns(table) if c not in ("id", "game_pk")]
        con.execute(f"INSERT INTO {table} (game_pk, {', '.join(cols)}) SELECT m.id, "
                    f"{', '.join('x.' + c for c in cols)} FROM {copies.format(t=table, key='game_pk')}")
    outbox = set(columns("outbox"))
    wanted = {"game_pk", "kind", "recipient", "payload", "dedupe_key", "created_at", "sent_at", "attempts",
              "next_attempt_at"}
    if wanted <= outbox:
        con.execute(
            "INSERT INTO outbox (game_pk, kind, recipient, payload, dedupe_key, created_at, sent_at, attempts, "
            "next_attempt_at) SELECT mv.game_pk, 'channel', '3', "
            "'{\"game\":' || mv.game_pk || ',\"lines\":[\"A move of the log, delivered.\"],\"type\":\"log\","
            "\"version\":' || mv.seq || '}', 'bench:' || mv.game_pk || ':' || mv.seq, mv.created_at, "
            "mv.created_at, 1, mv.created_at FROM move mv")
    con.execute("UPDATE seat SET user_id = ? + id, display_name = 'player ' || id", (SEAT_USER_BASE,))
    con.execute("UPDATE game SET guild_id = 1000 + id % 50, channel_id = 2000 + id % 400, thread_id = 3000000 + id")
    con.commit()
    con.execute("ANALYZE")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


def vacuumed_size(path: Path) -> int:
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.execute("PRAGMA journal_mode=DELETE")
    con.execute("VACUUM")
    con.close()
    return path.stat().st_size

