"""A sample seed-000 tournament for the director's tests, and a clock the tests move."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from croupier.tournament.core.options import Level
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.service.model import RebuyTerms, Settings

START = datetime(2026, 12, 24, 18, 0, tzinfo=UTC)
BUY_IN = 1_000
FEE = 100
STARTING_CHIPS = 1_500


def sample_settings(**changes: Any) -> Settings:
    """A Rummy 51 tournament at START: 2-6 players, 1,000 + 100 USD, tables of 4."""
    settings = Settings(
        game="rummy",
        variant="rummy51",
        name="Friday Rummy 51",
        start_time=START,
        min_players=3,
        max_players=6,
        currency="USD",
        buy_in=BUY_IN,
        fee=FEE,
        starting_chips=STARTING_CHIPS,
        table_size=4,
        level_seconds=600,
        levels=(Level(10, 1), Level(20, 2), Level(40, 3)),
        rebuys=RebuyTerms(max_per_player=2, max_level=3, price=BUY_IN, fee=FEE, window_seconds=25),
        payouts=(
            PayoutBracket(2, 3, (10_000,)),
            PayoutBracket(4, 6, (6_000, 3_000, 1_000)),
        ),
        coupons_accepted=False,
        turn_seconds=20,
        winner_risk_limit=True,
    )
    return replace(settings, **changes)


class ManualClock:
    """The time tests set: it moves only when a test moves it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def fixed_seed(byte: int = 7) -> bytes:
    return bytes([byte]) * 32
