"""Database tables of the server (SQLModel over SQLAlchemy; SQLite or PostgreSQL).

JSON values (options, state, actions, payloads) are stored as text written by
:func:`dumps`: one canonical serialisation everywhere, so that a state's text and its hash
are the same on every database and a replay can be compared byte for byte. Discord ids
(snowflakes) fit a signed 64-bit integer. Times are UTC.

The schema is created by the Alembic migration in ``migrations/versions``; a test checks
that migration and these models agree.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

GAME_STATUSES = ("open", "running", "finished", "aborted")
MOVE_KINDS = ("step", "undo")
OUTBOX_KINDS = ("dm", "channel")
CLAIM_KINDS = ("deadline", "bots")


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False)


def dumps(value: Any) -> str:
    """The canonical JSON text of a value (sorted keys, no spaces, no NaN). One encoder made
    once: ``json.dumps`` with these options would build a new one at every call."""
    return _CANONICAL.encode(value)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


# Naming convention so that constraint names are stable across SQLite and PostgreSQL and
# Alembic can compare them.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Game(SQLModel, table=True):
    """One game: its engine, seed and options, where it is played, and how far it got.

    ``version`` counts the moves (steps and undos) recorded so far; a command carries the
    version it was made against and is refused when it is stale.
    """

    __tablename__ = "game"
    __table_args__ = (
        sa.Index("ix_game_status_updated_at", "status", "updated_at"),
        sa.Index("ix_game_guild_id_status", "guild_id", "status"),
        sa.Index("ix_game_channel_id", "channel_id"),
        sa.Index("ix_game_thread_id", "thread_id"),
        sa.Index("ix_game_deadline_at", "deadline_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(sa_type=sa.String(40), description="engine id, e.g. 'navas'")
    seed: int = Field(sa_type=sa.BigInteger)
    options: str = Field(sa_type=sa.Text, description="JSON object")
    status: str = Field(default="open", sa_type=sa.String(16))
    version: int = Field(default=0)
    active: str = Field(default="[]", sa_type=sa.Text, description="JSON list of roles that must act now")
    created_by: int | None = Field(default=None, sa_type=sa.BigInteger)
    guild_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    channel_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    thread_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    pace: str | None = Field(default=None, sa_type=sa.String(32), description="e.g. 'live', '24h' (for deadlines)")
    deadline_at: datetime | None = Field(default=None, sa_type=sa.DateTime)
    reminded_at: datetime | None = Field(default=None, sa_type=sa.DateTime)
    result: str | None = Field(default=None, sa_type=sa.Text, description="JSON result once over")
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)
    rules_version: int = Field(default=1, sa_column_kwargs={"server_default": "1"},
                               description="the engine's RULES_VERSION at creation (0005)")
    schema_revision: str | None = Field(default=None, sa_type=sa.String(32),
                                        description="the Alembic revision at creation (0005)")
    rematch_of: int | None = Field(default=None,
                                   description="the game this one is a rematch of; a plain number (0013)")


class Seat(SQLModel, table=True):
    """Who holds a role. A row exists only once the role is taken.

    ``user_id`` None and ``is_bot`` False is a terminal seat (hot-seat at the local table).
    """

    __tablename__ = "seat"
    __table_args__ = (
        sa.UniqueConstraint("game_pk", "role"),
        sa.Index("ix_seat_user_id", "user_id"),
        sa.Index("ix_seat_is_bot_game_pk", "is_bot", "game_pk"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_pk: int = Field(sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], nullable=False)
    role: str = Field(sa_type=sa.String(40))
    user_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    display_name: str = Field(default="", sa_type=sa.String(100))
    is_bot: bool = Field(default=False)
    prefs: str = Field(default="{}", sa_type=sa.Text, description="JSON object, e.g. auto-pass choices")
    joined_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)


class Move(SQLModel, table=True):
    """The append-only log. Never updated nor deleted: an undo is a new row naming the step
    it takes back (``undoes_seq``). ``seq`` is the game version the row produced.

    ``barrier`` records that the step drew at random or revealed something (it can never
    be taken back); ``state_hash`` is the hash of the state after the row, so that a replay
    names the first move where it differs.
    """

    __tablename__ = "move"
    __table_args__ = (sa.UniqueConstraint("game_pk", "seq"),)

    id: int | None = Field(default=None, primary_key=True)
    game_pk: int = Field(sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], nullable=False)
    seq: int
    role: str = Field(sa_type=sa.String(40))
    user_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    action: str = Field(sa_type=sa.Text, description="JSON action (label stripped); {} for an undo")
    kind: str = Field(default="step", sa_type=sa.String(8))
    undoes_seq: int | None = Field(default=None)
    barrier: bool = Field(default=False)
    state_hash: str = Field(sa_type=sa.String(64))
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)
    delta: str | None = Field(default=None, sa_type=sa.Text,
                              description="JSON: what the row changed in the state (0006); None when "
                                          "the snapshot was written with the row")


class GameState(SQLModel, table=True):
    """A snapshot of a game's state (one row per game), as canonical JSON text, at
    ``version``: the latest state is it plus the ``delta`` of each move after it (migration
    0006). Rewritten every few moves (``bot.service.deltas.SNAPSHOT_EVERY``), at an ending, and
    on import; never behind a move without a delta."""

    __tablename__ = "game_state"

    game_pk: int = Field(
        sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], primary_key=True, nullable=False
    )
    version: int
    state: str = Field(sa_type=sa.Text)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)


class Outbox(SQLModel, table=True):
    """A notification to deliver after the command that wrote it committed.

    ``recipient`` is a Discord user id (kind 'dm') or channel/thread id (kind 'channel'),
    as text. ``dedupe_key`` is unique so that a notification is written at most once; a
    worker claims a row (``claimed_by``/``claimed_at``, a lease), sends it and sets
    ``sent_at``; failures raise ``attempts`` and push ``next_attempt_at`` back. A row Discord
    refuses for good (the thread is gone, the bot lost access) is given up: ``failed_at`` is
    set (migration 0004), so that it no longer holds back the rows after it.
    """

    __tablename__ = "outbox"
    __table_args__ = (
        sa.UniqueConstraint("dedupe_key"),
        sa.Index("ix_outbox_sent_at_next_attempt_at", "sent_at", "next_attempt_at"),
        sa.Index("ix_outbox_game_pk", "game_pk"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_pk: int | None = Field(
        default=None, sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], nullable=True
    )
    kind: str = Field(sa_type=sa.String(16))
    recipient: str = Field(sa_type=sa.String(64))
    payload: str = Field(sa_type=sa.Text, description="JSON object; 'type' says what it is")
    dedupe_key: str = Field(sa_type=sa.String(200))
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)
    sent_at: datetime | None = Field(default=None, sa_type=sa.DateTime)
    attempts: int = Field(default=0)
    next_attempt_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)
    claimed_by: str | None = Field(default=None, sa_type=sa.String(100))
    claimed_at: datetime | None = Field(default=None, sa_type=sa.DateTime)
    last_error: str | None = Field(default=None, sa_type=sa.Text)
    failed_at: datetime | None = Field(default=None, sa_type=sa.DateTime,
                                       description="given up: Discord refused it for good")


class GameClaim(SQLModel, table=True):
    """Who does a game's background work now (migration 0008): its due deadline handling
    (``kind`` 'deadline') or its built-in player's turn ('bots'), so that one process of
    several sharing the database does it, and any may when the one that started dies.

    A claim is a lease, as an outbox row's: ``claimed_by`` holds it until ``expires_at``
    (renewed while the work lasts, e.g. a search that thinks for seconds); after that anyone
    may take it over. The row stays when released (``claimed_by`` None), so that claiming
    locks an existing row (``FOR UPDATE SKIP LOCKED``) rather than racing an insert.
    Claims only spare work and keep games moving: a move is still applied only at the
    version it was decided from, so a double claim cannot double a move.
    """

    __tablename__ = "game_claim"

    game_pk: int = Field(
        sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], primary_key=True, nullable=False
    )
    kind: str = Field(sa_type=sa.String(16), primary_key=True, description="deadline | bots")
    claimed_by: str | None = Field(default=None, sa_type=sa.String(100))
    claimed_at: datetime | None = Field(default=None, sa_type=sa.DateTime)
    expires_at: datetime | None = Field(default=None, sa_type=sa.DateTime)


class RulesUpgrade(SQLModel, table=True):
    """A game met under a newer rules version (migration 0005; ``bot.upgrade``).

    ``seq`` is the game version at the boundary. ``outcome`` is what replaying the log under
    ``to_version`` found: 'identical' (undo and replay may go on crossing it), 'different'
    or 'fails' (then ``state`` holds the stored state at ``seq``, the base undo and replay
    start from; nothing before it is replayed under the new rules). ``report`` is the public
    sentence (no hidden information).
    """

    __tablename__ = "rules_upgrade"
    __table_args__ = (sa.UniqueConstraint("game_pk", "to_version"),)

    id: int | None = Field(default=None, primary_key=True)
    game_pk: int = Field(sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], nullable=False)
    seq: int
    from_version: int
    to_version: int
    outcome: str = Field(sa_type=sa.String(16))
    diverging_seq: int | None = Field(default=None)
    report: str = Field(sa_type=sa.Text)
    state: str | None = Field(default=None, sa_type=sa.Text)
    state_hash: str = Field(sa_type=sa.String(64))
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)


class RulesCheck(SQLModel, table=True):
    """The rules an installed game's stored logs were last all replayed under (migration
    0009; ``bot.upgrade.check_at_start``): its ``RULES_VERSION`` and the fingerprint of its
    rules code. A start replays a game's logs again only when either changed."""

    __tablename__ = "rules_check"

    game_id: str = Field(sa_type=sa.String(40), primary_key=True)
    rules_version: int
    code_hash: str = Field(sa_type=sa.String(64))
    checked_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)


