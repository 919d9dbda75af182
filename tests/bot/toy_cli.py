"""``python -m tests.bot.toy_cli ARGS``: the real ``alcazaba`` command line with the toy game
(tests/bot/toygame.py) registered next to the real games, for subprocess tests."""

from __future__ import annotations

import sys

import engine
from bot.cli import main
from tests.bot import toygame

engine.GAMES[toygame.id] = toygame

if __name__ == "__main__":
    sys.exit(main())
