"""Cash tables through the table host with an in-memory wallet (`croupier.table.buyins`):
the wallet moves a seat's buy-in and a top-up before the command is logged, a refusal
leaves the table unchanged, play-chip tables never call it, and leaving asks for the
stack back after the hand's settlement (seed 002 §6, rule 50; docs/architecture.md §4)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import Event, RuleBroken
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.adapters.sink import WALLET_REQUESTS_TOPIC
from croupier.table.adapters.wallets import GrpcWallet, InMemoryWallet, WalletUnavailable
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.ports import BuyIn
from croupier.table.service.host import TableHost
from croupier.table.service.money import Buyins
from croupier.table.service.requests import CashOut
from croupier.table.v1 import table_pb2, table_pb2_grpc
from croupier.wallet.v1 import wallet_pb2
from tests.support.refusals import status_name
from tests.support.table import Seeds

pytestmark = pytest.mark.timeout(30)
CASH = {"variant": "nlhe", "blinds": [1, 2], "currency": "USD", "min_buy_in": 100,
        "max_buy_in": 500, "decision_seconds": 3600}  # fmt: skip


@pytest.fixture
async def wallet() -> InMemoryWallet:
    wallet = InMemoryWallet()
    for player in ("ann", "bob"):
        wallet.deposit(player, "USD", 1000)
    wallet.deposit("cat", "USD", 150)
    return wallet


@pytest.fixture
async def host(wallet: InMemoryWallet) -> AsyncIterator[tuple[TableHost, InMemoryBus]]:
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=bus,
        seeds=Seeds("buyins"),
        buyins=Buyins(wallet),
    )
    await host.start()
    yield host, bus
    await host.stop()
    await bus.stop()


def requests(bus: InMemoryBus) -> list[Any]:
    out = []
    for stored in bus.messages(WALLET_REQUESTS_TOPIC):
        envelope = Envelope.FromString(stored.value or b"")
        if envelope.payload.Is(wallet_pb2.WalletRequest.DESCRIPTOR):
            request = wallet_pb2.WalletRequest()
            envelope.payload.Unpack(request)
            out.append(request)
        else:
            settlement = table_pb2.SettlementRequested()
            envelope.payload.Unpack(settlement)
            out.append(settlement)
    return out


async def test_rule_50_buy_in_and_top_up_are_moved_by_the_wallet_before_they_are_logged(
    host: tuple[TableHost, InMemoryBus], wallet: InMemoryWallet
) -> None:
    table_host, _ = host
    table_id = await table_host.open_table("poker", CASH, None)
    await table_host.seat(table_id, "ann", 0, 300)
    assert wallet.balances[("ann", "USD")] == 700
    assert wallet.seats[(table_id, "ann", "USD")] == 300
    version = table_host.view(table_id, "").version
    with pytest.raises(RuleBroken) as poor:
        await table_host.seat(table_id, "cat", 1, 200)
    assert status_name(poor.value) == "failed_precondition"
    assert poor.value.message == (
        "the wallet refused the buy-in: 'cat' has 150 USD available, 200 needed"
    )
    with pytest.raises(RuleBroken, match="seat 0 is taken"):  # checked before any money moves
        await table_host.seat(table_id, "bob", 0, 300)
    with pytest.raises(RuleBroken, match="at most 500"):
        await table_host.seat(table_id, "bob", 1, 600)
    assert table_host.view(table_id, "").version == version
    assert wallet.balances[("cat", "USD")] == 150 and wallet.balances[("bob", "USD")] == 1000
    await table_host.seat(table_id, "bob", 1, 200)
    await table_host.act(table_id, "ann", "t1", {"action": "top_up", "amount": 150})
    await table_host.act(table_id, "ann", "t1", {"action": "top_up", "amount": 150})  # again
    assert wallet.balances[("ann", "USD")] == 550
    with pytest.raises(RuleBroken, match="at most 50 more"):
        await table_host.act(table_id, "ann", "t2", {"action": "top_up", "amount": 60})
    assert wallet.balances[("ann", "USD")] == 550
    assert sum(wallet.balances.values()) + sum(wallet.seats.values()) == 2150


async def test_play_chip_tables_never_call_the_wallet(
    host: tuple[TableHost, InMemoryBus], wallet: InMemoryWallet
) -> None:
    table_host, bus = host
    table_id = await table_host.open_table("poker", {**CASH, "currency": "CHIP"}, None)
    await table_host.seat(table_id, "cat", 0, 400)
    await table_host.seat(table_id, "dan", 1, 400)  # no wallet account at all
    await table_host.unseat(table_id, "dan")
    assert wallet.seats == {} and wallet.balances[("cat", "USD")] == 150
    assert not any(isinstance(r, wallet_pb2.WalletRequest) for r in requests(bus))


async def test_play_chip_hands_ask_no_settlement_of_a_configured_wallet(
    host: tuple[TableHost, InMemoryBus], wallet: InMemoryWallet
) -> None:
    """Their seats hold nothing in the wallet: a settlement could only be dead-lettered.
    A money table's hand is settled."""
    table_host, bus = host
    for currency in ("CHIP", "USD"):
        table_id = await table_host.open_table("poker", {**CASH, "currency": currency}, None)
        await table_host.seat(table_id, "ann", 0, 100)
        await table_host.seat(table_id, "bob", 1, 100)
        to_act = table_host.view(table_id, "").view["hand"]["to_act"]
        await table_host.act(table_id, to_act, "fold", {"action": "fold"})
        assert table_host.view(table_id, "").last_finished_hand == 1
    await table_host.flush()
    settled = [r for r in requests(bus) if isinstance(r, table_pb2.SettlementRequested)]
    assert [r.currency for r in settled] == ["USD"]


