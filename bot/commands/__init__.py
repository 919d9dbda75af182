"""The commands of ``alcazaba`` (bot/cli.py parses the command line and calls them), by
purpose: :mod:`bot.commands.base` (what they share), :mod:`bot.commands.play` (run, local,
sync), :mod:`bot.commands.games` (check, export, import, ratings, replay-check,
upgrade-check, backup)."""
