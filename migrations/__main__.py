"""``python -m migrations ARGS``: the alembic command line over the packaged configuration."""

from __future__ import annotations

import sys

from alembic.config import CommandLine

from bot.db import alembic_config, prepare_sqlite_file
from bot.settings import Settings


def main(argv: list[str] | None = None) -> None:
    cli = CommandLine(prog="python -m migrations")
    options = cli.parser.parse_args(argv if argv is not None else sys.argv[1:])
    if not hasattr(options, "cmd"):
        cli.parser.error("too few arguments")
    url = Settings().db_url
    prepare_sqlite_file(url)
    cli.run_cmd(alembic_config(url), options)


if __name__ == "__main__":
    main()
