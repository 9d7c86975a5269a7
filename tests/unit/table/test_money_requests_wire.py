"""What the table host asks of the wallet goes on the bus exactly as recorded before the
requests became typed domain requests (`croupier.table.service.requests`): the same
envelope ids, types, subjects, sequences, payloads, keys, headers and topic, in the same
order. The wallet applies each request by its idempotency key and drops an envelope id it
has seen: a change in any of them would pay twice when a log is replayed, or never. The
story and the recording: `tests/support/money_requests.py`."""

from __future__ import annotations

import pytest

from croupier.kit.bus.memory import InMemoryBus
from tests.support.money_requests import TOPIC, cash_table_story, record, recorded

pytestmark = pytest.mark.timeout(60)


async def test_money_requests_on_the_bus_are_the_recorded_ones() -> None:
    bus = InMemoryBus()
    await bus.start()
    await cash_table_story(bus)
    sent = [record(message.key, message.headers, message.value) for message in bus.messages(TOPIC)]
    await bus.stop()
    kinds = [message["type"] for message in sent]
    assert kinds.count("wallet.settlement_requested") == 3 + 1  # 3 hands; the last asked again
    assert kinds.count("wallet.cash_out_requested") == 4 + 2  # returned, left, 2 closed; again
    assert kinds.count("wallet.crash_refund_requested") == 1
    for position, (message, golden) in enumerate(zip(sent, recorded(), strict=True)):
        assert message == golden, f"message {position} differs"
