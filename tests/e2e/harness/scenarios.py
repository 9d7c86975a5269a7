"""What the client bots play, through the gateway only, each player with his own token:
tables opened and joined through the lobby (a cash table buys the stack in through the
wallet), played by the player the table waits for (his legal action from his own view,
tests.support.games), then left (a cash table's stack goes back to the wallet)."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass
from typing import Any

import grpc

from croupier.backgammon.v1 import backgammon_pb2
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.joker.v1 import joker_pb2
from croupier.poker.v1 import poker_pb2
from croupier.rummy.v1 import rummy_pb2
from croupier.table.v1 import table_pb2
from tests.e2e.harness.client import GatewayClient, Refused
from tests.support.games import GAMES

CURRENCY = "USD"
JSON_VIEW = table_pb2.VIEW_FORMAT_JSON


@dataclass(frozen=True)
class TablePlan:
    """One table: its game, options, players (the first opens it) and stack, and how many
    actions its players make before they leave (or, with `stay`, stop where they are)."""

    name: str
    game: str
    options: table_pb2.GameOptions
    players: tuple[str, ...]
    stack: int
    actions: int
    stay: bool = False


def cash_poker(name: str, players: tuple[str, ...], actions: int) -> TablePlan:
    options = table_pb2.GameOptions(
        poker=poker_pb2.Options(
            variant=poker_pb2.VARIANT_NLHE,
            small_blind=5,
            big_blind=10,
            seats=6,
            min_buy_in=200,
            max_buy_in=1000,
            currency=CURRENCY,
        )
    )
    return TablePlan(name, "poker", options, players, 500, actions)


def backgammon_money(name: str, players: tuple[str, ...], actions: int) -> TablePlan:
    options = table_pb2.GameOptions(
        backgammon=backgammon_pb2.Options(
            mode=backgammon_pb2.MODE_SINGLE, stake=10, max_win=640, currency=CURRENCY
        )
    )
    return TablePlan(name, "backgammon", options, players, 0, actions)


def backgammon_series(name: str, players: tuple[str, ...], actions: int) -> TablePlan:
    """A 5-point series (Crawford on) for a series stake of 10 USD, played to its end."""
    options = table_pb2.GameOptions(
        backgammon=backgammon_pb2.Options(
            mode=backgammon_pb2.MODE_SERIES, stake=1_000, points=5, currency=CURRENCY
        )
    )
    return TablePlan(name, "backgammon", options, players, 0, actions)


def gin_rummy(name: str, players: tuple[str, ...], actions: int) -> TablePlan:
    """Gin for two, for chips the table gives (no currency: nothing moves in the wallet)."""
    options = table_pb2.GameOptions(
        rummy=rummy_pb2.Options(variant=rummy_pb2.VARIANT_GIN, players=2)
    )
    return TablePlan(name, "rummy", options, players, 500, actions)


def joker(name: str, players: tuple[str, ...], actions: int) -> TablePlan:
    return TablePlan(
        name, "joker", table_pb2.GameOptions(joker=joker_pb2.Options()), players, 0, actions
    )


@dataclass
class TableOutcome:
    plan: TablePlan
    table_id: str = ""
    seated: int = 0
    actions: int = 0
    refused: int = 0
    left: int = 0
    error: str = ""


async def _view(client: GatewayClient, player: str, table_id: str) -> dict[str, Any]:
    request = pb.GetTableViewRequest(table_id=table_id, view_format=JSON_VIEW)
    answer = await client.call(player, "GetTableView", request)
    view: dict[str, Any] = json.loads(answer.view.view_json)
    return view


async def seat(client: GatewayClient, plan: TablePlan, outcome: TableOutcome) -> None:
    """`plan`'s table opened by its first player and joined by the others, in order."""
    opener, *others = plan.players
    clock = table_pb2.TableClock(turn_seconds=60, reconnect_seconds=120)
    opened = await client.call(
        opener,
        "OpenTable",
        pb.OpenTableRequest(
            request_key=plan.name,
            options=plan.options,
            clock=clock,
            stack=plan.stack,
        ),
    )
    outcome.table_id = opened.table.table_id
    outcome.seated = 1
    for player in others:
        try:
            join = pb.JoinTableRequest(table_id=outcome.table_id, stack=plan.stack)
            await client.call(player, "JoinTable", join)
        except Refused as refused:
            # A retried join the lobby had already made (its answer lost to a fault).
            if refused.code is not grpc.StatusCode.ALREADY_EXISTS:
                raise
        outcome.seated += 1


async def _play(
    client: GatewayClient,
    plan: TablePlan,
    outcome: TableOutcome,
    rng: random.Random,
    think_seconds: float,
) -> None:
    game, table_id, idle = GAMES[plan.game], outcome.table_id, 0
    while outcome.actions < plan.actions and idle < 50:
        actor = game.to_act(await _view(client, plan.players[0], table_id))
        if actor is None or actor not in plan.players:
            idle += 1  # between hands, or the game is over
            await asyncio.sleep(0.1)
            continue
        idle = 0
        action = game.legal_action(await _view(client, actor, table_id), rng)
        if think_seconds:
            # A person's pace (the load's tables), drawn: tables thinking in step would
            # all act at once, a burst no room of people makes.
            await asyncio.sleep(think_seconds * rng.uniform(0.5, 1.5))
        command_id = f"{plan.name}-{outcome.actions + outcome.refused}"
        request = pb.ActRequest(
            table_id=table_id, command_id=command_id, action_json=json.dumps(action)
        )
        try:
            await client.call(actor, "Act", request)
            outcome.actions += 1
        except Refused as refused:
            # A view read before a clock expiry moved the table: the game says no.
            if refused.code is not grpc.StatusCode.FAILED_PRECONDITION:
                raise
            outcome.refused += 1


async def _leave(client: GatewayClient, plan: TablePlan, outcome: TableOutcome) -> None:
    if plan.stay or plan.game in ("joker", "rummy"):
        # A Joker game or a running rummy round cannot lose a player: the seats stay
        # (Joker plays for points, the rummy table for chips it gave: no money moves).
        return
    for player in plan.players:
        try:
            await client.call(player, "LeaveTable", pb.LeaveTableRequest(table_id=outcome.table_id))
            outcome.left += 1
        except Refused as refused:
            if refused.code is not grpc.StatusCode.PERMISSION_DENIED:  # already gone
                raise


async def play_table(
    client: GatewayClient, plan: TablePlan, seed: int, think_seconds: float = 0.0
) -> TableOutcome:
    """Open, join, play (each action `think_seconds` on average after the view it answers,
    between half and one and a half times that) and leave `plan`'s table; what happened
    (an error is recorded in the outcome, not raised, so one table's failure is a finding
    and the run goes on)."""
    outcome = TableOutcome(plan)
    try:
        await seat(client, plan, outcome)
        rng = random.Random(f"{seed}/{plan.name}")
        await _play(client, plan, outcome, rng, think_seconds)
        await _leave(client, plan, outcome)
    except Refused as refused:
        outcome.error = str(refused)
    return outcome
