"""Game and tournament money on a real PostgreSQL: every spec money example, crash refunds."""

from __future__ import annotations

import pytest

from croupier.game.commission import backgammon_amount_passing
from croupier.wallet.adapters.metrics import PrometheusWalletMetrics
from croupier.wallet.core.errors import (
    IdempotencyConflict,
    InsufficientFunds,
    InvalidRequest,
    UnbalancedSettlement,
)
from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec
from croupier.wallet.core.settlement import backgammon_rule, no_commission
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import LedgerService


async def fund(service: LedgerService, player: str, amount: int, currency: str = "USD") -> str:
    chips = currency == "CHIP"
    house_kind = (
        AccountKind.HOUSE_FLOAT if currency in ("CHIP", "PLAY") else (AccountKind.HOUSE_CLEARING)
    )
    house = await service.open_account(house_kind, "house", currency)
    kind = AccountKind.PLAYER_CHIPS if chips else AccountKind.PLAYER_CASH
    account = await service.open_account(kind, player, currency)
    await service.transfer(
        TransferSpec(
            transfer_id=f"deposit-{player}-{currency}",
            debit_account_id=house.account_id,
            credit_account_id=account.account_id,
            amount=amount,
            currency=currency,
            kind=TransferKind.DEPOSIT if currency not in ("CHIP", "PLAY") else TransferKind.GRANT,
        )
    )
    return account.account_id


async def balance(service: LedgerService, account_id: str) -> int:
    return (await service.account(account_id)).posted


# (vector, stake ¢, cube, multiplier, maximum ¢, winner +¢, loser −¢, house +¢)
BACKGAMMON = [
    (1, 1000, 1, 1, None, 870, 1000, 130),
    (2, 25, 1, 1, None, 19, 25, 6),
    (3, 10, 1, 1, None, 4, 10, 6),
    (4, 50, 1, 1, None, 42, 50, 8),
    (5, 100, 1, 1, None, 86, 100, 14),
    (6, 100, 2, 2, 5000, 348, 400, 52),
    (7, 1000, 8, 3, 10000, 8700, 10000, 1300),
    (8, 25, 1, 2, None, 42, 50, 8),
    # Vectors 9–11 fix what passes (refused doubles, beaver); commission per rules 39–43.
    (9, 500, 1, 1, None, 434, 500, 66),  # B refuses at cube 1: pays $5; 2 × ceil(32.5¢)
    (10, 500, 4, 1, None, 1740, 2000, 260),  # A refuses the redouble to 8: pays $20
    (11, 200, 2, 1, None, 348, 400, 52),  # beaver refused: A pays $4
    (11, 200, 4, 1, None, 696, 800, 104),  # beaver accepted, single win at cube 4: $8
]


@pytest.mark.parametrize(
    ("vector", "stake", "cube", "multiplier", "maximum", "won", "lost", "house"), BACKGAMMON
)
async def test_seed_001_vectors_1_to_8_settle_through_the_wallet(
    ledger_service: LedgerService,
    vector: int,
    stake: int,
    cube: int,
    multiplier: int,
    maximum: int | None,
    won: int,
    lost: int,
    house: int,
) -> None:
    """Rules 5, 39–43: loser pays the amount passing; winner gets it less 2× commission."""
    money = GameMoney(ledger_service)
    amnon = await fund(ledger_service, "amnon", 500_000)
    micha = await fund(ledger_service, "micha", 500_000)
    table = f"bg-{vector}"
    hold = maximum if maximum is not None else stake * 64 * 3
    for player in ("amnon", "micha"):
        await money.hold_stake(
            transfer_id=f"{table}:stake:{player}",
            player=player,
            game="backgammon",
            table_id=table,
            currency="USD",
            amount=hold,
        )
    passing = backgammon_amount_passing(
        stake=stake, cube=cube, multiplier=multiplier, maximum=maximum
    )
    result = await money.settle_game(
        settlement_id=f"{table}:game-1",
        game="backgammon",
        table_id=table,
        currency="USD",
        holds={p: f"{table}:stake:{p}" for p in ("amnon", "micha")},
        deltas={"amnon": passing, "micha": -passing},
        commission=backgammon_rule,
    )
    assert not result.replayed
    assert await balance(ledger_service, amnon) == 500_000 + won
    assert await balance(ledger_service, micha) == 500_000 - lost
    assert await balance(ledger_service, "house_commission:backgammon:USD") == house
    assert await balance(ledger_service, f"table_escrow:{table}:USD") == 0
    # A redelivered settlement moves money once.
    again = await money.settle_game(
        settlement_id=f"{table}:game-1",
        game="backgammon",
        table_id=table,
        currency="USD",
        holds={p: f"{table}:stake:{p}" for p in ("amnon", "micha")},
        deltas={"amnon": passing, "micha": -passing},
        commission=backgammon_rule,
    )
    assert again.replayed
    assert await balance(ledger_service, amnon) == 500_000 + won


