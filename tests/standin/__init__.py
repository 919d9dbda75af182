"""A local stand-in for Discord's HTTP API and gateway, for driving the real discord.py client.

Tests point the bot at it (``DISCORD_API_BASE`` / ``DISCORD_GATEWAY_URL``), inject users'
actions as the gateway events Discord would send (``INTERACTION_CREATE``), and assert on the
requests the bot made. It enforces the Discord rules a bot can break (the 3-second answer,
one answer per interaction, component and message limits, ephemeral visibility, attachment
size, closed DMs, nonce deduplication) so that a test fails where Discord would refuse.
"""

from tests.standin.server import (
    ApiError,
    Interaction,
    Message,
    Recorded,
    StandIn,
)

__all__ = ["ApiError", "Interaction", "Message", "Recorded", "StandIn"]
