"""No hidden information leaves the gateway: two players play 200 hands of poker through
the gateway with their own tokens, every call over gRPC and, every fifth hand, over
gRPC-Web, and every message each one receives is scanned: it never holds a card of the
other's hand that the public view does not show at that moment (a showdown reveals them)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from croupier.game import ClockSettings
from croupier.gateway.core.rate_limits import RateLimit
from croupier.gateway.service.limits import GatewayLimits
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from tests.support.games import GAMES, strings_in
from tests.support.gateway import ServedGateway, bearer, grpc_web_call, served_gateway, token
from tests.support.table import Seeds

POKER = GAMES["poker"]
HANDS = 200
HOUR = ClockSettings(turn_ms=3_600_000, reconnect_ms=3_600_000)
# Bots call as fast as the gateway answers: no limit should hold them back here.
UNLIMITED = GatewayLimits(
    per_player=RateLimit(rate=100_000, burst=100_000),
    per_address=RateLimit(rate=100_000, burst=100_000),
)


@pytest.fixture
async def table() -> AsyncIterator[tuple[ServedGateway, TableHost, str]]:
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=bus,
        seeds=Seeds("hidden-scan"),
    )
    await host.start()
    try:
        table_id = await host.open_table("poker", json.loads(json.dumps(POKER.options)), HOUR)
        for seat, player in enumerate(POKER.players):
            await host.seat(table_id, player, seat, 1_000_000)  # nobody goes broke
        async with served_gateway(
            beside=[table_service(host)], clock=time.time, limits=UNLIMITED
        ) as gateway:
            yield gateway, host, table_id
    finally:
        await host.stop()
        await bus.stop()


async def _call(
    gateway: ServedGateway, web: bool, method: str, request: Any, player: str
) -> pb.TableView:
    if not web:
        answer = await getattr(gateway.stub, method)(
            request, metadata=bearer(player, now=time.time())
        )
        return answer.view  # type: ignore[no-any-return]
    messages, trailers = await grpc_web_call(
        gateway.http, method, request, "Bearer " + token(player, now=time.time())
    )
    assert trailers.get("grpc-status") == "0", trailers
    response = pb.ActResponse() if method == "Act" else pb.GetTableViewResponse()
    response.ParseFromString(messages[0])
    return response.view


def _others_cards(host: TableHost, table_id: str, player: str) -> set[str]:
    """The cards of the other players' hands that the public view does not show now (a
    showdown reveals them), read from the host: the gateway is what is tested."""
    shown = strings_in(dict(host.view(table_id, "").view))
    others = [p for p in POKER.players if p != player]
    cards = set().union(*(POKER.secrets(p, dict(host.view(table_id, p).view)) for p in others))
    return cards - shown


async def test_no_message_to_a_player_holds_the_others_hidden_cards(
    table: tuple[ServedGateway, TableHost, str],
) -> None:
    gateway, host, table_id = table
    rng = random.Random(20)
    scanned = actions = 0
    while True:
        public = dict(host.view(table_id, "").view)
        if public["hand_number"] > HANDS:
            break
        web = public["hand_number"] % 5 == 0
        player = POKER.to_act(public)
        assert player is not None, public
        hidden_before = _others_cards(host, table_id, player)
        seen = await _call(
            gateway, web, "GetTableView", pb.GetTableViewRequest(table_id=table_id), player
        )
        own = json.loads(seen.view_json)
        action = json.dumps(POKER.legal_action(own, rng))
        request = pb.ActRequest(table_id=table_id, command_id=f"a{actions}", action_json=action)
        answer = await _call(gateway, web, "Act", request, player)
        actions += 1
        # The answer is the table after the action: maybe a new hand, newly dealt.
        hidden_after = _others_cards(host, table_id, player)
        for message, others in ((seen, hidden_before), (answer, hidden_after)):
            leaked = strings_in(json.loads(message.view_json)) & others
            assert not leaked, f"{player} was sent {leaked} (hand {public['hand_number']})"
            scanned += 1
    assert scanned == 2 * actions and actions > 2 * HANDS