async def test_settlement_with_a_different_result_under_the_same_id_is_refused(
    ledger_service: LedgerService,
) -> None:
    money = GameMoney(ledger_service)
    for p in ("a", "b"):
        await fund(ledger_service, p, 1000)
        await money.hold_stake(
            transfer_id=f"t:{p}",
            player=p,
            game="backgammon",
            table_id="t",
            currency="USD",
            amount=500,
        )
    holds = {"a": "t:a", "b": "t:b"}
    await money.settle_game(
        settlement_id="s1",
        game="backgammon",
        table_id="t",
        currency="USD",
        holds=holds,
        deltas={"a": 100, "b": -100},
        commission=backgammon_rule,
    )
    with pytest.raises(IdempotencyConflict):
        await money.settle_game(
            settlement_id="s1",
            game="backgammon",
            table_id="t",
            currency="USD",
            holds=holds,
            deltas={"a": 200, "b": -200},
            commission=backgammon_rule,
        )
    with pytest.raises(UnbalancedSettlement):
        await money.settle_game(
            settlement_id="s2",
            game="backgammon",
            table_id="t",
            currency="USD",
            holds=holds,
            deltas={"a": 200, "b": -100},
        )


async def test_loss_larger_than_the_hold_is_refused_and_nothing_moves(
    ledger_service: LedgerService,
) -> None:
    money = GameMoney(ledger_service)
    for p in ("a", "b"):
        await fund(ledger_service, p, 1000)
        await money.hold_stake(
            transfer_id=f"t:{p}",
            player=p,
            game="backgammon",
            table_id="t",
            currency="USD",
            amount=100,
        )
    with pytest.raises(UnbalancedSettlement, match="only 100 was held"):
        await money.settle_game(
            settlement_id="s1",
            game="backgammon",
            table_id="t",
            currency="USD",
            holds={"a": "t:a", "b": "t:b"},
            deltas={"a": 101, "b": -101},
        )
    with pytest.raises(InvalidRequest, match="not 'b'"):
        await money.settle_game(
            settlement_id="s1",
            game="backgammon",
            table_id="t",
            currency="USD",
            holds={"a": "t:a", "b": "t:a"},
            deltas={"a": 1, "b": -1},
        )
    await money.crash_refund_table(table_id="t", game="backgammon", currency="USD")


async def test_rummy_section_10_vector_1_and_5_round_settlement_in_chips(
    ledger_service: LedgerService,
) -> None:
    """Seed 000 §10 vectors 1 and 5: the winner takes the pot plus losers' ratio payments;
    chips carry no commission."""
    money = GameMoney(ledger_service)
    p1 = await fund(ledger_service, "p1", 1000, "CHIP")
    p2 = await fund(ledger_service, "p2", 1000, "CHIP")
    p3 = await fund(ledger_service, "p3", 1000, "CHIP")
    holds = {}
    for p in ("p1", "p2"):
        await money.hold_stake(
            transfer_id=f"r1:{p}",
            player=p,
            game="rummy",
            table_id="rt",
            currency="CHIP",
            amount=1000,
        )
        holds[p] = f"r1:{p}"
    # Vector 1: fee 30 each, ratio 3, Hand, loser {2,2,3} → P1 +126, P2 −126.
    await money.settle_game(
        settlement_id="r1",
        game="rummy",
        table_id="rt",
        currency="CHIP",
        holds=holds,
        deltas={"p1": 60 + 96 - 30, "p2": -(30 + 96)},
        commission=backgammon_rule,
    )
    assert (await balance(ledger_service, p1), await balance(ledger_service, p2)) == (1126, 874)
    # Vector 5: 3 players, fee 30 (pot 90), ratio 3, losers' deadwood 20 and 7 → pay 60 and 21.
    holds = {}
    for p in ("p1", "p2", "p3"):
        await money.hold_stake(
            transfer_id=f"r5:{p}",
            player=p,
            game="rummy",
            table_id="rt",
            currency="CHIP",
            amount=500,
        )
        holds[p] = f"r5:{p}"
    await money.settle_game(
        settlement_id="r5",
        game="rummy",
        table_id="rt",
        currency="CHIP",
        holds=holds,
        deltas={"p1": 171 - 30, "p2": -90, "p3": -51},
    )
    assert await balance(ledger_service, p1) == 1126 + 141
    assert await balance(ledger_service, p2) == 874 - 90
    assert await balance(ledger_service, p3) == 1000 - 51
    assert await balance(ledger_service, "table_escrow:rt:CHIP") == 0


