"""Refusals worded for a player. Its own module, below everything that raises them (the table,
typed orders, the cogs), so that imports flow one way."""

from __future__ import annotations


class UserError(Exception):
    """A refusal worded for the player (wrong game, not your seat, too fast...)."""
