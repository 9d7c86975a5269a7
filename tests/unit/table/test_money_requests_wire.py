"""What the table host asks of the wallet goes on the bus exactly as recorded: the same
envelope ids, types, subjects, sequences, payloads, keys and topics, in the same order.

The wallet applies each request by its idempotency key and drops an envelope id it has
seen: a change in any of them would pay twice when a log is replayed, or never. The
golden file (`money_requests_golden.json`) was recorded from the host before its money
requests became typed domain requests (`croupier.table.service.requests`); the story
covers a hand's settlement, a top-up the cap turned away, a player leaving, a closed
table's stacks, a voided table's crash refund, and a rebuilt host asking again for the
last money a table moved. The envelope's `time` is the publishing clock's and is left out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import RuleBroken
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.adapters.wallets import InMemoryWallet
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.service.money import Buyins
from croupier.table.v1 import table_pb2
from croupier.wallet.v1 import wallet_pb2
from tests.support.table import FakeClock, Seeds

pytestmark = pytest.mark.timeout(60)
PAYLOADS: dict[str, Any] = {
    f"type.googleapis.com/{message.DESCRIPTOR.full_name}": message
    for message in (
        table_pb2.SettlementRequested,
        table_pb2.CrashRefundRequested,
        wallet_pb2.WalletRequest,
    )
}
TOPIC = "croupier.wallet.requests"  # spelled out: the wallet consumes this name
GOLDEN = Path(__file__).with_name("money_requests_golden.json")
CASH = {"variant": "nlhe", "blinds": [1, 2], "currency": "USD", "min_buy_in": 100,
        "max_buy_in": 600, "decision_seconds": 3600}  # fmt: skip


def make_host(log: InMemoryCommandLog, bus: InMemoryBus, wallet: InMemoryWallet) -> TableHost:
    clock = FakeClock()
    return TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        now_ms=clock,
        call_later=clock.call_later,
        seeds=Seeds("money-requests"),
        buyins=Buyins(wallet),
    )


def to_act(host: TableHost, table_id: str) -> str:
    hand = host.view(table_id, "").view["hand"]
    return str(hand.get("to_act") or "") if hand else ""


async def play_hand(host: TableHost, table_id: str, caller: str = "") -> None:
    """Everyone folds but `caller`, who calls (or checks), to the end of the hand."""
    finished = host.view(table_id, "").last_finished_hand
    step = 0
    while host.view(table_id, "").last_finished_hand == finished:
        actor = to_act(host, table_id)
        step += 1
        if actor != caller:
            await host.act(table_id, actor, f"{actor}-fold-{step}", {"action": "fold"})
            continue
        try:
            await host.act(table_id, actor, f"{actor}-call-{step}", {"action": "call"})
        except RuleBroken:
            await host.act(table_id, actor, f"{actor}-check-{step}", {"action": "check"})


async def cash_table_story() -> list[dict[str, Any]]:
    """Every message a cash table's life puts on the wallet's topic, in order."""
    wallet = InMemoryWallet()
    for player in ("ann", "bob", "cat"):
        wallet.deposit(player, "USD", 1000)
    log = InMemoryCommandLog()
    bus = InMemoryBus()
    await bus.start()
    host = make_host(log, bus, wallet)
    await host.start()
    table_id = await host.open_table("poker", CASH, None, request_key="money-requests")
    await host.seat(table_id, "ann", 0, 500)
    await host.seat(table_id, "bob", 1, 300)  # hand 1 is dealt
    await host.act(table_id, "ann", "ann-top-up", {"action": "top_up", "amount": 100})
    await play_hand(host, table_id, caller="ann")  # ann wins: over the cap, the rest returned
    await host.unseat(table_id, "bob")  # folds hand 2 and leaves with his stack
    await host.seat(table_id, "cat", 2, 300)  # hand 3 is dealt
    await host.close(table_id)  # when hand 3 has settled: every stack is given back
    await play_hand(host, table_id)
    assert host.view(table_id, "").closed
    crashed = await host.open_table("poker", CASH, None, request_key="money-requests-crash")
    await host.flush()
    await host.stop()
    log.append_raw(crashed, b"\x00garbage")
    rebuilt = make_host(log, bus, wallet)  # voids the crashed table, asks the closing again
    await rebuilt.start()
    assert crashed in rebuilt.voided
    await rebuilt.flush()
    await rebuilt.stop()
    records = [record(sent.key, sent.headers, sent.value) for sent in bus.messages(TOPIC)]
    await bus.stop()
    return records


def record(key: bytes | None, headers: Any, value: bytes | None) -> dict[str, Any]:
    envelope = Envelope.FromString(value or b"")
    envelope.ClearField("time")
    # A map's entries (a settlement's deltas) go on the wire in an order that changes from
    # process to process; the wallet reads them as a map: compare in protobuf's
    # deterministic order.
    payload = PAYLOADS[envelope.payload.type_url]()
    envelope.payload.Unpack(payload)
    envelope.payload.value = payload.SerializeToString(deterministic=True)
    return {
        "topic": TOPIC,
        "key": (key or b"").decode(),
        "headers": [[name, header.decode()] for name, header in headers],
        "id": envelope.id,
        "type": envelope.type,
        "sequence": envelope.sequence,
        "payload_type": envelope.payload.type_url,
        "envelope_without_time": envelope.SerializeToString(deterministic=True).hex(),
    }


async def test_money_requests_on_the_bus_are_the_recorded_ones() -> None:
    recorded = json.loads(GOLDEN.read_text())
    sent = await cash_table_story()
    kinds = [message["type"] for message in sent]
    assert kinds.count("wallet.settlement_requested") == 3 + 1  # 3 hands; the last asked again
    assert kinds.count("wallet.cash_out_requested") == 4 + 2  # returned, left, 2 closed; again
    assert kinds.count("wallet.crash_refund_requested") == 1
    for position, (message, golden) in enumerate(zip(sent, recorded, strict=True)):
        assert message == golden, f"message {position} differs"
