"""A lost log never loses a table silently: a replica that served a table and, after a
rebalance, finds neither its log nor a snapshot (a broker restarted with its data wiped)
voids it and asks for its crash refund, instead of answering NOT_FOUND."""

from __future__ import annotations

import pytest

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.adapters.sink import WALLET_REQUESTS_TOPIC
from croupier.table.service.tables import TableVoided
from tests.support.contract import make_host, open_full_table
from tests.support.games import GAMES
from tests.support.table import FakeClock


async def test_a_served_table_whose_log_vanished_is_voided_and_refunded(bus: InMemoryBus) -> None:
    log = InMemoryCommandLog()
    host = make_host(log, bus, FakeClock())
    await host.start()
    try:
        table_id = await open_full_table(host, GAMES["backgammon"])
        await host.partitions_revoked(frozenset({0}))
        log.expire_before(log.end_offset(0))  # the broker came back empty
        await host.partitions_assigned(frozenset({0}), frozenset())

        assert "gone" in host.voided[table_id]
        with pytest.raises(TableVoided):
            host.view(table_id, "p0")
        await host.flush()
    finally:
        await host.stop()
    asked = [Envelope.FromString(m.value or b"") for m in bus.messages(WALLET_REQUESTS_TOPIC)]
    assert [e.subject for e in asked if e.type == "wallet.crash_refund_requested"] == [table_id]