# Seed 000 §10 vectors as round results in chips: (vector, winner's net, loser's net).
RUMMY_ROUNDS = [
    (2, 100, -100),  # Gin: fee 20 each, loser pays 80, winner credited 120
    (3, 50, -50),  # Knock: opponent pays 30, knocker credited 70
    (4, 46, -46),  # Undercut: knocker pays 26, undercutter credited 66
    (8, 154, -154),  # Rummy 500: loser pays 134, winner credited 174
    (9, 100, -100),  # payment limited to the 70 at risk (+ fee 30): loser ends at 0
    (10, 40, -40),  # winner's risk limit (OQ 9 on): loser pays 10, winner credited 70
]


@pytest.mark.parametrize(("vector", "won", "lost"), RUMMY_ROUNDS)
async def test_seed_000_section_10_round_vectors_settle_in_chips(
    ledger_service: LedgerService, vector: int, won: int, lost: int
) -> None:
    money = GameMoney(ledger_service)
    winner = await fund(ledger_service, "w", 1000, "CHIP")
    loser = await fund(ledger_service, "l", 1000, "CHIP")
    table = f"rummy-{vector}"
    for player in ("w", "l"):
        await money.hold_stake(transfer_id=f"{table}:{player}", player=player, game="rummy",
                               table_id=table, currency="CHIP", amount=1000)  # fmt: skip
    await money.settle_game(settlement_id=f"{table}:1", game="rummy", table_id=table,
                            currency="CHIP", holds={"w": f"{table}:w", "l": f"{table}:l"},
                            deltas={"w": won, "l": lost})  # fmt: skip
    assert (await balance(ledger_service, winner), await balance(ledger_service, loser)) == (
        1000 + won,
        1000 + lost,
    )


async def test_tournament_entry_unregister_rebuy_payouts(ledger_service: LedgerService) -> None:
    """Seed 001 ¶24 (fee in the entry price), seed 000 §4 (unregister refund), OQ 2 (rebuy)."""
    money = GameMoney(ledger_service)
    players = {p: await fund(ledger_service, p, 5000) for p in ("a", "b", "c")}
    for p in players:
        await money.register(
            entry_id=f"T1:{p}",
            tournament_id="T1",
            game="rummy",
            player=p,
            currency="USD",
            buy_in=1000,
            fee=100,
        )
    assert await balance(ledger_service, "tournament_pool:T1:USD") == 3000
    assert await balance(ledger_service, "house_commission:rummy:USD") == 300
    again = await money.register(
        entry_id="T1:a",
        tournament_id="T1",
        game="rummy",
        player="a",
        currency="USD",
        buy_in=1000,
        fee=100,
    )
    assert again.replayed
    await money.unregister(entry_id="T1:c", refund_id="T1:c:unregister")
    assert await balance(ledger_service, players["c"]) == 5000
    await money.register(
        entry_id="T1:a:rebuy-1",
        tournament_id="T1",
        game="rummy",
        player="a",
        currency="USD",
        buy_in=1000,
        fee=100,
        rebuy=True,
    )
    assert await balance(ledger_service, "tournament_pool:T1:USD") == 3000
    with pytest.raises(UnbalancedSettlement):  # final payouts must empty the pool
        await money.pay_prizes(
            payout_id="T1:payout",
            tournament_id="T1",
            game="rummy",
            currency="USD",
            prizes={"a": 2000, "b": 500},
        )
    await money.pay_prizes(
        payout_id="T1:payout",
        tournament_id="T1",
        game="rummy",
        currency="USD",
        prizes={"a": 2000, "b": 1000},
    )
    assert await balance(ledger_service, players["a"]) == 5000 - 2200 + 2000
    assert await balance(ledger_service, players["b"]) == 5000 - 1100 + 1000
    assert await balance(ledger_service, "tournament_pool:T1:USD") == 0
    with pytest.raises(InsufficientFunds):
        await money.register(
            entry_id="T2:b",
            tournament_id="T2",
            game="rummy",
            player="b",
            currency="USD",
            buy_in=5000,
            fee=0,
        )


