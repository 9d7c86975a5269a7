"""The hostile-request property of tests/unit/table/test_hostile_properties.py, run on the
real broker's command log: no request gets INTERNAL/UNKNOWN or changes a table it is refused
at when the host's log is Kafka."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.ports import CommandLog
from tests.support.hostile_table import (
    HOSTILE_SETTINGS,
    Served,
    one_hostile_request,
    served,
    table_ids,
)
from tests.support.infra import unique_name

__all__ = ["served", "table_ids"]  # the fixtures, used here


@pytest.fixture
def command_log(kafka_bootstrap: str) -> CommandLog:
    return KafkaCommandLog(kafka_bootstrap, unique_name("table_commands"), unique_name("owners"))


@HOSTILE_SETTINGS
@given(data=st.data())
async def test_no_request_gets_internal_or_changes_a_table_when_refused(
    served: Served, table_ids: dict[str, str], data: st.DataObject
) -> None:
    await one_hostile_request(served, table_ids, data)
