"""The HTML of the web pages, written on the server: plain pages that read without JavaScript
(links and a form step through a replay), with ``/static/web.js`` adding zoom and pan, the
replay controls and the live updates.

Every text from the database or a view (Discord names, log lines, prompts, cards) goes
through :func:`esc`; no page holds an inline script or style (the Content-Security-Policy of
:mod:`bot.web.app` forbids them).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from bot.service import GameInfo, History
from bot.service.web import stamp_of

WATCHED_STATUSES = ("running", "finished", "aborted")
"""The games that have pages: an aborted game keeps its page (an open page shows the abort)."""
LISTED_STATUSES = ("running", "finished")
"""The games the index lists (an aborted one has nothing to watch)."""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def page(title: str, body: str, *, live: str | None = None, kind: str = "page", info: GameInfo | None = None) -> str:
    """A whole document. ``live``: the address of the page's server-sent events (the script
    refreshes the page's live parts when they announce a change stamp other than the page's
    own, ``data-stamp``); ``info``: the game shown, whose version and stamp the page carries."""
    attrs = f' data-page="{esc(kind)}"'
    if live is not None:
        attrs += f' data-live="{esc(live)}"'
    if info is not None:
        attrs += f' data-version="{info.version}" data-stamp="{esc(stamp_of(info))}"'
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<meta name=\"referrer\" content=\"no-referrer\">"
        f"<title>{esc(title)}</title>"
        "<link rel=\"stylesheet\" href=\"/static/web.css\">"
        "<script src=\"/static/web.js\" defer></script>"
        f"</head><body{attrs}>{body}</body></html>\n"
    )


def not_found() -> str:
    return page("Not found", "<main><h1>Not found</h1><p>There is nothing at this address.</p></main>")


def player_name(info: GameInfo, role: str) -> str:
    seat = info.seat(role)
    if seat is None:
        return "free seat"
    if seat.is_bot:
        return "built-in player"
    return seat.display_name or ("terminal seat" if seat.user_id is None else "a member")


def when(moment: datetime | None) -> str:
    """A time as the page shows it: UTC, in a <time> element a browser may localise."""
    if moment is None:
        return ""
    return f'<time datetime="{moment.isoformat()}Z">{esc(moment.strftime("%Y-%m-%d %H:%M"))} UTC</time>'


def result_text(info: GameInfo) -> str:
    if info.status == "aborted":
        reason = (info.result or {}).get("reason") or "no reason given"
        return f"The game was aborted ({reason})."
    result = info.result or {}
    if info.status != "finished":
        return ""
    winner = result.get("winner")
    head = f"{winner} wins" if winner else "No winner"
    reason = result.get("reason") or ""
    score = result.get("score") or {}
    tail = (" · " + ", ".join(f"{k} {v}" for k, v in score.items())) if isinstance(score, dict) and score else ""
    return f"{head}{': ' + str(reason) if reason else ''}{tail}."


def seats_block(info: GameInfo) -> str:
    """The seats and their players, who must act now, the pace and deadline, the result."""
    rows = []
    for role in info.roles:
        acting = " (to act)" if role in info.active and info.status == "running" else ""
        rows.append(f"<li><b>{esc(role)}</b>: {esc(player_name(info, role))}{esc(acting)}</li>")
    parts = [f"<ul class=\"seats\">{''.join(rows)}</ul>"]
    clock = []
    if info.pace:
        clock.append(f"Pace: {esc(info.pace)}.")
    if info.status == "running" and info.deadline_at is not None:
        clock.append(f"Deadline for {esc(', '.join(info.active) or 'nobody')}: {when(info.deadline_at)}.")
    clock.append(f"Last move: {when(info.updated_at)}.")
    parts.append(f"<p class=\"clock\">{' '.join(clock)}</p>")
    result = result_text(info)
    status = {"open": "Waiting for players.", "running": "In play.", "finished": "Finished.",
              "aborted": "Aborted."}.get(info.status, info.status)
    parts.append(f"<p class=\"status\" id=\"status\">{esc(status)} {esc(result)}</p>")
    return "".join(parts)


def log_block(info: GameInfo, history: History, upto: int | None = None) -> str:
    """The public log, one item per move (number, seat, player, the lines it wrote); with
    ``upto`` the items after that position are hidden (the replay script shows them)."""
    items = []
    if history.setup_lines:
        items.append(_log_item(0, 0, "setup", "", history.setup_lines, hidden=False))
    for step in history.steps:
        hidden = upto is not None and step.number > upto
        items.append(_log_item(step.number, step.seq, step.role, player_name(info, step.role), step.lines, hidden))
    return f"<ol class=\"log\" id=\"log\" reversed>{''.join(reversed(items))}</ol>"


def _log_item(number: int, seq: int, role: str, player: str, lines: Sequence[str], hidden: bool) -> str:
    who = f"<span class=\"role\">{esc(role)}</span>" + (f" <span class=\"player\">({esc(player)})</span>" if player else "")
    text = "".join(f"<span class=\"line\">{esc(line)}</span>" for line in lines) or "<span class=\"line quiet\">(no public line)</span>"
    flag = " hidden" if hidden else ""
    return (f"<li data-move=\"{number}\" data-seq=\"{seq}\"{flag}><span class=\"num\">{number}</span> {who}"
            f"<div class=\"lines\">{text}</div></li>")


def picture_block(src: str, alt: str, full: str) -> str:
    """The zoomable picture: a viewport the script zooms and pans; without the script the
    picture fits the page and a link opens it at full size."""
    return (
        "<figure class=\"board\"><div class=\"zoom\" tabindex=\"0\" aria-label=\"board: +/- zoom, arrows pan, 0 resets\">"
        f"<img id=\"picture\" src=\"{esc(src)}\" alt=\"{esc(alt)}\"></div>"
        "<figcaption><span class=\"zoomctl\" hidden>"
        "<button type=\"button\" data-zoom=\"in\" aria-label=\"zoom in\">+</button>"
        "<button type=\"button\" data-zoom=\"out\" aria-label=\"zoom out\">−</button>"
        "<button type=\"button\" data-zoom=\"reset\" aria-label=\"fit\">fit</button></span> "
        f"<a id=\"fullsize\" href=\"{esc(full)}\">picture at full size</a></figcaption></figure>"
    )


def game_page(public_id: str, info: GameInfo, history: History) -> str:
    """The spectator's page of a game: the picture now, the seats and clocks, the whole log."""
    last = len(history.steps)
    src = f"/g/{public_id}/at/{history.seq_at(last)}.png"
    body = (
        f"<header><h1>{esc(info.title)}</h1><nav><a href=\"/g/{esc(public_id)}/replay\">Replay</a></nav></header>"
        f"<main><div id=\"live\">{picture_block(src, f'{info.title}: the board after move {last}', src)}"
        f"<section class=\"side\"><h2>Players</h2>{seats_block(info)}"
        f"<h2>Log</h2>{log_block(info, history)}</section></div></main>"
    )
    return page(f"{info.title}: game", body, live=f"/g/{public_id}/events", kind="game", info=info)


