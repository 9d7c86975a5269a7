"""The Sit & Go and Spin queues' positions (croupier.lobby.service.queues) over the
in-memory repository and a director kept here (registrations per tournament, full at the
template's count, closed once started), the queue templates' checks, and the ratings a
finished tournament gives."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import Duplicate
from croupier.lobby.adapters.director_grpc import load_templates
from croupier.lobby.adapters.memory import InMemoryRepository
from croupier.lobby.core.errors import InvalidInput, NotAllowed, NotFound
from croupier.lobby.core.policy import AccountLimits
from croupier.lobby.entrypoints.tournament_events import TournamentEvents
from croupier.lobby.service.ports import QueueTemplate
from croupier.lobby.service.queues import TournamentQueues
from croupier.lobby.service.ratings import Ratings
from croupier.tournament.core.errors import NotAllowed as DirectorRefusal

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
DUO = QueueTemplate("duo", "Heads-up SnG", "poker", "nlhe", "sit_and_go", "USD", 100, 10, 2, {})


class Director:
    """Tournaments by request key; each full at `players`, and closed once full."""

    def __init__(self) -> None:
        self.by_key: dict[str, str] = {}
        self.players: dict[str, list[str]] = {}
        self.closed: set[str] = set()

    async def create(self, *, request_key: str, template: QueueTemplate, start_time: Any) -> str:
        tournament_id = self.by_key.setdefault(request_key, f"t{len(self.by_key) + 1}")
        self.players.setdefault(tournament_id, [])
        return tournament_id

    async def register(self, tournament_id: str, player: str) -> int:
        await asyncio.sleep(0)  # another join may run in between, as over the network
        players = self.players[tournament_id]
        if tournament_id in self.closed:
            raise DirectorRefusal("registration_closed", "it started")
        if player in players:
            raise Duplicate("already registered", "already_registered")
        players.append(player)
        if len(players) == DUO.players:
            self.closed.add(tournament_id)
        return len(players)

    async def unregister(self, tournament_id: str, player: str) -> None:
        self.players[tournament_id].remove(player)

    async def registered(self, tournament_id: str) -> int:
        return len(self.players[tournament_id])


def _queues(repository: InMemoryRepository, director: Director) -> TournamentQueues:
    return TournamentQueues(
        repository=repository, director=director, templates=(DUO,), clock=lambda: NOW
    )


async def test_a_queue_fills_one_tournament_then_the_next() -> None:
    director = Director()
    queues = _queues(InMemoryRepository(), director)
    joined = [await queues.join(player, "duo") for player in ("a", "b", "c")]
    assert [(j.tournament_id, j.waiting) for j in joined] == [("t1", 1), ("t1", 2), ("t2", 1)]
    (state,) = await queues.listed()
    assert (state.tournament_id, state.waiting) == ("t2", 1)


async def test_a_stale_position_is_skipped_and_nobody_is_in_two_tournaments() -> None:
    """Another replica filled the queue's tournament and crashed before moving on."""
    director, repository = Director(), InMemoryRepository()
    queues = _queues(repository, director)
    await queues.join("a", "duo")
    director.players["t1"].append("x")  # filled by someone else's join
    director.closed.add("t1")
    joined = await queues.join("b", "duo")
    assert (joined.tournament_id, joined.waiting) == ("t2", 1)
    assert await repository.queue_position("duo") == (1, "t2")


async def test_joins_racing_for_the_last_place_both_get_one() -> None:
    director = Director()
    queues = _queues(InMemoryRepository(), director)
    await queues.join("a", "duo")
    first, second = await asyncio.gather(queues.join("b", "duo"), queues.join("c", "duo"))
    assert {first.tournament_id, second.tournament_id} == {"t1", "t2"}
    assert sorted(len(p) for p in director.players.values()) == [1, 2]


async def test_a_self_excluded_player_is_refused_before_any_call() -> None:
    director, repository = Director(), InMemoryRepository()
    await repository.set_limits("a", AccountLimits(self_excluded=True))
    with pytest.raises(NotAllowed) as caught:
        await _queues(repository, director).join("a", "duo")
    assert caught.value.reason == "self_excluded" and not director.by_key


