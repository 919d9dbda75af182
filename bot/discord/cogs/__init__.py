"""The bot's cogs, one per concern: lobby, play, delivery, deadlines."""
