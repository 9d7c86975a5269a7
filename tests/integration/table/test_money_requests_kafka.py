"""The table host's money requests on the real broker are the recorded ones
(`tests/support/money_requests.py`): the Kafka bus puts on `croupier.wallet.requests` the
same keys, headers and envelopes as the in-memory bus, each table's in its order (the two
tables of the story may sit on different partitions)."""

from __future__ import annotations

import pytest

from croupier.kit.bus.kafka import KafkaBus
from tests.support.kafka_table import WalletRequests
from tests.support.money_requests import cash_table_story, record, recorded

pytestmark = pytest.mark.timeout(120)


async def test_money_requests_on_kafka_are_the_recorded_ones(kafka_bootstrap: str) -> None:
    async with WalletRequests(kafka_bootstrap) as wallet:
        bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
        await bus.start()
        try:
            tables = await cash_table_story(bus)
        finally:
            await bus.stop()
        consumed = await wallet.records(tables)
    sent = [record(message.key, message.headers, message.value) for message in consumed]
    assert len(sent) == len(recorded()) == 11
    for table_id in tables:
        mine = [message for message in sent if message["key"] == table_id]
        assert mine == [message for message in recorded() if message["key"] == table_id]
