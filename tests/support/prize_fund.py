"""The prize fund's stories (issue 25 rule 53: a Spin's prizes are its multiplier × the
buy-in, not its three entries), run by the wallet's unit tests on the in-memory adapter and
by its PostgreSQL tests on the real ledger: the entry that completes a Spin sets its pool to
the prizes, the difference coming from (or going to) `house_promotions:poker:USD`."""

from __future__ import annotations

import pytest

from croupier.wallet.core.errors import InsufficientFunds
from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import LedgerService

BUY_IN = 500
FEE = 35
DEPOSIT = 2_000
FUND = "house_promotions:poker:USD"
POOL = "tournament_pool:S:USD"
CLEARING = "house_clearing:house:USD"


async def open_players(service: LedgerService, *players: str) -> None:
    """Players with `DEPOSIT` each (from the house's clearing account)."""
    house = await service.open_account(AccountKind.HOUSE_CLEARING, "house", "USD")
    for player in players:
        account = await service.open_account(AccountKind.PLAYER_CASH, player, "USD")
        await service.transfer(
            TransferSpec(
                transfer_id=f"deposit-{player}",
                debit_account_id=house.account_id,
                credit_account_id=account.account_id,
                amount=DEPOSIT,
                currency="USD",
                kind=TransferKind.DEPOSIT,
            )
        )


async def fund_prizes(service: LedgerService, amount: int) -> None:
    """The operator funds the poker prize fund from the house's clearing account."""
    fund = await service.open_account(AccountKind.HOUSE_PROMOTIONS, "poker", "USD")
    await service.open_account(AccountKind.HOUSE_CLEARING, "house", "USD")
    await service.transfer(
        TransferSpec(
            transfer_id=f"fund-prizes-{amount}",
            debit_account_id=CLEARING,
            credit_account_id=fund.account_id,
            amount=amount,
            currency="USD",
            kind=TransferKind.TRANSFER,
        )
    )


async def posted(service: LedgerService, account_id: str) -> int:
    return (await service.account(account_id)).posted


async def enter(money: GameMoney, player: str, prize_pool: int | None = None) -> bool:
    """`player` enters Spin S; `prize_pool` on the entry that completes it. Replayed?"""
    result = await money.register(
        entry_id=f"S:{player}",
        tournament_id="S",
        game="poker",
        player=player,
        currency="USD",
        buy_in=BUY_IN,
        fee=FEE,
        prize_pool=prize_pool,
    )
    return result.replayed


async def an_overlay_tops_the_pool_up_to_a_10x_spin(service: LedgerService) -> None:
    money = GameMoney(service)
    await open_players(service, "a", "b", "c")
    await fund_prizes(service, 10_000)
    await enter(money, "a")
    await enter(money, "b")
    assert not await enter(money, "c", prize_pool=10 * BUY_IN)
    assert await posted(service, POOL) == 10 * BUY_IN
    assert await posted(service, FUND) == 10_000 - 7 * BUY_IN
    overlay = await service.transfer_record("S:c:overlay")
    assert (overlay.kind, overlay.amount, overlay.debit_account_id) == (
        TransferKind.TOURNAMENT_OVERLAY,
        7 * BUY_IN,
        FUND,
    )
    # Sent again (a director retrying after a crash): the stored result, nothing moves.
    assert await enter(money, "c", prize_pool=10 * BUY_IN)
    assert await posted(service, FUND) == 10_000 - 7 * BUY_IN
    assert await posted(service, "player_cash:c:USD") == DEPOSIT - BUY_IN - FEE
    # The prizes empty the pool: the final payout the wallet refused before.
    await money.pay_prizes(
        payout_id="S:prizes",
        tournament_id="S",
        game="poker",
        currency="USD",
        prizes={"b": 10 * BUY_IN},
    )
    assert await posted(service, POOL) == 0
    assert await posted(service, "player_cash:b:USD") == DEPOSIT - BUY_IN - FEE + 10 * BUY_IN


async def a_2x_spin_gives_its_surplus_to_the_fund_and_back_on_unregister(
    service: LedgerService,
) -> None:
    money = GameMoney(service)
    await open_players(service, "a", "b", "c")
    await enter(money, "a")
    await enter(money, "b")
    await enter(money, "c", prize_pool=2 * BUY_IN)  # no fund yet: opened by the surplus
    assert await posted(service, POOL) == 2 * BUY_IN
    assert await posted(service, FUND) == BUY_IN
    surplus = await service.transfer_record("S:c:surplus")
    assert surplus.kind is TransferKind.TOURNAMENT_SURPLUS
    await money.unregister(entry_id="S:c", refund_id="S:c:refund")
    assert await posted(service, "player_cash:c:USD") == DEPOSIT
    assert await posted(service, POOL) == 2 * BUY_IN
    assert await posted(service, FUND) == 0


async def a_fund_short_of_the_overlay_refuses_the_entry(service: LedgerService) -> None:
    money = GameMoney(service)
    await open_players(service, "a", "b", "c")
    await fund_prizes(service, 1_000)
    await enter(money, "a")
    await enter(money, "b")
    with pytest.raises(InsufficientFunds, match=FUND):
        await enter(money, "c", prize_pool=100 * BUY_IN)
    # Nothing moved: the entry and the overlay are one batch.
    assert await posted(service, "player_cash:c:USD") == DEPOSIT
    assert await posted(service, POOL) == 2 * BUY_IN
    assert await posted(service, FUND) == 1_000
    transfers = await service.find_transfers(tournament_id="S")
    assert not [t.transfer_id for t in transfers if t.transfer_id.startswith("S:c:")]
    # The fund never goes below zero, whoever asks.
    with pytest.raises(InsufficientFunds):
        await service.transfer(
            TransferSpec(
                transfer_id="drain",
                debit_account_id=FUND,
                credit_account_id=CLEARING,
                amount=1_001,
                currency="USD",
                kind=TransferKind.TRANSFER,
            )
        )


async def a_crashed_spin_gives_the_overlay_back_to_the_fund(service: LedgerService) -> None:
    money = GameMoney(service)
    await open_players(service, "a", "b", "c")
    await fund_prizes(service, 20_000)
    for player, pool in (("a", None), ("b", None), ("c", 25 * BUY_IN)):
        await enter(money, player, prize_pool=pool)
    refund = await money.crash_refund_tournament(tournament_id="S", game="poker", currency="USD")
    assert len(refund.refunds) == 6  # three entries and three fees: the overlay is no refund
    assert await posted(service, POOL) == 0
    assert await posted(service, FUND) == 20_000
    for player in "abc":
        assert await posted(service, f"player_cash:{player}:USD") == DEPOSIT


STORIES = [
    an_overlay_tops_the_pool_up_to_a_10x_spin,
    a_2x_spin_gives_its_surplus_to_the_fund_and_back_on_unregister,
    a_fund_short_of_the_overlay_refuses_the_entry,
    a_crashed_spin_gives_the_overlay_back_to_the_fund,
]