async def test_play_chip_hands_ask_no_settlement_when_no_wallet_is_configured() -> None:
    """The default deployment (no wallet here) sent play-chip settlements all the same,
    and the wallet dead-lettered every one. A real-currency table still settles: its
    seats are funded by whoever seated the players (the lobby, a tournament)."""
    bus = InMemoryBus()
    await bus.start()
    table_host = TableHost(
        engines=load_engines(), command_log=InMemoryCommandLog(), publisher=bus, seeds=Seeds("n")
    )
    await table_host.start()
    for currency in ("CHIP", "PLAY", "USD"):
        table_id = await table_host.open_table("poker", {**CASH, "currency": currency}, None)
        await table_host.seat(table_id, "ann", 0, 100)
        await table_host.seat(table_id, "bob", 1, 100)
        to_act = table_host.view(table_id, "").view["hand"]["to_act"]
        await table_host.act(table_id, to_act, "fold", {"action": "fold"})
        assert table_host.view(table_id, "").last_finished_hand == 1
    await table_host.flush()
    settled = [r for r in requests(bus) if isinstance(r, table_pb2.SettlementRequested)]
    assert [r.currency for r in settled] == ["USD"]
    await table_host.stop()
    await bus.stop()


async def test_rule_50_leaving_asks_the_wallet_for_the_stack_after_the_settlement(
    host: tuple[TableHost, InMemoryBus], wallet: InMemoryWallet
) -> None:
    table_host, bus = host
    table_id = await table_host.open_table("poker", CASH, None)
    await table_host.seat(table_id, "ann", 0, 300)
    await table_host.seat(table_id, "bob", 1, 300)  # hand 1 starts
    await table_host.unseat(table_id, "ann")  # in the hand: folds, leaves when it ends
    await table_host.flush()
    sent = requests(bus)
    settlement, cash_out = sent[-2], sent[-1]
    assert isinstance(settlement, table_pb2.SettlementRequested)
    stack = 300 + settlement.deltas["ann"]
    asked = cash_out.cash_out
    assert (asked.table_id, asked.player_id) == (table_id, "ann")
    assert asked.amount.amount_minor == stack and asked.amount.currency == "USD"
    wallet.settle(table_id, "USD", dict(settlement.deltas))
    wallet.cash_out(table_id, "ann", "USD", asked.amount.amount_minor)
    assert wallet.seats[(table_id, "ann", "USD")] == 0
    assert wallet.balances[("ann", "USD")] == 1000 + settlement.deltas["ann"]


async def test_a_rebuilt_host_asks_again_for_the_last_money_it_moved(
    wallet: InMemoryWallet,
) -> None:
    """The host may die between logging a leaving and sending its cash-out: the table's
    next host sends the latest command's money requests again, with the same ids."""
    log = InMemoryCommandLog()
    sent: list[list[str]] = []
    for label in ("lost", "rebuilt"):
        bus = InMemoryBus()
        await bus.start()
        table_host = TableHost(
            engines=load_engines(),
            command_log=log,
            publisher=bus,
            seeds=Seeds(label),
            buyins=Buyins(wallet),
        )
        await table_host.start()
        if label == "lost":
            table_id = await table_host.open_table("poker", CASH, None)
            await table_host.seat(table_id, "ann", 0, 300)
            await table_host.seat(table_id, "bob", 1, 300)
            await table_host.unseat(table_id, "ann")  # folds; leaves with her stack
        await table_host.flush()
        sent.append(
            [Envelope.FromString(m.value or b"").id for m in bus.messages(WALLET_REQUESTS_TOPIC)]
        )
        await table_host.stop()
        await bus.stop()
    lost, rebuilt = sent
    assert len(lost) == 2 and rebuilt == lost  # the settlement, then the cash-out


def test_buy_in_ids_are_stable_per_command_and_valid_wallet_ids() -> None:
    desk = Buyins(InMemoryWallet())
    body = {"action": {"action": "top_up", "amount": 40}}
    one = desk.buy_in_for("t", "poker", {"currency": "EUR"}, "act", "p", body, "act:p:x" * 40)
    two = desk.buy_in_for("t", "poker", {"currency": "EUR"}, "act", "p", body, "act:p:x" * 40)
    assert one == two and one is not None and len(one.transfer_id) < 100
    assert one.amount == 40 and one.currency == "EUR"
    assert desk.buy_in_for("t", "poker", {}, "seat", "p", {"stack": 9}, "k") is None  # CHIP
    assert (
        Buyins().buy_in_for("t", "poker", {"currency": "EUR"}, "seat", "p", {"stack": 9}, "k")
        is None
    )


