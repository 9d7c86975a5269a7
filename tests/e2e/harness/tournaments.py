"""Tournaments played through the gateway (issue #23): the operator creates them on the
director (a service credential, before the faults begin), the players register with
their own tokens, follow the tournament's events (`WatchTournament`, opened again after
the last sequence seen when a fault breaks it), play every table the director hosts for
a round or a hand (`round_hosted`) from their own views, answer their rebuy offers, until
the tournament is finished. What happened is kept for the checks (entries, rebuys and
prizes against the ledger)."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc

from croupier.bots.service.policies import Policy, RummyPolicy
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.kit.auth import KeySet
from croupier.kit.channels import ServiceChannel
from croupier.kit.service_auth import ServiceCredential
from croupier.poker.tools.bots import hand_of
from croupier.table.v1 import table_pb2
from croupier.tournament import codec
from croupier.tournament.core.options import Level
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.core.spin import PUBLISHED_TABLE, fund_needed
from croupier.tournament.service.model import RebuyTerms, Settings
from croupier.tournament.service.poker_model import PokerTerms
from croupier.tournament.v1 import tournament_pb2, tournament_pb2_grpc
from tests.e2e.harness.client import TRANSIENT, GatewayClient, Refused
from tests.support.games import GAMES
from tests.unit.tournament.director_sample import BUY_IN, FEE, sample_settings
from tests.unit.tournament.poker_hosted import pushing_action

# A scheduled tournament starts this long after it is created: the players register first.
START_DELAY_SECONDS = 8
# Fees and chip ratios that double every level, levels of 20 s: a Rummy 51 tournament of a
# few tables ends in a few dozen rounds.
RUMMY_LEVELS = tuple(Level(10 * 2**n, 2**n) for n in range(1, 9))
RUMMY_LEVEL_SECONDS = 20
# How long a tournament may take before its players give up (a finding, not a hang).
PATIENCE_SECONDS = 600.0


@dataclass(frozen=True)
class TournamentPlan:
    """One tournament: its settings (the start time set when it is created), the table
    engine's game its tables play, its players, and how many rebuy offers they accept
    (the first ones; the later ones are declined)."""

    name: str
    game: str
    settings: Settings
    players: tuple[str, ...]
    rebuys: int


def rummy51_tournament(name: str, players: tuple[str, ...], rebuys: int) -> TournamentPlan:
    settings = sample_settings(
        name=name,
        variant="rummy51",
        min_players=2,
        max_players=len(players),
        table_size=4,
        starting_chips=100,
        level_seconds=RUMMY_LEVEL_SECONDS,
        levels=RUMMY_LEVELS,
        rebuys=RebuyTerms(max_per_player=1, max_level=5, price=BUY_IN, fee=FEE, window_seconds=25),
        payouts=(PayoutBracket(2, 4, (10_000,)), PayoutBracket(5, 40, (5_000, 3_000, 2_000))),
    )
    return TournamentPlan(name, "rummy", settings, players, rebuys)


def naiko_sit_and_go(name: str, players: tuple[str, ...]) -> TournamentPlan:
    """A 6-max Naiko Sit & Go on the hyper-turbo blinds: it starts when its last seat is
    taken (rule 52)."""
    settings = _poker(
        name,
        players,
        PokerTerms("sit_and_go", preset="hyper"),
        variant="naiko",
        payouts=(PayoutBracket(len(players), len(players), (6_500, 3_500)),),
    )
    return TournamentPlan(name, "poker", settings, players, 0)


def _poker(name: str, players: tuple[str, ...], terms: PokerTerms, **changes: Any) -> Settings:
    """Poker tournament settings on the hyper blinds, a table of all `players` unless
    `table_size` says otherwise."""
    fields: dict[str, Any] = {
        "name": name,
        "game": "poker",
        "min_players": len(players),
        "max_players": len(players),
        "starting_chips": 500,
        "table_size": len(players),
        "levels": (),
        "rebuys": None,
        "poker": terms,
        **changes,
    }
    return replace(sample_settings(), **fields)


def nlhe_tournament(name: str, players: tuple[str, ...]) -> TournamentPlan:
    """A scheduled NLHE tournament at tables of 9 (rule 54): seated by draw at its start,
    balanced and broken by the TDA rules as players bust, hand for hand on the bubble."""
    settings = _poker(
        name,
        players,
        PokerTerms("scheduled", preset="hyper"),
        variant="nlhe",
        min_players=2,
        table_size=9,
        payouts=(PayoutBracket(2, 3, (10_000,)), PayoutBracket(4, 27, (5_000, 3_000, 2_000))),
    )
    return TournamentPlan(name, "poker", settings, players, 0)


def spin(name: str, players: tuple[str, ...]) -> TournamentPlan:
    """A 3-player NLHE Spin (rule 53): its third entry starts it, its prizes the multiplier
    drawn from the committed seed times the buy-in (the house's prize fund tops the pool
    up: `spin_fund_needed`)."""
    settings = _poker(name, players, PokerTerms("spin", preset="hyper"), variant="nlhe")
    return TournamentPlan(name, "poker", settings, players, 0)


def spin_fund_needed(plans: list[TournamentPlan]) -> int:
    """What the house's poker prize fund must hold for each Spin of `plans` to start."""
    return sum(
        fund_needed(PUBLISHED_TABLE, plan.settings.buy_in)
        for plan in plans
        if plan.settings.poker is not None and plan.settings.poker.kind == "spin"
    )