async def test_play_money_tournament_charges_no_fee(ledger_service: LedgerService) -> None:
    money = GameMoney(ledger_service)
    await fund(ledger_service, "a", 5000, "PLAY")
    result = await money.register(
        entry_id="P1:a",
        tournament_id="P1",
        game="poker",
        player="a",
        currency="PLAY",
        buy_in=1000,
        fee=100,
    )
    assert [t.kind for t in result.transfers] == [TransferKind.TOURNAMENT_ENTRY]
    await money.crash_refund_tournament(tournament_id="P1", game="poker", currency="PLAY")


async def test_tournament_crash_refunds_entries_fees_and_rebuys_and_counts_them(
    ledger_service: LedgerService, metrics: PrometheusWalletMetrics
) -> None:
    """Seed 000 rule 44 / OQ 28: buy-in plus every rebuy refunded; the pool ends empty."""
    money = GameMoney(ledger_service)
    players = {p: await fund(ledger_service, p, 5000) for p in ("a", "b", "c")}
    for p in players:
        await money.register(
            entry_id=f"T:{p}",
            tournament_id="T",
            game="rummy",
            player=p,
            currency="USD",
            buy_in=1000,
            fee=100,
        )
    await money.register(
        entry_id="T:a:rebuy",
        tournament_id="T",
        game="rummy",
        player="a",
        currency="USD",
        buy_in=1000,
        fee=100,
        rebuy=True,
    )
    await money.unregister(entry_id="T:c", refund_id="T:c:out")
    refund = await money.crash_refund_tournament(tournament_id="T", game="rummy", currency="USD")
    assert len(refund.refunds) == 6  # a: entry, fee, rebuy, rebuy fee; b: entry, fee
    for account in players.values():
        assert await balance(ledger_service, account) == 5000
    assert await balance(ledger_service, "tournament_pool:T:USD") == 0
    assert await balance(ledger_service, "house_commission:rummy:USD") == 0
    assert metrics.crash_refunds.labels("rummy", "USD")._value.get() == 6
    assert metrics.crash_refunded_minor.labels("rummy", "USD")._value.get() == 3300
    again = await money.crash_refund_tournament(tournament_id="T", game="rummy", currency="USD")
    assert again.replayed and metrics.crash_refunds.labels("rummy", "USD")._value.get() == 6


async def test_table_crash_voids_holds_and_refunds_buy_ins(
    ledger_service: LedgerService, metrics: PrometheusWalletMetrics
) -> None:
    money = GameMoney(ledger_service)
    a = await fund(ledger_service, "a", 5000)
    b = await fund(ledger_service, "b", 5000)
    await money.buy_in(
        transfer_id="t9:a:buyin",
        player="a",
        game="poker",
        table_id="t9",
        currency="USD",
        amount=2000,
    )
    await money.buy_in(
        transfer_id="t9:b:buyin",
        player="b",
        game="poker",
        table_id="t9",
        currency="USD",
        amount=1000,
    )
    await money.cash_out(
        transfer_id="t9:b:out", player="b", game="poker", table_id="t9", currency="USD", amount=400
    )
    await money.hold_stake(
        transfer_id="t9:a:hold", player="a", game="poker", table_id="t9", currency="USD", amount=500
    )
    refund = await money.crash_refund_table(table_id="t9", game="poker", currency="USD")
    assert len(refund.voided) == 1 and len(refund.refunds) == 2
    assert (await balance(ledger_service, a), await balance(ledger_service, b)) == (5000, 5000)
    assert (await ledger_service.account(a)).available == 5000
    assert await balance(ledger_service, "table_escrow:t9:USD") == 0
    assert metrics.crash_refunded_minor.labels("poker", "USD")._value.get() == 2600
    assert (await money.crash_refund_table(table_id="t9", game="poker", currency="USD")).replayed


async def test_no_commission_rule_on_real_money_cash_game(ledger_service: LedgerService) -> None:
    money = GameMoney(ledger_service)
    for p in ("a", "b"):
        await fund(ledger_service, p, 1000)
        await money.hold_stake(
            transfer_id=f"n:{p}", player=p, game="joker", table_id="n", currency="USD", amount=1000
        )
    await money.settle_game(
        settlement_id="n1",
        game="joker",
        table_id="n",
        currency="USD",
        holds={"a": "n:a", "b": "n:b"},
        deltas={"a": 0, "b": 0},
        commission=no_commission,
    )
    assert await balance(ledger_service, "player_cash:a:USD") == 1000
