"""Property: no request makes the table host answer INTERNAL or UNKNOWN, or change a table
when it refuses.

Hypothesis sends generated absurd values (huge and negative integers, NUL and control
characters, huge strings, random JSON shapes as actions and options, random bytes as the
whole request body) to EVERY method of `croupier.table.v1.TableEngine`, over real gRPC,
for every game: a table of each game is open with its players seated, and most requests
name one of them and one of its players, so that they reach the game's adapter. After
each call: the status is never INTERNAL/UNKNOWN, the message is short, a refused call left
every table (state digest, who is away, the set of tables) as it was, and the server
still answers. Half of the calls are actions built from the acting player's legal
actions with fields replaced by absurd values (they get furthest into the rules). The
same runs on the real broker's command log in tests/integration/table/.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.ports import CommandLog
from tests.support.hostile_table import (
    HOSTILE_SETTINGS,
    Served,
    one_hostile_request,
    served,
    table_ids,
)

__all__ = ["served", "table_ids"]  # the fixtures, used here


@pytest.fixture
def command_log() -> CommandLog:
    """The in-memory log here; tests/integration/table/test_hostile_properties_kafka.py runs
    the same property on the real broker's."""
    return InMemoryCommandLog()


@HOSTILE_SETTINGS
@given(data=st.data())
async def test_no_request_gets_internal_or_changes_a_table_when_refused(
    served: Served, table_ids: dict[str, str], data: st.DataObject
) -> None:
    await one_hostile_request(served, table_ids, data)
