"""The money the host asks of the wallet leaves its service layer as typed requests
(`croupier.table.service.requests`) through the `WalletRequests` port: a hand's settlement
before the stacks it lets go, a voided table's refund; each request's key is derived from
its place in the table's log (how they look on the bus: test_money_requests_wire.py)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from croupier.game import ClockSettings
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.adapters.sink import WALLET_REQUESTS_TOPIC
from croupier.table.adapters.wallets import InMemoryWallet
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.service.money import Buyins
from croupier.table.service.requests import (
    CashOut,
    MoneyRequest,
    RefundCrashedTable,
    SettleHand,
)
from tests.support.table import Seeds

pytestmark = pytest.mark.timeout(30)
CASH = {"variant": "nlhe", "blinds": [1, 2], "currency": "USD", "min_buy_in": 100,
        "max_buy_in": 500}  # fmt: skip
LONG_TURN = ClockSettings(turn_ms=3_600_000)


class RecordedRequests:
    """A `WalletRequests` port that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[MoneyRequest] = []

    async def send(self, requests: Sequence[MoneyRequest]) -> None:
        self.sent += requests


def cash_host(log: InMemoryCommandLog, bus: InMemoryBus, asked: RecordedRequests) -> TableHost:
    wallet = InMemoryWallet()
    for player in ("ann", "bob"):
        wallet.deposit(player, "USD", 1000)
    return TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        seeds=Seeds("typed"),
        buyins=Buyins(wallet),
        wallet_requests=asked,
    )


async def test_a_leaving_asks_the_injected_port_for_the_settlement_then_the_stack(
    bus: InMemoryBus,
) -> None:
    asked = RecordedRequests()
    host = cash_host(InMemoryCommandLog(), bus, asked)
    await host.start()
    table_id = await host.open_table("poker", CASH, LONG_TURN)
    await host.seat(table_id, "ann", 0, 300)
    await host.seat(table_id, "bob", 1, 200)  # hand 1 is dealt
    await host.unseat(table_id, "ann")  # folds; leaves when the hand ends
    await host.stop()
    settle, cash_out = asked.sent
    assert isinstance(settle, SettleHand) and isinstance(cash_out, CashOut)
    assert (settle.table_id, settle.game, settle.hand_number) == (table_id, "poker", 1)
    assert settle.currency == "USD" and sum(settle.deltas.values()) == 0
    assert settle.idempotency_key == f"{table_id}:1"
    assert (cash_out.player, cash_out.currency) == ("ann", "USD")
    assert cash_out.amount == 300 + settle.deltas["ann"]
    assert bus.messages(WALLET_REQUESTS_TOPIC) == []  # the port is the only way out


async def test_a_table_that_cannot_be_rebuilt_asks_the_port_for_a_crash_refund(
    bus: InMemoryBus,
) -> None:
    log = InMemoryCommandLog()
    first = RecordedRequests()
    host = cash_host(log, bus, first)
    await host.start()
    table_id = await host.open_table("poker", CASH, LONG_TURN)
    await host.stop()
    log.append_raw(table_id, b"\x00garbage")
    again = RecordedRequests()
    rebuilt = cash_host(log, bus, again)
    await rebuilt.start()
    reason = rebuilt.voided[table_id]
    await rebuilt.stop()
    assert again.sent == [RefundCrashedTable(table_id, "poker", reason)]
    assert again.sent[0].idempotency_key == f"{table_id}:crash"


def test_a_cash_out_transfer_is_named_by_its_table_log_entry_and_player() -> None:
    """Sent again (a retry, a rebuilt host), a cash-out is the same transfer; another
    player, or a later entry, is another one."""
    table_id = "0356a561-9e93-53ff-be14-b9a476dadc4d"
    ann = CashOut(table_id, "poker", "ann", 300, "USD", log_index=9)
    assert ann.transfer_id == CashOut(table_id, "poker", "ann", 300, "USD", 9).transfer_id
    others = {
        CashOut(table_id, "poker", "bob", 300, "USD", 9).transfer_id,
        CashOut(table_id, "poker", "ann", 300, "USD", 10).transfer_id,
    }
    assert ann.transfer_id not in others and len(others) == 2
    prefix, digest = ann.transfer_id.rsplit(":", 1)
    assert prefix == f"cashout:{table_id}:9" and len(digest) == 16 and int(digest, 16) >= 0