async def test_an_unreachable_wallet_is_unavailable_and_nothing_moves() -> None:
    wallet = GrpcWallet("127.0.0.1:9", timeout=0.5)  # nothing listens on the discard port
    with pytest.raises(WalletUnavailable) as down:
        await wallet.buy_in(BuyIn("buyin:t:1", "t", "poker", "ann", "USD", 100))
    assert status_name(down.value) == "unavailable"
    assert "retry with the same command" in down.value.message
    await wallet.close()


async def test_a_buy_in_the_wallet_cannot_confirm_is_unavailable_over_grpc() -> None:
    bus = InMemoryBus()
    await bus.start()
    cashier = GrpcWallet("127.0.0.1:9", timeout=0.5)
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=bus,
        buyins=Buyins(cashier),
    )
    await host.start()
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[table_service(host)],
        on_stop=[host.stop, bus.stop, cashier.close],
        serve_metrics_endpoint=False,
    )
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub: Any = table_pb2_grpc.TableEngineStub(channel)
            opened = table_pb2.OpenTableRequest(game="poker", options_json=json.dumps(CASH))
            table_id = (await stub.OpenTable(opened)).table_id
            with pytest.raises(grpc.aio.AioRpcError) as down:
                await stub.SeatPlayer(
                    table_pb2.SeatPlayerRequest(
                        table_id=table_id, player_id="ann", seat=0, stack=200
                    )
                )
            assert down.value.code() == grpc.StatusCode.UNAVAILABLE
            assert "the wallet did not confirm the buy-in" in (down.value.details() or "")
            assert host.view(table_id, "").seated == ()
    finally:
        await server.stop()


def test_virtual_chip_tables_may_go_through_the_wallet_too() -> None:
    """Seed 002 §6: cash tables play virtual chips; a deployment that keeps them in the
    wallet (`play_currencies=()`) buys in and cashes out from the player's chips account."""
    desk = Buyins(InMemoryWallet(), play_currencies=())
    assert desk.buy_in_for("t", "poker", {}, "seat", "p", {"stack": 9}, "k") is not None
    left = [
        Event("player_left", {"player": "p", "stack": 9}),
        Event("player_left", {"player": "q", "stack": 0}),  # busted: nothing to give back
    ]
    (asked,) = desk.cash_outs("t", "poker", {"currency": "CHIP"}, 7, left)
    assert asked == CashOut("t", "poker", "p", 9, "CHIP", log_index=7)
    (again,) = desk.cash_outs("t", "poker", {"currency": "CHIP"}, 7, left)
    assert again.transfer_id == asked.transfer_id  # the same log entry: the same transfer


async def test_closing_a_cash_table_gives_every_seated_stack_back(
    host: tuple[TableHost, InMemoryBus], wallet: InMemoryWallet
) -> None:
    table_host, bus = host
    table_id = await table_host.open_table("poker", CASH, None)
    await table_host.seat(table_id, "ann", 0, 300)
    await table_host.seat(table_id, "bob", 1, 200)  # hand 1 starts
    await table_host.close(table_id)  # closes when hand 1 has settled
    while actor := table_host.view(table_id, "").view["hand"]["to_act"]:
        await table_host.act(table_id, actor, f"{actor}-fold", {"action": "fold"})
    assert table_host.view(table_id, "").closed
    await table_host.flush()
    sent = requests(bus)
    settlement = sent[-3]
    assert isinstance(settlement, table_pb2.SettlementRequested)
    paid = {}
    for request in sent[-2:]:
        paid[request.cash_out.player_id] = request.cash_out.amount.amount_minor
    assert paid == {
        "ann": 300 + settlement.deltas["ann"],
        "bob": 200 + settlement.deltas["bob"],
    }


async def test_rules_50_55_the_host_default_currency_is_written_into_the_opening() -> None:
    """A table opened without a currency gets the host's default in its opening record:
    the engine judges the currency the host will settle in (a Naiko table on a host whose
    default is USD is refused, rules 50 and 55; it was opened as a money table), and a
    rebuild by a host with another default keeps it."""
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    usd_host = TableHost(
        engines=load_engines(), command_log=log, publisher=bus, currency="USD", seeds=Seeds("u")
    )
    await usd_host.start()
    with pytest.raises(RuleBroken) as money:
        await usd_host.open_table("poker", {"variant": "naiko", "blinds": [1, 2]}, None)
    assert status_name(money.value) == "invalid_argument"
    assert "never money" in money.value.message
    table_id = await usd_host.open_table("poker", {"variant": "nlhe", "blinds": [1, 2]}, None)
    await usd_host.stop()
    await bus.stop()
    openings = [entry async for table in log.replay() for entry in table.entries]
    assert [(e.table_id, e.kind) for e in openings] == [(table_id, "open")]
    assert openings[0].body["options"]["currency"] == "USD"
