"""Alembic migrations of the server's database, shipped inside the package.

``bot.db.migrate(url)`` applies them (the bot does at start). For development,
``python -m migrations revision --autogenerate -m "what changed"`` writes a new one against
DATABASE_URL (default: the SQLite file in DATA_DIR); ``python -m migrations upgrade head``,
``downgrade -1``, ``current``, ``history`` and ``check`` work as with the alembic command.
"""
