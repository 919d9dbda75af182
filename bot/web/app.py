"""The web application (aiohttp): a game's page, its replay, a player's own page, the index.

It only reads the database, through the service (``bot.service``), and serves only what
views show: the spectator's view on a game's pages, a seat's view on that seat's personal
page (``bot.web.tokens``), pictures drawn by ``render`` from those views. Every answer
carries a Content-Security-Policy that allows no inline script and no other host; an
unknown game, a bad token and a missing picture all answer the same 404; each address may
make ``WEB_RATE_PER_MINUTE`` requests a minute. The process holds no Discord token.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

import render
from bot.service import GameInfo, GameNotFound, GameService, NotAllowed
from bot.service.web import stamp_of
from bot.settings import Settings
from bot.web import pages, tokens
from bot.web.live import Watcher

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
PICTURE_CACHE_BYTES = 64 * 1024 * 1024
PAGE_CACHE_BYTES = 32 * 1024 * 1024
KEEPALIVE_S = 15.0

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class ByteCache:
    """A least-recently-used map of bytes, bounded by their total size."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._items: OrderedDict[Any, bytes] = OrderedDict()

    def get(self, key: Any) -> bytes | None:
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def put(self, key: Any, data: bytes) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self.size -= len(old)
        if len(data) > self.limit:
            return
        self._items[key] = data
        self.size += len(data)
        while self.size > self.limit:
            _key, dropped = self._items.popitem(last=False)
            self.size -= len(dropped)


class RateLimit:
    """At most ``per_minute`` requests per address in any minute (a token bucket)."""

    def __init__(self, per_minute: int) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(per_minute)
        self._buckets: dict[str, tuple[float, float]] = {}

    def allow(self, address: str) -> bool:
        now = time.monotonic()
        tokens_left, since = self._buckets.get(address, (self.burst, now))
        tokens_left = min(self.burst, tokens_left + (now - since) * self.rate)
        if tokens_left < 1:
            self._buckets[address] = (tokens_left, now)
            return False
        self._buckets[address] = (tokens_left - 1, now)
        if len(self._buckets) > 100_000:  # forget the addresses whose bucket is full again
            self._buckets = {a: b for a, b in self._buckets.items() if b[0] < self.burst - 1}
        return True


def client_address(request: web.Request) -> str:
    """The caller's address; behind a reverse proxy on this machine, the one it forwards."""
    remote = request.remote or ""
    forwarded = request.headers.get("X-Forwarded-For")
    if forwarded:
        with_proxy = False
        with contextlib.suppress(ValueError):
            with_proxy = ipaddress.ip_address(remote).is_loopback
        if with_proxy:
            return forwarded.split(",")[-1].strip()
    return remote


