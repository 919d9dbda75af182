"""The pictures' figures (``render.*``): each picture kind of every ``render.<game>`` module,
drawn from its own ``bench_cases()`` or a random game's views, against Pillow encoding a blank
image of the same size (the cost no drawing can avoid)."""

from __future__ import annotations

import importlib
import io
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import engine
from benchmarks.common import (
    Bench,
    PlayedGame,
    default_options,
    figure,
    skipped,
)
from engine.api import GameModule


def render_figures(bench: Bench) -> None:
    """``render.<kind>.<game>`` for every picture kind of every game (see :func:`render_cases`)."""
    for game_id in sorted(engine.GAMES):
        kinds = render_kinds(game_id)
        if isinstance(kinds, str):
            bench.emit(skipped(f"render.board.{game_id}", kinds))
            continue
        cases = render_cases(bench, game_id, kinds)
        for kind, (fn, args) in sorted(cases.items()):
            if args is None:
                bench.emit(skipped(f"render.{kind}.{game_id}", str(fn)))
                continue
            bench.emit(time_render(f"render.{kind}.{game_id}", fn, args, bench.plan.render_reps))

def leaderboard_figure(bench: Bench) -> None:
    """``render.leaderboard``: the campaign leaderboard picture (top 20 and the reader's line)."""
    from render.leaderboard import bench_case, leaderboard

    bench.emit(time_render("render.leaderboard", leaderboard, bench_case(), bench.plan.render_reps))


def render_cases(bench: Bench, game_id: str, kinds: dict[str, Callable[..., bytes]]) -> dict[str, tuple[Any, Any]]:
    """For each picture kind, the arguments to draw it with: the render module's own
    ``bench_cases()`` when it offers them, else built from a random game (see
    :func:`candidate_args`), the first that the function draws without error."""
    module = importlib.import_module(f"render.{game_id}")
    offered = getattr(module, "bench_cases", None)
    cases: dict[str, tuple[Any, Any]] = {}
    if callable(offered):
        for kind, args in offered().items():
            if kind in kinds:
                cases[kind] = (kinds[kind], tuple(args))
    game = bench.played_games(game_id, 1)[0]
    moments = sample_moments(engine.get(game_id), game)
    for kind, fn in kinds.items():
        if kind in cases:
            continue
        error = "no arguments it accepts"
        for args in candidate_args(kind, fn, moments):
            try:
                data = fn(*args)
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"[:200]
                continue
            if isinstance(data, bytes | bytearray) and data:
                cases[kind] = (fn, args)
                break
        else:
            cases[kind] = (f"could not draw it from a random game's views ({error})", None)
    return cases


KNOWN_KINDS = ("board", "hand", "battle", "battle_board", "reveal", "final_reveal", "replay", "closeup", "close_up")


def render_kinds(game_id: str) -> dict[str, Callable[..., bytes]] | str:
    """The picture kinds of ``render.<game_id>``: its ``IMAGES`` mapping when it has one,
    else its functions with the usual names. A string says why there are none."""
    name = f"render.{game_id}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return f"{name} does not exist yet"
        raise
    images = getattr(module, "IMAGES", None)
    if isinstance(images, dict) and images:
        return {str(k): v for k, v in images.items() if callable(v)}
    kinds = {k: getattr(module, k) for k in KNOWN_KINDS if callable(getattr(module, k, None))}
    return kinds or f"{name} has no picture functions"


@dataclass
class Moments:
    """Views of a random game: ``views[i][role]`` at about twenty moments (final one last),
    role None being the spectator."""

    roles: list[str]
    views: list[dict[str | None, dict[str, Any]]]


def sample_moments(module: GameModule, game: PlayedGame, count: int = 20) -> Moments:
    options = default_options(module)
    roles = list(module.roles(options))
    state = module.setup(game.seed, options)
    marks = {int(len(game.moves) * k / count) for k in range(1, count)}
    views: list[dict[str | None, dict[str, Any]]] = []
    for i, (role, action) in enumerate(game.moves, start=1):
        state = module.apply(state, role, action)
        if i in marks:
            views.append({r: module.view(state, r) for r in [*roles, None]})
    views.append({r: module.view(state, r) for r in [*roles, None]})
    return Moments(roles, views)


def _strings(value: Any, out: dict[str, None], limit: int = 400) -> None:
    """Strings of a view (dict keys and values), in order, for arguments such as a location."""
    if len(out) >= limit:
        return
    if isinstance(value, str):
        out.setdefault(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.setdefault(str(k))
            _strings(v, out, limit)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out, limit)


def candidate_args(kind: str, fn: Callable[..., Any], moments: Moments) -> Iterator[tuple[Any, ...]]:
    """Arguments to try for a render function, by its signature: a list of views (a replay:
    the spectator's view at each moment), the final views of everyone (a reveal taking more
    views), or one view, preferring views where a key named like the picture is set (a
    battle picture wants a battle in progress), plus, for a second required argument (a
    close-up's location), each string the view holds."""
    import inspect

    params = list(inspect.signature(fn).parameters.values())
    required = [p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    first = required[0].name if required else ""
    if first.endswith("views") or first == "frames":
        yield ([m[None] for m in moments.views],)
        return
    final = moments.views[-1]
    if varargs:
        yield (final[None], *[final[r] for r in moments.roles])
    flat = [m[r] for m in moments.views for r in [*moments.roles, None]]
    keyed = [v for v in flat if v.get(kind)]
    ordered = keyed + [v for v in flat if not v.get(kind)]
    if len(required) <= 1:
        for view in ordered:
            yield (view,)
        return
    if len(required) == 2:
        for view in ordered[:3]:
            strings: dict[str, None] = {}
            _strings(view, strings)
            for text in strings:
                yield (view, text)


def image_size(data: bytes) -> tuple[int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        return img.size


def blank_png_ms(size: tuple[int, int], reps: int) -> list[float]:
    from PIL import Image

    times = []
    for _ in range(reps):
        s0 = time.perf_counter()
        buf = io.BytesIO()
        Image.new("RGB", size, (255, 255, 255)).save(buf, format="PNG")
        times.append((time.perf_counter() - s0) * 1000)
    return times


def time_render(name: str, fn: Callable[..., bytes], args: tuple[Any, ...], reps: int) -> dict[str, Any]:
    fn(*args)  # the first call builds the cached static layers, once per process
    times: list[float] = []
    data = b""
    for _ in range(reps):
        s0 = time.perf_counter()
        data = fn(*args)
        times.append((time.perf_counter() - s0) * 1000)
    size = image_size(data)
    extra: dict[str, Any] = {"size": list(size), "bytes": len(data)}
    if args and isinstance(args[0], list):
        extra["frames"] = len(args[0])
        extra["baseline_is"] = "one blank frame"
    return figure(name, "ms", times, blank_png_ms(size, reps), **extra)


