"""The stand-in server: Discord's REST routes a bot uses, its gateway, and a recorder.

Only what Alcazaba's bot touches is implemented, but what is implemented behaves as Discord
documents it, including its refusals: a test that passes here should not fail against Discord
for a reason the stand-in could have seen. Every refusal a bot could cause is also written to
``violations`` so that a test can end with ``assert standin.violations == []``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from aiohttp import WSMsgType, web

T = TypeVar("T")

DISCORD_EPOCH_MS = 1420070400000
API_PREFIX = "/api/v10"

# Interaction types and callback types (Discord's numbers).
PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5
PONG, CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, AUTOCOMPLETE_RESULT, MODAL = (
    1, 4, 5, 6, 7, 8, 9,
)
EPHEMERAL = 1 << 6
LOADING = 1 << 7

# Channel types.
GUILD_TEXT, DM, PUBLIC_THREAD, PRIVATE_THREAD = 0, 1, 11, 12

# Gateway opcodes.
OP_DISPATCH, OP_HEARTBEAT, OP_IDENTIFY, OP_PRESENCE, OP_RESUME, OP_RECONNECT = 0, 1, 2, 3, 6, 7
OP_REQUEST_MEMBERS, OP_INVALID_SESSION, OP_HELLO, OP_HEARTBEAT_ACK = 8, 9, 10, 11

# Privileged intents: GUILD_MEMBERS (1 << 1), GUILD_PRESENCES (1 << 8), MESSAGE_CONTENT (1 << 15).
PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | (1 << 15)
INTENT_GUILDS = 1 << 0

# Permission bits used here.
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
ALL_TEXT = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 34) | (1 << 35) | (1 << 36) | (1 << 38)

INTERACTION_WINDOW_S = 3.0
NONCE_WINDOW_S = 300.0
"""How long Discord remembers a nonce sent with enforce_nonce ("the past few minutes")."""
FOLLOWUP_WINDOW_S = 15 * 60.0
COMMAND_NAME = re.compile(r"^[-_a-z0-9]{1,32}$")


class ApiError(Exception):
    """A refusal as Discord sends it: an HTTP status and a JSON error code."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.errors:
            out["errors"] = self.errors
        return out


def invalid_form(reason: str) -> ApiError:
    return ApiError(400, 50035, "Invalid Form Body", {"_errors": [{"code": "INVALID", "message": reason}]})


@dataclass
class File:
    filename: str
    content_type: str
    data: bytes


@dataclass
class Recorded:
    """One request the bot made, as received."""

    method: str
    path: str
    query: dict[str, str]
    json: Any
    files: list[File]
    headers: dict[str, str]
    at: float
    status: int = 0
    response: Any = None

    @property
    def route(self) -> str:
        return self.path.removeprefix(API_PREFIX)


@dataclass
class Message:
    id: int
    channel_id: int
    author: dict[str, Any]
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    files: list[File] = field(default_factory=list)
    attachment_ids: list[int] = field(default_factory=list)
    flags: int = 0
    nonce: str | None = None
    guild_id: int | None = None
    interaction_id: int | None = None
    ephemeral_to: int | None = None
    webhook_id: int | None = None
    created: float = field(default_factory=time.monotonic)
    edited: bool = False
    deleted: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    def texts(self) -> list[str]:
        """Every piece of text a reader sees: content, embeds, component labels and options."""
        out = [self.content]
        for embed in self.embeds:
            out += [str(embed.get("title", "")), str(embed.get("description", ""))]
            out += [str((embed.get("footer") or {}).get("text", "")), str((embed.get("author") or {}).get("name", ""))]
            for f in embed.get("fields", []):
                out += [str(f.get("name", "")), str(f.get("value", ""))]
        for comp in iter_components(self.components):
            out += [str(comp.get("label", "")), str(comp.get("placeholder", "")), str(comp.get("content", ""))]
            for opt in comp.get("options", []):
                out += [str(opt.get("label", "")), str(opt.get("description", ""))]
        return [t for t in out if t]


