"""Seed 000 rule 48 on the in-memory adapters: coupons issued, redeemed for entries, given
back and refused (`tests/support/coupons.py`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from prometheus_client import CollectorRegistry

from croupier.wallet.adapters.coupons import InMemoryCoupons
from croupier.wallet.adapters.memory import InMemoryStore
from croupier.wallet.adapters.metrics import PrometheusWalletMetrics
from croupier.wallet.service.coupons import Coupons
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import LedgerService
from tests.support.coupons import STORIES, Clock
from tests.unit.wallet.test_wallet_service_memory import Clock as SteppingClock
from tests.unit.wallet.test_wallet_service_memory import assert_balanced


@pytest.mark.parametrize("story", STORIES, ids=lambda story: story.__name__)
async def test_coupons(story: Callable[[GameMoney, Clock], Awaitable[None]]) -> None:
    store = InMemoryStore()
    clock = SteppingClock()
    service = LedgerService(
        unit_of_work=store.factory,
        clock=clock,
        metrics=PrometheusWalletMetrics(CollectorRegistry()),
    )
    await story(GameMoney(service, Coupons(InMemoryCoupons(), service)), clock)
    assert_balanced(store)
