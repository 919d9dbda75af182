"""The web front end: a page for every game (the spectator's picture with zoom and pan, the
public log, seats, clocks and result, updated live), its replay move by move, a player's own
read-only page behind a signed link, and an index of the games of the servers that list them.

It reads the database through the service only and serves only views and pictures drawn from
views (``bot.web.app``); ``alcazaba web`` runs it, and ``alcazaba run`` too when ``WEB_PORT``
is set (``bot.web.commands``).
"""