# --------------------------------------------------------------------------- Discord front end
# Added by the Discord front end (migration 0002): what it keeps beyond the game's own columns.


class DiscordGame(SQLModel, table=True):
    """A game's Discord settings and bookkeeping: what happens at a deadline, the vacation
    allowance, the invited opponent, which version the running deadline belongs to, and the
    phase of the last spectator map posted (so a restart neither repeats nor skips one)."""

    __tablename__ = "discord_game"

    game_pk: int = Field(
        sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], primary_key=True, nullable=False
    )
    deadline_action: str = Field(default="remind", sa_type=sa.String(16), description="remind | autopass | claim")
    vacation_days: int = Field(default=14, description="vacation each player may take in this game")
    invited_user_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    deadline_version: int | None = Field(default=None, description="game version the deadline was set for")
    overdue_role: str | None = Field(default=None, sa_type=sa.String(40), description="late role the opponent may claim against")
    map_key: str | None = Field(default=None, sa_type=sa.String(200), description="phase of the last spectator map")
    lobby_channel_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    lobby_message_id: int | None = Field(default=None, sa_type=sa.BigInteger,
                                         description="the lobby message, edited as the game moves on (0004)")
    map_digest: str | None = Field(default=None, sa_type=sa.String(64),
                                   description="the spectator map last posted in the thread (0004)")