def replay_page(public_id: str, info: GameInfo, history: History, position: int) -> str:
    """One position of the replay. Links (first, previous, next, last) and a small form work
    without the script; with it, the buttons, the slider and the arrow keys move without
    loading a page."""
    last = len(history.steps)
    first = history.first
    seq = history.seq_at(position)
    src = f"/g/{public_id}/at/{seq}.png"
    base = f"/g/{public_id}/replay"

    def link(label: str, target: int, name: str) -> str:
        return f"<a class=\"step\" data-step=\"{name}\" href=\"{esc(base)}/{target}\">{label}</a>"

    controls = (
        "<nav class=\"replay\" aria-label=\"replay\">"
        f"{link('« first', first, 'first')} {link('◀ previous', max(first, position - 1), 'prev')} "
        f"{link('next ▶', min(last, position + 1), 'next')} {link('last »', last, 'last')}"
        f"<form method=\"get\" action=\"{esc(base)}\"><label>Move <output id=\"at\">{position}</output> of {last} "
        f"<input id=\"slider\" type=\"range\" name=\"n\" min=\"{first}\" max=\"{last}\" value=\"{position}\" "
        f"data-base=\"/g/{esc(public_id)}/at/\" data-page=\"{esc(base)}/\"></label> <button type=\"submit\">Go</button>"
        "</form></nav>"
    )
    body = (
        f"<header><h1>{esc(info.title)}: replay</h1><nav><a href=\"/g/{esc(public_id)}\">Game</a></nav></header>"
        f"<main>{controls}<div id=\"live\">{picture_block(src, f'{info.title}: the board after move {position}', src)}"
        f"<section class=\"side\"><h2>Players</h2>{seats_block(info)}"
        f"<h2>Log</h2>{log_block(info, history, upto=position)}</section></div></main>"
    )
    return page(f"{info.title}: replay, move {position}", body, kind="replay", info=info)


