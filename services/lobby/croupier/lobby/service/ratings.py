"""Ratings from results: the host's `game_ended` / `match_ended` events of the tables the
lobby opened move the players' ratings at that game, once per event (its envelope id).

Backgammon is rated with the FIBS formula (`core.ratings`): a match as long as the table's
`points`, a single game (money play) as a 1-point match. Joker, a game of four, is rated
with openskill's Plackett-Luce model (Weng-Lin) from the final totals. Poker and rummy
cash tables play hand after hand with nobody finishing first: those games are rated from
their tournaments instead, by the same model from the final places (`tournament_places`,
on the director's `tournament.finished`), tied places tied.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from openskill.models import PlackettLuce

from croupier.lobby.core.ratings import Rating, fibs_match
from croupier.lobby.service.ports import Repository

__all__ = ["Ratings", "initial_rating"]

_MODEL = PlackettLuce()


def initial_rating(game: str) -> Rating:
    """A player's rating at `game` before his first rated result."""
    if game == "backgammon":
        return Rating()
    start = _MODEL.rating()
    return Rating(start.ordinal(), 0, start.mu, start.sigma)


def _weng_lin(
    ratings: Sequence[Rating], scores: Sequence[int] = (), ranks: Sequence[int] = ()
) -> list[Rating]:
    """Each player's rating after one game with these `scores` (higher is better) or
    `ranks` (1 first; equal ranks tie)."""
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    if ranks:
        rated = _MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    else:
        rated = _MODEL.rate(teams, scores=[float(score) for score in scores])
    return [
        Rating(team[0].ordinal(), old.experience + 1, team[0].mu, team[0].sigma)
        for team, old in zip(rated, ratings, strict=True)
    ]


class Ratings:
    def __init__(self, repository: Repository) -> None:
        self._repository = repository

    async def of(self, player: str, game: str) -> Rating:
        found = await self._repository.ratings(game, [player])
        return found.get(player) or initial_rating(game)

    async def tournament_places(
        self, result_id: str, game: str, places: Sequence[tuple[str, int]]
    ) -> bool:
        """Rate a finished tournament's entrants at `game` by their `places`, once per
        `result_id`; whether it rated anything."""
        if len(places) < 2 or not game:
            return False
        players = [player for player, _ in places]

        def update(now: Mapping[str, Rating]) -> dict[str, Rating]:
            rated = _weng_lin([now[p] for p in players], ranks=[rank for _, rank in places])
            return dict(zip(players, rated, strict=True))

        return await self._repository.rate(result_id, game, players, initial_rating(game), update)

    async def result(
        self, result_id: str, table_id: str, kind: str, data: Mapping[str, object]
    ) -> bool:
        """Rate the result the host's event `kind` reports at `table_id` (a table the
        lobby opened); whether it rated anything (False: not a rated result, or rated
        already)."""
        record = await self._repository.table(table_id)
        if record is None:
            return False
        table = record.table
        game, players = table.terms.game, table.players()
        if game == "backgammon" and len(players) == 2:
            options = json.loads(table.options_json)
            match_play = str(options.get("mode", "single")).lower() == "match"
            if kind != ("match_ended" if match_play else "game_ended"):
                return False
            length = int(options.get("points", 1) or 1) if match_play else 1
            winner = str(data.get("winner", ""))
            if winner not in players:
                return False
            loser = next(p for p in players if p != winner)

            def update(now: Mapping[str, Rating]) -> dict[str, Rating]:
                won, lost = fibs_match(now[winner], now[loser], length)
                return {winner: won, loser: lost}

            return await self._repository.rate(
                result_id, game, players, initial_rating(game), update
            )
        if game == "joker" and kind == "game_ended":
            raw = data.get("totals")
            totals = raw if isinstance(raw, dict) else {}
            if sorted(totals) != sorted(players) or len(players) < 2:
                return False
            scores = [int(totals[p]) for p in players]

            def update_all(now: Mapping[str, Rating]) -> dict[str, Rating]:
                rated = _weng_lin([now[p] for p in players], scores)
                return dict(zip(players, rated, strict=True))

            return await self._repository.rate(
                result_id, game, players, initial_rating(game), update_all
            )
        return False
