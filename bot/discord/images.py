"""Pictures for Discord: drawn in worker threads, a few at a time, and small enough to send.

Drawing a board takes tens of milliseconds of CPU; done on the event loop it would stall
every other interaction past Discord's 3-second limit, and done without a cap a burst of
turns would starve the machine. Render functions receive views only (never states), so an
image cannot show what its reader may not see.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import Any

from PIL import Image

import render

log = logging.getLogger(__name__)

PROMPT_KEYS = frozenset({"prompt", "actions", "log", "active", "pending"})
"""View keys that change without the board changing (the question asked, not the position)."""


class Images:
    """Render calls with a semaphore; games without a render module get no pictures (text only)."""

    def __init__(self, concurrency: int) -> None:
        self._gate = asyncio.Semaphore(max(1, concurrency))
        self._modules: dict[str, ModuleType | None] = {}

    def module(self, game_id: str) -> ModuleType | None:
        if game_id not in self._modules:
            name = f"render.{game_id}"
            try:
                self._modules[game_id] = render.module(game_id)
            except ModuleNotFoundError as exc:
                if exc.name != name:
                    raise
                log.info("no pictures for %s: render module %s does not exist", game_id, name)
                self._modules[game_id] = None
        return self._modules[game_id]

    def function(self, game_id: str, kind: str) -> Callable[..., Any] | None:
        module = self.module(game_id)
        fn = getattr(module, kind, None) if module is not None else None
        return fn if callable(fn) else None

    def has(self, game_id: str, kind: str) -> bool:
        return self.function(game_id, kind) is not None

    def pictures(self, game_id: str, view: dict[str, Any]) -> list[render.Picture]:
        """The pictures that apply to ``view`` (``render.pictures``: board first; the hand, the
        battle board, the final reveal where the game draws them), not drawn yet. Each has a
        digest of the part of the view it is drawn from, so a prompt re-sends only what
        changed. A game that does not say what its board is drawn from gets the view minus
        its prompt, choices and log as the board's part."""
        module = self.module(game_id)
        if module is None:
            return []
        found = render.pictures(game_id, view)
        if getattr(module, "image_inputs", None) is not None:
            return found
        board = render.digest({k: v for k, v in view.items() if k not in PROMPT_KEYS})
        return [replace(p, digest=board) if p.kind == "board" else p for p in found]

    async def draw_picture(self, picture: render.Picture, *, limit: int) -> bytes | None:
        """The picture as PNG bytes under ``limit``, or None when drawing it failed."""
        return await self._render(f"render.{picture.game_id}.{picture.kind}", picture.draw, (), limit)

    async def draw(self, game_id: str, kind: str, *args: Any, limit: int) -> bytes | None:
        """``render.<game>.<kind>(*args)`` as PNG (or GIF) bytes under ``limit``, or None when
        the game has no such picture or drawing it failed."""
        fn = self.function(game_id, kind)
        if fn is None:
            return None
        return await self._render(f"render.{game_id}.{kind}", fn, args, limit)

    async def draw_replay(self, game_id: str, views: list[dict[str, Any]], *, limit: int) -> bytes | None:
        """The game's animation (``render.replay``: one frame per turn), or None."""
        return await self._render(f"the replay of a {game_id} game", render.replay, (game_id, views), limit)

    async def _render(self, what: str, fn: Callable[..., Any], args: tuple[Any, ...], limit: int) -> bytes | None:
        """``fn(*args)`` in a worker thread, a few at a time. An error is logged and gives None:
        a missing picture must not stop the game."""
        async with self._gate:
            try:
                return await asyncio.to_thread(_draw_and_fit, fn, args, limit)
            except Exception:
                log.exception("%s failed", what)
                return None


def _draw_and_fit(fn: Callable[..., Any], args: tuple[Any, ...], limit: int) -> bytes:
    data = fn(*args)
    if data is None:
        raise LookupError("no picture")
    if not isinstance(data, bytes | bytearray):
        raise TypeError(f"render returned {type(data).__name__}, not bytes")
    return fit(bytes(data), limit)


def fit(data: bytes, limit: int) -> bytes:
    """The image itself if it fits ``limit`` bytes, else a scaled-down PNG that does (Discord
    refuses the whole message when one attachment is over the limit)."""
    if len(data) <= limit:
        return data
    opened = Image.open(io.BytesIO(data))
    if getattr(opened, "is_animated", False):
        opened.seek(0)  # an animation over the limit is sent as its first frame
    image: Image.Image = opened.convert("RGBA") if opened.mode not in ("RGB", "RGBA") else opened
    scale = (limit / len(data)) ** 0.5 * 0.9
    while True:
        size = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
        out = io.BytesIO()
        image.resize(size, Image.Resampling.LANCZOS).save(out, "PNG", optimize=True)
        if out.tell() <= limit or size == (1, 1):
            return out.getvalue()
        scale *= 0.8
