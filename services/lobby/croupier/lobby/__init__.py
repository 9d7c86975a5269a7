"""The lobby: listing, open and join, private tables, matchmaking (docs/lobby.md)."""