class DiscordSeat(SQLModel, table=True):
    """Per seat: the private thread used when the player's DMs are closed, vacation, the
    pictures the seat's private place got last (migration 0003), so that a prompt carries only
    the pictures that changed, across restarts, and, before the start, whom the seat is
    reserved for (migration 0007: a rematch offers each previous player his next seat)."""

    __tablename__ = "discord_seat"

    game_pk: int = Field(
        sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], primary_key=True, nullable=False
    )
    role: str = Field(sa_type=sa.String(40), primary_key=True)
    thread_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    vacation_until: datetime | None = Field(default=None, sa_type=sa.DateTime)
    vacation_used_s: int = Field(default=0)
    pictures: str | None = Field(default=None, sa_type=sa.Text,
                                 description='JSON {"place": channel id, "digests": {kind: digest}}')
    reserved_user_id: int | None = Field(default=None, sa_type=sa.BigInteger,
                                         description="who alone may take the seat while the game is open: "
                                                     "a rematch keeps it for a previous player (0007)")


class DiscordPrompt(SQLModel, table=True):
    """A message that holds a seat's live choices (migration 0004). When the game ends every
    one still listed is edited (buttons gone, a line saying how it ended) and the row goes; a
    prompt answered or retired on a click goes at once. ``content`` is the text as sent, so
    that the closing edit is the same however often it is repeated (crash-safe)."""

    __tablename__ = "discord_prompt"
    __table_args__ = (
        sa.UniqueConstraint("message_id"),
        sa.Index("ix_discord_prompt_game_pk_role", "game_pk", "role"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_pk: int = Field(sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], nullable=False)
    role: str = Field(sa_type=sa.String(40))
    channel_id: int = Field(sa_type=sa.BigInteger)
    message_id: int = Field(sa_type=sa.BigInteger)
    content: str = Field(sa_type=sa.Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)


class DiscordUser(SQLModel, table=True):
    """Per Discord user: since when his DMs refuse the bot, and when he was told so (once)."""

    __tablename__ = "discord_user"

    user_id: int = Field(sa_type=sa.BigInteger, primary_key=True)
    dms_closed_at: datetime | None = Field(default=None, sa_type=sa.DateTime)
    told_at: datetime | None = Field(default=None, sa_type=sa.DateTime)


class DiscordPost(SQLModel, table=True):
    """A message the bot began to post under a nonce, and when it first tried (migration 0012;
    bot/discord/posting.py). Discord remembers a nonce for minutes only: a post tried again
    later than that (a process killed after Discord posted it, started again long after)
    looks for the first try's message in the channel instead of posting a second one.
    Rows go after ``posting.KEPT``."""

    __tablename__ = "discord_post"
    __table_args__ = (sa.Index("ix_discord_post_tried_at", "tried_at"),)

    nonce: str = Field(sa_type=sa.String(25), primary_key=True)
    tried_at: datetime = Field(sa_type=sa.DateTime)


# --------------------------------------------------------------------------- web front end
# Added for the web pages (migration 0011): a game's public address, which servers list their
# games, and each member's personal-link revocations.


def new_public_id() -> str:
    """An unguessable identifier for a game's web address (128 random bits, URL-safe): the
    sequential id would let anyone walk every game of every server."""
    import secrets

    return secrets.token_urlsafe(16)


class WebGame(SQLModel, table=True):
    """A game's public web identifier, written with the game (and by migration 0011 for the
    games made before it)."""

    __tablename__ = "web_game"
    __table_args__ = (sa.UniqueConstraint("public_id"),)

    game_pk: int = Field(
        sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], primary_key=True, nullable=False
    )
    public_id: str = Field(sa_type=sa.String(32))