@dataclass
class TournamentOutcome:
    plan: TournamentPlan
    tournament_id: str = ""
    registered: list[str] = field(default_factory=list)
    rebuys_accepted: int = 0
    tables: int = 0
    actions: int = 0
    refused: int = 0
    finished: bool = False
    prizes: dict[str, int] = field(default_factory=dict)  # the `finished` event's
    rebuys: dict[str, int] = field(default_factory=dict)  # the final standings'
    error: str = ""


async def create(director: str, keys: KeySet, plan: TournamentPlan) -> str:
    """The operator's CreateTournament (a scheduled one starts START_DELAY_SECONDS from
    now, a Sit & Go or Spin when full: its start time, an hour away, only cancels it
    unfilled)."""
    terms = plan.settings.poker
    delay = 3600 if terms is not None and terms.starts_when_full else START_DELAY_SECONDS
    settings = replace(plan.settings, start_time=datetime.now(UTC) + timedelta(seconds=delay))
    channel = ServiceChannel(director, ServiceCredential(keys, "e2e-operator"))
    try:
        stub = channel.stub(tournament_pb2_grpc.TournamentDirectorStub)
        created = await stub.CreateTournament(
            tournament_pb2.CreateTournamentRequest(
                request_key=plan.name, settings=codec.settings_to_proto(settings)
            )
        )
        return str(created.tournament_id)
    finally:
        await channel.close()


async def _register(client: GatewayClient, outcome: TournamentOutcome) -> None:
    request = pb.RegisterTournamentRequest(tournament_id=outcome.tournament_id)
    for player in outcome.plan.players:
        try:
            await client.call(player, "RegisterTournament", request)
        except Refused as refused:
            # ALREADY_EXISTS: a retried registration the director had taken (its answer
            # lost to a fault); FAILED_PRECONDITION: the start came first (slow faults).
            if refused.code is grpc.StatusCode.FAILED_PRECONDITION:
                continue
            if refused.code is not grpc.StatusCode.ALREADY_EXISTS:
                raise
        outcome.registered.append(player)


async def _view(client: GatewayClient, player: str, table_id: str) -> table_pb2.TableView:
    request = pb.GetTableViewRequest(table_id=table_id, view_format=table_pb2.VIEW_FORMAT_JSON)
    view: table_pb2.TableView = (await client.call(player, "GetTableView", request)).view
    return view


def _action(
    game: str, view: dict[str, Any], player: str, rng: random.Random, rummy: dict[str, Policy]
) -> Any:
    """`player`'s action from his own view (None: it is not his turn in it after all); at
    rummy the bots service's policy, one per player at the table (`rummy`)."""
    if GAMES[game].to_act(view) != player:
        return None
    if game == "poker":
        return pushing_action(view, player, rng) if hand_of(view) is not None else None
    policy = rummy.setdefault(player, RummyPolicy(player, random.Random(rng.random())))
    return policy.decide(view)