async def test_unknown_queues_and_leaving_an_empty_queue_are_refused() -> None:
    queues = _queues(InMemoryRepository(), Director())
    with pytest.raises(NotFound) as unknown:
        await queues.join("a", "trio")
    assert unknown.value.reason == "unknown_queue"
    with pytest.raises(NotFound) as empty:
        await queues.leave("a", "duo")
    assert empty.value.reason == "not_queued"


def test_without_a_director_there_are_no_queues() -> None:
    queues = TournamentQueues(
        repository=InMemoryRepository(), director=None, templates=(DUO,), clock=lambda: NOW
    )
    assert asyncio.run(queues.listed()) == []


def _spin(**changes: Any) -> dict[str, Any]:
    settings = {
        "game": "GAME_POKER",
        "variant": "nlhe",
        "min_players": 3,
        "max_players": 3,
        "buy_in": {"amount_minor": 100, "currency": "USD"},
        "fee": {"amount_minor": 5, "currency": "USD"},
        "poker": {"kind": "TOURNAMENT_KIND_SPIN", "preset": "hyper"},
    }
    return {"queue_id": "spin", "name": "Spin", "settings": {**settings, **changes}}


def test_the_built_in_queues_are_a_spin_and_a_sit_and_go() -> None:
    kinds = {template.kind for template in load_templates()}
    assert kinds == {"spin", "sit_and_go"}


@pytest.mark.parametrize(
    "queues",
    [
        {"not": "a list"},
        [_spin(poker={"kind": "TOURNAMENT_KIND_SCHEDULED"})],
        [_spin(start_time="2026-12-24T18:00:00Z")],
        [_spin(min_players=2)],
        [_spin(fee={"amount_minor": 5, "currency": "EUR"})],
        [_spin(no_such_field=1)],
        [_spin(), _spin()],
        [{**_spin(), "queue_id": "bad id!"}],
    ],
)
def test_a_wrong_queues_file_is_refused_at_start(tmp_path: Path, queues: Any) -> None:
    path = tmp_path / "queues.json"
    path.write_text(json.dumps(queues))
    with pytest.raises(InvalidInput):
        load_templates(str(path))


def test_a_queues_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "queues.json"
    path.write_text(json.dumps([_spin()]))
    (template,) = load_templates(str(path))
    assert (template.queue_id, template.players, template.buy_in, template.fee) == (
        "spin",
        3,
        100,
        5,
    )


async def test_a_finished_tournament_rates_its_entrants_once_by_place() -> None:
    """Poker and rummy are rated from tournaments: openskill by the final places."""
    repository = InMemoryRepository()
    ratings = Ratings(repository)
    places = [("w", 1), ("x", 2), ("y", 2), ("z", 4)]
    assert await ratings.tournament_places("finished-1", "poker", places)
    assert not await ratings.tournament_places("finished-1", "poker", places)  # once
    rated = {p: await ratings.of(p, "poker") for p, _ in places}
    assert rated["w"].value > rated["x"].value == rated["y"].value > rated["z"].value
    assert {r.experience for r in rated.values()} == {1}
    assert (await ratings.of("w", "rummy")).experience == 0  # per game
    assert not await ratings.tournament_places("finished-2", "poker", [("w", 1)])


async def test_the_listed_count_follows_the_directors_events_not_each_listing() -> None:
    """A registration made elsewhere (the gateway's RegisterTournament) reaches the queue's
    count through `croupier.tournament.events`; listing asks the director nothing."""
    director, repository = Director(), InMemoryRepository()
    queues = _queues(repository, director)
    ratings = Ratings(repository)
    events = TournamentEvents(director, ratings, queues)  # type: ignore[arg-type]
    (joined,) = [await queues.join("a", "duo")]
    director.players[joined.tournament_id].append("b")  # registered on the director itself
    (state,) = await queues.listed()
    assert state.waiting == 1  # not counted again until told
    registered = Envelope(
        id="e1", type="tournament.registered", subject=joined.tournament_id, sequence=3
    )
    await events.handle(registered)
    (state,) = await queues.listed()
    assert state.waiting == 2
    other = Envelope(id="e2", type="tournament.registered", subject="t-elsewhere", sequence=1)
    await events.handle(other)  # a tournament no queue fills: nothing asked, nothing changed
    (state,) = await queues.listed()
    assert state.waiting == 2
    await queues.leave("a", "duo")
    (state,) = await queues.listed()
    assert state.waiting == 1
