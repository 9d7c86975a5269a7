"""Issue 25 rule 53 on the in-memory ledger: the prize fund tops a Spin's pool up to its
multiplier's prizes, takes a small Spin's surplus, is given back on unregister and crash,
and never pays what it does not hold (`tests/support/prize_fund.py`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from prometheus_client import CollectorRegistry

from croupier.wallet.adapters.memory import InMemoryStore
from croupier.wallet.adapters.metrics import PrometheusWalletMetrics
from croupier.wallet.service.ledger import LedgerService
from tests.support.prize_fund import STORIES
from tests.unit.wallet.test_wallet_service_memory import Clock, assert_balanced


@pytest.mark.parametrize("story", STORIES, ids=lambda story: story.__name__)
async def test_rule_53_prize_fund(story: Callable[[LedgerService], Awaitable[None]]) -> None:
    store = InMemoryStore()
    service = LedgerService(
        unit_of_work=store.factory,
        clock=Clock(),
        metrics=PrometheusWalletMetrics(CollectorRegistry()),
    )
    await story(service)
    assert_balanced(store)