async def _play_table(
    client: GatewayClient, outcome: TournamentOutcome, table_id: str, rng: random.Random
) -> None:
    """The players the table waits for act from their own views until the director's
    round (or hand) there is over and the table closed."""
    game, players = outcome.plan.game, set(outcome.registered)
    watcher, count = outcome.registered[0], 0
    rummy: dict[str, Policy] = {}
    outcome.tables += 1
    while True:
        view = await _view(client, watcher, table_id)
        if view.closed:
            return
        actor = GAMES[game].to_act(json.loads(view.view_json))
        if actor not in players:  # between the seats and the deal, a timed window
            await asyncio.sleep(0.1)
            continue
        own = json.loads((await _view(client, actor, table_id)).view_json)
        action = _action(game, own, actor, rng, rummy)
        if action is None:
            continue
        command_id = f"{table_id}-{count}"
        count += 1
        act = pb.ActRequest(
            table_id=table_id, command_id=command_id, action_json=json.dumps(action)
        )
        try:
            await client.call(actor, "Act", act)
            outcome.actions += 1
        except Refused as refused:
            # The view was read before the clock played his turn: the game says no.
            if refused.code is not grpc.StatusCode.FAILED_PRECONDITION:
                raise
            outcome.refused += 1


async def _answer_offer(client: GatewayClient, outcome: TournamentOutcome, player: str) -> None:
    accept = outcome.rebuys_accepted < outcome.plan.rebuys
    request = pb.RebuyRequest(tournament_id=outcome.tournament_id, accept=accept)
    try:
        await client.call(player, "Rebuy", request)
        outcome.rebuys_accepted += accept
    except Refused as refused:
        # A retried answer the director had taken, or the window closed meanwhile.
        if refused.code is not grpc.StatusCode.FAILED_PRECONDITION:
            raise


async def _follow(client: GatewayClient, outcome: TournamentOutcome, seed: int) -> None:
    """The tournament's events until it ends, each hosted table played by a task of its
    own; the stream opened again after the last event seen when a fault breaks it."""
    after, tables = 0, dict[str, asyncio.Task[None]]()
    deadline = time.monotonic() + PATIENCE_SECONDS
    request = pb.WatchTournamentRequest(tournament_id=outcome.tournament_id)
    watcher = outcome.registered[0]
    try:
        while time.monotonic() < deadline:
            request.after_sequence = after
            try:
                # A stream that stays open and silent is bounded by the same patience.
                async with asyncio.timeout(max(deadline - time.monotonic(), 0)):
                    async for answer in client.stream(watcher, "WatchTournament", request):
                        after = answer.event.sequence
                        await _on_event(client, outcome, answer.event, tables, seed)
                        if outcome.finished or outcome.error:
                            break
            except Refused as refused:
                if refused.code not in TRANSIENT:
                    raise
            except TimeoutError:
                break
            if outcome.finished or outcome.error:
                await asyncio.gather(*tables.values())
                return
            await asyncio.sleep(0.5)  # the stream ended or broke: open it again
        outcome.error = f"not finished after {PATIENCE_SECONDS:.0f} s"
    finally:
        for task in tables.values():
            task.cancel()
        await asyncio.gather(*tables.values(), return_exceptions=True)


async def _on_event(
    client: GatewayClient,
    outcome: TournamentOutcome,
    event: tournament_pb2.TournamentEvent,
    tables: dict[str, asyncio.Task[None]],
    seed: int,
) -> None:
    """One tournament event: a hosted table played, a rebuy offer answered, the end."""
    kind = event.WhichOneof("kind")
    if kind == "round_hosted" and event.round_hosted.table_id not in tables:
        table_id = event.round_hosted.table_id
        rng = random.Random(f"{seed}/{table_id}")
        tables[table_id] = asyncio.create_task(_play_table(client, outcome, table_id, rng))
    elif kind == "eliminated" and event.eliminated.HasField("rebuy_offer_until"):
        await _answer_offer(client, outcome, event.eliminated.player_id)
    elif kind == "finished":
        outcome.prizes = dict(event.finished.prizes)
        outcome.finished = True
    elif kind in ("cancelled", "voided"):
        outcome.error = f"the tournament was {kind}"


async def play_tournament(
    client: GatewayClient, plan: TournamentPlan, tournament_id: str, seed: int
) -> TournamentOutcome:
    """Register, play to the end, read the final standings; an error is recorded in the
    outcome, not raised (one tournament's failure is a finding, the run goes on)."""
    outcome = TournamentOutcome(plan, tournament_id)
    try:
        await _register(client, outcome)
        await _follow(client, outcome, seed)
        request = pb.GetStandingsRequest(tournament_id=tournament_id)
        standings = await client.call(outcome.registered[0], "GetStandings", request)
        outcome.rebuys = {s.player_id: s.rebuys for s in standings.standings}
    except Refused as refused:
        outcome.error = str(refused)
    return outcome