class WebGuild(SQLModel, table=True):
    """A Discord server whose manager chose to list its games on the web index page
    (``/server web listed:true``); servers are unlisted unless a row says otherwise."""

    __tablename__ = "web_guild"

    guild_id: int = Field(sa_type=sa.BigInteger, primary_key=True)
    listed: bool = Field(default=False)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)


class WebMember(SQLModel, table=True):
    """How many times a member revoked his personal web links (``/game web revoke``): a link
    carries the count it was made under and stops opening once the count moves on."""

    __tablename__ = "web_member"

    user_id: int = Field(sa_type=sa.BigInteger, primary_key=True)
    revoked: int = Field(default=0)


# --------------------------------------------------------------------------- campaigns
# Ratings, player records and matchmaking (migration 0010, issue 29; bot/service/ratings.py,
# bot/service/matchmaking.py).


class Rating(SQLModel, table=True):
    """One rating: a player's (``entry`` 'u:<user id>') or a built-in player level's
    ('bot:<level>', Sabika's Yusuf 'bot:yusuf') in one game on one Discord server
    (``guild_id`` 0: games played outside a server). Derived data: ``alcazaba ratings
    rebuild`` makes every row again from :class:`RatedGame` rows, in their order."""

    __tablename__ = "rating"

    guild_id: int = Field(sa_type=sa.BigInteger, primary_key=True)
    game_id: str = Field(sa_type=sa.String(40), primary_key=True)
    entry: str = Field(sa_type=sa.String(40), primary_key=True)
    user_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    mu: float = Field(sa_type=sa.Float)
    sigma: float = Field(sa_type=sa.Float)
    games: int = Field(default=0)
    wins: int = Field(default=0)
    last_name: str = Field(default="", sa_type=sa.String(100), description="the name last seen in a rated game")
    updated_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)


class RatedGame(SQLModel, table=True):
    """A game that counted for ratings, in the order it counted (``id``): its ranking
    (``ranks``: JSON list of [entry, rank, user id, name], rank 1 best, equal ranks shared)
    and what it changed (``changes``: JSON {entry: [mu, sigma, mu after, sigma after]}).
    Unique per game: a game counts once, whatever retries or restarts happen."""

    __tablename__ = "rated_game"
    __table_args__ = (
        sa.UniqueConstraint("game_pk"),
        sa.Index("ix_rated_game_guild_id_game_id", "guild_id", "game_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_pk: int = Field(sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], nullable=False)
    guild_id: int = Field(sa_type=sa.BigInteger)
    game_id: str = Field(sa_type=sa.String(40))
    ranks: str = Field(sa_type=sa.Text)
    changes: str = Field(sa_type=sa.Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)


class GameRated(SQLModel, table=True):
    """A manager's word on whether a game counts for ratings (a game without a row counts
    when the rules say so; an imported game gets ``rated`` False)."""

    __tablename__ = "game_rated"

    game_pk: int = Field(
        sa_column_args=[sa.ForeignKey("game.id", ondelete="CASCADE")], primary_key=True, nullable=False
    )
    rated: bool
    set_by: int | None = Field(default=None, sa_type=sa.BigInteger)
    set_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)


class CampaignGuild(SQLModel, table=True):
    """A Discord server's campaign settings (``/server ratings``)."""

    __tablename__ = "campaign_guild"

    guild_id: int = Field(sa_type=sa.BigInteger, primary_key=True)
    ratings_vs_bot: bool = Field(default=False, description="games against the built-in player count for people")


class SeekTicket(SQLModel, table=True):
    """A player waiting for an opponent (``/game seek``). ``status``: open, matched,
    cancelled, expired. ``game_pk`` names the game a match started. A ticket is taken by a
    conditional UPDATE (status 'open' to 'matched') in the transaction that creates the game,
    so two processes never match one ticket twice."""

    __tablename__ = "seek_ticket"
    __table_args__ = (sa.Index("ix_seek_ticket_guild_id_status", "guild_id", "status"),)

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = Field(sa_type=sa.BigInteger)
    channel_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    user_id: int = Field(sa_type=sa.BigInteger)
    display_name: str = Field(default="", sa_type=sa.String(100))
    game_id: str = Field(sa_type=sa.String(40))
    pace: str = Field(sa_type=sa.String(32))
    options: str = Field(default="{}", sa_type=sa.Text, description="canonical JSON object")
    players: int = Field(default=2)
    status: str = Field(default="open", sa_type=sa.String(16))
    game_pk: int | None = Field(default=None, sa_type=sa.Integer)
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)
    expires_at: datetime = Field(sa_type=sa.DateTime)


