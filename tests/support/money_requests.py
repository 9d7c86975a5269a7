"""A cash table's life as the wallet sees it: the money requests its host puts on
`croupier.wallet.requests`, and the recording of them made before those requests became
typed domain requests (`tests/data/table/money_requests_golden.json`), which
tests/unit/table/test_money_requests_wire.py (in-memory bus) and
tests/integration/table/test_money_requests_kafka.py (the real broker) compare against.

The story covers three hands' settlements, a top-up the cap turned away, a player leaving,
a closed table's stacks, a voided table's crash refund, and a rebuilt host asking again
for the last money a table moved.
"""

from __future__ import annotations

import json
from typing import Any

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import RuleBroken
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.adapters.wallets import InMemoryWallet
from croupier.table.games import load_engines
from croupier.table.ports import Publisher
from croupier.table.service.host import TableHost
from croupier.table.service.money import Buyins
from croupier.table.v1 import table_pb2
from croupier.wallet.v1 import wallet_pb2
from tests.support.paths import DATA
from tests.support.table import FakeClock, Seeds

TOPIC = "croupier.wallet.requests"  # spelled out: the wallet consumes this name
GOLDEN = DATA / "table" / "money_requests_golden.json"
CASH = {"variant": "nlhe", "blinds": [1, 2], "currency": "USD", "min_buy_in": 100,
        "max_buy_in": 600, "decision_seconds": 3600}  # fmt: skip
PAYLOADS: dict[str, Any] = {
    f"type.googleapis.com/{message.DESCRIPTOR.full_name}": message
    for message in (
        table_pb2.SettlementRequested,
        table_pb2.CrashRefundRequested,
        wallet_pb2.WalletRequest,
    )
}


def recorded() -> list[dict[str, Any]]:
    """The messages the host sent in the story before its requests were typed, in order."""
    messages: list[dict[str, Any]] = json.loads(GOLDEN.read_text())
    return messages


def record(key: bytes | None, headers: Any, value: bytes | None) -> dict[str, Any]:
    """One message on the wallet's topic as the recording holds it: the envelope without
    its `time` (the publishing clock's)."""
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


async def cash_table_story(bus: Publisher) -> tuple[str, str]:
    """Play the story on a host publishing to `bus` (started); returns the ids of the
    cash table and of the table voided when the host is rebuilt."""
    wallet = InMemoryWallet()
    for player in ("ann", "bob", "cat"):
        wallet.deposit(player, "USD", 1000)
    log = InMemoryCommandLog()
    host = _host(log, bus, wallet)
    await host.start()
    table_id = await host.open_table("poker", CASH, None, request_key="money-requests")
    await host.seat(table_id, "ann", 0, 500)
    await host.seat(table_id, "bob", 1, 300)  # hand 1 is dealt
    await host.act(table_id, "ann", "ann-top-up", {"action": "top_up", "amount": 100})
    await _play_hand(host, table_id, caller="ann")  # ann wins: over the cap, the rest back
    await host.unseat(table_id, "bob")  # folds hand 2 and leaves with his stack
    await host.seat(table_id, "cat", 2, 300)  # hand 3 is dealt
    await host.close(table_id)  # when hand 3 has settled: every stack is given back
    await _play_hand(host, table_id)
    assert host.view(table_id, "").closed
    crashed = await host.open_table("poker", CASH, None, request_key="money-requests-crash")
    await host.flush()
    await host.stop()
    log.append_raw(crashed, b"\x00garbage")
    rebuilt = _host(log, bus, wallet)  # voids the crashed table, asks the closing again
    await rebuilt.start()
    assert crashed in rebuilt.voided
    await rebuilt.flush()
    await rebuilt.stop()
    return table_id, crashed


def _host(log: InMemoryCommandLog, bus: Publisher, wallet: InMemoryWallet) -> TableHost:
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


async def _play_hand(host: TableHost, table_id: str, caller: str = "") -> None:
    """Everyone folds but `caller`, who calls (or checks), to the end of the hand."""
    finished = host.view(table_id, "").last_finished_hand
    step = 0
    while host.view(table_id, "").last_finished_hand == finished:
        hand = host.view(table_id, "").view["hand"]
        actor = str(hand.get("to_act") or "") if hand else ""
        step += 1
        if actor != caller:
            await host.act(table_id, actor, f"{actor}-fold-{step}", {"action": "fold"})
            continue
        try:
            await host.act(table_id, actor, f"{actor}-call-{step}", {"action": "call"})
        except RuleBroken:
            await host.act(table_id, actor, f"{actor}-check-{step}", {"action": "check"})
