"""The table tests' in-memory bus, started for the test."""

from __future__ import annotations

import pytest

from croupier.kit.bus.memory import InMemoryBus


@pytest.fixture
async def bus() -> InMemoryBus:
    bus = InMemoryBus()
    await bus.start()
    return bus