def iter_components(components: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    for comp in components:
        yield comp
        yield from iter_components(comp.get("components", []))


@dataclass
class Channel:
    id: int
    type: int
    name: str = ""
    guild_id: int | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    recipients: list[int] = field(default_factory=list)
    members: set[int] = field(default_factory=set)
    invitable: bool = True
    archived: bool = False


@dataclass
class Interaction:
    """An interaction the stand-in dispatched, and what the bot did with it."""

    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    guild_id: int | None
    payload: dict[str, Any]
    created: float = field(default_factory=time.monotonic)
    callbacks: list[Recorded] = field(default_factory=list)
    response_type: int | None = None
    answered_at: float | None = None
    ephemeral: bool = False
    original_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def latency(self) -> float | None:
        return None if self.answered_at is None else self.answered_at - self.created


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    mode: str  # "before": fail without effect; "after": do the work, then answer 500
    times: int
    status: int = 500
    contains: str | None = None


@dataclass
class Stall:
    """A request held without an answer (a Discord that hangs) until :meth:`release`, then
    failed without effect: the client keeps waiting, and whatever it holds meanwhile stays
    held. ``caught`` is set when the request arrives. ``mode="after"``: the work is done
    first (a thread made, a message posted) and only the answer is held, then lost (500)."""

    method: str
    pattern: re.Pattern[str]
    contains: str | None = None
    mode: str = "before"
    caught: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def release(self) -> None:
        self.released.set()


def snowflake_factory(clock: Callable[[], float] = time.time) -> Callable[[], int]:
    counter = itertools.count()

    def make() -> int:
        ms = int(clock() * 1000) - DISCORD_EPOCH_MS
        return (ms << 22) | (next(counter) & 0x3FFFFF)

    return make


def iso(ts: float | None = None) -> str:
    return datetime.fromtimestamp(ts if ts is not None else time.time(), UTC).isoformat()


class StandIn:
    """Discord, for one bot application, on 127.0.0.1.

    Build the world (``add_guild``, ``add_user``, ``add_member``, ``add_text_channel``), start
    it, point the bot at ``api_base`` and ``gateway_url``, then act as users with ``slash``,
    ``autocomplete`` and ``click`` and read ``requests``, ``messages`` and ``violations``.
    """

    def __init__(self, token: str = "standin-token", *, attachment_limit: int = 10 * 1024 * 1024) -> None:
        self.token = token
        self.attachment_limit = attachment_limit
        self.heartbeat_interval_ms = 41250
        self.ahead = 0.0
        """Seconds Discord's clock runs ahead of this machine's (:meth:`advance`)."""
        self._snowflake = snowflake_factory(lambda: time.time() + self.ahead)
        self.application_id = self._snowflake()
        self.bot_user = self._user_payload(self.application_id, "Alcazaba", bot=True)
        self.users: dict[int, dict[str, Any]] = {self.application_id: self.bot_user}
        self.guilds: dict[int, dict[str, Any]] = {}
        self.members: dict[int, dict[int, dict[str, Any]]] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.interactions: dict[int, Interaction] = {}
        self._by_token: dict[str, Interaction] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.requests: list[Recorded] = []
        self.violations: list[str] = []
        self.closed_dms: set[int] = set()
        self.no_access: set[int] = set()
        self.allowed_intents = 0  # privileged intents the application may use: none
        self.faults: list[Fault] = []
        self.stalls: list[Stall] = []
        self.identifies: list[dict[str, Any]] = []
        self.dispatched_interactions: list[tuple[int, int]] = []
        """(shard id, interaction id) of every INTERACTION_CREATE sent on the gateway."""
        self.shard_sessions: list[tuple[int, int]] = []
        """(shard id, count) of every IDENTIFY, in order."""
        self.recommended_shards = 1
        """What GET /gateway/bot recommends (AutoShardedBot asks when SHARD_COUNT is unset)."""
        self._connections: list[_GatewayConnection] = []
        self._sessions: dict[str, _GatewayConnection] = {}
        self._request_event = asyncio.Event()
        self._connected = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ---------------------------------------------------------------- world building

    def _user_payload(self, uid: int, name: str, *, bot: bool = False) -> dict[str, Any]:
        return {
            "id": str(uid), "username": name, "global_name": name, "discriminator": "0",
            "avatar": None, "bot": bot, "system": False, "public_flags": 0, "flags": 0,
        }

    def add_user(self, name: str) -> int:
        uid = self._snowflake()
        self.users[uid] = self._user_payload(uid, name)
        return uid

    def add_guild(self, name: str, owner_id: int, shard: tuple[int, int] | None = None) -> int:
        """A server; with ``shard=(id, count)``, one whose id falls in that shard
        (``(id >> 22) % count``, Discord's rule), for tests of several shards."""
        gid = self._snowflake()
        if shard is not None:
            shard_id, count = shard
            ms = gid >> 22
            ms += (shard_id - ms) % count
            gid = (ms << 22) | (gid & 0x3FFFFF)
        self.guilds[gid] = {
            "id": str(gid), "name": name, "icon": None, "owner_id": str(owner_id), "features": [],
            "roles": [
                {"id": str(gid), "name": "@everyone", "permissions": str(ALL_TEXT), "position": 0, "color": 0,
                 "hoist": False, "managed": False, "mentionable": False, "flags": 0},
            ],
            "emojis": [], "stickers": [], "premium_tier": 0, "preferred_locale": "en-US",
            "verification_level": 0, "default_message_notifications": 0, "explicit_content_filter": 0,
            "mfa_level": 0, "nsfw_level": 0, "system_channel_id": None, "afk_timeout": 300,
        }
        self.members[gid] = {}
        self.add_member(gid, self.application_id)
        self.add_member(gid, owner_id)
        return gid

    def add_role(self, guild_id: int, name: str, permissions: int) -> int:
        rid = self._snowflake()
        roles = self.guilds[guild_id]["roles"]
        roles.append({"id": str(rid), "name": name, "permissions": str(permissions), "position": len(roles),
                      "color": 0, "hoist": False, "managed": False, "mentionable": False, "flags": 0})
        return rid

    def add_member(self, guild_id: int, user_id: int, roles: Iterable[int] = ()) -> None:
        self.members[guild_id][user_id] = {
            "user": self.users[user_id], "roles": [str(r) for r in roles], "joined_at": iso(),
            "deaf": False, "mute": False, "flags": 0, "nick": None, "avatar": None,
        }

    def add_text_channel(self, guild_id: int, name: str) -> int:
        cid = self._snowflake()
        self.channels[cid] = Channel(id=cid, type=GUILD_TEXT, name=name, guild_id=guild_id)
        return cid

    def permissions(self, guild_id: int, user_id: int) -> int:
        guild = self.guilds[guild_id]
        if str(user_id) == guild["owner_id"]:
            return (1 << 53) - 1
        member = self.members[guild_id][user_id]
        value = 0
        for role in guild["roles"]:
            if role["id"] == str(guild_id) or role["id"] in member["roles"]:
                value |= int(role["permissions"])
        if value & ADMINISTRATOR:
            return (1 << 53) - 1
        return value

    def advance(self, seconds: float) -> None:
        """Move Discord's clock ``seconds`` on: what it remembers for a while (a nonce sent
        with enforce_nonce) it has forgotten once the while has passed, and the messages it
        makes from now on are stamped (their snowflakes, their timestamps) that much later."""
        self.ahead += seconds

    def monotonic(self) -> float:
        """Discord's clock for how long ago something happened (:meth:`advance` included)."""
        return time.monotonic() + self.ahead

    def close_dms(self, user_id: int) -> None:
        """The user accepts no DM from this bot (Discord answers 403, code 50007)."""
        self.closed_dms.add(user_id)

    def delete_channel(self, channel_id: int) -> None:
        """A moderator deletes a channel or thread: its messages go with it, and every request
        naming it is answered 404, code 10003 (Unknown Channel)."""
        self.channels.pop(channel_id)
        for m in self.messages.values():
            if m.channel_id == channel_id:
                m.deleted = True

    def revoke_access(self, channel_id: int) -> None:
        """The bot loses access to a channel (a permission overwrite): posting there is
        answered 403, code 50001 (Missing Access)."""
        self.no_access.add(channel_id)

    # ---------------------------------------------------------------- payloads

    def channel_payload(self, ch: Channel) -> dict[str, Any]:
        data: dict[str, Any] = {"id": str(ch.id), "type": ch.type, "flags": 0, "last_message_id": None}
        if ch.type == DM:
            data["recipients"] = [self.users[r] for r in ch.recipients]
            return data
        data.update(guild_id=str(ch.guild_id), name=ch.name, position=0, permission_overwrites=[], nsfw=False,
                    rate_limit_per_user=0)
        if ch.type == GUILD_TEXT:
            data.update(parent_id=None, topic=None)
        else:
            data.update(parent_id=str(ch.parent_id), owner_id=str(ch.owner_id), message_count=0,
                        member_count=len(ch.members), total_message_sent=0,
                        thread_metadata={"archived": ch.archived, "auto_archive_duration": 10080,
                                         "archive_timestamp": iso(), "locked": False,
                                         "invitable": ch.invitable, "create_timestamp": iso()})
        return data

    def message_payload(self, msg: Message) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(msg.id), "channel_id": str(msg.channel_id), "author": msg.author, "content": msg.content,
            "timestamp": iso(((msg.id >> 22) + DISCORD_EPOCH_MS) / 1000),
            "edited_timestamp": iso(time.time() + self.ahead) if msg.edited else None, "tts": False,
            "mention_everyone": False, "mentions": [], "mention_roles": [], "pinned": False,
            "type": 0 if msg.interaction_id is None else 20, "flags": msg.flags,
            "embeds": msg.embeds, "components": msg.components,
            "attachments": [
                {"id": str(aid), "filename": f.filename, "size": len(f.data), "content_type": f.content_type,
                 "url": f"http://127.0.0.1:{self.port}/attachments/{msg.channel_id}/{aid}/{f.filename}",
                 "proxy_url": f"http://127.0.0.1:{self.port}/attachments/{msg.channel_id}/{aid}/{f.filename}"}
                for aid, f in zip(msg.attachment_ids, msg.files)
            ],
        }
        if msg.guild_id is not None:
            data["guild_id"] = str(msg.guild_id)
        if msg.nonce is not None:
            data["nonce"] = msg.nonce
        if msg.webhook_id is not None:
            data["webhook_id"] = str(msg.webhook_id)
            data["application_id"] = str(self.application_id)
        return data

    def _guild_create(self, gid: int) -> dict[str, Any]:
        data = dict(self.guilds[gid])
        data.update(
            unavailable=False, large=False, joined_at=iso(), member_count=len(self.members[gid]),
            members=[self.members[gid][self.application_id]],
            channels=[self.channel_payload(c) for c in self.channels.values()
                      if c.guild_id == gid and c.type == GUILD_TEXT],
            threads=[self.channel_payload(c) for c in self.channels.values()
                     if c.guild_id == gid and c.type in (PUBLIC_THREAD, PRIVATE_THREAD) and not c.archived],
            voice_states=[], presences=[], stage_instances=[], guild_scheduled_events=[],
            soundboard_sounds=[],
        )
        return data

    # ---------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", "/gateway", self._gateway)
        app.router.add_route("GET", "/attachments/{cid}/{aid}/{name}", self._attachment)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def stop(self) -> None:
        for stall in self.stalls:
            stall.release()
        for conn in list(self._connections):
            await conn.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def wait_connected(self, timeout: float = 15.0) -> None:
        """Until a bot identified on the gateway and received its guilds."""
        await asyncio.wait_for(self._connected.wait(), timeout)

    def ready_shards(self) -> set[int]:
        """The shard ids that have a ready gateway session now."""
        return {c.shard[0] for c in self._connections if c.ready}

    async def wait_shards(self, shards: set[int], timeout: float = 60.0) -> None:
        """Until every shard of ``shards`` has a ready gateway session."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not shards <= self.ready_shards():
            if loop.time() > end:
                raise TimeoutError(f"shards {sorted(shards - self.ready_shards())} never identified")
            await asyncio.sleep(0.05)

    async def disconnect_shards(self, shards: set[int]) -> None:
        """Drop the sessions of these shards (what the other shards see when their process dies)."""
        for conn in [c for c in self._connections if c.shard[0] in shards]:
            await conn.ws.close()

    async def disconnect_all(self) -> None:
        """What the bot sees when Discord drops it (used after killing a bot process too)."""
        self._connected.clear()
        for conn in list(self._connections):
            await conn.ws.close()

    def fault(self, method: str, pattern: str, *, mode: str = "after", times: int = 1, status: int = 500,
              contains: str | None = None) -> None:
        """Make the next ``times`` requests matching fail with ``status``.

        ``mode="after"`` does the work first (the message is posted, the answer is lost), the
        case Discord's ``enforce_nonce`` exists for; ``"before"`` fails without effect.
        ``contains`` limits it to requests whose JSON body holds that text.
        """
        self.faults.append(Fault(method, re.compile(pattern), mode, times, status, contains))

    def stall(self, method: str, pattern: str, *, contains: str | None = None, mode: str = "before") -> Stall:
        """Hold the next request matching (``contains``: whose JSON body holds that text)
        without an answer until the returned stall is released; then it fails without effect
        (``mode="after"``: it took effect before it was held, only its answer is lost)."""
        stall = Stall(method, re.compile(pattern), contains, mode)
        self.stalls.append(stall)
        return stall

    # ---------------------------------------------------------------- gateway

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=None, max_msg_size=0)
        await ws.prepare(request)
        conn = _GatewayConnection(self, ws)
        self._connections.append(conn)
        try:
            await conn.run()
        finally:
            self._connections.remove(conn)
            if not any(c.ready for c in self._connections):
                self._connected.clear()
        return ws

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send an event to the session of its server's shard (direct messages: shard 0)."""
        guild = data.get("guild_id")
        conns = [c for c in self._connections if c.ready and c.owns(int(guild) if guild else None)]
        if not conns:
            raise RuntimeError(f"no bot connected to dispatch {event} to (server {guild})")
        for conn in conns:
            await conn.send_dispatch(event, data)

    # ---------------------------------------------------------------- users' actions

    def _commands_for(self, guild_id: int | None) -> list[dict[str, Any]]:
        cmds = list(self.global_commands)
        if guild_id is not None:
            cmds += self.guild_commands.get(guild_id, [])
        return cmds

    def find_command(self, name: str, guild_id: int | None) -> dict[str, Any]:
        for cmd in self._commands_for(guild_id):
            if cmd["name"] == name and cmd.get("type", 1) == 1:
                return cmd
        raise LookupError(f"no command /{name} is registered where the user types it")

    def _base_interaction(self, itype: int, user_id: int, channel_id: int) -> Interaction:
        ch = self.channels[channel_id]
        iid = self._snowflake()
        token = "itok_" + secrets.token_urlsafe(24)
        guild_id = ch.guild_id
        payload: dict[str, Any] = {
            "id": str(iid), "application_id": str(self.application_id), "type": itype, "token": token,
            "version": 1, "locale": "en-US", "entitlements": [], "attachment_size_limit": self.attachment_limit,
            "channel_id": str(channel_id), "channel": self.channel_payload(ch),
        }
        if guild_id is not None:
            if user_id not in self.members[guild_id]:
                raise LookupError("that user is not a member of the channel's server")
            member = dict(self.members[guild_id][user_id])
            member["permissions"] = str(self.permissions(guild_id, user_id))
            payload.update(guild_id=str(guild_id), member=member, guild_locale="en-US", context=0,
                           app_permissions=str(ALL_TEXT), authorizing_integration_owners={"0": str(guild_id)},
                           guild={"id": str(guild_id), "locale": "en-US", "features": []})
            if ch.type == PRIVATE_THREAD and user_id not in ch.members:
                raise LookupError("that user cannot see this private thread")
        else:
            if user_id not in ch.recipients:
                raise LookupError("that DM is not the user's")
            payload.update(user=self.users[user_id], context=1, app_permissions=str(ALL_TEXT),
                           authorizing_integration_owners={"0": str(self.application_id)})
        inter = Interaction(id=iid, token=token, type=itype, user_id=user_id, channel_id=channel_id,
                            guild_id=guild_id, payload=payload)
        return inter

    def _typed_options(self, schema: list[dict[str, Any]], given: dict[str, Any], focused: str | None,
                       resolved: dict[str, Any], guild_id: int | None) -> list[dict[str, Any]]:
        known = {o["name"]: o for o in schema}
        for name in given:
            if name not in known:
                raise LookupError(f"the command has no option {name!r}; it has {sorted(known)}")
        out = []
        for opt in schema:
            name = opt["name"]
            if name not in given:
                if opt.get("required") and focused is None:
                    raise LookupError(f"option {name!r} is required")
                continue
            value = given[name]
            otype = opt["type"]
            entry: dict[str, Any] = {"name": name, "type": otype}
            if name == focused:
                entry.update(type=otype, value=str(value), focused=True)
                out.append(entry)
                continue
            if opt.get("choices") and value not in [c["value"] for c in opt["choices"]]:
                raise LookupError(f"{value!r} is not one of the choices of {name!r}")
            if otype == 3:
                value = str(value)
                if len(value) > opt.get("max_length", 6000) or len(value) < opt.get("min_length", 0):
                    raise LookupError(f"{name!r} has a length outside what Discord accepts")
            elif otype in (4, 10):
                if otype == 4 and not isinstance(value, int):
                    raise LookupError(f"{name!r} must be an integer")
                if "min_value" in opt and value < opt["min_value"] or "max_value" in opt and value > opt["max_value"]:
                    raise LookupError(f"{name!r} is out of range")
            elif otype == 5:
                value = bool(value)
            elif otype == 6:
                uid = int(value)
                resolved.setdefault("users", {})[str(uid)] = self.users[uid]
                if guild_id is not None and uid in self.members[guild_id]:
                    m = {k: v for k, v in self.members[guild_id][uid].items() if k != "user"}
                    m["permissions"] = str(self.permissions(guild_id, uid))
                    resolved.setdefault("members", {})[str(uid)] = m
                value = str(uid)
            elif otype == 7:
                cid = int(value)
                resolved.setdefault("channels", {})[str(cid)] = {
                    **self.channel_payload(self.channels[cid]), "permissions": str(ALL_TEXT)}
                value = str(cid)
            entry["value"] = value
            out.append(entry)
        return out

    def _command_data(self, path: str, options: dict[str, Any], guild_id: int | None,
                      focused: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
        parts = path.split()
        cmd = self.find_command(parts[0], guild_id)
        resolved: dict[str, Any] = {}
        data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1}
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        schema = cmd.get("options", [])
        holder = data
        for part in parts[1:]:
            sub = next((o for o in schema if o["name"] == part and o["type"] in (1, 2)), None)
            if sub is None:
                raise LookupError(f"/{path}: no subcommand {part!r}")
            entry: dict[str, Any] = {"name": part, "type": sub["type"], "options": []}
            holder.setdefault("options", []).append(entry)
            holder = entry
            schema = sub.get("options", [])
        if any(o["type"] in (1, 2) for o in schema):
            raise LookupError(f"/{path} needs a subcommand")
        holder["options"] = self._typed_options(schema, options, focused, resolved, guild_id)
        if focused is not None and not any(o.get("focused") for o in holder["options"]):
            raise LookupError(f"option {focused!r} was not given a value to complete")
        if focused is not None:
            fopt = next(o for o in schema if o["name"] == focused)
            if not fopt.get("autocomplete"):
                raise LookupError(f"option {focused!r} does not autocomplete")
        if resolved:
            data["resolved"] = resolved
        return data, cmd

    async def slash(self, user_id: int, channel_id: int, path: str, **options: Any) -> Interaction:
        """The user runs ``/path`` (e.g. ``"game new"``) with typed options, as the client sends it."""
        inter = self._base_interaction(APPLICATION_COMMAND, user_id, channel_id)
        data, _ = self._command_data(path, options, inter.guild_id, None)
        inter.payload["data"] = data
        return await self._send_interaction(inter)

    async def autocomplete(self, user_id: int, channel_id: int, path: str, focused: str,
                           **options: Any) -> Interaction:
        """The user types into option ``focused`` (its partial text given in ``options``)."""
        inter = self._base_interaction(AUTOCOMPLETE, user_id, channel_id)
        data, _ = self._command_data(path, options, inter.guild_id, focused)
        inter.payload["data"] = data
        return await self._send_interaction(inter)

    def visible_to(self, msg: Message, user_id: int) -> bool:
        if msg.deleted:
            return False
        if msg.ephemeral_to is not None:
            return msg.ephemeral_to == user_id
        ch = self.channels[msg.channel_id]
        if ch.type == DM:
            return user_id in ch.recipients
        if ch.type == PRIVATE_THREAD:
            return user_id in ch.members
        return ch.guild_id is not None and user_id in self.members[ch.guild_id]

    async def click(self, user_id: int, message_id: int, custom_id: str,
                    values: list[str] | None = None, *, forged_in: int | None = None) -> Interaction:
        """The user clicks a button (or picks ``values`` in a select) of a message he can see.

        ``forged_in`` (a channel id) sends the click as if that channel held the message, for
        a message the user cannot see: what a hostile or broken client would need, and what
        the bot must refuse on its own checks (Discord itself would not deliver it)."""
        msg = self.messages[message_id]
        if forged_in is None and not self.visible_to(msg, user_id):
            raise LookupError("the user cannot see that message")
        comp = next((c for c in iter_components(msg.components) if c.get("custom_id") == custom_id), None)
        if comp is None:
            raise LookupError(f"no component {custom_id!r} on that message")
        if comp.get("disabled"):
            raise LookupError("that component is disabled")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": comp["type"]}
        if comp["type"] == 3:
            allowed = [o["value"] for o in comp.get("options", [])]
            values = values or []
            bad = [v for v in values if v not in allowed]
            if bad or not comp.get("min_values", 1) <= len(values) <= comp.get("max_values", 1):
                raise LookupError(f"values {values} are not a valid pick of {allowed}")
            data["values"] = values
        elif values is not None:
            raise LookupError("a button has no values")
        inter = self._base_interaction(MESSAGE_COMPONENT, user_id, forged_in or msg.channel_id)
        inter.payload["data"] = data
        inter.payload["message"] = self.message_payload(msg)
        inter.payload["message_id"] = str(msg.id)
        return await self._send_interaction(inter)

    async def _send_interaction(self, inter: Interaction) -> Interaction:
        self.interactions[inter.id] = inter
        self._by_token[inter.token] = inter
        inter.created = time.monotonic()
        await self.dispatch("INTERACTION_CREATE", inter.payload)
        return inter

    async def redeliver(self, inter: Interaction) -> None:
        """The same INTERACTION_CREATE again, as a gateway replays events after a resume: the
        bot must handle an interaction once however often it arrives."""
        await self.dispatch("INTERACTION_CREATE", inter.payload)

    async def answered(self, inter: Interaction, timeout: float = 10.0) -> Interaction:
        """Until the bot answered (or deferred) the interaction."""
        await asyncio.wait_for(inter.done.wait(), timeout)
        return inter

    async def settle(self, inter: Interaction, quiet: float = 0.3, timeout: float = 30.0) -> Interaction:
        """Until the bot answered and then sent nothing more for ``quiet`` seconds."""
        await self.answered(inter, timeout)
        await self.wait_quiet(quiet, timeout)
        return inter

    async def wait_quiet(self, quiet: float = 0.3, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            last = self.requests[-1].at if self.requests else 0.0
            wait = last + quiet - time.monotonic()
            if wait <= 0:
                return
            await asyncio.sleep(wait)
        raise TimeoutError("the bot kept sending requests")

    async def wait_for(self, predicate: Callable[[Recorded], bool], timeout: float = 10.0,
                       start: int = 0) -> Recorded:
        """The first request from index ``start`` on that satisfies ``predicate``."""
        found = await self._until(lambda: next((r for r in self.requests[start:] if predicate(r)), None),
                                  timeout, "no such request arrived")
        return found

    async def wait_message(self, predicate: Callable[[Message], bool], timeout: float = 10.0) -> Message:
        found = await self._until(
            lambda: next((m for m in list(self.messages.values()) if not m.deleted and predicate(m)), None),
            timeout, "no such message was posted")
        return found

    async def _until(self, find: Callable[[], T | None], timeout: float, failure: str) -> T:
        """``find()`` once it finds something, looking again after each request the bot makes."""
        deadline = time.monotonic() + timeout
        while True:
            found = find()
            if found is not None:
                return found
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(failure)
            self._request_event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._request_event.wait(), left)

    # ---------------------------------------------------------------- queries for tests

    def open_dm(self, user_id: int) -> int:
        """The user's DM channel with the bot (made when the user opens it himself)."""
        ch = self.dm_channel(user_id)
        if ch is None:
            ch = Channel(id=self._snowflake(), type=DM, recipients=[user_id])
            self.channels[ch.id] = ch
        return ch.id

    def dm_channel(self, user_id: int) -> Channel | None:
        return next((c for c in self.channels.values() if c.type == DM and c.recipients == [user_id]), None)

    def channel_messages(self, channel_id: int) -> list[Message]:
        return [m for m in self.messages.values() if m.channel_id == channel_id and not m.deleted]

    def public_messages(self) -> list[Message]:
        """Messages anyone but one player may read: guild channels and threads, not ephemeral,
        not in a private thread whose members are the bot and at most one user."""
        out = []
        for m in self.messages.values():
            if m.deleted or m.ephemeral:
                continue
            ch = self.channels[m.channel_id]
            if ch.type == DM:
                continue
            if ch.type == PRIVATE_THREAD and len(ch.members - {self.application_id}) <= 1:
                continue
            out.append(m)
        return out

    def threads(self, parent_id: int | None = None) -> list[Channel]:
        return [c for c in self.channels.values() if c.type in (PUBLIC_THREAD, PRIVATE_THREAD)
                and (parent_id is None or c.parent_id == parent_id)]

    # ---------------------------------------------------------------- REST

    async def _attachment(self, request: web.Request) -> web.Response:
        aid = int(request.match_info["aid"])
        for msg in self.messages.values():
            if aid in msg.attachment_ids:
                f = msg.files[msg.attachment_ids.index(aid)]
                return web.Response(body=f.data, content_type=f.content_type)
        return web.Response(status=404)

    async def _rest(self, request: web.Request) -> web.Response:
        body_json: Any = None
        files: list[File] = []
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/"):
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                name = part.name or ""  # type: ignore[union-attr]
                data = await part.read()  # type: ignore[union-attr]
                if name == "payload_json":
                    body_json = json.loads(data)
                elif name.startswith("files["):
                    files.append(File(part.filename or "file", part.headers.get("Content-Type", ""),  # type: ignore[union-attr]
                                      bytes(data)))
        elif request.can_read_body:
            raw = await request.read()
            body_json = json.loads(raw) if raw else None
        rec = Recorded(method=request.method, path=request.path, query=dict(request.query), json=body_json,
                       files=files, headers={k: v for k, v in request.headers.items()}, at=time.monotonic())
        self.requests.append(rec)
        route = rec.route
        fault = next((f for f in self.faults if f.method == request.method and f.pattern.search(route)
                      and f.times > 0 and (f.contains is None or f.contains in json.dumps(body_json))), None)
        stall = next((s for s in self.stalls if not s.caught.is_set() and s.method == request.method
                      and s.pattern.search(route) and (s.contains is None or s.contains in json.dumps(body_json))),
                     None)
        try:
            if stall is not None:
                if stall.mode == "after":
                    await self._route(request.method, route, rec)
                stall.caught.set()
                await stall.released.wait()
                raise ApiError(500, 0, "a stalled request, released without effect" if stall.mode == "before"
                               else "a stalled request, its answer lost")
            if fault is not None and fault.mode == "before":
                fault.times -= 1
                raise ApiError(fault.status, 0, "injected failure")
            status, payload = await self._route(request.method, route, rec)
            if fault is not None and fault.mode == "after":
                fault.times -= 1
                raise ApiError(fault.status, 0, "injected failure after the work was done")
        except ApiError as err:
            status, payload = err.status, err.body()
        rec.status, rec.response = status, payload
        self._request_event.set()
        if status == 204:
            return web.Response(status=204)
        # Discord sends exactly "application/json" (discord.py compares the header verbatim).
        return web.Response(body=json.dumps(payload).encode(), status=status, headers={"Content-Type": "application/json"})

    def _require_bot_auth(self, rec: Recorded) -> None:
        if rec.headers.get("Authorization") != f"Bot {self.token}":
            raise ApiError(401, 0, "401: Unauthorized")

    async def _route(self, method: str, route: str, rec: Recorded) -> tuple[int, Any]:
        parts = route.strip("/").split("/")
        body = rec.json or {}
        # Interaction callbacks and webhooks authenticate by their token, not the bot token.
        if parts[0] == "interactions" and len(parts) == 4 and parts[3] == "callback" and method == "POST":
            return self._callback(int(parts[1]), parts[2], rec)
        if parts[0] == "webhooks" and len(parts) >= 3:
            return self._webhook(method, int(parts[1]), parts[2], parts[3:], rec)
        self._require_bot_auth(rec)
        if route == "/users/@me" and method == "GET":
            return 200, self.bot_user
        if route == "/oauth2/applications/@me" and method == "GET":
            return 200, {
                "id": str(self.application_id), "name": "Alcazaba", "icon": None, "description": "",
                "rpc_origins": [], "bot_public": True, "bot_require_code_grant": False,
                "owner": self.users[next(iter(u for u in self.users if u != self.application_id),
                                          self.application_id)],
                "team": None, "verify_key": "0" * 64, "flags": 0, "summary": "",
                "interactions_endpoint_url": None, "bot": self.bot_user,
            }
        if route == "/gateway" and method == "GET":
            return 200, {"url": self.gateway_url}
        if route == "/gateway/bot" and method == "GET":
            # What AutoShardedBot asks when SHARD_COUNT is unset: Discord's recommendation.
            return 200, {"url": self.gateway_url, "shards": self.recommended_shards,
                         "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0,
                                                 "max_concurrency": 1}}
        if parts[0] == "applications" and len(parts) >= 3 and parts[2] == "commands":
            return self._commands(method, None, rec, parts[3:])
        if parts[0] == "applications" and len(parts) >= 5 and parts[2] == "guilds" and parts[4] == "commands":
            return self._commands(method, int(parts[3]), rec, parts[5:])
        if route == "/users/@me/channels" and method == "POST":
            uid = int(body["recipient_id"])
            if uid not in self.users:
                raise ApiError(404, 10013, "Unknown User")
            ch = self.dm_channel(uid)
            if ch is None:
                ch = Channel(id=self._snowflake(), type=DM, recipients=[uid])
                self.channels[ch.id] = ch
            return 200, self.channel_payload(ch)
        if parts[0] == "users" and len(parts) == 2 and method == "GET":
            uid = int(parts[1])
            if uid not in self.users:
                raise ApiError(404, 10013, "Unknown User")
            return 200, self.users[uid]
        if parts[0] == "guilds" and len(parts) == 4 and parts[2] == "members" and method == "GET":
            gid, uid = int(parts[1]), int(parts[3])
            if gid not in self.members or uid not in self.members[gid]:
                raise ApiError(404, 10007, "Unknown Member")
            return 200, self.members[gid][uid]
        if parts[0] == "guilds" and len(parts) == 2 and method == "GET":
            gid = int(parts[1])
            if gid not in self.guilds:
                raise ApiError(404, 10004, "Unknown Guild")
            return 200, self.guilds[gid]
        if parts[0] == "channels":
            return await self._channels(method, parts[1:], rec)
        raise ApiError(404, 0, f"404: Not Found ({method} {route} is not part of the stand-in)")

    def _channel(self, cid: int) -> Channel:
        ch = self.channels.get(cid)
        if ch is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return ch

    async def _channels(self, method: str, parts: list[str], rec: Recorded) -> tuple[int, Any]:
        ch = self._channel(int(parts[0]))
        body = rec.json or {}
        if len(parts) == 1 and method == "GET":
            return 200, self.channel_payload(ch)
        if len(parts) == 1 and method == "PATCH":
            if "name" in body:
                ch.name = body["name"]
            if "archived" in body:
                ch.archived = bool(body["archived"])
            return 200, self.channel_payload(ch)
        if parts[1:] == ["messages"] and method == "POST":
            return 200, self._create_message(ch, rec)
        if parts[1:] == ["messages"] and method == "GET":
            return 200, self._history(ch, rec.query)
        if len(parts) == 3 and parts[1] == "messages":
            msg = self.messages.get(int(parts[2]))
            if msg is None or msg.channel_id != ch.id or msg.deleted:
                raise ApiError(404, 10008, "Unknown Message")
            if method == "GET":
                return 200, self.message_payload(msg)
            if method == "PATCH":
                if msg.author["id"] != str(self.application_id):
                    raise ApiError(403, 50005, "Cannot edit a message authored by another user")
                self._edit(msg, body, rec.files)
                return 200, self.message_payload(msg)
            if method == "DELETE":
                msg.deleted = True
                return 204, None
        if parts[1:] == ["threads"] and method == "POST":
            if ch.type != GUILD_TEXT:
                raise ApiError(400, 50024, "Cannot execute action on this channel type")
            ttype = int(body.get("type", PRIVATE_THREAD))
            name = str(body.get("name", ""))
            if not 1 <= len(name) <= 100:
                raise invalid_form("thread name must be 1 to 100 characters")
            th = Channel(id=self._snowflake(), type=ttype, name=name, guild_id=ch.guild_id, parent_id=ch.id,
                         owner_id=self.application_id, members={self.application_id},
                         invitable=bool(body.get("invitable", True)))
            self.channels[th.id] = th
            payload = self.channel_payload(th)
            await self._dispatch_if_guilds("THREAD_CREATE", {**payload, "newly_created": True})
            return 201, payload
        if len(parts) == 3 and parts[1] == "thread-members" and method == "PUT":
            if ch.type not in (PUBLIC_THREAD, PRIVATE_THREAD):
                raise ApiError(400, 50024, "Cannot execute action on this channel type")
            uid = int(parts[2]) if parts[2] != "@me" else self.application_id
            if ch.guild_id is None or uid not in self.members[ch.guild_id]:
                raise ApiError(404, 10007, "Unknown Member")
            ch.members.add(uid)
            return 204, None
        raise ApiError(404, 0, f"404: Not Found ({method} /channels/{'/'.join(parts)})")

    async def _dispatch_if_guilds(self, event: str, data: dict[str, Any]) -> None:
        guild = data.get("guild_id")
        for conn in [c for c in self._connections
                     if c.ready and c.intents & INTENT_GUILDS and c.owns(int(guild) if guild else None)]:
            await conn.send_dispatch(event, data)

    def _validate_message(self, body: dict[str, Any], files: list[File], *, editing: bool = False) -> None:
        content = body.get("content")
        if content is not None and len(str(content)) > 2000:
            raise invalid_form("content must be 2000 characters or fewer")
        embeds = body.get("embeds") or []
        if len(embeds) > 10:
            raise invalid_form("at most 10 embeds")
        total = 0
        for e in embeds:
            if len(str(e.get("title", ""))) > 256 or len(str(e.get("description", ""))) > 4096:
                raise invalid_form("embed title or description too long")
            if len(e.get("fields", [])) > 25:
                raise invalid_form("at most 25 embed fields")
            for f in e.get("fields", []):
                if not f.get("name") or not f.get("value") or len(f["name"]) > 256 or len(f["value"]) > 1024:
                    raise invalid_form("embed field name (1-256) or value (1-1024) out of range")
            total += sum(len(str(e.get(k, ""))) for k in ("title", "description"))
            total += sum(len(f["name"]) + len(f["value"]) for f in e.get("fields", []))
        if total > 6000:
            raise invalid_form("embeds carry more than 6000 characters")
        self._validate_components(body.get("components") or [])
        if sum(len(f.data) for f in files) > self.attachment_limit:
            raise ApiError(413, 40005, "Request entity too large")
        if len(files) > 10:
            raise invalid_form("at most 10 attachments")
        nonce = body.get("nonce")
        if nonce is not None and len(str(nonce)) > 25:
            raise invalid_form("nonce must be 25 characters or fewer")
        if not editing and not (content or embeds or files or body.get("components") or body.get("sticker_ids")):
            raise ApiError(400, 50006, "Cannot send an empty message")

    def _validate_components(self, rows: list[dict[str, Any]]) -> None:
        if len(rows) > 5:
            raise invalid_form("at most 5 action rows")
        seen: set[str] = set()
        for row in rows:
            if row.get("type") != 1:
                raise invalid_form("top-level components must be action rows")
            inner = row.get("components", [])
            if not inner:
                raise invalid_form("an action row cannot be empty")
            selects = [c for c in inner if c["type"] in (3, 5, 6, 7, 8)]
            if selects and len(inner) > 1:
                raise invalid_form("a select menu takes a whole action row")
            if len(inner) > 5:
                raise invalid_form("at most 5 buttons per action row")
            for c in inner:
                cid = c.get("custom_id")
                if c["type"] == 2 and c.get("style") == 5:
                    if not c.get("url"):
                        raise invalid_form("a link button needs a url")
                    continue
                if not cid or len(cid) > 100:
                    raise invalid_form("custom_id must be 1 to 100 characters")
                if cid in seen:
                    raise invalid_form(f"custom_id {cid!r} is used twice in one message")
                seen.add(cid)
                if c["type"] == 2:
                    if len(str(c.get("label", ""))) > 80:
                        raise invalid_form("button label must be 80 characters or fewer")
                    if not c.get("label") and not c.get("emoji"):
                        raise invalid_form("a button needs a label or an emoji")
                if c["type"] == 3:
                    opts = c.get("options", [])
                    if not 1 <= len(opts) <= 25:
                        raise invalid_form("a select menu has 1 to 25 options")
                    values = [o["value"] for o in opts]
                    if len(set(values)) != len(values):
                        raise invalid_form("select option values must be unique")
                    for o in opts:
                        if not 1 <= len(o["label"]) <= 100 or not 1 <= len(o["value"]) <= 100:
                            raise invalid_form("select option label and value must be 1 to 100 characters")
                        if len(o.get("description") or "") > 100:
                            raise invalid_form("select option description must be 100 characters or fewer")
                    if len(str(c.get("placeholder", ""))) > 150:
                        raise invalid_form("placeholder must be 150 characters or fewer")
                    if c.get("max_values", 1) > len(opts):
                        raise invalid_form("max_values exceeds the number of options")

    def _new_message(self, ch: Channel, body: dict[str, Any], files: list[File], *, flags: int = 0,
                     interaction: Interaction | None = None, webhook: bool = False) -> Message:
        msg = Message(id=self._snowflake(), channel_id=ch.id, author=self.bot_user,
                      content=str(body.get("content") or ""), embeds=list(body.get("embeds") or []),
                      components=list(body.get("components") or []), files=list(files),
                      attachment_ids=[self._snowflake() for _ in files], flags=flags,
                      nonce=None if body.get("nonce") is None else str(body["nonce"]),
                      guild_id=ch.guild_id, interaction_id=interaction.id if interaction else None,
                      webhook_id=self.application_id if webhook else None, created=self.monotonic())
        if flags & EPHEMERAL and interaction is not None:
            msg.ephemeral_to = interaction.user_id
        self.messages[msg.id] = msg
        return msg

    def _create_message(self, ch: Channel, rec: Recorded) -> dict[str, Any]:
        body = rec.json or {}
        if ch.type == DM and ch.recipients[0] in self.closed_dms:
            raise ApiError(403, 50007, "Cannot send messages to this user")
        if ch.id in self.no_access:
            raise ApiError(403, 50001, "Missing Access")
        if ch.type in (PUBLIC_THREAD, PRIVATE_THREAD) and ch.archived:
            ch.archived = False  # a bot with SEND_MESSAGES unarchives by posting
        self._validate_message(body, rec.files)
        flags = int(body.get("flags") or 0)
        if flags & EPHEMERAL:
            raise invalid_form("only interaction responses can be ephemeral")
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce"):
            # "If another message was created by the same author with the same nonce, that
            # message will be returned and no new message will be created": the same author,
            # whatever the channel, whatever the content (the old message, as it is now).
            for m in self.messages.values():
                if (m.nonce == str(nonce) and m.author["id"] == self.bot_user["id"]
                        and self.monotonic() - m.created < NONCE_WINDOW_S and m.interaction_id is None):
                    return self.message_payload(m)
        msg = self._new_message(ch, body, rec.files, flags=flags)
        return self.message_payload(msg)

    def _history(self, ch: Channel, query: dict[str, str]) -> list[dict[str, Any]]:
        """GET /channels/{id}/messages as Discord answers it: ``limit`` 1 to 100 (50 when not
        given), at most one of ``before``, ``after`` and ``around`` (message ids; none: the
        newest), always newest first, never a deleted or ephemeral message. ``after`` gives
        the ``limit`` messages just after the id (the oldest of them, newest first),
        ``before`` the ``limit`` just before it, ``around`` half a limit either side of it
        (the message itself included)."""
        if ch.id in self.no_access:
            raise ApiError(403, 50001, "Missing Access")
        unknown = set(query) - {"limit", "before", "after", "around"}
        if unknown:
            raise invalid_form(f"unknown query parameters {sorted(unknown)}")
        anchors = [k for k in ("before", "after", "around") if k in query]
        if len(anchors) > 1:
            raise invalid_form("before, after and around are mutually exclusive")
        try:
            limit = int(query.get("limit", "50"))
            anchor = int(query[anchors[0]]) if anchors else None
        except ValueError:
            raise invalid_form("limit and message ids must be integers") from None
        if not 1 <= limit <= 100:
            raise invalid_form("limit must be between 1 and 100")
        shown = sorted((m for m in self.messages.values()
                        if m.channel_id == ch.id and not m.deleted and not m.ephemeral), key=lambda m: m.id)
        if anchor is None:
            picked = shown[-limit:]
        elif anchors[0] == "before":
            picked = [m for m in shown if m.id < anchor][-limit:]
        elif anchors[0] == "after":
            picked = [m for m in shown if m.id > anchor][:limit]
        else:
            older = [m for m in shown if m.id < anchor][-(limit // 2):] if limit >= 2 else []
            newer = [m for m in shown if m.id >= anchor][:limit - len(older)]
            picked = older + newer
        return [self.message_payload(m) for m in reversed(picked)]

    def _edit(self, msg: Message, body: dict[str, Any], files: list[File]) -> None:
        self._validate_message(body, files, editing=True)
        msg.history.append(self.message_payload(msg))
        if "content" in body:
            msg.content = str(body["content"] or "")
        if "embeds" in body:
            msg.embeds = list(body["embeds"] or [])
        if "components" in body:
            msg.components = list(body["components"] or [])
        if "attachments" in body or files:
            keep = {int(a["id"]) for a in (body.get("attachments") or []) if "id" in a
                    and int(a["id"]) in msg.attachment_ids}
            pairs = [(aid, f) for aid, f in zip(msg.attachment_ids, msg.files) if aid in keep]
            pairs += [(self._snowflake(), f) for f in files]
            msg.attachment_ids = [p[0] for p in pairs]
            msg.files = [p[1] for p in pairs]
        msg.flags &= ~LOADING
        msg.edited = True

    # ---------------------------------------------------------------- interactions

    def _violation(self, text: str) -> None:
        self.violations.append(text)

    def _callback(self, iid: int, token: str, rec: Recorded) -> tuple[int, Any]:
        inter = self.interactions.get(iid)
        if inter is None or inter.token != token:
            raise ApiError(404, 10062, "Unknown interaction")
        inter.callbacks.append(rec)
        body = rec.json or {}
        ctype = int(body.get("type", 0))
        data = body.get("data") or {}
        now = time.monotonic()
        if now - inter.created > INTERACTION_WINDOW_S:
            self._violation(f"interaction {iid} answered after {now - inter.created:.2f}s")
            raise ApiError(404, 10062, "Unknown interaction")
        if inter.response_type is not None:
            self._violation(f"interaction {iid} answered twice")
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        allowed = {
            APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL},
            MESSAGE_COMPONENT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL},
            AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
            MODAL_SUBMIT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE},
        }[inter.type]
        if ctype not in allowed:
            self._violation(f"interaction {iid} of type {inter.type} got callback type {ctype}")
            raise invalid_form(f"callback type {ctype} is not valid for interaction type {inter.type}")
        ch = self.channels[inter.channel_id]
        flags = int(data.get("flags") or 0)
        out_msg: Message | None = None
        if ctype == AUTOCOMPLETE_RESULT:
            choices = data.get("choices")
            if not isinstance(choices, list) or len(choices) > 25:
                self._violation(f"interaction {iid}: autocomplete with {choices!r}")
                raise invalid_form("autocomplete answers 0 to 25 choices")
            for c in choices:
                if not 1 <= len(c.get("name", "")) <= 100 or len(str(c.get("value", ""))) > 100:
                    self._violation(f"interaction {iid}: autocomplete choice {c!r} out of limits")
                    raise invalid_form("choice name must be 1 to 100 characters, value at most 100")
        elif ctype == CHANNEL_MESSAGE:
            self._validate_message(data, rec.files)
            out_msg = self._new_message(ch, data, rec.files, flags=flags & (EPHEMERAL | 4096),
                                        interaction=inter, webhook=True)
            inter.original_id = out_msg.id
        elif ctype == DEFERRED_CHANNEL_MESSAGE:
            out_msg = self._new_message(ch, {}, [], flags=LOADING | (flags & EPHEMERAL), interaction=inter,
                                        webhook=True)
            inter.original_id = out_msg.id
        elif ctype == UPDATE_MESSAGE:
            target = self.messages[int(inter.payload["message"]["id"])]
            if target.channel_id != inter.channel_id:
                raise ApiError(404, 10008, "Unknown Message")
            self._edit(target, data, rec.files)
            inter.original_id = target.id
            out_msg = target
        elif ctype == DEFERRED_UPDATE:
            inter.original_id = int(inter.payload["message"]["id"])
        inter.response_type = ctype
        inter.answered_at = now
        inter.ephemeral = bool(out_msg.ephemeral) if out_msg is not None and ctype != UPDATE_MESSAGE else False
        inter.done.set()
        resp: dict[str, Any] = {"interaction": {
            "id": str(iid), "type": inter.type,
            "response_message_loading": ctype == DEFERRED_CHANNEL_MESSAGE,
            "response_message_ephemeral": inter.ephemeral,
        }}
        if out_msg is not None:
            resp["interaction"]["response_message_id"] = str(out_msg.id)
        resource: dict[str, Any] = {"type": ctype}
        if out_msg is not None and ctype in (CHANNEL_MESSAGE, UPDATE_MESSAGE):
            resource["message"] = self.message_payload(out_msg)
        resp["resource"] = resource
        return 200, resp

    def _webhook(self, method: str, app_id: int, token: str, rest: list[str], rec: Recorded) -> tuple[int, Any]:
        inter = self._by_token.get(token)
        if app_id != self.application_id or inter is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        if inter.response_type is None:
            self._violation(f"interaction {inter.id}: webhook used before the interaction was answered")
            raise ApiError(404, 10015, "Unknown Webhook")
        if time.monotonic() - inter.created > FOLLOWUP_WINDOW_S:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        body = rec.json or {}
        ch = self.channels[inter.channel_id]
        if not rest and method == "POST":
            self._validate_message(body, rec.files)
            original = self.messages.get(inter.original_id) if inter.original_id else None
            if (inter.response_type == DEFERRED_CHANNEL_MESSAGE and original is not None
                    and original.flags & LOADING):
                # The first followup after a "thinking" defer fills the loading message; its
                # visibility is the defer's, whatever flags the followup asks for.
                self._edit(original, body, rec.files)
                return 200, self.message_payload(original)
            flags = int(body.get("flags") or 0) & (EPHEMERAL | 4096)
            msg = self._new_message(ch, body, rec.files, flags=flags, interaction=inter, webhook=True)
            inter.followup_ids.append(msg.id)
            return 200, self.message_payload(msg)
        if len(rest) == 2 and rest[0] == "messages":
            if rest[1] == "@original":
                if inter.original_id is None:
                    raise ApiError(404, 10008, "Unknown Message")
                msg = self.messages[inter.original_id]
            else:
                mid = int(rest[1])
                if mid not in inter.followup_ids and mid != inter.original_id:
                    raise ApiError(404, 10008, "Unknown Message")
                msg = self.messages[mid]
            if msg.deleted:
                raise ApiError(404, 10008, "Unknown Message")
            if method == "GET":
                return 200, self.message_payload(msg)
            if method == "PATCH":
                self._edit(msg, body, rec.files)
                return 200, self.message_payload(msg)
            if method == "DELETE":
                msg.deleted = True
                return 204, None
        raise ApiError(404, 0, "404: Not Found")

    # ---------------------------------------------------------------- commands

    def _validate_command(self, cmd: dict[str, Any], depth: int = 0) -> None:
        name = cmd.get("name", "")
        if not COMMAND_NAME.match(name):
            raise invalid_form(f"command or option name {name!r} must be 1-32 lowercase characters")
        desc = cmd.get("description", "")
        if not 1 <= len(desc) <= 100:
            raise invalid_form(f"description of {name!r} must be 1 to 100 characters")
        opts = cmd.get("options") or []
        if len(opts) > 25:
            raise invalid_form(f"{name!r} has more than 25 options")
        names = [o["name"] for o in opts]
        if len(set(names)) != len(names):
            raise invalid_form(f"{name!r} has duplicate option names")
        required_seen_optional = False
        for o in opts:
            if o["type"] in (1, 2):
                if depth >= 2 or (o["type"] == 2 and depth >= 1):
                    raise invalid_form("subcommands nest too deep")
            else:
                if o.get("required"):
                    if required_seen_optional:
                        raise invalid_form(f"required option {o['name']!r} after an optional one")
                else:
                    required_seen_optional = True
                if len(o.get("choices") or []) > 25:
                    raise invalid_form(f"option {o['name']!r} has more than 25 choices")
                if o.get("choices") and o.get("autocomplete"):
                    raise invalid_form("an option cannot have both choices and autocomplete")
            self._validate_command(o, depth + 1)

    def _commands(self, method: str, guild_id: int | None, rec: Recorded, rest: list[str]) -> tuple[int, Any]:
        store = self.global_commands if guild_id is None else self.guild_commands.setdefault(guild_id, [])
        if method == "GET" and not rest:
            return 200, store
        if method == "PUT" and not rest:
            body = rec.json or []
            if len(body) > 100:
                raise invalid_form("at most 100 commands")
            out = []
            for cmd in body:
                self._validate_command(cmd)
                old = next((c for c in store if c["name"] == cmd["name"]), None)
                stored = {
                    **cmd, "id": old["id"] if old else str(self._snowflake()),
                    "application_id": str(self.application_id), "version": str(self._snowflake()),
                    "type": cmd.get("type", 1), "default_member_permissions": cmd.get("default_member_permissions"),
                }
                if guild_id is not None:
                    stored["guild_id"] = str(guild_id)
                out.append(stored)
            store[:] = out
            return 200, out
        raise ApiError(404, 0, "404: Not Found")


