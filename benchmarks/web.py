"""Figures of the web pages (``alcazaba bench``, section ``web.``): ``web.page``, the time to
answer a game's page when it is cached (the game did not move since the last reader), and
``web.replay_frame``, the time to draw a past position of the replay cold (the position
replayed from the nearest kept state, the spectator's view drawn, the PNG encoded).

Both are measured over HTTP on 127.0.0.1 against the real application (``bot.web.app``), on a
whole Granada game played by the built-in player.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchmarks.common import Bench


async def web_figures(bench: Bench) -> None:
    import aiohttp
    from aiohttp import web

    import render
    from benchmarks.common import figure
    from bot.service import GameService
    from bot.settings import Settings, sqlite_url
    from bot.web.app import WebApp

    path: Path = bench.migrated_copy("web.db")
    service = GameService.open(sqlite_url(path))
    runner: Any = None
    try:
        info = await service.create_game("granada", seed=7)
        await service.start(info.id, fill_with_bots=True)
        await service.play_bots(info.id, max_steps=100_000)
        public_id = await service.public_id(info.id)
        settings = Settings(_env_file=None, data_dir=bench.workdir,  # type: ignore[call-arg]
                            web_rate_per_minute=1_000_000)
        runner = web.AppRunner(WebApp(service, settings).make(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        base = f"http://127.0.0.1:{runner.addresses[0][1]}"
        history = await service.public_history(info.id)
        reps = 50 if bench.plan.quick else 300
        frames = 10 if bench.plan.quick else 40
        async with aiohttp.ClientSession() as session:

            async def timed(url: str) -> float:
                start = time.perf_counter()
                async with session.get(url) as response:
                    await response.read()
                    assert response.status == 200, f"{url}: {response.status}"
                return (time.perf_counter() - start) * 1000

            await timed(f"{base}/g/{public_id}")  # drawn once: the figure is the cached page
            page = [await timed(f"{base}/g/{public_id}") for _ in range(reps)]
            bench.emit(figure("web.page", "ms", page, moves=len(history.steps),
                              note="a game's page over HTTP on 127.0.0.1, cached (the game did not move)"))
            last = len(history.steps)
            positions = sorted({1 + (last - 1) * k // (frames - 1) for k in range(frames)})
            await timed(f"{base}/g/{public_id}/at/0.png")  # the renderer's fonts and pieces loaded once
            cold = [await timed(f"{base}/g/{public_id}/at/{history.seq_at(n)}.png") for n in positions]
            # the baseline: the same pictures drawn straight from their views (render.board alone)
            drawn = []
            for n in positions:
                view = await service.view_at(info.id, history.seq_at(n))
                assert view is not None
                start = time.perf_counter()
                render.board("granada", view)
                drawn.append((time.perf_counter() - start) * 1000)
            bench.emit(figure("web.replay_frame", "ms", cold, drawn, frames=len(cold),
                              note="a past position of a Granada replay drawn cold (replayed from the "
                                   "nearest kept state, spectator's view, PNG), over HTTP; baseline: "
                                   "render.board of the same views"))
    finally:
        if runner is not None:
            await runner.cleanup()
        await service.close()
