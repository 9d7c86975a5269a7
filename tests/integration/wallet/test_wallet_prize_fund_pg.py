"""Issue 25 rule 53 on the real ledger (`ledger_execute` in PostgreSQL): the prize fund
tops a Spin's pool up to its multiplier's prizes, takes a small Spin's surplus, is given
back on unregister and crash, and never pays what it does not hold
(`tests/support/prize_fund.py`); the audit after each test checks the books balance."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from croupier.wallet.service.ledger import LedgerService
from tests.support.prize_fund import STORIES


@pytest.mark.parametrize("story", STORIES, ids=lambda story: story.__name__)
async def test_rule_53_prize_fund_on_postgres(
    ledger_service: LedgerService, story: Callable[[LedgerService], Awaitable[None]]
) -> None:
    await story(ledger_service)