class _GatewayConnection:
    """One bot session on the gateway (HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeats)."""

    def __init__(self, standin: StandIn, ws: web.WebSocketResponse) -> None:
        self.standin = standin
        self.ws = ws
        self.seq = 0
        self.ready = False
        self.intents = 0
        self.shard = (0, 1)
        """(shard id, shard count) of the IDENTIFY: the servers whose events this session gets."""
        self.session_id = secrets.token_hex(16)
        self._lock = asyncio.Lock()

    async def send(self, payload: dict[str, Any]) -> None:
        async with self._lock:
            if not self.ws.closed:
                await self.ws.send_str(json.dumps(payload))

    def owns(self, guild_id: int | None) -> bool:
        """Discord's routing: a server's events go to shard ``(id >> 22) % count``."""
        shard_id, count = self.shard
        return (0 if guild_id is None else (guild_id >> 22) % count) == shard_id

    async def send_dispatch(self, event: str, data: dict[str, Any]) -> None:
        if event == "INTERACTION_CREATE":
            self.standin.dispatched_interactions.append((self.shard[0], int(data["id"])))
        self.seq += 1
        await self.send({"op": OP_DISPATCH, "t": event, "s": self.seq, "d": data})

    async def run(self) -> None:
        si = self.standin
        await self.send({"op": OP_HELLO, "d": {"heartbeat_interval": si.heartbeat_interval_ms}, "s": None, "t": None})
        async for msg in self.ws:
            if msg.type != WSMsgType.TEXT:
                continue
            payload = json.loads(msg.data)
            op = payload.get("op")
            data = payload.get("d")
            if op == OP_HEARTBEAT:
                await self.send({"op": OP_HEARTBEAT_ACK, "d": None, "s": None, "t": None})
            elif op == OP_IDENTIFY:
                si.identifies.append(data)
                if data.get("token") != si.token:
                    await self.ws.close(code=4004, message=b"Authentication failed.")
                    return
                self.intents = int(data.get("intents") or 0)
                if self.intents & PRIVILEGED_INTENTS & ~si.allowed_intents:
                    await self.ws.close(code=4014, message=b"Disallowed intent(s).")
                    return
                shard = data.get("shard") or [0, 1]
                if len(shard) != 2 or not 0 <= int(shard[0]) < int(shard[1]):
                    await self.ws.close(code=4010, message=b"Invalid shard.")
                    return
                self.shard = (int(shard[0]), int(shard[1]))
                si.shard_sessions.append(self.shard)
                guilds = [g for g in si.guilds if self.owns(g)]
                ready = {
                    "v": 10, "user": si.bot_user, "session_id": self.session_id,
                    "resume_gateway_url": si.gateway_url, "session_type": "normal",
                    "guilds": [{"id": str(g), "unavailable": True} for g in guilds], "shard": list(self.shard),
                    "application": {"id": str(si.application_id), "flags": 0},
                    "private_channels": [], "relationships": [], "presences": [], "guild_join_requests": [],
                    "geo_ordered_rtc_regions": [], "user_settings": {},
                }
                await self.send_dispatch("READY", ready)
                if self.intents & INTENT_GUILDS:
                    for gid in guilds:
                        await self.send_dispatch("GUILD_CREATE", si._guild_create(gid))
                self.ready = True
                si._connected.set()
            elif op == OP_RESUME:
                # Sessions are not kept across connections: ask for a fresh IDENTIFY.
                await self.send({"op": OP_INVALID_SESSION, "d": False, "s": None, "t": None})
            elif op in (OP_PRESENCE, OP_REQUEST_MEMBERS):
                continue
