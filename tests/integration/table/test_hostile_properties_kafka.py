"""The hostile-request property of tests/unit/table/test_hostile_properties.py, run on the
real broker's command log: no request gets INTERNAL/UNKNOWN or changes a table it is refused
at when the host's log is Kafka."""

from __future__ import annotations

import pytest

from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.ports import CommandLog
from tests.support.infra import unique_name
from tests.unit.table.test_hostile_properties import (  # collected here, on this log
    served,
    table_ids,
    test_no_request_gets_internal_or_changes_a_table_when_refused,
)

__all__ = [
    "served",
    "table_ids",
    "test_no_request_gets_internal_or_changes_a_table_when_refused",
]


@pytest.fixture
def command_log(kafka_bootstrap: str) -> CommandLog:
    return KafkaCommandLog(kafka_bootstrap, unique_name("table_commands"), unique_name("owners"))