class Tournament(SQLModel, table=True):
    """A league or tournament (``/tournament``; bot/service/tournaments.py). ``status``:
    signup, running, finished. ``round``: the round being played (0 before the start)."""

    __tablename__ = "tournament"

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = Field(sa_type=sa.BigInteger)
    channel_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    thread_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    message_id: int | None = Field(default=None, sa_type=sa.BigInteger, description="the sign-up message")
    created_by: int = Field(sa_type=sa.BigInteger)
    game_id: str = Field(sa_type=sa.String(40))
    format: str = Field(sa_type=sa.String(16), description="swiss | round_robin | pods")
    rounds: int
    pace: str = Field(sa_type=sa.String(32))
    options: str = Field(default="{}", sa_type=sa.Text)
    double: bool = Field(default=False)
    status: str = Field(default="signup", sa_type=sa.String(16))
    round: int = Field(default=0)
    starts_at: datetime | None = Field(default=None, sa_type=sa.DateTime, description="starts itself then")
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)


class TournamentPlayer(SQLModel, table=True):
    """A member signed up; ``seed``: his rating when the tournament started (a tie-break)."""

    __tablename__ = "tournament_player"

    tournament_id: int = Field(sa_column_args=[sa.ForeignKey("tournament.id", ondelete="CASCADE")],
                               primary_key=True, nullable=False)
    user_id: int = Field(sa_type=sa.BigInteger, primary_key=True)
    display_name: str = Field(default="", sa_type=sa.String(100))
    seed: float = Field(default=0.0, sa_type=sa.Float)
    joined_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)
    withdrawn_at: datetime | None = Field(default=None, sa_type=sa.DateTime)


class TournamentRound(SQLModel, table=True):
    """A round, made once: its row is written in the transaction that creates its games, so a
    process that dies while creating it leaves either the whole round or nothing."""

    __tablename__ = "tournament_round"

    tournament_id: int = Field(sa_column_args=[sa.ForeignKey("tournament.id", ondelete="CASCADE")],
                               primary_key=True, nullable=False)
    round: int = Field(primary_key=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime)
    finished_at: datetime | None = Field(default=None, sa_type=sa.DateTime)
    posted_at: datetime | None = Field(default=None, sa_type=sa.DateTime, description="standings posted")


class TournamentGame(SQLModel, table=True):
    """A table of a round: its players in seat order (JSON list of user ids), its game (None
    for a bye, or a game not played because a player withdrew: ``forfeit`` names him), and
    the lease of its opening (thread, start) by a bot process."""

    __tablename__ = "tournament_game"
    __table_args__ = (sa.UniqueConstraint("tournament_id", "round", "table_no"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(sa_column_args=[sa.ForeignKey("tournament.id", ondelete="CASCADE")], nullable=False)
    round: int
    table_no: int
    players: str = Field(sa_type=sa.Text)
    game_pk: int | None = Field(default=None, sa_column_args=[sa.ForeignKey("game.id", ondelete="SET NULL")])
    forfeit: int | None = Field(default=None, sa_type=sa.BigInteger)
    opened_at: datetime | None = Field(default=None, sa_type=sa.DateTime)
    lease_until: datetime | None = Field(default=None, sa_type=sa.DateTime)