def personal_page(token: str, info: GameInfo, role: str, view: dict[str, Any], pictures: Iterable[tuple[str, str]]) -> str:
    """A player's own page: his seat's view (pictures, prompt, hand, the log he may read),
    read-only. ``pictures``: (kind, digest) of each picture that applies to the view."""
    figures: list[str] = []
    for kind, digest in pictures:
        src = f"/p/{token}/pic/{kind}/{digest}.png"
        if kind == "board":
            figures.insert(0, picture_block(src, f"{info.title}: the board as {role} sees it", src))
        else:
            figures.append(f"<figure class=\"extra\"><img src=\"{esc(src)}\" alt=\"{esc(kind)} of {esc(role)}\">"
                           f"<figcaption>{esc(kind)}</figcaption></figure>")
    hand = hand_text(view.get("hand"))
    prompt = str(view.get("prompt") or "")
    lines = [str(e.get("text", "")) for e in view.get("log") or [] if str(e.get("text", "")).strip()]
    log = "".join(f"<li>{esc(line)}</li>" for line in reversed(lines))
    body = (
        f"<header><h1>{esc(info.title)}: {esc(role)}</h1><p class=\"note\">Your own view, read-only: give your "
        "orders on Discord. Do not share this address.</p></header>"
        f"<main><div id=\"live\">{''.join(figures)}<section class=\"side\">"
        f"<h2>Asked now</h2><p class=\"prompt\">{esc(prompt) or 'Nothing.'}</p>"
        + (f"<h2>Hand</h2><p class=\"hand\">{esc(hand)}</p>" if hand else "")
        + f"<h2>Players</h2>{seats_block(info)}<h2>Log</h2><ol class=\"log\" reversed>{log}</ol></section></div></main>"
    )
    return page(f"{info.title}: {role}", body, live=f"/p/{token}/events", kind="personal", info=info)


def hand_text(hand: Any) -> str:
    """A readable list of what a view calls the hand (cards may be ids, names or dicts)."""
    if not hand:
        return ""
    if isinstance(hand, dict):
        return ", ".join(f"{k}: {v}" for k, v in hand.items())
    if isinstance(hand, list):
        names = [str(c.get("name") or c.get("label") or c.get("id") or c) if isinstance(c, dict) else str(c)
                 for c in hand]
        return ", ".join(names)
    return str(hand)


def index_page(games: Sequence[tuple[str, GameInfo]]) -> str:
    items = "".join(
        f"<li><a href=\"/g/{esc(pid)}\">{esc(info.title)}</a> · {esc(', '.join(s.display_name or s.role for s in info.seats))}"
        f" · {esc(info.status)}</li>" for pid, info in games if info.status in LISTED_STATUSES)
    body = ("<header><h1>Alcazaba</h1></header><main><h2>Games</h2>"
            + (f"<ul class=\"games\">{items}</ul>" if items else "<p>No server lists its games here.</p>") + "</main>")
    return page("Alcazaba games", body, kind="index")
