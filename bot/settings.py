"""Server settings, read from the environment (and an optional ``.env`` file).

Every setting is documented, with its default, in README.md ("Configuration"). Secrets are
``SecretStr`` so that a ``repr`` of the settings, a log line or a traceback never shows them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")


class Settings(BaseSettings):
    """One place for every knob an operator may turn; nothing else reads the environment."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    data_dir: Path = Field(default=Path("./data"), description="Where the database, images and backups live.")
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy async URL; unset = SQLite file DATA_DIR/alcazaba.db.",
    )
    discord_token: SecretStr | None = Field(default=None, description="Bot token; unset = terminal table.")
    discord_api_base: str | None = Field(default=None, description="Discord HTTP API base URL; unset = Discord's own.")
    discord_gateway_url: str | None = Field(default=None, description="Discord gateway URL; unset = Discord's own.")
    discord_dev_guild_id: int | None = Field(
        default=None, description="Sync slash commands to this one server at start (instant, for testing)."
    )
    log_level: str = Field(default="INFO", description="Python logging level.")
    render_concurrency: int = Field(default=2, ge=1, description="Board images drawn at the same time.")
    ai_concurrency: int = Field(
        default_factory=lambda: default_ai_concurrency(), ge=1,
        description="Processes the built-in player thinks in (levels normal and hard); unset = cores - 1, at least 1.",
    )
    ai_iteration_cap: int | None = Field(
        default=None, ge=1,
        description="At most this many search iterations per decision of the built-in player; unset = each "
                    "level's own budget (tests and slow machines lower it).",
    )
    sqlite_busy_timeout_ms: int = Field(
        default=5000, ge=0, description="How long a SQLite writer waits for another one before failing."
    )
    default_game: str = Field(default="", description="Game the terminal table offers first (empty: the first "
                                                          "registered game, engine.GAMES).")
    shard_count: int | None = Field(
        default=None, ge=1,
        description="Gateway shards of the whole bot (all processes); unset = Discord's recommendation.",
    )
    shard_ids: list[int] | None = Field(
        default=None,
        description="The shards this process runs, e.g. '0,1' (needs SHARD_COUNT); unset = all of them.",
    )

    web_base_url: str | None = Field(
        default=None, description="Public address of the web pages (e.g. https://games.example.org); unset = no links."
    )
    web_port: int | None = Field(
        default=None, ge=1, le=65535, description="Also serve the web pages on this port inside `alcazaba run`."
    )
    web_host: str = Field(default="127.0.0.1", description="Address the web pages listen on (behind a reverse proxy).")
    web_secret: SecretStr | None = Field(
        default=None, description="Key that signs personal web links (HMAC); unset = no personal links."
    )
    web_key_version: int = Field(default=1, ge=1, description="Raise it to revoke every personal web link at once.")
    web_link_days: int = Field(default=30, ge=1, description="How long a personal web link opens.")
    web_rate_per_minute: int = Field(default=240, ge=1, description="Web requests one address may make per minute.")

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {value!r}")
        return level

    @field_validator("discord_token", mode="before")
    @classmethod
    def _empty_token_is_unset(cls, value: Any) -> Any:
        # An empty DISCORD_TOKEN= line in .env means "no Discord", not "log in with ''".
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _shard_list(cls, value: Any) -> Any:
        # "0,1" or "0 1" from an environment line, besides the JSON list pydantic reads ("5"
        # arrives already decoded as the number 5).
        if isinstance(value, int) and not isinstance(value, bool):
            return [value]
        if isinstance(value, str) and not value.strip().startswith("["):
            parts = [p for p in value.replace(",", " ").split() if p]
            return [int(p) for p in parts] if parts else None
        return value

    @model_validator(mode="after")
    def _shards_fit(self) -> Settings:
        if self.shard_ids is None:
            return self
        if self.shard_count is None:
            raise ValueError("SHARD_IDS needs SHARD_COUNT: every process must agree on the number of shards")
        wrong = [i for i in self.shard_ids if not 0 <= i < self.shard_count]
        if wrong:
            raise ValueError(f"SHARD_IDS {wrong} are not shards of SHARD_COUNT={self.shard_count} "
                             f"(0 to {self.shard_count - 1})")
        if len(set(self.shard_ids)) != len(self.shard_ids):
            raise ValueError(f"SHARD_IDS names a shard twice: {self.shard_ids}")
        return self

    @property
    def db_url(self) -> str:
        """The database URL actually used (DATABASE_URL, or the SQLite file in DATA_DIR)."""
        if self.database_url:
            return self.database_url
        return sqlite_url(self.data_dir / "alcazaba.db")

    @property
    def images_dir(self) -> Path:
        return self.data_dir / "images"


def default_ai_concurrency() -> int:
    """One core is left to the bot's event loop (and the database), the rest think. The cores
    are those this process may run on (a container's CPU set), not the machine's."""
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    return max(1, cores - 1)


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard Discord sends a server's events to (direct messages go to shard 0)."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


def sqlite_url(path: Path | str) -> str:
    """The async SQLAlchemy URL of a SQLite file (absolute, so a later ``chdir`` cannot move it)."""
    return f"sqlite+aiosqlite:///{Path(path).expanduser().resolve()}"


def url_for_db_option(value: str | None, settings: Settings) -> str:
    """``--db`` takes a file path or a full URL; no ``--db`` means the configured database."""
    if not value:
        return settings.db_url
    if "://" in value:
        return value
    return sqlite_url(value)
