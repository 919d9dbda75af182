"""Settings come from the environment; the token never shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import Settings, shard_of, url_for_db_option


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("DATABASE_URL", "DATA_DIR", "DISCORD_TOKEN", "DISCORD_API_BASE", "DISCORD_GATEWAY_URL",
                 "DISCORD_DEV_GUILD_ID", "LOG_LEVEL", "RENDER_CONCURRENCY", "SQLITE_BUSY_TIMEOUT_MS",
                 "DEFAULT_GAME", "SHARD_COUNT", "SHARD_IDS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env


def test_defaults() -> None:
    s = Settings()
    assert s.data_dir == Path("data") and s.discord_token is None and s.log_level == "INFO"
    assert s.render_concurrency == 2 and s.discord_api_base is None and s.discord_gateway_url is None
    assert s.db_url == f"sqlite+aiosqlite:///{(Path.cwd() / 'data' / 'alcazaba.db').resolve()}"


def test_environment_and_dotenv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DATA_DIR=/srv/alcazaba\nLOG_LEVEL=debug\nDISCORD_DEV_GUILD_ID=42\n")
    monkeypatch.setenv("RENDER_CONCURRENCY", "4")
    s = Settings()
    assert s.data_dir == Path("/srv/alcazaba") and s.log_level == "DEBUG" and s.discord_dev_guild_id == 42
    assert s.render_concurrency == 4
    assert s.db_url == "sqlite+aiosqlite:////srv/alcazaba/alcazaba.db"
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://u:p@db/alcazaba")
    assert Settings().db_url == "postgresql+asyncpg://u:p@db/alcazaba"


def test_token_never_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "MTIz.secret-token-value")
    s = Settings()
    assert s.discord_token is not None and s.discord_token.get_secret_value() == "MTIz.secret-token-value"
    assert "secret-token-value" not in repr(s) and "secret-token-value" not in str(s.model_dump())


def test_empty_token_means_no_discord(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "  ")
    assert Settings().discord_token is None


def test_bad_log_level_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOG_LEVEL", "LOUD")
    with pytest.raises(ValueError, match="LOG_LEVEL must be one of"):
        Settings()


def test_db_option_takes_a_path_or_a_url(tmp_path: Path) -> None:
    s = Settings()
    assert url_for_db_option(None, s) == s.db_url
    assert url_for_db_option("x.db", s) == f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"
    assert url_for_db_option("postgresql+asyncpg://h/db", s) == "postgresql+asyncpg://h/db"


def test_shards_of_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().shard_count is None and Settings().shard_ids is None
    monkeypatch.setenv("SHARD_COUNT", "4")
    for text, ids in (("0,2", [0, 2]), ("1 3", [1, 3]), ("[2]", [2]), ("3", [3])):
        monkeypatch.setenv("SHARD_IDS", text)
        assert Settings().shard_ids == ids


@pytest.mark.parametrize(("count", "ids", "said"), [
    (None, "0", "SHARD_IDS needs SHARD_COUNT"),
    ("2", "2", "are not shards of SHARD_COUNT=2"),
    ("2", "1,1", "names a shard twice"),
    ("0", None, "greater than or equal to 1"),
])
def test_shards_that_cannot_be(monkeypatch: pytest.MonkeyPatch, count: str | None, ids: str | None, said: str) -> None:
    if count is not None:
        monkeypatch.setenv("SHARD_COUNT", count)
    if ids is not None:
        monkeypatch.setenv("SHARD_IDS", ids)
    with pytest.raises(ValueError, match=said):
        Settings()


def test_a_server_belongs_to_the_shard_discord_sends_it_to() -> None:
    # Discord's rule: shard_id = (guild_id >> 22) % num_shards; direct messages go to shard 0.
    assert shard_of(81384788765712384, 4) == (81384788765712384 >> 22) % 4 == 2
    assert shard_of(None, 4) == 0
    assert {shard_of((ms << 22) | 5, 3) for ms in range(6)} == {0, 1, 2}
