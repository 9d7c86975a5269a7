"""Bots that sit at tables and play through the table host like people (docs/bots.md).

`core`: one pure policy per game (the seat's own view -> an action) and the fill rule;
`service`: which bots sit where, and each seated bot's paced play; `adapters`: the lobby
and the table host over gRPC; `entrypoints`: the lobby's events; `bootstrap`: wiring.
"""