class WebApp:
    """The pages of one database."""

    def __init__(self, service: GameService, settings: Settings) -> None:
        self.service = service
        self.settings = settings
        self.pictures = ByteCache(PICTURE_CACHE_BYTES)
        self.page_cache = ByteCache(PAGE_CACHE_BYTES)
        self.ids: OrderedDict[str, int] = OrderedDict()
        self.watcher = Watcher(service)
        self.limit = RateLimit(settings.web_rate_per_minute)
        self.render_gate = asyncio.Semaphore(settings.render_concurrency)
        secret = settings.web_secret
        self.secret = secret.get_secret_value().encode() if secret is not None else None

    # ------------------------------------------------------------------ the application

    def make(self) -> web.Application:
        app = web.Application(middlewares=[self._guard])
        app.router.add_get("/", self.index)
        app.router.add_get("/static/{name}", self.static)
        app.router.add_get("/favicon.ico", self.favicon)
        app.router.add_get("/g/{pid}", self.game)
        app.router.add_get("/g/{pid}/replay", self.replay)
        app.router.add_get("/g/{pid}/replay/{n}", self.replay)
        app.router.add_get("/g/{pid}/at/{seq}.png", self.picture_at)
        app.router.add_get("/g/{pid}/events", self.game_events)
        app.router.add_get("/p/{token}", self.personal)
        app.router.add_get("/p/{token}/pic/{kind}/{digest}.png", self.personal_picture)
        app.router.add_get("/p/{token}/events", self.personal_events)
        app.on_startup.append(self._start)
        app.on_shutdown.append(self._closing)
        app.on_cleanup.append(self._stop)
        return app

    async def _start(self, _app: web.Application) -> None:
        await self.watcher.start()

    async def _closing(self, _app: web.Application) -> None:
        """The open event streams end first: the server would wait for them otherwise."""
        self.watcher.close_pages()

    async def _stop(self, _app: web.Application) -> None:
        await self.watcher.stop()

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.path.startswith("/static/") and not self.limit.allow(client_address(request)):
            response: web.StreamResponse = web.Response(status=429, text="Too many requests.\n")
        else:
            try:
                response = await handler(request)
            except web.HTTPNotFound:
                response = _not_found()
            except web.HTTPException as exc:
                response = web.Response(status=exc.status, text=f"{exc.reason}\n")
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers.setdefault("Cache-Control", "no-cache")
        return response

    # ------------------------------------------------------------------ lookups

    async def _game_pk(self, public_id: str) -> int:
        pk = self.ids.get(public_id)
        if pk is None:
            if len(public_id) > 40:
                raise web.HTTPNotFound()
            found = await self.service.game_of_public_id(public_id)
            if found is None:
                raise web.HTTPNotFound()
            pk = self.ids[public_id] = found
            if len(self.ids) > 10_000:
                self.ids.popitem(last=False)
        return pk

    async def _watched(self, public_id: str) -> tuple[int, GameInfo]:
        pk = await self._game_pk(public_id)
        try:
            info = await self.service.game(pk)
        except GameNotFound:
            raise web.HTTPNotFound() from None
        if info.status not in pages.WATCHED_STATUSES:
            raise web.HTTPNotFound()
        return pk, info

    async def _draw(self, game_id: str, view: dict[str, Any], kind: str = "board") -> bytes:
        fn = getattr(render.module(game_id), kind)
        async with self.render_gate:
            data: bytes = await asyncio.to_thread(fn, view)
            return data

    def _cached_page(self, key: Any, make: Callable[[], str]) -> web.Response:
        body = self.page_cache.get(key)
        if body is None:
            body = make().encode()
            self.page_cache.put(key, body)
        return web.Response(body=body, content_type="text/html", charset="utf-8")

    # ------------------------------------------------------------------ pages

    async def index(self, request: web.Request) -> web.Response:
        games = await self.service.listed_games()
        return web.Response(text=pages.index_page(games), content_type="text/html", charset="utf-8")

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in ("web.js", "web.css"):
            raise web.HTTPNotFound()
        data = (STATIC / name).read_bytes()
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        return web.Response(body=data, content_type=kind, charset="utf-8", headers={"Cache-Control": "no-cache"})

    async def favicon(self, request: web.Request) -> web.Response:
        """No icon (a browser asks for one; a 404 would show as an error in its console)."""
        return web.Response(status=204, headers={"Cache-Control": "public, max-age=86400"})

    async def game(self, request: web.Request) -> web.Response:
        public_id = request.match_info["pid"]
        pk, info = await self._watched(public_id)
        key = ("game", pk, stamp_of(info))
        if self.page_cache.get(key) is not None:
            return self._cached_page(key, str)
        history = await self.service.public_history(pk)
        return self._cached_page(key, lambda: pages.game_page(public_id, info, history))

    async def replay(self, request: web.Request) -> web.Response:
        public_id = request.match_info["pid"]
        pk, info = await self._watched(public_id)
        history = await self.service.public_history(pk)
        last = len(history.steps)
        raw = request.match_info.get("n") or request.query.get("n")
        try:
            position = last if raw is None else int(raw)
        except ValueError:
            raise web.HTTPNotFound() from None
        if not history.first <= position <= last:
            raise web.HTTPNotFound()
        key = ("replay", pk, stamp_of(info), position)
        return self._cached_page(key, lambda: pages.replay_page(public_id, info, history, position))

    async def picture_at(self, request: web.Request) -> web.Response:
        public_id = request.match_info["pid"]
        try:
            seq = int(request.match_info["seq"])
        except ValueError:
            raise web.HTTPNotFound() from None
        pk, info = await self._watched(public_id)
        key = ("at", pk, seq)
        data = self.pictures.get(key)
        if data is None:
            view = await self.service.view_at(pk, seq)
            if view is None:
                raise web.HTTPNotFound()
            data = await self._draw(info.game_id, view)
            self.pictures.put(key, data)
        # A position's seq names it for ever (an undo never gives it to another position).
        return web.Response(body=data, content_type="image/png",
                            headers={"Cache-Control": "public, max-age=31536000, immutable"})

    async def game_events(self, request: web.Request) -> web.StreamResponse:
        pk, info = await self._watched(request.match_info["pid"])
        return await self._events(request, pk, stamp_of(info))

    async def _events(self, request: web.Request, pk: int, stamp: str) -> web.StreamResponse:
        """Server-sent events: the game's change stamp each time it changes (and once at the
        start). A stamp, not the version: a resignation or an abort changes no version."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store",
                                               "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                                               "Referrer-Policy": "no-referrer"})
        await response.prepare(request)
        with contextlib.suppress(ConnectionError):  # the page went away
            async with self.watcher.watching(pk):
                sent = ""
                while True:
                    if stamp != sent:
                        await response.write(f"event: change\ndata: {json.dumps({'stamp': stamp})}\n\n".encode())
                        sent = stamp
                    if not await self.watcher.changed(pk, KEEPALIVE_S):
                        await response.write(b": keep-alive\n\n")
                        continue
                    if self.watcher.closing:
                        break
                    stamp = (await self.service.change_stamps([pk])).get(pk, stamp)
        return response

    # ------------------------------------------------------------------ personal pages

    async def _grant(self, token: str) -> tuple[tokens.Grant, GameInfo, dict[str, Any]]:
        """The grant of a token that opens now, its game and its seat's view; 404 for any
        other (bad, tampered, expired, revoked, another key version, a seat no longer his)."""
        if self.secret is None:
            raise web.HTTPNotFound()
        grant = tokens.verify(token, self.secret, self.settings.web_key_version)
        if grant is None:
            raise web.HTTPNotFound()
        if await self.service.web_revocations(grant.user_id) != grant.revoked:
            raise web.HTTPNotFound()
        try:
            seen = await self.service.view(grant.game_pk, grant.role, grant.user_id)
        except (GameNotFound, NotAllowed):
            raise web.HTTPNotFound() from None
        if seen.game.status not in pages.WATCHED_STATUSES:
            raise web.HTTPNotFound()
        return grant, seen.game, seen.view

    async def personal(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        grant, info, view = await self._grant(token)
        listed = [(p.kind, p.digest) for p in render.pictures(info.game_id, view)]
        body = pages.personal_page(token, info, grant.role, view, listed)
        return web.Response(text=body, content_type="text/html", charset="utf-8",
                            headers={"Cache-Control": "no-store"})

    async def personal_picture(self, request: web.Request) -> web.Response:
        token, kind, digest = (request.match_info[k] for k in ("token", "kind", "digest"))
        grant, info, view = await self._grant(token)
        picture = next((p for p in render.pictures(info.game_id, view) if p.kind == kind and p.digest == digest), None)
        if picture is None:
            raise web.HTTPNotFound()
        key = ("seat", grant.game_pk, grant.role, kind, digest)
        data = self.pictures.get(key)
        if data is None:
            data = await self._draw(info.game_id, view, kind)
            self.pictures.put(key, data)
        return web.Response(body=data, content_type="image/png", headers={"Cache-Control": "private, no-store"})

    async def personal_events(self, request: web.Request) -> web.StreamResponse:
        grant, info, _view = await self._grant(request.match_info["token"])
        return await self._events(request, grant.game_pk, stamp_of(info))


def _not_found() -> web.Response:
    return web.Response(status=404, text=pages.not_found(), content_type="text/html", charset="utf-8")


async def serve(settings: Settings, url: str, host: str, port: int, ready: asyncio.Event | None = None) -> None:
    """Run the pages of the database at ``url`` on ``host:port`` until cancelled."""
    service = GameService.open(url, busy_timeout_ms=settings.sqlite_busy_timeout_ms)
    runner = web.AppRunner(WebApp(service, settings).make(), access_log=None)
    try:
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        log.info("web pages at http://%s:%s/", host, port)
        if ready is not None:
            ready.set()
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
        await service.close()

